package hookreceiver_test

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"

	"github.com/heraldhq/herald/test/hookreceiver"
)

// The specification's libraries' test secret and a second one.
const (
	secret      = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
	otherSecret = "whsec_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA="
	body        = `{"type":"message.delivered","timestamp":"2026-11-22T10:00:00Z","data":{"id":"msg_1"}}`
)

// signed builds a delivery signed by the official Standard Webhooks
// library, the sender the receiver must agree with.
func signed(t *testing.T, url, secret, id string, ts time.Time, payload string) *http.Request {
	t.Helper()
	wh, err := standardwebhooks.NewWebhook(secret)
	if err != nil {
		t.Fatal(err)
	}
	sig, err := wh.Sign(id, ts, []byte(payload))
	if err != nil {
		t.Fatal(err)
	}
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(payload))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("webhook-id", id)
	req.Header.Set("webhook-timestamp", strconv.FormatInt(ts.Unix(), 10))
	req.Header.Set("webhook-signature", sig)
	return req
}

func send(t *testing.T, c *http.Client, req *http.Request) (int, string) {
	t.Helper()
	res, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res.StatusCode, string(b)
}

// TestVerification: what the library signs is accepted; anything a
// consumer must refuse is refused with the reason, answered 400 and
// recorded.
func TestVerification(t *testing.T) {
	t.Parallel()
	r := hookreceiver.New(t, secret)
	now := time.Now()
	cases := []struct {
		name    string
		req     func() *http.Request
		problem string // empty: verified
	}{
		{"signed by the library", func() *http.Request { return signed(t, r.URL+"/hook", secret, "evt_1", now, body) }, ""},
		{"a timestamp within the tolerance", func() *http.Request {
			return signed(t, r.URL, secret, "evt_1", now.Add(-4*time.Minute), body)
		}, ""},
		{"several signatures, one good", func() *http.Request {
			req := signed(t, r.URL, secret, "evt_1", now, body)
			req.Header.Set("webhook-signature", "v1,Zm9v v1a,abc "+req.Header.Get("webhook-signature"))
			return req
		}, ""},
		{"another secret", func() *http.Request { return signed(t, r.URL, otherSecret, "evt_1", now, body) }, "no v1 signature matches"},
		{"the body changed", func() *http.Request {
			req := signed(t, r.URL, secret, "evt_1", now, body)
			req.Body = io.NopCloser(strings.NewReader(strings.Replace(body, "msg_1", "msg_2", 1)))
			req.ContentLength = -1
			return req
		}, "no v1 signature matches"},
		{"another id", func() *http.Request {
			req := signed(t, r.URL, secret, "evt_1", now, body)
			req.Header.Set("webhook-id", "evt_2")
			return req
		}, "no v1 signature matches"},
		{"another version", func() *http.Request {
			req := signed(t, r.URL, secret, "evt_1", now, body)
			req.Header.Set("webhook-signature", strings.Replace(req.Header.Get("webhook-signature"), "v1,", "v2,", 1))
			return req
		}, "no v1 signature matches"},
		{"too old", func() *http.Request { return signed(t, r.URL, secret, "evt_1", now.Add(-6*time.Minute), body) }, "away from the receiver's clock"},
		{"too new", func() *http.Request { return signed(t, r.URL, secret, "evt_1", now.Add(6*time.Minute), body) }, "away from the receiver's clock"},
		{"no signature", func() *http.Request {
			req := signed(t, r.URL, secret, "evt_1", now, body)
			req.Header.Del("webhook-signature")
			return req
		}, "missing webhook-id"},
		{"a timestamp in milliseconds", func() *http.Request {
			req := signed(t, r.URL, secret, "evt_1", now, body)
			req.Header.Set("webhook-timestamp", strconv.FormatInt(now.UnixMilli(), 10))
			return req
		}, "away from the receiver's clock"},
		{"not JSON", func() *http.Request {
			req := signed(t, r.URL, secret, "evt_1", now, body)
			req.Header.Set("Content-Type", "text/plain")
			return req
		}, "Content-Type"},
		{"not an event", func() *http.Request { return signed(t, r.URL, secret, "evt_1", now, `{"test": 2432232314}`) }, `"type", "timestamp"`},
		{"data not an object", func() *http.Request {
			return signed(t, r.URL, secret, "evt_1", now, `{"type":"x","timestamp":"2026-11-22T10:00:00Z","data":null}`)
		}, `"type", "timestamp"`},
	}
	for i, c := range cases {
		status, answer := send(t, http.DefaultClient, c.req())
		d := r.Deliveries()[i]
		switch {
		case c.problem == "" && (!d.Verified || status != 200):
			t.Errorf("%s: answered %d %q, recorded %+v; want verified and 200", c.name, status, answer, d.Problem)
		case c.problem != "" && (d.Verified || status != 400 || !strings.Contains(d.Problem, c.problem) || d.Answered != 400):
			t.Errorf("%s: answered %d, recorded verified=%v %q; want 400 saying %q", c.name, status, d.Verified, d.Problem, c.problem)
		}
	}
	first := r.Deliveries()[0]
	if first.Path != "/hook" || first.ID != "evt_1" || first.Type != "message.delivered" || string(first.Body) != body {
		t.Errorf("the first delivery is recorded as %+v", first)
	}
	if got := r.Succeeded(); got["evt_1"] != 3 || len(got) != 1 {
		t.Errorf("Succeeded = %v, want evt_1 three times", got)
	}
}

