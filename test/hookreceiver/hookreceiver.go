// Package hookreceiver is a webhook receiver for tests, written from the
// Standard Webhooks specification (v1.0.0), not from the code that signs:
// a loopback HTTP server that verifies every delivery as a careful
// consumer would, records it, and answers as scripted — successes, 5xx,
// 410 Gone, redirects, or no answer at all until the sender gives up.
//
// Verification, per the specification's "Verifying webhooks": the
// webhook-id, webhook-timestamp and webhook-signature headers are present;
// the timestamp is an integer within the tolerance of the receiver's
// clock; the signed content is "{webhook-id}.{webhook-timestamp}.{body}",
// with the body's raw bytes; the key of a "whsec_" secret is the base64
// decoding of what follows the prefix; the expected signature is the
// base64 of the HMAC-SHA256 of the signed content; and the delivery is
// authentic when any of the space-separated "v1,<signature>" entries
// equals it (compared in constant time; other versions are skipped). The
// receiver also holds Herald's own promises: a POST of application/json
// whose body is a JSON object with "type", "timestamp" and "data".
// Deliveries that fail verification are recorded with the reason and
// answered 400, as a consumer would.
package hookreceiver

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// DefaultTolerance is how far a delivery's timestamp may be from the
// receiver's clock, the specification's suggestion (and the libraries'
// default).
const DefaultTolerance = 5 * time.Minute

// Answer is what the receiver answers to one authentic delivery.
type Answer struct {
	Status   int    // 0 means 200
	Body     string // the answer's body
	Location string // sent as Location, for a redirect
	// Hang never answers: the handler waits until the sender gives up
	// (its request ends) or the receiver closes.
	Hang bool
}

// Delivery is one request the receiver got.
type Delivery struct {
	Path      string
	Header    http.Header
	ID        string // webhook-id
	Timestamp string // webhook-timestamp, as sent
	// Signatures are the entries of webhook-signature, as sent.
	Signatures []string
	Body       []byte
	// Type is the body's "type", when the body is an event.
	Type string
	// Verified says the delivery is authentic and well formed; Problem
	// says why not, otherwise.
	Verified bool
	Problem  string
	// Answered is the status the receiver answered, 0 for a hang.
	Answered int
	At       time.Time // when it arrived, by the receiver's clock
}

// TB is what the receiver needs of its caller: a *testing.T or
// *testing.B, or a program's stand-in (the load run serves a receiver
// outside any test).
type TB interface {
	Helper()
	Cleanup(func())
	Fatalf(format string, args ...any)
}

// Stats counts what a receiver got.
type Stats struct {
	Received    int            // every request
	Verified    int            // the authentic, well-formed deliveries
	Answered2xx int            // of those, the ones answered 2xx
	Types       map[string]int // the verified deliveries by event type
}

// Receiver is the loopback receiver. Its methods are safe for concurrent
// use.
type Receiver struct {
	// URL is the server's base URL; deliveries may go to any path.
	URL string

	srv  *httptest.Server
	quit chan struct{}

	mu         sync.Mutex
	keys       [][]byte
	tolerance  time.Duration
	now        func() time.Time
	script     []Answer
	fallback   func(Delivery) Answer
	deliveries []Delivery
	lean       bool          // keep counts only (Lean)
	stats      Stats         // counted whether lean or not
	changed    chan struct{} // closed at each new delivery, then replaced
}

// New starts a plain http receiver that accepts deliveries signed with
// any of secrets ("whsec_…"), and closes it when the test ends.
func New(t TB, secrets ...string) *Receiver {
	t.Helper()
	return start(t, false, secrets)
}

// NewTLS starts an https receiver (httptest's certificate for 127.0.0.1;
// see Certificate).
func NewTLS(t TB, secrets ...string) *Receiver {
	t.Helper()
	return start(t, true, secrets)
}

func start(t TB, tls bool, secrets []string) *Receiver {
	t.Helper()
	r := &Receiver{quit: make(chan struct{}), tolerance: DefaultTolerance, now: time.Now, changed: make(chan struct{}),
		stats: Stats{Types: map[string]int{}}}
	r.SetSecrets(t, secrets...)
	if tls {
		r.srv = httptest.NewTLSServer(http.HandlerFunc(r.serve))
	} else {
		r.srv = httptest.NewServer(http.HandlerFunc(r.serve))
	}
	r.URL = r.srv.URL
	t.Cleanup(func() {
		close(r.quit) // releases hanging handlers, which Close waits for
		r.srv.Close()
	})
	return r
}

