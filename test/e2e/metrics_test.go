package e2e

import (
	"bufio"
	"encoding/json"
	"io"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/heraldhq/herald/test/hookreceiver"
)

// scrape is one reading of /metrics: each sample by its name and labels.
type scrape []sample

type sample struct {
	name   string
	labels map[string]string
	value  float64
}

var sampleLine = regexp.MustCompile(`^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)`)
var labelPair = regexp.MustCompile(`([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"`)

func readMetrics(t *testing.T, url string) (scrape, string) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %d %s", url, resp.StatusCode, body)
	}
	var s scrape
	sc := bufio.NewScanner(strings.NewReader(string(body)))
	for sc.Scan() {
		m := sampleLine.FindStringSubmatch(sc.Text())
		if m == nil || strings.HasPrefix(sc.Text(), "#") {
			continue
		}
		v, err := strconv.ParseFloat(m[3], 64)
		if err != nil {
			continue
		}
		labels := map[string]string{}
		for _, p := range labelPair.FindAllStringSubmatch(m[2], -1) {
			labels[p[1]] = p[2]
		}
		s = append(s, sample{name: m[1], labels: labels, value: v})
	}
	return s, string(body)
}

// sum adds the samples of name whose labels include every pair of want
// (given as name, value, name, value…).
func (s scrape) sum(name string, want ...string) float64 {
	total := 0.0
next:
	for _, x := range s {
		if x.name != name {
			continue
		}
		for i := 0; i+1 < len(want); i += 2 {
			if x.labels[want[i]] != want[i+1] {
				continue next
			}
		}
		total += x.value
	}
	return total
}

// metricsURL is where the server says its metrics listen.
func metricsURL(t *testing.T, srv *server) string {
	t.Helper()
	for line := range strings.SplitSeq(srv.Logs(), "\n") {
		var l struct{ Msg, Addr string }
		if json.Unmarshal([]byte(line), &l) == nil && l.Msg == "metrics listening" {
			return "http://" + l.Addr + "/metrics"
		}
	}
	t.Fatalf("the server did not say where its metrics listen\n%s", srv.Logs())
	return ""
}