// TestSpecVector: the published vector verifies when the receiver's clock
// is at its timestamp.
func TestSpecVector(t *testing.T) {
	t.Parallel()
	r := hookreceiver.New(t, secret)
	r.SetClock(func() time.Time { return time.Unix(1614265330, 0) }, 0)
	vector := `{"test": 2432232314}`
	req, _ := http.NewRequest(http.MethodPost, r.URL, strings.NewReader(vector))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("webhook-id", "msg_p5jXN8AQM9LWM0D4loKWxJek")
	req.Header.Set("webhook-timestamp", "1614265330")
	req.Header.Set("webhook-signature", "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=")
	send(t, http.DefaultClient, req)
	// The signature is accepted; the body is refused only for not being
	// one of Herald's events.
	if d := r.Deliveries()[0]; !strings.Contains(d.Problem, `"type", "timestamp"`) {
		t.Fatalf("the spec vector: %q, want only the event shape refused", d.Problem)
	}
}

// TestRotation: a consumer holding only the new secret accepts a
// delivery signed with the old and the new one.
func TestRotation(t *testing.T) {
	t.Parallel()
	r := hookreceiver.New(t, otherSecret)
	now := time.Now()
	old := signed(t, r.URL, secret, "evt_1", now, body).Header.Get("webhook-signature")
	req := signed(t, r.URL, otherSecret, "evt_1", now, body)
	req.Header.Set("webhook-signature", req.Header.Get("webhook-signature")+" "+old)
	if status, _ := send(t, http.DefaultClient, req); status != 200 {
		t.Fatalf("both signatures: %d", status)
	}
	r.SetSecrets(t, secret)
	if status, _ := send(t, http.DefaultClient, signed(t, r.URL, otherSecret, "evt_2", now, body)); status != 400 {
		t.Fatalf("after the receiver dropped the secret: %d", status)
	}
}

// TestScript: answers come from the script in order, then the fallback;
// a hang lasts until the sender gives up; WaitFor wakes on deliveries.
func TestScript(t *testing.T) {
	t.Parallel()
	r := hookreceiver.NewTLS(t, secret)
	pool := x509.NewCertPool()
	pool.AddCert(r.Certificate())
	client := &http.Client{
		Transport:     &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}},
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
	r.Script(hookreceiver.Answer{Status: 500, Body: "boom"}, hookreceiver.Answer{Status: 410},
		hookreceiver.Answer{Status: 302, Location: "/elsewhere"}, hookreceiver.Answer{Hang: true})
	r.SetFallback(func(d hookreceiver.Delivery) hookreceiver.Answer {
		return hookreceiver.Answer{Status: 202, Body: "took " + d.ID}
	})
	now := time.Now()
	for i, want := range []struct {
		status int
		body   string
	}{{500, "boom"}, {410, ""}, {302, ""}} {
		status, answer := send(t, client, signed(t, r.URL, secret, "evt_"+strconv.Itoa(i), now, body))
		if status != want.status || answer != want.body {
			t.Errorf("answer %d: %d %q, want %d %q", i, status, answer, want.status, want.body)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	if res, err := client.Do(signed(t, r.URL, secret, "evt_3", now, body).WithContext(ctx)); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("the hang answered: %v %v", err, res)
	}
	status, answer := send(t, client, signed(t, r.URL, secret, "evt_4", now, body))
	if status != 202 || answer != "took evt_4" {
		t.Fatalf("the fallback: %d %q", status, answer)
	}
	all := r.WaitFor(t, 5, 5*time.Second)
	if all[3].Answered != 0 || all[2].Answered != 302 || r.Count() != 5 {
		t.Fatalf("recorded %+v", all)
	}

	done := make(chan []hookreceiver.Delivery)
	go func() { done <- r.WaitFor(t, 6, 10*time.Second) }()
	send(t, client, signed(t, r.URL, secret, "evt_5", now, body))
	if got := <-done; len(got) != 6 {
		t.Fatalf("WaitFor returned %d deliveries", len(got))
	}
}

// TestCloseReleasesAHang: a receiver closing at the end of a test does not
// wait for a sender that never gives up.
func TestCloseReleasesAHang(t *testing.T) {
	t.Parallel()
	var r *hookreceiver.Receiver
	errc := make(chan error, 1)
	t.Run("hang", func(t *testing.T) {
		r = hookreceiver.New(t, secret)
		r.Script(hookreceiver.Answer{Hang: true})
		req := signed(t, r.URL, secret, "evt_1", time.Now(), body)
		go func() {
			res, err := http.DefaultClient.Do(req)
			if err == nil {
				res.Body.Close()
			}
			errc <- err
		}()
		r.WaitFor(t, 1, 5*time.Second)
	})
	// The subtest's cleanup closed the receiver, ending the hang.
	<-errc
}
