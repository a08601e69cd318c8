package httpapi_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/heraldhq/herald/adapters/httpapi"
	"github.com/heraldhq/herald/app"
)

// send builds a send-campaign request; tweak it before serving.
func (e *apiEnv) sendReq(key, body string) *http.Request {
	req := httptest.NewRequest("POST", "/v1/messages/send-campaign", strings.NewReader(body))
	req.Header.Set("X-API-KEY", key)
	req.Header.Set("Content-Type", "application/json")
	return req
}

// serve runs req through the API, checks the answer against the OpenAPI
// document and returns it.
func (e *apiEnv) serve(t *testing.T, req *http.Request) (*http.Response, string) {
	t.Helper()
	rec := httptest.NewRecorder()
	e.h.ServeHTTP(rec, req)
	res := rec.Result()
	b, _ := io.ReadAll(res.Body)
	validateAgainstSpec(t, req, res.StatusCode, res.Header, b)
	return res, string(b)
}

// total is how many messages the campaign holds, read with key.
func (e *apiEnv) total(t *testing.T, key, campaign string) float64 {
	t.Helper()
	_, body := e.do(t, "GET", "/v1/campaigns/"+campaign+"/stats", e.keyed(key), "")
	return decode[map[string]any](t, body)["total"].(float64)
}

func TestIdempotencyKeyReplays(t *testing.T) {
	t.Parallel()
	onEveryEngine(t, func(t *testing.T, e *apiEnv) {
		body := `{"phoneNumber":"+14155550100","campaignId":"` + e.active + `","variables":["Ana","1234"]}`
		send := func(key, body string) (*http.Response, string) {
			req := e.sendReq(e.key, body)
			req.Header.Set("Idempotency-Key", key)
			return e.serve(t, req)
		}
		first, firstBody := send("order-1001", body)
		if first.StatusCode != 202 || first.Header.Get("Idempotent-Replayed") != "" {
			t.Fatalf("first send: %d replayed=%q %s", first.StatusCode, first.Header.Get("Idempotent-Replayed"), firstBody)
		}
		// Whitespace and field order are not part of the request.
		reordered := `{ "campaignId":"` + e.active + `", "variables":["Ana","1234"], "phoneNumber":"+14155550100" }`
		for i, b := range []string{body, body, reordered, body} {
			res, got := send("order-1001", b)
			if res.StatusCode != 202 || got != firstBody {
				t.Fatalf("replay %d: %d %s\nwant the first answer byte for byte: %s", i, res.StatusCode, got, firstBody)
			}
			if res.Header.Get("Idempotent-Replayed") != "true" || res.Header.Get("Location") != first.Header.Get("Location") {
				t.Fatalf("replay %d headers: Idempotent-Replayed=%q Location=%q", i, res.Header.Get("Idempotent-Replayed"), res.Header.Get("Location"))
			}
		}
		if n := e.total(t, e.key, e.active); n != 1 {
			t.Fatalf("five sends with one key stored %v messages, want 1", n)
		}

		other := `{"phoneNumber":"+14155550101","campaignId":"` + e.active + `","variables":["Ana","1234"]}`
		res, got := send("order-1001", other)
		want := problemBody(422, "idempotency_key_reused", "Idempotency key reused", "Idempotency-Key",
			"this Idempotency-Key was used in the last 24 hours for a request with a different body; use a new key for a new request")
		if res.StatusCode != 422 || canonicalString(normalize(got)) != want {
			t.Fatalf("same key, other body: %d %s\nwant %s", res.StatusCode, got, want)
		}
		if n := e.total(t, e.key, e.active); n != 1 {
			t.Fatalf("a reused key stored a message: %v", n)
		}
		if _, again := send("order-1001", body); again != firstBody {
			t.Fatalf("the refused reuse changed the stored answer: %s", again)
		}

		// A request refused before it ran leaves the key free.
		if res, got := send("order-1002", `{"phoneNumber":"12345","campaignId":"`+e.active+`","variables":["Ana","1234"]}`); res.StatusCode != 422 {
			t.Fatalf("bad phone: %d %s", res.StatusCode, got)
		}
		dry := e.sendReq(e.key, other)
		dry.URL.RawQuery = "dryRun=true"
		dry.Header.Set("Idempotency-Key", "order-1002")
		if res, got := e.serve(t, dry); res.StatusCode != 200 {
			t.Fatalf("dry run with a key: %d %s", res.StatusCode, got)
		}
		if res, got := send("order-1002", other); res.StatusCode != 202 || res.Header.Get("Idempotent-Replayed") != "" {
			t.Fatalf("the key after a refused request and a dry run: %d %s", res.StatusCode, got)
		}

		// Keys are scoped by workspace: the other workspace's same key is
		// its own send.
		req := e.sendReq(e.otherKey, `{"phoneNumber":"+14155550100","campaignId":"`+e.otherCampaign+`","variables":["Ana","1234"]}`)
		req.Header.Set("Idempotency-Key", "order-1001")
		if res, got := e.serve(t, req); res.StatusCode != 202 || res.Header.Get("Idempotent-Replayed") != "" || got == firstBody {
			t.Fatalf("the other workspace's send with the same key: %d replayed=%q %s", res.StatusCode, res.Header.Get("Idempotent-Replayed"), got)
		}
	})
}

