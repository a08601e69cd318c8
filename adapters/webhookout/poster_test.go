package webhookout_test

import (
	"bytes"
	"context"
	"crypto/x509"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"

	"github.com/heraldhq/herald/adapters/webhookout"
	"github.com/heraldhq/herald/domain"
	"github.com/heraldhq/herald/ports"
	"github.com/heraldhq/herald/test/hookreceiver"
)

var (
	keyA = bytes.Repeat([]byte{0xa1}, domain.WebhookSecretSize)
	keyB = bytes.Repeat([]byte{0xb2}, domain.WebhookSecretSize)
)

// local is a poster allowed to reach loopback receivers over http.
func local(t *testing.T, cfg webhookout.Config) *webhookout.Poster {
	t.Helper()
	cfg.AllowHTTP = true
	cfg.AllowedHosts = append(cfg.AllowedHosts, "127.0.0.1")
	p := webhookout.New(cfg)
	t.Cleanup(p.CloseIdleConnections)
	return p
}

// request is a delivery of a message.delivered event to url, signed now
// with secrets by domain.SignWebhook.
func request(t *testing.T, url string, secrets ...domain.EndpointSecret) ports.WebhookRequest {
	t.Helper()
	now := time.Now()
	id := domain.EventID(domain.NewID(domain.PrefixEvent, now, [10]byte{7}))
	e, err := domain.NewEvent(id, "wsp_1", domain.ModeLive, domain.EventMessageDelivered, "msg_1",
		[]byte(`{"id":"msg_1","status":"delivered","body":"Olá & <bem-vindo>"}`), now)
	if err != nil {
		t.Fatal(err)
	}
	if len(secrets) == 0 {
		secrets = []domain.EndpointSecret{{Key: keyA, CreatedAt: now}}
	}
	return ports.WebhookRequest{URL: url, ID: e.ID, Timestamp: now, Signature: domain.SignWebhook(secrets, e.ID, now, e.Body), Body: e.Body}
}

// TestPostDelivers: a delivery reaches a receiver written from the
// specification, which verifies it, with Herald's headers; the answer's
// status and body come back.
func TestPostDelivers(t *testing.T) {
	t.Parallel()
	r := hookreceiver.New(t, domain.FormatWebhookSecret(keyA))
	r.Script(hookreceiver.Answer{Status: 202, Body: `{"ok":true}`})
	p := local(t, webhookout.Config{Version: "1.4.0"})
	req := request(t, r.URL+"/hooks/herald?src=1")
	res, err := p.Post(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != 202 || string(res.ResponseHead) != `{"ok":true}` || res.Duration <= 0 {
		t.Fatalf("Post = %+v", res)
	}
	d := r.Deliveries()[0]
	if !d.Verified {
		t.Fatalf("the receiver refused the delivery: %s", d.Problem)
	}
	if d.Path != "/hooks/herald" || d.ID != string(req.ID) || !bytes.Equal(d.Body, req.Body) || d.Type != "message.delivered" {
		t.Errorf("delivered %+v", d)
	}
	if ua := d.Header.Get("User-Agent"); ua != "Herald-Webhooks/1.4.0" {
		t.Errorf("User-Agent %q", ua)
	}
	if ct := d.Header.Get("Content-Type"); ct != "application/json" {
		t.Errorf("Content-Type %q", ct)
	}
	if ts := d.Header.Get("webhook-timestamp"); ts != strconv.FormatInt(req.Timestamp.Unix(), 10) {
		t.Errorf("webhook-timestamp %q, want %d", ts, req.Timestamp.Unix())
	}
}

// TestPostDuringRotation: while two secrets sign, a receiver holding
// either one accepts the delivery.
func TestPostDuringRotation(t *testing.T) {
	t.Parallel()
	now := time.Now()
	expires := now.Add(24 * time.Hour)
	secrets := []domain.EndpointSecret{{Key: keyB, CreatedAt: now}, {Key: keyA, CreatedAt: now.Add(-time.Hour), ExpiresAt: &expires}}
	p := local(t, webhookout.Config{})
	for _, held := range [][]byte{keyA, keyB} {
		r := hookreceiver.New(t, domain.FormatWebhookSecret(held))
		if _, err := p.Post(context.Background(), request(t, r.URL, secrets...)); err != nil {
			t.Fatal(err)
		}
		if d := r.Deliveries()[0]; !d.Verified || len(d.Signatures) != 2 {
			t.Errorf("a receiver holding one of two secrets: verified %v (%s), %d signatures", d.Verified, d.Problem, len(d.Signatures))
		}
	}
}

// TestPostVerifiedByTheReferenceLibrary: the official Standard Webhooks
// library accepts what Herald signs and sends (a cross-check of
// domain.SignWebhook and the headers).
func TestPostVerifiedByTheReferenceLibrary(t *testing.T) {
	t.Parallel()
	wh, err := standardwebhooks.NewWebhook(domain.FormatWebhookSecret(keyA))
	if err != nil {
		t.Fatal(err)
	}
	var verified atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var body bytes.Buffer
		_, _ = body.ReadFrom(r.Body)
		if err := wh.Verify(body.Bytes(), r.Header); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		verified.Add(1)
		w.WriteHeader(http.StatusNoContent)
	}))
	t.Cleanup(srv.Close)
	p := local(t, webhookout.Config{})
	now := time.Now()
	expires := now.Add(time.Hour)
	// The reference library's secret is the older of two: it must find
	// its signature among several.
	res, err := p.Post(context.Background(), request(t, srv.URL, domain.EndpointSecret{Key: keyB, CreatedAt: now},
		domain.EndpointSecret{Key: keyA, CreatedAt: now.Add(-time.Hour), ExpiresAt: &expires}))
	if err != nil || res.Status != http.StatusNoContent || verified.Load() != 1 {
		t.Fatalf("Post = %+v, %v (%s); verified %d", res, err, res.ResponseHead, verified.Load())
	}
}

