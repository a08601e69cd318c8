package media

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"syscall"
	"time"

	"code.dny.dev/ssrf"
	"golang.org/x/sync/singleflight"

	"github.com/heraldhq/herald/domain"
	"github.com/heraldhq/herald/ports"
)

// maxRedirects is how many redirects one inspection follows.
const maxRedirects = 3

// Inspector fetches the start of media header resources through an HTTP
// client that refuses to connect to non-public addresses.
type Inspector struct {
	cfg    Config
	policy domain.MediaPolicy
	client *http.Client
	// fetcher reads whole files for automatic upload, through the same
	// guarded transport, with a longer time.
	fetcher *http.Client

	// guarded dials every host that the policy does not exempt; its Control
	// checks the resolved address about to be dialed. plain dials the
	// exempt hosts.
	guarded, plain *net.Dialer

	slots *slots
	group singleflight.Group
	cache *cache
	now   func() time.Time
}

var _ ports.MediaInspector = (*Inspector)(nil)

// errRefused marks a dial that the address guard refused.
var errRefused = errors.New("media: address refused")

// New returns an inspector for cfg, with defaults filled in (see
// Config.WithDefaults).
func New(cfg Config) *Inspector {
	cfg = cfg.WithDefaults()
	// The guard keeps the library's defaults for networks (tcp4 and tcp6)
	// and addresses (IANA's special-purpose registries for IPv4 and IPv6,
	// everything outside IPv6 global unicast, IPv4-mapped addresses
	// included), but allows any port: its default of 80 and 443 would
	// refuse https://cdn.example.com:8443/…, which domain.CheckMediaURL
	// accepts, and what the guard protects is the private address space,
	// which it refuses on every port. Allowed hosts are never seen by the
	// guard, so they may use any port too.
	guard := ssrf.New(ssrf.WithAnyPort())
	i := &Inspector{
		cfg:    cfg,
		policy: cfg.Policy(),
		guarded: &net.Dialer{
			Timeout: cfg.Timeout,
			Control: func(network, address string, c syscall.RawConn) error {
				if err := guard.Safe(network, address, c); err != nil {
					return fmt.Errorf("%w: %w", errRefused, err)
				}
				return nil
			},
		},
		plain: &net.Dialer{Timeout: cfg.Timeout},
		slots: newSlots(cfg.MaxConcurrent, cfg.MaxConcurrentPerWorkspace, cfg.MaxConcurrentPerKey, cfg.SlotWait),
		cache: newCache(cfg.CacheSize),
		now:   time.Now,
	}
	transport := &http.Transport{
		Proxy:                  nil, // never a proxy from the environment: it would dial for us, unguarded
		DialContext:            i.dial,
		TLSHandshakeTimeout:    cfg.Timeout / 2,
		ResponseHeaderTimeout:  cfg.Timeout / 2,
		MaxResponseHeaderBytes: 64 << 10,
		// Sizes are those of the bytes Meta will download, so ask for
		// them unencoded and never let the transport decompress.
		DisableCompression: true,
		MaxIdleConns:       64,
		IdleConnTimeout:    90 * time.Second,
	}
	i.client = &http.Client{
		Transport:     transport,
		Timeout:       cfg.Timeout,
		CheckRedirect: i.checkRedirect,
	}
	i.fetcher = &http.Client{Transport: transport, Timeout: fetchTimeout, CheckRedirect: i.checkRedirect}
	return i
}

// dial picks the dialer for addr, the "host:port" of the URL being fetched
// as written, before any resolution: hosts the policy exempts are dialed
// plainly, every other host through the guard, which checks each address
// the name resolves to when it is dialed.
func (i *Inspector) dial(ctx context.Context, network, addr string) (net.Conn, error) {
	if i.policy.Allows(addr) {
		return i.plain.DialContext(ctx, network, addr)
	}
	return i.guarded.DialContext(ctx, network, addr)
}

