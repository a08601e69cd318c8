package dashboard

import (
	"net/http"
	"net/netip"
	"strconv"
	"testing"
	"time"
)

var t0 = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

func addr(s string) netip.Addr { return netip.MustParseAddr(s) }

// tries makes n attempts by client at email at now and returns how many
// were let through.
func tries(a *attempts, now time.Time, client netip.Addr, email string, n int) int {
	ok := 0
	for range n {
		if allowed, _ := a.allow(now, client, email); allowed {
			ok++
		}
	}
	return ok
}

func TestAClientIsLimitedWhateverAddressesItTypes(t *testing.T) {
	t.Parallel()
	a := newAttempts(10, 100_000)
	guesser := addr("198.51.100.7")
	for i := range 10 {
		if ok, _ := a.allow(t0, guesser, "user"+strconv.Itoa(i)+"@example.com"); !ok {
			t.Fatalf("attempt %d of 10 refused", i+1)
		}
	}
	ok, wait := a.allow(t0, guesser, "user10@example.com")
	if ok || wait != 6*time.Second {
		t.Fatalf("the 11th attempt within a minute, at a new address: %v, retry after %s; want refused for 6s", ok, wait)
	}
	if n := tries(a, t0.Add(6*time.Second), guesser, "user11@example.com", 2); n != 1 {
		t.Fatalf("6 s later %d attempts were let through; want 1", n)
	}
}

func TestSomeoneGuessingAnAddressDoesNotKeepItsOwnerOut(t *testing.T) {
	t.Parallel()
	a := newAttempts(10, 100_000)
	const owner = "Ops@Example.com"
	// One guesser spends the address's bucket and its own.
	if n := tries(a, t0, addr("203.0.113.1"), "ops@example.com", 20); n != 10 {
		t.Fatalf("one guesser got %d attempts at one address; want 10", n)
	}
	// Others, from many clients, get a few tries each, then one a minute.
	for i := range 50 {
		c := addr("203.0.113." + strconv.Itoa(10+i))
		if n := tries(a, t0, c, owner, 5); n != pairBurst {
			t.Fatalf("guesser %d got %d attempts once the address's bucket was spent; want %d", i, n, pairBurst)
		}
		if ok, wait := a.allow(t0, c, owner); ok || wait != 6*time.Second {
			t.Fatalf("guesser %d: %v, retry after %s; want refused for 6s (the address's next token)", i, ok, wait)
		}
	}
	// The owner, from their own address, still signs in.
	if ok, wait := a.allow(t0, addr("192.0.2.44"), " ops@EXAMPLE.com "); !ok {
		t.Fatalf("the owner was refused for %s while others guessed their address", wait)
	}
	// A minute on, the address's bucket is full again and goes to whoever
	// comes first; past it, each guesser has one more try of its own.
	later := t0.Add(time.Minute)
	if n := tries(a, later, addr("203.0.113.1"), owner, 10); n != 10 {
		t.Fatalf("a minute later the first guesser got %d attempts; want 10", n)
	}
	if n := tries(a, later, addr("203.0.113.10"), owner, 5); n != pairPerMinute {
		t.Fatalf("a minute later another guesser got %d attempts; want %d", n, pairPerMinute)
	}
}

func TestClientsAreAddressesOrIPv6Slash64s(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ a, b string }{
		{"[2001:db8:1:2::1]:443", "[2001:db8:1:2:ffff:ffff:ffff:ffff]:1"},
		{"192.0.2.1:1234", "[::ffff:192.0.2.1]:80"},
		{"192.0.2.1:1234", "192.0.2.1"},
		{"[fe80::1%eth0]:1", "[fe80::2]:1"},
	} {
		if ca, cb := clientOf(&http.Request{RemoteAddr: tc.a}), clientOf(&http.Request{RemoteAddr: tc.b}); ca != cb || !ca.IsValid() {
			t.Errorf("%s is %v and %s is %v; want one client", tc.a, ca, tc.b, cb)
		}
	}
	for _, tc := range []struct{ a, b string }{
		{"[2001:db8:1:2::1]:443", "[2001:db8:1:3::1]:443"},
		{"192.0.2.1:1", "192.0.2.2:1"},
	} {
		if ca, cb := clientOf(&http.Request{RemoteAddr: tc.a}), clientOf(&http.Request{RemoteAddr: tc.b}); ca == cb {
			t.Errorf("%s and %s are both %v; want two clients", tc.a, tc.b, ca)
		}
	}

}

func TestTheLimiterStaysBoundedAndKeepsActiveGuessers(t *testing.T) {
	t.Parallel()
	const maxBuckets = 300
	a := newAttempts(10, maxBuckets)
	offender := addr("198.51.100.66")
	if n := tries(a, t0, offender, "ops@example.com", 11); n != 10 {
		t.Fatalf("the offender got %d attempts; want 10", n)
	}
	// Within the next few seconds, many clients each try a new address:
	// thousands of buckets, each nearly full, over the offender's empty one.
	now := t0
	for i := range 5000 {
		now = t0.Add(time.Duration(i) * time.Millisecond)
		c := netip.AddrFrom4([4]byte{10, byte(i >> 16), byte(i >> 8), byte(i)})
		a.allow(now, c, "user"+strconv.Itoa(i)+"@example.com")
		if n := len(a.full); n > maxBuckets+3 {
			t.Fatalf("after %d attempts the limiter holds %d buckets; want at most %d", i+1, n, maxBuckets+3)
		}
	}
	if ok, _ := a.allow(now, offender, "ops@example.com"); ok {
		t.Fatal("the offender's bucket was dropped for the new addresses: it got another attempt")
	}
	// Buckets that refilled are dropped once the set grows again.
	a.sweep(now.Add(time.Hour))
	if n := len(a.full); n != 0 {
		t.Fatalf("an hour later %d buckets are kept; want none", n)
	}
}