// TestPostOverTLS: https endpoints are verified against the trusted roots;
// an untrusted certificate is an attempt error saying so.
func TestPostOverTLS(t *testing.T) {
	t.Parallel()
	r := hookreceiver.NewTLS(t, domain.FormatWebhookSecret(keyA))
	strict := webhookout.New(webhookout.Config{AllowedHosts: []string{"127.0.0.1"}})
	t.Cleanup(strict.CloseIdleConnections)
	if _, err := strict.Post(context.Background(), request(t, r.URL)); err == nil || !strings.Contains(err.Error(), "TLS certificate was refused") {
		t.Fatalf("an untrusted certificate: %v", err)
	}
	pool := x509.NewCertPool()
	pool.AddCert(r.Certificate())
	strict.SetRootCAs(pool)
	res, err := strict.Post(context.Background(), request(t, r.URL))
	if err != nil || res.Status != 200 {
		t.Fatalf("a trusted certificate: %+v, %v", res, err)
	}
	if got := r.Succeeded(); len(got) != 1 {
		t.Fatalf("the receiver counted %v", got)
	}
	// Plain http is refused unless allowed, before anything is sent.
	plain := hookreceiver.New(t, domain.FormatWebhookSecret(keyA))
	if _, err := strict.Post(context.Background(), request(t, plain.URL)); err == nil || !strings.Contains(err.Error(), "must use https") {
		t.Fatalf("http without AllowHTTP: %v", err)
	}
	if plain.Count() != 0 {
		t.Fatal("the http receiver got a request")
	}
}

// TestPostAnswers: every status is the attempt's answer, redirects
// included, which are never followed.
func TestPostAnswers(t *testing.T) {
	t.Parallel()
	for _, a := range []hookreceiver.Answer{
		{Status: 500, Body: "internal error"},
		{Status: 503},
		{Status: 410, Body: "gone"},
		{Status: 429},
		{Status: 204},
		{Status: 301, Location: "/moved"},
		{Status: 302, Location: "http://127.0.0.1:1/elsewhere"},
		{Status: 307, Location: "/temporary"},
		{Status: 308, Location: "/permanent"},
	} {
		r := hookreceiver.New(t, domain.FormatWebhookSecret(keyA))
		r.Script(a)
		p := local(t, webhookout.Config{})
		res, err := p.Post(context.Background(), request(t, r.URL+"/hook"))
		if err != nil || res.Status != a.Status || string(res.ResponseHead) != a.Body {
			t.Errorf("answer %d: Post = %d %q, %v", a.Status, res.Status, res.ResponseHead, err)
		}
		if n := r.Count(); n != 1 {
			t.Errorf("answer %d: the receiver got %d requests, want 1 (a redirect is not followed)", a.Status, n)
		}
	}
}

