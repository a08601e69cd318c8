package webhookout

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strconv"
	"syscall"
	"time"

	"code.dny.dev/ssrf"

	"github.com/heraldhq/herald/domain"
	"github.com/heraldhq/herald/ports"
)

// Poster posts deliveries through an HTTP client that refuses to connect
// to non-public addresses.
type Poster struct {
	cfg       Config
	policy    domain.WebhookPolicy
	userAgent string
	guard     *ssrf.Guardian
	// guarded dials every host the policy does not exempt; its Control
	// checks the resolved address about to be dialed. plain dials the
	// exempt hosts.
	guarded, plain *net.Dialer
	resolver       *net.Resolver
	transport      *http.Transport
	client         *http.Client
}

var _ ports.EventPoster = (*Poster)(nil)

// errRefused marks a dial that the address guard refused.
var errRefused = errors.New("webhookout: address refused")

// New returns a poster for cfg, with defaults filled in (see
// Config.WithDefaults).
func New(cfg Config) *Poster {
	cfg = cfg.WithDefaults()
	// As in adapters/media: the library's default networks (tcp4, tcp6)
	// and address registries, but any port, since an endpoint may listen
	// on any; the private address space is refused on every port.
	guard := ssrf.New(ssrf.WithAnyPort())
	p := &Poster{
		cfg:       cfg,
		policy:    cfg.Policy(),
		userAgent: "Herald-Webhooks/" + cfg.Version,
		guard:     guard,
		guarded: &net.Dialer{
			Timeout: cfg.Timeout,
			Control: func(network, address string, c syscall.RawConn) error {
				if err := guard.Safe(network, address, c); err != nil {
					return fmt.Errorf("%w: %w", errRefused, err)
				}
				return nil
			},
		},
		plain:    &net.Dialer{Timeout: cfg.Timeout},
		resolver: net.DefaultResolver,
	}
	p.transport = &http.Transport{
		Proxy:                  nil, // never a proxy from the environment: it would dial for us, unguarded
		DialContext:            p.dial,
		ForceAttemptHTTP2:      true, // a custom dialer turns HTTP/2 off unless asked for
		TLSHandshakeTimeout:    cfg.Timeout,
		MaxResponseHeaderBytes: 64 << 10,
		DisableCompression:     true, // the head kept is the bytes the endpoint sent
		MaxIdleConns:           4 * cfg.MaxIdleConnsPerHost,
		MaxIdleConnsPerHost:    cfg.MaxIdleConnsPerHost,
		IdleConnTimeout:        90 * time.Second,
	}
	p.client = &http.Client{
		Transport: p.transport,
		// A redirect is the attempt's answer: following it would post
		// the event somewhere its owner did not register.
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
	return p
}

// CloseIdleConnections closes the connections kept for reuse.
func (p *Poster) CloseIdleConnections() { p.transport.CloseIdleConnections() }

// dial picks the dialer for addr, the "host:port" of the URL as written,
// before any resolution: hosts the policy exempts are dialed plainly,
// every other host through the guard, which checks each address the name
// resolves to when it is dialed.
func (p *Poster) dial(ctx context.Context, network, addr string) (net.Conn, error) {
	if p.policy.Allows(addr) {
		return p.plain.DialContext(ctx, network, addr)
	}
	return p.guarded.DialContext(ctx, network, addr)
}

// CheckURL implements ports.EventPoster.
func (p *Poster) CheckURL(ctx context.Context, rawURL string) error {
	if err := domain.CheckWebhookURL(rawURL, p.policy); err != nil {
		return err
	}
	u, err := url.Parse(rawURL)
	if err != nil {
		return err // CheckWebhookURL parsed it already
	}
	port := u.Port()
	if port == "" {
		port = map[string]string{"http": "80", "https": "443"}[u.Scheme]
	}
	if p.policy.Allows(net.JoinHostPort(u.Hostname(), port)) {
		return nil
	}
	refused := &domain.Error{Code: domain.CodeInvalidWebhookURL, Param: "url",
		Detail: "the webhook URL's host resolves to an address that may not be called (loopback, private, link-local or otherwise not public)"}
	if addr, err := netip.ParseAddr(u.Hostname()); err == nil {
		if p.guard.SafeAddr(addr) != nil {
			return refused
		}
		return nil
	}
	lctx, cancel := context.WithTimeout(ctx, p.cfg.Timeout)
	defer cancel()
	addrs, err := p.resolver.LookupNetIP(lctx, "ip", u.Hostname())
	if err != nil {
		return nil // not resolvable now: the attempts will say so
	}
	for _, a := range addrs {
		if p.guard.SafeAddr(a.Unmap()) != nil {
			return refused
		}
	}
	return nil
}

// Post implements ports.EventPoster.
func (p *Poster) Post(ctx context.Context, r ports.WebhookRequest) (ports.PostResult, error) {
	start := time.Now()
	if err := domain.CheckWebhookURL(r.URL, p.policy); err != nil {
		why := err.Error()
		var de *domain.Error
		if errors.As(err, &de) {
			why = de.Detail
		}
		return ports.PostResult{Duration: time.Since(start)}, errors.New("the URL may not be called: " + why)
	}
	actx, cancel := context.WithTimeout(ctx, p.cfg.Timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(actx, http.MethodPost, r.URL, bytes.NewReader(r.Body))
	if err != nil {
		return ports.PostResult{Duration: time.Since(start)}, errors.New("the URL may not be called: " + err.Error())
	}
	// The specification writes the header names in lowercase; HTTP/1.1
	// sends them as set here, HTTP/2 always lowercase.
	req.Header["webhook-id"] = []string{string(r.ID)}
	req.Header["webhook-timestamp"] = []string{strconv.FormatInt(r.Timestamp.Unix(), 10)}
	req.Header["webhook-signature"] = []string{r.Signature}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", p.userAgent)

	resp, err := p.client.Do(req)
	if err != nil {
		return ports.PostResult{Duration: time.Since(start)}, p.explain(ctx, err)
	}
	defer resp.Body.Close()
	// The status decides the attempt; a body cut short or slow to come
	// keeps what arrived.
	head, _ := io.ReadAll(io.LimitReader(resp.Body, domain.MaxResponseHead))
	res := ports.PostResult{Status: resp.StatusCode, Duration: time.Since(start), ResponseHead: head}
	// Read a bounded rest so the connection can be reused; a longer body
	// is left, and Close drops the connection.
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, p.cfg.MaxDrain))
	return res, nil
}