// TestMetricsAfterAScriptedRun: a server with HERALD_METRICS_ADDR counts
// what a run did. Two live messages go through (the fake of) Meta's Cloud
// API, whose sent, delivered and read webhooks come back; two test
// messages go through the sandbox, one of them to a number it fails with
// Meta's 131026; their events are delivered to one endpoint that accepts
// them and one that answers 410 Gone and is disabled; one request has no
// key. /metrics then shows each of these, and no label holds a phone
// number, an id or a URL.
func TestMetricsAfterAScriptedRun(t *testing.T) {
	t.Parallel()
	in := newInstance(t, "sqlite")
	var live, test struct{ Token string }
	in.cli(&live, "keys", "create", "--name", "live", "--mode", "live")
	in.cli(&test, "keys", "create", "--name", "test", "--mode", "test")
	var camp struct{ ID string }
	in.cli(&camp, "campaigns", "create", "--name", "W", "--template-name", "welcome", "--language", "en_US",
		"--body", "Hi {{1}}, your code is {{2}}", "--activate")

	fake := webhookFake(t, nil)
	srv := in.serve("HERALD_WHATSAPP_API_URL="+fake.URL, "HERALD_WHATSAPP_ACCESS_TOKEN="+fake.Token,
		"HERALD_WHATSAPP_PHONE_NUMBER_ID="+fake.PhoneNumberID,
		"HERALD_WHATSAPP_APP_SECRET="+fake.AppSecret, "HERALD_WHATSAPP_VERIFY_TOKEN="+verifyToken,
		"HERALD_METRICS_ADDR=127.0.0.1:0",
		"HERALD_WEBHOOK_ALLOW_HTTP=true", "HERALD_WEBHOOK_ALLOWED_HOSTS=127.0.0.1")
	fake.WebhookURL = srv.Base + "/v1/webhooks/whatsapp" // no send has reached the fake yet (see serveWithWebhooks)
	url := metricsURL(t, srv)

	before, _ := readMetrics(t, url)
	if before.sum("herald_sends_accepted_total") != 0 || before.sum("go_goroutines") == 0 ||
		before.sum("process_resident_memory_bytes") == 0 {
		t.Fatalf("a fresh server's metrics: accepted %v, goroutines %v, resident memory %v", before.sum("herald_sends_accepted_total"),
			before.sum("go_goroutines"), before.sum("process_resident_memory_bytes"))
	}

	ok := hookreceiver.New(t)
	gone := hookreceiver.New(t)
	gone.SetFallback(func(hookreceiver.Delivery) hookreceiver.Answer { return hookreceiver.Answer{Status: http.StatusGone} })
	_, okSecret := addEndpoint(t, srv, test.Token, ok.URL+"/herald")
	ok.SetSecrets(t, okSecret)
	_, goneSecret := addEndpoint(t, srv, test.Token, gone.URL+"/herald")
	gone.SetSecrets(t, goneSecret)

	liveIDs := sendLive(t, srv, live.Token, camp.ID, "+14155552671", "+14155552672")
	var testIDs []string
	for _, phone := range []string{"+14155550001", "+14155550012"} {
		var m struct{ ID string }
		if code := srv.call(t, "POST", "/v1/messages/send-campaign", test.Token,
			map[string]any{"phoneNumber": phone, "campaignId": camp.ID, "variables": []string{"Bo", "1"}}, &m); code != 202 {
			t.Fatalf("test send: %d", code)
		}
		testIDs = append(testIDs, m.ID)
	}
	if code := srv.call(t, "GET", "/v1/campaigns", "", nil, nil); code != http.StatusUnauthorized {
		t.Fatalf("a request without a key: %d, want 401", code)
	}
	awaitWebhooks(t, srv, fake, live.Token, liveIDs...)
	for _, id := range liveIDs {
		checkRead(t, srv, fake, live.Token, id)
	}
	for _, id := range testIDs {
		awaitFinal(t, srv, test.Token, id)
	}

	// Counts land once their transaction commits, and the event worker
	// delivers after that: read until the last of them shows, within a
	// bound. The test's messages make 4 events (sent, delivered, read;
	// failed), each delivered to both endpoints until the second is
	// disabled after its first attempt.
	var s scrape
	var text string
	deadline := time.Now().Add(20 * time.Second)
	for {
		s, text = readMetrics(t, url)
		if s.sum("herald_event_deliveries_total", "result", "2xx") >= 4 && s.sum("herald_webhook_endpoints_disabled_total") >= 1 &&
			s.sum("herald_messages_status_total", "status", "read") >= 3 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the run's counts did not all show within 20s:\n%s", text)
		}
		time.Sleep(50 * time.Millisecond) // another process: its metrics are the only signal
	}

	checks := []struct {
		what string
		got  float64
		want float64
	}{
		{"live sends accepted", s.sum("herald_sends_accepted_total", "mode", "live"), 2},
		{"test sends accepted", s.sum("herald_sends_accepted_total", "mode", "test"), 2},
		{"202 answers to send-campaign", s.sum("herald_http_requests_total", "route", "POST /v1/messages/send-campaign", "status", "202"), 4},
		{"send-campaign latencies observed", s.sum("herald_http_request_duration_seconds_count", "route", "POST /v1/messages/send-campaign"), 4},
		{"401 answers", s.sum("herald_http_requests_total", "route", "GET /v1/campaigns", "status", "401"), 1},
		{"live messages sent", s.sum("herald_messages_status_total", "mode", "live", "status", "sent"), 2},
		{"live messages delivered", s.sum("herald_messages_status_total", "mode", "live", "status", "delivered"), 2},
		{"live messages read", s.sum("herald_messages_status_total", "mode", "live", "status", "read"), 2},
		{"test messages read", s.sum("herald_messages_status_total", "mode", "test", "status", "read"), 1},
		{"test messages failed", s.sum("herald_messages_status_total", "mode", "test", "status", "failed"), 1},
		{"failures with Meta's 131026", s.sum("herald_messages_failed_total", "mode", "test", "meta_code", "131026", "herald_code", "none"), 1},
		{"calls to Meta accepted", s.sum("herald_whatsapp_calls_total", "sender", "live", "outcome", "ok"), 2},
		{"calls to Meta timed", s.sum("herald_whatsapp_call_duration_seconds_count", "sender", "live"), 2},
		{"calls to the sandbox", s.sum("herald_whatsapp_calls_total", "sender", "sandbox"), 2},
		{"live sends paced", s.sum("herald_pacing_wait_seconds_count"), 2},
		{"webhook calls received", s.sum("herald_webhook_events_received_total", "duplicate", "false"), 6},
		{"webhook events applied", s.sum("herald_webhook_events_applied_total", "result", "applied"), 6},
		{"webhook events failed", s.sum("herald_webhook_events_applied_total", "result", "failed"), 0},
		{"webhook lags observed", s.sum("herald_webhook_lag_seconds_count"), 6},
		{"endpoints disabled", s.sum("herald_webhook_endpoints_disabled_total"), 1},
		{"queue depth at the end", s.sum("herald_queue_depth"), 0},
		{"queue age at the end", s.sum("herald_queue_oldest_age_seconds"), 0},
	}
	for _, c := range checks {
		if c.got != c.want {
			t.Errorf("%s: %v, want %v", c.what, c.got, c.want)
		}
	}
	if got := s.sum("herald_event_deliveries_total", "result", "2xx"); got < 4 {
		t.Errorf("event deliveries accepted: %v, want at least 4", got)
	}
	// Attempts already under way when the first 410 disabled its endpoint
	// still count.
	if got := s.sum("herald_event_deliveries_total", "result", "4xx"); got < 1 {
		t.Errorf("event deliveries refused: %v, want at least 1", got)
	}
	if got := s.sum("herald_store_transaction_duration_seconds_count", "outcome", "commit"); got < 10 {
		t.Errorf("store transactions committed: %v, want the run's many", got)
	}
	// No label value names a number, a message, a key or a URL.
	for _, x := range s {
		for k, v := range x.labels {
			if strings.Contains(v, "+1415") || strings.Contains(v, "msg_") || strings.Contains(v, "wamid") ||
				strings.Contains(v, "://") || strings.Contains(v, "sk_") || strings.Contains(v, "127.0.0.1") {
				t.Errorf("%s has the unbounded label %s=%q", x.name, k, v)
			}
		}
	}
	srv.Stop(t)
}