func TestIdempotencyKeyMalformed(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	body := `{"phoneNumber":"+14155550100","campaignId":"` + e.active + `","variables":["Ana","1234"]}`
	cases := []struct {
		name   string
		keys   []string
		detail string
	}{
		{"empty", []string{""}, "the Idempotency-Key header is empty; leave it out or give 1 to 255 characters, a UUID is a good choice"},
		{"256 characters", []string{strings.Repeat("k", 256)}, "the Idempotency-Key is 256 bytes long; at most 255 are allowed"},
		{"control character", []string{"order\x01"}, "the Idempotency-Key may hold only printable ASCII characters (space to ~); byte 6 is not one"},
		{"non-ASCII", []string{"commande-é"}, "the Idempotency-Key may hold only printable ASCII characters (space to ~); byte 10 is not one"},
		{"twice", []string{"a", "b"}, "send one Idempotency-Key header, not several"},
	}
	for _, c := range cases {
		req := e.sendReq(e.key, body)
		req.Header["Idempotency-Key"] = c.keys
		res, got := e.serve(t, req)
		want := problemBody(400, "invalid_idempotency_key", "Invalid idempotency key", "Idempotency-Key", c.detail)
		if res.StatusCode != 400 || canonicalString(normalize(got)) != want {
			t.Errorf("%s: %d %s\nwant %s", c.name, res.StatusCode, got, want)
		}
	}
	if n := e.total(t, e.key, e.active); n != 0 {
		t.Fatalf("malformed keys stored %v messages", n)
	}
	req := e.sendReq(e.key, body)
	req.Header.Set("Idempotency-Key", strings.Repeat("k", 255))
	if res, got := e.serve(t, req); res.StatusCode != 202 {
		t.Fatalf("a 255-character key: %d %s", res.StatusCode, got)
	}
}