// Certificate is the https receiver's certificate, for a client's root
// pool; nil for a plain http receiver.
func (r *Receiver) Certificate() *x509.Certificate {
	if r.srv.TLS == nil {
		return nil
	}
	return r.srv.Certificate()
}

// SetSecrets replaces the secrets deliveries may be signed with, as a
// consumer does when its sender rotates (whsec_ and the base64 of the key).
func (r *Receiver) SetSecrets(t TB, secrets ...string) {
	t.Helper()
	keys := make([][]byte, 0, len(secrets))
	for _, s := range secrets {
		key, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(s, "whsec_"))
		if err != nil {
			t.Fatalf("hookreceiver: secret %q is not whsec_ and base64: %v", s, err)
		}
		keys = append(keys, key)
	}
	r.mu.Lock()
	r.keys = keys
	r.mu.Unlock()
}

// SetClock replaces the clock the timestamp is checked against, and the
// tolerance (DefaultTolerance when zero).
func (r *Receiver) SetClock(now func() time.Time, tolerance time.Duration) {
	if tolerance <= 0 {
		tolerance = DefaultTolerance
	}
	r.mu.Lock()
	r.now, r.tolerance = now, tolerance
	r.mu.Unlock()
}

// Script queues answers to the next authentic deliveries, one each, in
// order; after them the fallback answers (SetFallback), or 200.
func (r *Receiver) Script(answers ...Answer) {
	r.mu.Lock()
	r.script = append(r.script, answers...)
	r.mu.Unlock()
}

// SetFallback answers the authentic deliveries the script does not.
func (r *Receiver) SetFallback(f func(Delivery) Answer) {
	r.mu.Lock()
	r.fallback = f
	r.mu.Unlock()
}

// Lean makes the receiver keep counts only from now on, for load runs of
// hundreds of thousands of deliveries: Deliveries, Succeeded and WaitFor
// no longer see new requests; Count and Stats do.
func (r *Receiver) Lean() {
	r.mu.Lock()
	r.lean = true
	r.mu.Unlock()
}

// Stats counts the requests received so far.
func (r *Receiver) Stats() Stats {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := r.stats
	out.Types = make(map[string]int, len(r.stats.Types))
	for k, v := range r.stats.Types {
		out.Types[k] = v
	}
	return out
}

// Deliveries returns every request received so far, in arrival order.
func (r *Receiver) Deliveries() []Delivery {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]Delivery(nil), r.deliveries...)
}

// Count is the number of requests received so far.
func (r *Receiver) Count() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.stats.Received
}

// Succeeded counts, per webhook-id, the authentic deliveries answered
// 2xx: how many times each event was delivered.
func (r *Receiver) Succeeded() map[string]int {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := map[string]int{}
	for _, d := range r.deliveries {
		if d.Verified && d.Answered >= 200 && d.Answered <= 299 {
			out[d.ID]++
		}
	}
	return out
}

// WaitFor waits until at least n requests have been received and returns
// them all; the test fails if they have not after timeout.
func (r *Receiver) WaitFor(t testing.TB, n int, timeout time.Duration) []Delivery {
	t.Helper()
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	for {
		r.mu.Lock()
		if len(r.deliveries) >= n {
			out := append([]Delivery(nil), r.deliveries...)
			r.mu.Unlock()
			return out
		}
		changed, got := r.changed, len(r.deliveries)
		r.mu.Unlock()
		select {
		case <-changed:
		case <-deadline.C:
			t.Fatalf("hookreceiver: %d requests after %v, want %d", got, timeout, n)
			return nil
		}
	}
}