// TestPostTimesOut: an endpoint that never answers is given up on at the
// timeout, and the error says so; a context that ends first is reported
// as such.
func TestPostTimesOut(t *testing.T) {
	t.Parallel()
	r := hookreceiver.New(t, domain.FormatWebhookSecret(keyA))
	r.Script(hookreceiver.Answer{Hang: true}, hookreceiver.Answer{Hang: true})
	const timeout = 300 * time.Millisecond
	p := local(t, webhookout.Config{Timeout: timeout})
	res, err := p.Post(context.Background(), request(t, r.URL))
	if err == nil || err.Error() != "no answer within 300ms" || res.Duration < timeout {
		t.Fatalf("a hanging endpoint: %+v, %v", res, err)
	}
	if errors.Is(err, context.DeadlineExceeded) {
		t.Error("the endpoint's timeout reads as the caller's context ending")
	}
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		r.WaitFor(t, 2, 5*time.Second)
		cancel()
	}()
	_, err = webhookout.New(webhookout.Config{AllowHTTP: true, AllowedHosts: []string{"127.0.0.1"}}).Post(ctx, request(t, r.URL))
	if !errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), "cut short") {
		t.Fatalf("a cancelled attempt: %v", err)
	}
}

// TestPostKeepsTheHead: the first KiB of the answer is kept; the
// connection is reused after answers the poster can drain, and dropped
// after longer ones.
func TestPostKeepsTheHead(t *testing.T) {
	t.Parallel()
	var conns atomic.Int32
	long := bytes.Repeat([]byte("0123456789abcdef"), 8<<10) // 128 KiB
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := 5000
		if r.URL.Path == "/long" {
			n = len(long)
		}
		w.WriteHeader(200)
		_, _ = w.Write(long[:n])
	}))
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			conns.Add(1)
		}
	}
	srv.Start()
	t.Cleanup(srv.Close)
	p := local(t, webhookout.Config{MaxDrain: 8 << 10})
	for i := range 5 {
		res, err := p.Post(context.Background(), request(t, srv.URL+"/short"))
		if err != nil || len(res.ResponseHead) != domain.MaxResponseHead || !bytes.Equal(res.ResponseHead, long[:1024]) {
			t.Fatalf("post %d: %d bytes of head, %v", i, len(res.ResponseHead), err)
		}
	}
	if n := conns.Load(); n != 1 {
		t.Errorf("5 posts with short answers used %d connections, want 1", n)
	}
	for range 3 {
		if _, err := p.Post(context.Background(), request(t, srv.URL+"/long")); err != nil {
			t.Fatal(err)
		}
	}
	// The first long answer came on the kept connection; each long
	// answer drops the connection it came on, so the next dials anew.
	if n := conns.Load(); n != 3 {
		t.Errorf("3 posts with answers longer than MaxDrain after the short ones: %d connections in all, want 3", n)
	}
}

// TestPostKeepsConnectionsForBursts: after a burst of concurrent
// attempts to one host, the connections are kept, so the next burst
// dials none (Go's default keeps two per host and would dial again for
// almost every attempt).
func TestPostKeepsConnectionsForBursts(t *testing.T) {
	t.Parallel()
	const burst = 40
	var conns atomic.Int32
	var round atomic.Pointer[barrier]
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		round.Load().wait() // every attempt of the burst is in flight at once
		w.WriteHeader(204)
	}))
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			conns.Add(1)
		}
	}
	srv.Start()
	t.Cleanup(srv.Close)
	p := local(t, webhookout.Config{})
	for i := range 2 {
		round.Store(newBarrier(burst))
		errs := make(chan error, burst)
		for range burst {
			go func() {
				res, err := p.Post(context.Background(), request(t, srv.URL))
				if err == nil && res.Status != 204 {
					err = errors.New("status " + strconv.Itoa(res.Status))
				}
				errs <- err
			}()
		}
		for range burst {
			if err := <-errs; err != nil {
				t.Fatalf("burst %d: %v", i, err)
			}
		}
	}
	if n := conns.Load(); n != burst {
		t.Fatalf("two bursts of %d concurrent attempts opened %d connections, want %d", burst, n, burst)
	}
}

// barrier releases its waiters once n have arrived.
type barrier struct {
	n       int32
	arrived atomic.Int32
	all     chan struct{}
}

func newBarrier(n int32) *barrier { return &barrier{n: n, all: make(chan struct{})} }

func (b *barrier) wait() {
	if b.arrived.Add(1) == b.n {
		close(b.all)
	}
	<-b.all
}