// checkRedirect applies the URL rules to every hop; the guard checks the
// address when the hop is dialed.
func (i *Inspector) checkRedirect(req *http.Request, via []*http.Request) error {
	if len(via) > maxRedirects {
		return &domain.Error{Code: domain.CodeMediaUnreachable, Param: "mediaHeaderUrl",
			Detail: "the media server redirected more than " + strconv.Itoa(maxRedirects) + " times"}
	}
	if err := domain.CheckMediaURL(req.URL.String(), i.policy); err != nil {
		why := err.Error()
		var de *domain.Error
		if errors.As(err, &de) {
			why = de.Detail
		}
		return &domain.Error{Code: domain.CodeInvalidMediaURL, Param: "mediaHeaderUrl",
			Detail: "the media header URL redirects to a URL that may not be fetched: " + why}
	}
	return nil
}

// InspectMedia implements ports.MediaInspector. Refusals and failures are
// domain errors (invalid_media_url, media_unreachable) and are cached. What
// depends on this call rather than on the resource is not cached: no slot
// free within Config.SlotWait (media_unreachable, retryable), ctx's deadline
// passing first (media_unreachable), ctx cancelled (its error).
func (i *Inspector) InspectMedia(ctx context.Context, caller domain.Principal, rawURL string, header domain.HeaderFormat) (domain.MediaInfo, error) {
	limit := header.MaxMediaSize()
	if limit == 0 {
		// Not a media header: CheckMedia says so, and nothing is fetched.
		return domain.MediaInfo{}, header.CheckMedia(domain.MediaInfo{})
	}
	// Callers have checked the URL already; checking again costs nothing
	// and keeps this adapter safe on its own.
	if err := domain.CheckMediaURL(rawURL, i.policy); err != nil {
		return domain.MediaInfo{}, err
	}
	key := cacheKey{url: rawURL, header: header}
	if o, ok := i.cache.get(key, i.now()); ok {
		return o.result()
	}
	for {
		// Concurrent misses for one key share the first caller's fetch,
		// which runs in that caller's slot.
		led := false // whether this caller's function ran: only the leader's does
		ch := i.group.DoChan(rawURL+"\x00"+header.String(), func() (any, error) {
			led = true
			if o, ok := i.cache.get(key, i.now()); ok {
				return o, nil
			}
			o, err := i.fetch(ctx, caller, rawURL, limit)
			if err != nil {
				return nil, err // no slot, or ctx ended: not an outcome, not cached
			}
			ttl := i.cfg.CacheTTL
			if o.err != nil {
				ttl = i.cfg.FailureTTL
			}
			i.cache.put(key, o, i.now().Add(ttl))
			return o, nil
		})
		select {
		case <-ctx.Done():
			return domain.MediaInfo{}, ended(ctx)
		case r := <-ch:
			switch {
			case r.Err == nil:
				return r.Val.(outcome).result()
			case ctx.Err() != nil:
				return domain.MediaInfo{}, ended(ctx)
			case led:
				return domain.MediaInfo{}, &domain.RetryableError{After: time.Second, Err: unreachable(
					"the media header could not be checked: too many media checks are running; retry shortly")}
			}
			// The caller whose fetch we shared found no slot or gave up:
			// fetch again, in a slot of our own.
		}
	}
}

// ended is the error of an inspection whose context ended first: when its
// deadline passed, media_unreachable (the resource did not answer in the
// time the request had), otherwise the context's error.
func ended(ctx context.Context) error {
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return unreachable("the media header could not be checked in time: the media server did not answer before the request's time ran out")
	}
	return ctx.Err()
}