// serve verifies, records and answers one request.
func (r *Receiver) serve(w http.ResponseWriter, req *http.Request) {
	body, err := io.ReadAll(io.LimitReader(req.Body, 4<<20))
	r.mu.Lock()
	now, tolerance, keys := r.now(), r.tolerance, r.keys
	r.mu.Unlock()
	d := Delivery{Path: req.URL.Path, Header: req.Header.Clone(), Body: body, At: now,
		ID: req.Header.Get("webhook-id"), Timestamp: req.Header.Get("webhook-timestamp")}
	if sig := req.Header.Get("webhook-signature"); sig != "" {
		d.Signatures = strings.Split(sig, " ")
	}
	if err != nil {
		d.Problem = "reading the body: " + err.Error()
	} else {
		d.Problem = check(req, &d, keys, now, tolerance)
	}
	d.Verified = d.Problem == ""

	var a Answer
	if !d.Verified {
		a = Answer{Status: http.StatusBadRequest, Body: d.Problem}
	} else {
		r.mu.Lock()
		switch {
		case len(r.script) > 0:
			a, r.script = r.script[0], r.script[1:]
		case r.fallback != nil:
			a = r.fallback(d)
		}
		r.mu.Unlock()
	}
	if a.Status == 0 && !a.Hang {
		a.Status = http.StatusOK
	}
	if !a.Hang {
		d.Answered = a.Status
	}
	r.record(d)
	if a.Hang {
		select {
		case <-req.Context().Done():
		case <-r.quit:
		}
		// No answer at all, not even the one a returning handler makes.
		panic(http.ErrAbortHandler)
	}
	if a.Location != "" {
		w.Header().Set("Location", a.Location)
	}
	w.WriteHeader(a.Status)
	_, _ = io.WriteString(w, a.Body)
}

func (r *Receiver) record(d Delivery) {
	r.mu.Lock()
	r.stats.Received++
	if d.Verified {
		r.stats.Verified++
		r.stats.Types[d.Type]++
		if d.Answered >= 200 && d.Answered <= 299 {
			r.stats.Answered2xx++
		}
	}
	if !r.lean {
		r.deliveries = append(r.deliveries, d)
	}
	close(r.changed)
	r.changed = make(chan struct{})
	r.mu.Unlock()
}

// check returns why the delivery is not authentic and well formed, or "".
func check(req *http.Request, d *Delivery, keys [][]byte, now time.Time, tolerance time.Duration) string {
	if req.Method != http.MethodPost {
		return "method " + req.Method + ", want POST"
	}
	if mt, _, err := mime.ParseMediaType(req.Header.Get("Content-Type")); err != nil || mt != "application/json" {
		return "Content-Type " + strconv.Quote(req.Header.Get("Content-Type")) + ", want application/json"
	}
	if d.ID == "" || d.Timestamp == "" || len(d.Signatures) == 0 {
		return "missing webhook-id, webhook-timestamp or webhook-signature"
	}
	ts, err := strconv.ParseInt(d.Timestamp, 10, 64)
	if err != nil {
		return "webhook-timestamp " + strconv.Quote(d.Timestamp) + " is not an integer"
	}
	if tol := int64(tolerance / time.Second); ts > now.Unix()+tol || ts < now.Unix()-tol {
		return fmt.Sprintf("webhook-timestamp %d is further than %v away from the receiver's clock (%d)", ts, tolerance, now.Unix())
	}
	if !authentic(keys, d.ID, d.Timestamp, d.Body, d.Signatures) {
		return "no v1 signature matches a secret"
	}
	var event struct {
		Type      *string          `json:"type"`
		Timestamp *string          `json:"timestamp"`
		Data      *json.RawMessage `json:"data"`
	}
	if err := json.Unmarshal(d.Body, &event); err != nil || event.Type == nil || event.Timestamp == nil || event.Data == nil ||
		!bytes.HasPrefix(bytes.TrimSpace(*event.Data), []byte("{")) {
		return `the body is not a JSON object with "type", "timestamp" and an object "data"`
	}
	if _, err := time.Parse(time.RFC3339, *event.Timestamp); err != nil {
		return `the body's "timestamp" is not RFC 3339`
	}
	d.Type = *event.Type
	return ""
}

// authentic reports whether any v1 signature is the HMAC-SHA256, under
// any key, of "{id}.{timestamp}.{body}".
func authentic(keys [][]byte, id, timestamp string, body []byte, signatures []string) bool {
	for _, key := range keys {
		mac := hmac.New(sha256.New, key)
		mac.Write([]byte(id + "." + timestamp + "."))
		mac.Write(body)
		want := []byte(base64.StdEncoding.EncodeToString(mac.Sum(nil)))
		for _, s := range signatures {
			version, sig, ok := strings.Cut(s, ",")
			if ok && version == "v1" && hmac.Equal([]byte(sig), want) {
				return true
			}
		}
	}
	return false
}