// explain turns a failed request into the attempt's error: what a
// customer reading the attempt needs, without the URL (they have it).
func (p *Poster) explain(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return fmt.Errorf("the attempt was cut short: %w", ctx.Err())
	}
	var (
		dnsErr  *net.DNSError
		certErr *tls.CertificateVerificationError
		unknown x509.UnknownAuthorityError
		hostErr x509.HostnameError
		invalid x509.CertificateInvalidError
		recErr  tls.RecordHeaderError
		netErr  net.Error
		opErr   *net.OpError
	)
	switch {
	case errors.Is(err, errRefused):
		return errors.New("the URL's host resolves to an address that may not be called (loopback, private, link-local or otherwise not public)")
	case errors.Is(err, context.DeadlineExceeded) || (errors.As(err, &netErr) && netErr.Timeout()):
		return fmt.Errorf("no answer within %v", p.cfg.Timeout)
	case errors.As(err, &dnsErr):
		return errors.New("the host name could not be resolved: " + dnsErr.Err)
	case errors.As(err, &certErr), errors.As(err, &unknown), errors.As(err, &hostErr), errors.As(err, &invalid):
		return errors.New("the endpoint's TLS certificate was refused: " + innermost(err))
	case errors.As(err, &recErr):
		return errors.New("the TLS handshake failed: the endpoint did not answer in TLS (is it http?)")
	case errors.As(err, &opErr) && opErr.Op == "dial":
		return errors.New("could not connect: " + innermost(err))
	}
	return errors.New("the request failed: " + innermost(err))
}

// innermost is the text of err without the wrappers that name the request
// (url.Error's method and URL) or the connection's addresses.
func innermost(err error) string {
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	var oe *net.OpError
	if errors.As(err, &oe) && oe.Err != nil {
		err = oe.Err
	}
	return err.Error()
}