// fetch waits for a slot, then fetches the start of rawURL. Its error is
// errNoSlot, or ctx's when ctx ends; every other failure is an outcome.
func (i *Inspector) fetch(ctx context.Context, caller domain.Principal, rawURL string, limit int64) (outcome, error) {
	release, err := i.slots.acquire(ctx, caller)
	if err != nil {
		return outcome{}, err
	}
	defer release()
	fctx, cancel := context.WithTimeout(ctx, i.cfg.Timeout)
	defer cancel()
	info, err := i.get(fctx, rawURL, limit)
	if err == nil {
		return outcome{info: info}, nil
	}
	var de *domain.Error
	switch {
	case errors.As(err, &de):
		return outcome{err: de}, nil
	case errors.Is(err, errRefused):
		// Refused before connecting: nothing here depends on whether
		// anything listens at the address.
		return outcome{err: &domain.Error{Code: domain.CodeInvalidMediaURL, Param: "mediaHeaderUrl",
			Detail: "the media header URL resolves to an address that may not be fetched"}}, nil
	case ctx.Err() != nil:
		return outcome{}, ctx.Err()
	default:
		// One detail for every network failure and timeout, so the answer
		// says nothing about the hosts and ports behind it.
		return outcome{err: &domain.Error{Code: domain.CodeMediaUnreachable, Param: "mediaHeaderUrl",
			Detail: "the resource at the media header URL could not be fetched"}}, nil
	}
}

// get asks for the first domain.MediaSniffLength bytes of rawURL and reads
// no more than limit+1 bytes in all.
func (i *Inspector) get(ctx context.Context, rawURL string, limit int64) (domain.MediaInfo, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, rawURL, nil)
	if err != nil {
		return domain.MediaInfo{}, err
	}
	req.Header.Set("Range", "bytes=0-"+strconv.Itoa(domain.MediaSniffLength-1))
	req.Header.Set("User-Agent", "Herald media inspector")
	resp, err := i.client.Do(req)
	if err != nil {
		return domain.MediaInfo{}, err
	}
	defer resp.Body.Close()

	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return domain.MediaInfo{}, unreachable("the media server answered " +
			strconv.Itoa(resp.StatusCode) + " " + http.StatusText(resp.StatusCode))
	}
	head, err := readHead(resp.Body)
	if err != nil {
		return domain.MediaInfo{}, err
	}
	info := domain.MediaInfo{Format: domain.SniffMediaFormat(head),
		Filename: dispositionFilename(resp.Header.Get("Content-Disposition"))}
	switch {
	case resp.StatusCode == http.StatusPartialContent:
		first, total, ok := parseContentRange(resp.Header.Get("Content-Range"))
		if !ok || first != 0 {
			return domain.MediaInfo{}, unreachable("the media server answered a range request without the resource's size")
		}
		info.Size = total
	case resp.ContentLength >= 0:
		info.Size = resp.ContentLength
	default:
		// No length: count the body, but stop one byte past the limit,
		// which is enough to know the resource is too large.
		n, err := io.Copy(io.Discard, io.LimitReader(resp.Body, limit+1-int64(len(head))))
		if err != nil {
			return domain.MediaInfo{}, err
		}
		info.Size = int64(len(head)) + n
	}
	return info, nil
}

// readHead reads up to domain.MediaSniffLength bytes; a shorter body is
// fine.
func readHead(body io.Reader) ([]byte, error) {
	head := make([]byte, domain.MediaSniffLength)
	n, err := io.ReadFull(body, head)
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		err = nil
	}
	return head[:n], err
}

// parseContentRange reads "bytes FIRST-LAST/TOTAL" (RFC 9110 §14.4); an
// unknown total ("*") is not ok.
func parseContentRange(v string) (first, total int64, ok bool) {
	rest, ok := strings.CutPrefix(v, "bytes ")
	if !ok {
		return 0, 0, false
	}
	span, size, ok := strings.Cut(rest, "/")
	if !ok {
		return 0, 0, false
	}
	firstS, lastS, ok := strings.Cut(span, "-")
	if !ok {
		return 0, 0, false
	}
	first, err1 := strconv.ParseInt(firstS, 10, 64)
	last, err2 := strconv.ParseInt(lastS, 10, 64)
	total, err3 := strconv.ParseInt(size, 10, 64)
	if err1 != nil || err2 != nil || err3 != nil || first < 0 || last < first || total <= last {
		return 0, 0, false
	}
	return first, total, true
}

func unreachable(detail string) *domain.Error {
	return &domain.Error{Code: domain.CodeMediaUnreachable, Param: "mediaHeaderUrl", Detail: detail}
}
