package dashboard

import (
	"hash/maphash"
	"net/http"
	"net/netip"
	"slices"
	"strings"
	"sync"
	"time"
)

// attempts limits sign-in attempts with token buckets:
//
//   - each client (an IPv4 address, or an IPv6 /64, which one client
//     commonly holds whole) may try perMin times a minute, at once or spread
//     out, whichever email addresses it types;
//   - each email address may be tried perMin times a minute over all
//     clients;
//   - once an email address's bucket is empty, each client may still try
//     it pairBurst times, then pairPerMinute a minute: the (address, client)
//     pair's own bucket.
//
// So someone who knows an operator's email address cannot keep the operator
// out: the operator, from a client that has not been guessing, still gets
// its own tries. Guessing from many clients at once is slowed to a few
// tries per client a minute once the address's bucket is spent.
//
// A bucket is stored as the moment it will be full again; a bucket that has
// refilled is the same as one never used, so those are dropped when the set
// has grown. If the set still holds more than maxBuckets, the buckets
// nearest to full go first: a client that keeps failing stays emptier than
// any email address typed once, so rotating addresses cannot push out the
// bucket that holds it back.
type attempts struct {
	perMin     int
	maxBuckets int
	seed       maphash.Seed

	mu      sync.Mutex
	full    map[bucketKey]time.Time
	sweepAt int // sweep when the set reaches this size
}

// pairBurst and pairPerMinute are each (email address, client) pair's
// tries once the address's own bucket is empty.
const (
	pairBurst     = 3
	pairPerMinute = 1
)

// bucketKey names a bucket. Email addresses are kept as a keyed hash of
// their lower-cased form, so a bucket has a fixed size whatever is typed.
type bucketKey struct {
	kind   bucketKind
	email  uint64
	client netip.Addr
}

type bucketKind uint8

const (
	clientBucket bucketKind = iota + 1
	emailBucket
	pairBucket
)

func newAttempts(perMinute, maxBuckets int) *attempts {
	return &attempts{perMin: perMinute, maxBuckets: maxBuckets, seed: maphash.MakeSeed(),
		full: map[bucketKey]time.Time{}, sweepAt: min(1024, maxBuckets)}
}

// shape is a bucket kind's size and the time it takes to regain one token.
func (a *attempts) shape(k bucketKind) (burst int, every time.Duration) {
	if k == pairBucket {
		return pairBurst, time.Minute / pairPerMinute
	}
	return a.perMin, time.Minute / time.Duration(a.perMin)
}

// wait is how long until k's bucket holds a token, 0 when it does now.
func (a *attempts) wait(k bucketKey, now time.Time) time.Duration {
	burst, every := a.shape(k.kind)
	full, ok := a.full[k]
	if !ok || !full.After(now) {
		return 0
	}
	return max(0, full.Add(every).Sub(now)-time.Duration(burst)*every)
}

// spend takes a token from k's bucket, which holds one.
func (a *attempts) spend(k bucketKey, now time.Time) {
	_, every := a.shape(k.kind)
	full, ok := a.full[k]
	if !ok || full.Before(now) {
		full = now
	}
	a.full[k] = full.Add(every)
}

// allow counts an attempt by client at email, or says how long until one
// would be let through.
func (a *attempts) allow(now time.Time, client netip.Addr, email string) (bool, time.Duration) {
	h := maphash.String(a.seed, strings.ToLower(strings.TrimSpace(email)))
	c := bucketKey{kind: clientBucket, client: client}
	e := bucketKey{kind: emailBucket, email: h}
	p := bucketKey{kind: pairBucket, email: h, client: client}
	a.mu.Lock()
	defer a.mu.Unlock()
	cw, ew := a.wait(c, now), a.wait(e, now)
	var pw time.Duration
	if ew > 0 {
		pw = a.wait(p, now)
	}
	if cw > 0 || (ew > 0 && pw > 0) {
		return false, max(cw, min(ew, pw))
	}
	a.spend(c, now)
	if ew == 0 {
		a.spend(e, now)
	} else {
		a.spend(p, now)
	}
	if len(a.full) >= a.sweepAt {
		a.sweep(now)
	}
	return true, 0
}

// sweep drops the buckets that have refilled and, if the set is still over
// maxBuckets, those nearest to full, down to nine tenths of it.
func (a *attempts) sweep(now time.Time) {
	for k, full := range a.full {
		if !full.After(now) {
			delete(a.full, k)
		}
	}
	if over := len(a.full) - a.maxBuckets; over > 0 {
		type entry struct {
			k    bucketKey
			full time.Time
		}
		all := make([]entry, 0, len(a.full))
		for k, full := range a.full {
			all = append(all, entry{k, full})
		}
		slices.SortFunc(all, func(x, y entry) int { return x.full.Compare(y.full) })
		for _, e := range all[:over+a.maxBuckets/10] {
			delete(a.full, e.k)
		}
	}
	a.sweepAt = min(a.maxBuckets, max(1024, 2*len(a.full)))
}

// clientOf names the client of a request for the limiter: its address,
// or for IPv6 its /64. It reads r.RemoteAddr, which the HTTP server sets
// to the real client behind a trusted proxy. The API's limiter counts
// clients the same way; the rule is repeated here rather than shared, so
// neither adapter imports the other.
func clientOf(r *http.Request) netip.Addr {
	var addr netip.Addr
	if ap, err := netip.ParseAddrPort(r.RemoteAddr); err == nil {
		addr = ap.Addr()
	} else if a, err := netip.ParseAddr(r.RemoteAddr); err == nil {
		addr = a
	}
	addr = addr.Unmap().WithZone("")
	if addr.Is6() {
		p, _ := addr.Prefix(64)
		return p.Addr()
	}
	return addr
}