// TestIdempotencyConcurrentDuplicates: of 20 identical requests at once,
// exactly one message is stored; every answer is that message's 202 or a
// 409 idempotency_in_flight with Retry-After.
func TestIdempotencyConcurrentDuplicates(t *testing.T) {
	t.Parallel()
	onEveryEngine(t, func(t *testing.T, e *apiEnv) {
		body := `{"phoneNumber":"+14155550100","campaignId":"` + e.active + `","variables":["Ana","1234"]}`
		const n = 20
		type answer struct {
			status     int
			body       string
			retryAfter string
		}
		answers := make([]answer, n)
		var wg sync.WaitGroup
		start := make(chan struct{})
		for i := range n {
			wg.Go(func() {
				req := e.sendReq(e.key, body)
				req.Header.Set("Idempotency-Key", "burst-1")
				<-start
				rec := httptest.NewRecorder()
				e.h.ServeHTTP(rec, req)
				answers[i] = answer{rec.Code, rec.Body.String(), rec.Header().Get("Retry-After")}
			})
		}
		close(start)
		wg.Wait()
		accepted := ""
		for i, a := range answers {
			switch a.status {
			case 202:
				if accepted != "" && a.body != accepted {
					t.Errorf("answer %d is another 202: %s\nfirst: %s", i, a.body, accepted)
				}
				accepted = a.body
			case 409:
				if !strings.Contains(a.body, `"code":"idempotency_in_flight"`) || a.retryAfter != "1" {
					t.Errorf("answer %d: 409 with Retry-After %q: %s", i, a.retryAfter, a.body)
				}
			default:
				t.Errorf("answer %d: %d %s", i, a.status, a.body)
			}
		}
		if accepted == "" {
			t.Fatal("no request was accepted")
		}
		if got := e.total(t, e.key, e.active); got != 1 {
			t.Fatalf("%d concurrent duplicates stored %v messages, want 1", n, got)
		}
	})
}

// fakeNow is a clock for the rate limiters that moves only when told.
type fakeNow struct {
	mu sync.Mutex
	t  time.Time
}

func (f *fakeNow) now() time.Time {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.t
}

func (f *fakeNow) advance(d time.Duration) {
	f.mu.Lock()
	f.t = f.t.Add(d)
	f.mu.Unlock()
}

func TestRateLimitPerKey(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	clock := &fakeNow{t: time.Date(2026, 11, 23, 9, 0, 0, 0, time.UTC)}
	e.h = httpapi.NewHandler(e.deps, httpapi.Config{RateLimit: 10, RateBurst: 10, Now: clock.now}, nil)
	get := func(key string) *http.Response {
		res, _ := e.do(t, "GET", "/v1/campaigns", e.keyed(key), "")
		return res
	}
	for i := range 10 {
		res := get(e.key)
		if res.StatusCode != 200 {
			t.Fatalf("request %d of the burst: %d", i+1, res.StatusCode)
		}
		if got, want := res.Header.Get("RateLimit"), `"key";r=`+strconv.Itoa(9-i)+`;t=1`; got != want {
			t.Errorf("request %d: RateLimit %q, want %q", i+1, got, want)
		}
		if got := res.Header.Get("RateLimit-Policy"); got != `"key";q=10;w=1` {
			t.Errorf("RateLimit-Policy %q", got)
		}
	}
	res, body := e.do(t, "GET", "/v1/campaigns", e.keyed(e.key), "")
	want := problemBody(429, "rate_limited", "Rate limited", "", "this API key is over its rate limit; retry after 1 s")
	if res.StatusCode != 429 || canonicalString(normalize(body)) != want {
		t.Fatalf("over the burst: %d %s\nwant %s", res.StatusCode, body, want)
	}
	if res.Header.Get("Retry-After") != "1" || res.Header.Get("RateLimit") != `"key";r=0;t=1` {
		t.Fatalf("429 headers: Retry-After %q RateLimit %q", res.Header.Get("Retry-After"), res.Header.Get("RateLimit"))
	}
	if res := get(e.otherKey); res.StatusCode != 200 {
		t.Fatalf("another key is limited by the first: %d", res.StatusCode)
	}
	clock.advance(100 * time.Millisecond) // one token at 10 per second
	if res := get(e.key); res.StatusCode != 200 {
		t.Fatalf("after waiting for a token: %d", res.StatusCode)
	}
	if res := get(e.key); res.StatusCode != 429 {
		t.Fatalf("the bucket refilled more than one token in 100 ms: %d", res.StatusCode)
	}
}

func TestFailedAuthenticationLimit(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	clock := &fakeNow{t: time.Date(2026, 11, 23, 9, 0, 0, 0, time.UTC)}
	e.h = httpapi.NewHandler(e.deps, httpapi.Config{AuthFailuresPerMinute: 5, Now: clock.now}, nil)
	from := func(addr, key string) (*http.Response, string) {
		req := httptest.NewRequest("GET", "/v1/campaigns", nil)
		req.RemoteAddr = addr
		if key != "" {
			req.Header.Set("X-API-KEY", key)
		}
		return e.serve(t, req)
	}
	const attacker, neighbour, other6 = "203.0.113.7:50000", "203.0.113.8:50000", "[2001:db8:1:2::7]:443"
	bad := e.revokedKey
	for i := range 5 {
		if res, _ := from(attacker, bad); res.StatusCode != 401 {
			t.Fatalf("failure %d: %d", i+1, res.StatusCode)
		}
	}
	res, body := from(attacker, e.key)
	want := problemBody(429, "rate_limited", "Rate limited", "", "too many requests from this address failed authentication; retry after 12 s")
	if res.StatusCode != 429 || canonicalString(normalize(body)) != want || res.Header.Get("Retry-After") != "12" {
		t.Fatalf("after 5 failures, even a good key: %d Retry-After %q %s\nwant %s", res.StatusCode, res.Header.Get("Retry-After"), body, want)
	}
	if res, _ := from(neighbour, e.key); res.StatusCode != 200 {
		t.Fatalf("another address is blocked too: %d", res.StatusCode)
	}
	// IPv6 clients are counted per /64.
	for i := range 5 {
		from("[2001:db8:1:2::"+strconv.Itoa(100+i)+"]:443", "")
	}
	if res, _ := from(other6, e.key); res.StatusCode != 429 {
		t.Fatalf("failures spread over one /64 are not counted together: %d", res.StatusCode)
	}
	clock.advance(12 * time.Second)
	if res, _ := from(attacker, e.key); res.StatusCode != 200 {
		t.Fatalf("after the bucket refilled a token: %d", res.StatusCode)
	}
}

func TestDailySendCap(t *testing.T) {
	t.Parallel()
	onEveryEngine(t, func(t *testing.T, e *apiEnv) {
		deps := e.deps
		deps.SendCampaign = newSendCampaign(e.store, app.Config{DailySendCap: 2})
		e.h = httpapi.NewHandler(deps, unlimited, nil)
		send := func(phone string) (*http.Response, string) {
			return e.serve(t, e.sendReq(e.key, `{"phoneNumber":"`+phone+`","campaignId":"`+e.active+`","variables":["Ana","1234"]}`))
		}
		for _, phone := range []string{"+14155550100", "+14155550101"} {
			if res, body := send(phone); res.StatusCode != 202 {
				t.Fatalf("send to %s under the cap: %d %s", phone, res.StatusCode, body)
			}
		}
		res, body := send("+14155550102")
		if res.StatusCode != 429 || !strings.Contains(body, `"code":"daily_send_cap_reached"`) {
			t.Fatalf("third send under a cap of 2: %d %s", res.StatusCode, body)
		}
		midnight := time.Now().UTC().Truncate(24 * time.Hour).Add(24 * time.Hour)
		ra, err := strconv.Atoi(res.Header.Get("Retry-After"))
		if err != nil || ra < 1 || time.Duration(ra)*time.Second > time.Until(midnight)+2*time.Second {
			t.Fatalf("Retry-After %q does not point at midnight UTC (%s away)", res.Header.Get("Retry-After"), time.Until(midnight))
		}
		if n := e.total(t, e.key, e.active); n != 2 {
			t.Fatalf("the refused send was stored: %v messages", n)
		}
		req := e.sendReq(e.otherKey, `{"phoneNumber":"+14155550100","campaignId":"`+e.otherCampaign+`","variables":["Ana","1234"]}`)
		if res, body := e.serve(t, req); res.StatusCode != 202 {
			t.Fatalf("another workspace shares the cap: %d %s", res.StatusCode, body)
		}
	})
}
