package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	vegeta "github.com/tsenart/vegeta/v12/lib"
)

// TestMain runs the pipeline's child processes: the smoke test starts this
// test binary again as the fake Cloud API and the event receiver.
func TestMain(m *testing.M) {
	if isChild() {
		if err := runChild(); err != nil {
			fmt.Fprintln(os.Stderr, "load child:", err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

func durations(ms ...int) []time.Duration {
	out := make([]time.Duration, len(ms))
	for i, m := range ms {
		out[i] = time.Duration(m) * time.Millisecond
	}
	return out
}

func TestQuantileIsTheNearestRank(t *testing.T) {
	hundred := make([]time.Duration, 100)
	for i := range hundred {
		hundred[i] = time.Duration(i+1) * time.Millisecond
	}
	for _, c := range []struct {
		name   string
		sorted []time.Duration
		q      float64
		want   time.Duration
	}{
		{"none", nil, 0.99, 0},
		{"one", durations(7), 0.5, 7 * time.Millisecond},
		{"median of four is the second", durations(1, 2, 3, 4), 0.5, 2 * time.Millisecond},
		{"p99 of 100 is the 99th", hundred, 0.99, 99 * time.Millisecond},
		{"p99 of 60 samples is the largest", hundred[:60], 0.99, 60 * time.Millisecond},
		{"the maximum", hundred, 1, 100 * time.Millisecond},
	} {
		if got := quantile(c.sorted, c.q); got != c.want {
			t.Errorf("%s: quantile(%v) = %v, want %v", c.name, c.q, got, c.want)
		}
	}
}

func TestAgeSeries(t *testing.T) {
	a := ageSeries{samples: durations(300, 100, 2500, 200), end: 900 * time.Millisecond}
	if got := a.p99(); got != 2500*time.Millisecond {
		t.Errorf("p99 = %v, want 2.5s", got)
	}
	if got := a.max(); got != 2500*time.Millisecond {
		t.Errorf("max = %v, want 2.5s", got)
	}
	// The end counts for the maximum even when no sample saw it.
	if got := (ageSeries{samples: durations(100), end: 3 * time.Second}).max(); got != 3*time.Second {
		t.Errorf("max with a larger end = %v, want 3s", got)
	}
	if got := (ageSeries{samples: durations(100), end: 3 * time.Second}).p99(); got != 100*time.Millisecond {
		t.Errorf("p99 is over the samples only: %v, want 100ms", got)
	}
}

// keptUp is a run at 500/s for 10 s that kept up with everything.
func keptUp() pipelineResult { return keptUpAt(500) }

// keptUpAt is a run at rate for 10 s that kept up with everything.
func keptUpAt(rate int) pipelineResult {
	n := 10 * rate
	return pipelineResult{engine: "SQLite FULL", rate: rate, duration: 10 * time.Second,
		send:    phase{ok: uint64(n), rate: float64(rate), kinds: map[string]int{}},
		final:   fakeStats{Accepted: n, Reads: n},
		queued:  ageSeries{samples: durations(150, 180), end: 120 * time.Millisecond},
		owed:    ageSeries{end: 10 * time.Millisecond},
		drained: true, drain: 400 * time.Millisecond,
		heraldCounts: map[string]int{"read": n}}
}

func TestProblemsSayWhyARunDidNotKeepUp(t *testing.T) {
	if p := keptUp().problems(); len(p) != 0 || !keptUp().bounded() {
		t.Fatalf("a run that kept up has problems: %v", p)
	}
	for _, c := range []struct {
		name   string
		change func(*pipelineResult)
		want   string
	}{
		{"nothing accepted", func(r *pipelineResult) { r.send.ok = 0 }, "no send-campaign call was accepted"},
		{"refused calls", func(r *pipelineResult) { r.send.errors, r.send.kinds = 3, map[string]int{"status 503": 3} },
			"3 send-campaign calls failed (3× status 503)"},
		{"fell behind the pace", func(r *pipelineResult) { r.send.ok = 4000 }, "the load fell behind its pace: 4000 calls of 5000 offered"},
		{"queue too old at the end", func(r *pipelineResult) { r.queued.end = 2 * time.Second },
			"the oldest message not yet sent to the Cloud API was 2.00 s old when the load ended"},
		{"webhooks owed", func(r *pipelineResult) { r.owed.end = 11 * time.Second },
			"the oldest status webhook the Cloud API still owed was 11.00 s old when the load ended"},
		{"webhooks not applied", func(r *pipelineResult) { r.unapplied.end = 5 * time.Second },
			"the oldest webhook call not yet applied was 5.00 s old when the load ended"},
		{"parked statuses", func(r *pipelineResult) { r.parked.end = 3 * time.Second },
			"the oldest parked status was 3.00 s old when the load ended"},
		{"not drained", func(r *pipelineResult) { r.drained, r.drain, r.final.Reads = false, 10*time.Second, 4200 },
			"4200 of 5000 accepted messages reached read within 10.00 s of the load's end"},
		{"herald disagrees", func(r *pipelineResult) { r.heraldCounts["read"] = 4999 },
			"herald counts 4999 of 5000 accepted messages as read"},
	} {
		r := keptUp()
		c.change(&r)
		if got := r.problems(); !slices.Contains(got, c.want) || r.bounded() {
			t.Errorf("%s: problems %q, want %q among them", c.name, got, c.want)
		}
	}
	// A stage just under the bound keeps up.
	r := keptUp()
	r.queued.end, r.owed.end = boundedAge-time.Millisecond, boundedAge-time.Millisecond
	if !r.bounded() {
		t.Errorf("ages under %v do not keep up: %v", boundedAge, r.problems())
	}
}

func TestParseRates(t *testing.T) {
	got, err := parseRates(" 750,250, 1000,250,500 ")
	if err != nil || !slices.Equal(got, []int{250, 500, 750, 1000}) {
		t.Errorf("parseRates = %v, %v; want ascending, each once", got, err)
	}
	var tooMany []string
	for i := 1; i <= maxRates+1; i++ {
		tooMany = append(tooMany, fmt.Sprint(i*10))
	}
	for _, bad := range []string{"", " , ", "0", "-5", "fast", "20000", strings.Join(tooMany, ",")} {
		if got, err := parseRates(bad); err == nil {
			t.Errorf("parseRates(%q) = %v, want an error", bad, got)
		}
	}
}

func TestSearchStopsAtTheFirstRateThatFallsBehind(t *testing.T) {
	fallsBehindAbove := func(limit int) func(int) (pipelineResult, error) {
		return func(rate int) (pipelineResult, error) {
			r := keptUpAt(rate)
			if rate > limit {
				r.queued.end = 9 * time.Second
			}
			return r, nil
		}
	}
	for _, c := range []struct {
		name  string
		limit int
		ran   []int
		best  int
	}{
		{"all keep up", 2000, []int{250, 500, 750, 1000}, 1000},
		{"the third falls behind", 600, []int{250, 500, 750}, 500},
		{"the first falls behind", 100, []int{250}, 0},
	} {
		results, best, err := searchRates([]int{250, 500, 750, 1000}, false, fallsBehindAbove(c.limit))
		var ran []int
		for _, r := range results {
			ran = append(ran, r.rate)
		}
		if err != nil || best != c.best || !slices.Equal(ran, c.ran) {
			t.Errorf("%s: ran %v, best %d, err %v; want ran %v, best %d", c.name, ran, best, err, c.ran, c.best)
		}
	}
	// With every rate asked for, the runs go on, and a rate kept up with
	// above one that was not does not count.
	notAt500 := func(rate int) (pipelineResult, error) {
		r := keptUpAt(rate)
		if rate == 500 {
			r.queued.end = 9 * time.Second
		}
		return r, nil
	}
	results, best, err := searchRates([]int{250, 500, 750, 1000}, true, notAt500)
	if err != nil || best != 250 || len(results) != 4 {
		t.Errorf("every rate: %d results, best %d, err %v; want 4, 250", len(results), best, err)
	}
	boom := errors.New("herald did not start")
	results, best, err = searchRates([]int{250, 500}, false, func(rate int) (pipelineResult, error) {
		if rate == 500 {
			return pipelineResult{}, boom
		}
		return keptUpAt(rate), nil
	})
	if !errors.Is(err, boom) || best != 250 || len(results) != 1 {
		t.Errorf("a failed run: results %d, best %d, err %v; want 1, 250 and the run's error", len(results), best, err)
	}
}

func TestOthersIsTheMachinesBusyTimeNotMeasured(t *testing.T) {
	c := pipelineCPU{herald: 4 * time.Second, postgres: 3 * time.Second, load: time.Second, fake: 2 * time.Second,
		receiver: 0, busy: 12 * time.Second, total: 20 * time.Second}
	if got := c.others(); got != 2*time.Second {
		t.Errorf("others = %v, want 2s", got)
	}
	// Readings taken at slightly different moments can sum past busy.
	c.busy = 9 * time.Second
	if got := c.others(); got != 0 {
		t.Errorf("others = %v, want 0", got)
	}
	r := pipelineResult{send: phase{ok: 4000}}
	if got := r.cpuPerMessage(c.herald); got != "1000 µs" {
		t.Errorf("cpuPerMessage = %s, want 1000 µs", got)
	}
}

func TestFakeStatsMinus(t *testing.T) {
	before := fakeStats{Requests: 10, Accepted: 9, Connections: 2, Posts: 30, Acked: 27, GivenUp: 1, Reads: 8, Owed: 5, OldestOwed: 100,
		AcceptedBy: map[string]int{"1": 5, "2": 4}, ReadsBy: map[string]int{"1": 8}}
	after := fakeStats{Requests: 110, Accepted: 108, Connections: 12, Posts: 330, Acked: 320, GivenUp: 1, Reads: 100, Owed: 7, OldestOwed: 200,
		AcceptedBy: map[string]int{"1": 55, "2": 53}, ReadsBy: map[string]int{"1": 50, "2": 50}}
	want := fakeStats{Requests: 100, Accepted: 99, Connections: 10, Posts: 300, Acked: 293, Reads: 92, Owed: 7, OldestOwed: 200,
		AcceptedBy: map[string]int{"1": 50, "2": 49}, ReadsBy: map[string]int{"1": 42, "2": 50}}
	if d := cmp.Diff(want, after.minus(before)); d != "" {
		t.Errorf("minus (-want +got):\n%s", d)
	}
}

func TestStageOf(t *testing.T) {
	const (
		app = "github.com/heraldhq/herald/app."
		sq  = "github.com/heraldhq/herald/adapters/sqlstore."
	)
	for _, c := range []struct {
		name  string
		stack []string // leaf first
		want  string
	}{
		{"marking", []string{"runtime.scanobject", "runtime.gcDrain", "runtime.gcBgMarkWorker"}, gcStage.stage},
		{"an assist on the dispatcher", []string{"runtime.gcAssistAlloc", "runtime.mallocgc", app + "(*Dispatcher).send"}, gcStage.stage},
		{"a status applied in a use case's transaction", []string{"modernc.org/sqlite/lib.sqlite3VdbeExec",
			sq + "(*Store).UpdateMessage.func1", sq + "(*Store).inTx", sq + "(*Store).UpdateMessage",
			app + "(*ApplyWebhookEventHandler).apply.func1", sq + "runMember", sq + "(*Store).runGroup",
			sq + "(*committer).do", sq + "(*Store).inTx", app + "(*ApplyWebhookEventHandler).apply"}, "webhook apply (statuses to messages)"},
		{"a claim run by a send's runner on SQLite", []string{"modernc.org/sqlite/lib.sqlite3VdbeExec",
			sq + "(*Store).ClaimMessages.func1", sq + "runMember", sq + "(*Store).runGroup", sq + "(*committer).lead",
			sq + "(*Store).inTx", app + "(*SendCampaignMessageHandler).storeBatch"}, "dispatch (claim, send to the Cloud API, record)"},
		{"the webhook call's store", []string{"syscall.Syscall", sq + "(*Store).SaveWebhookEvent.func1", sq + "runMember",
			sq + "(*Store).runGroup", app + "(*ReceiveWebhookHandler).Handle.func1"}, "webhook receive (signature, store the call)"},
		{"a commit", []string{"syscall.Syscall", "database/sql.(*Tx).Commit", sq + "(*Store).runGroup", sq + "(*Store).inTx",
			app + "(*Dispatcher).send"}, commitStage},
		{"the event worker's claim, run by a webhook group's runner on SQLite", []string{"modernc.org/sqlite/lib.sqlite3VdbeExec",
			sq + "(*Store).ClaimDeliveries.func1", sq + "runMember", sq + "(*Store).runGroup", sq + "(*committer).lead",
			sq + "(*Store).inTx", app + "(*ApplyWebhookEventHandler).storeGroup"}, "event delivery (claim, post to the endpoint, record the attempt)"},
		{"an attempt posted to an endpoint", []string{"crypto/hmac.(*hmac).Sum", "github.com/heraldhq/herald/adapters/webhookout.(*Poster).Post",
			"github.com/heraldhq/herald/app/events.(*Worker).attempt"}, "event delivery (claim, post to the endpoint, record the attempt)"},
		{"a member nobody claims", []string{sq + "(*Store).Mystery.func1", sq + "runMember", sq + "(*Store).runGroup",
			app + "(*Dispatcher).send"}, unknownMember},
		{"the access log", []string{"go.uber.org/zap.(*Logger).Info", "github.com/heraldhq/herald/adapters/httpapi.accessLog",
			"net/http.(*conn).serve"}, "logging (zap: access log, use-case log)"},
		{"the Cloud API client's connection", []string{"syscall.Syscall", "net/http.(*persistConn).readLoop"},
			"dispatch (claim, send to the Cloud API, record)"},
		{"reading a request", []string{"bufio.(*Reader).Read", "net/http.(*conn).serve"}, "HTTP server (requests, middleware, answers)"},
		{"idle", []string{"runtime.futex", "runtime.findRunnable", "runtime.schedule"}, "scheduler, timers, network poller"},
		{"nothing known", []string{"crypto/sha256.block"}, otherStage},
	} {
		if got := stageOf(c.stack); got != c.want {
			t.Errorf("%s: stage %q, want %q", c.name, got, c.want)
		}
	}
}

func TestSharesLargestFirst(t *testing.T) {
	got := shares(map[string]int64{"b": 25, "a": 25, "c": 50}, 100)
	want := []stageShare{{"c", 0.5}, {"a", 0.25}, {"b", 0.25}}
	if d := cmp.Diff(want, got, cmp.AllowUnexported(stageShare{})); d != "" {
		t.Errorf("shares (-want +got):\n%s", d)
	}
	if got := shares(map[string]int64{}, 0); len(got) != 0 {
		t.Errorf("shares of nothing = %v", got)
	}
}

func TestRegisterEndpoint(t *testing.T) {
	serve := func(status int, body string) (string, *[]string) {
		var got []string
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			b, _ := io.ReadAll(r.Body)
			got = append(got, r.Method+" "+r.URL.Path+" "+r.Header.Get("X-API-KEY")+" "+string(b))
			w.WriteHeader(status)
			io.WriteString(w, body)
		}))
		t.Cleanup(srv.Close)
		return srv.URL, &got
	}
	var secrets []string
	setSecret := func(s string) error { secrets = append(secrets, s); return nil }

	base, calls := serve(http.StatusNotFound, `{"code":"not_found"}`)
	report, on, err := registerEndpoint(base, "sk_live_x", "http://127.0.0.1:9/events", setSecret)
	if err != nil || on || report != "not available in this build" || len(secrets) != 0 {
		t.Errorf("404: %q, %v, %v, secrets %v", report, on, err, secrets)
	}
	want := []string{`POST /v1/webhook-endpoints sk_live_x {"description":"load run","events":["*"],"url":"http://127.0.0.1:9/events"}`}
	if d := cmp.Diff(want, *calls); d != "" {
		t.Errorf("request (-want +got):\n%s", d)
	}

	base, _ = serve(http.StatusCreated, `{"id":"whe_1","secret":"whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"}`)
	report, on, err = registerEndpoint(base, "sk_live_x", "http://127.0.0.1:9/events", setSecret)
	if err != nil || !on || report != "subscribed" || !slices.Equal(secrets, []string{"whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"}) {
		t.Errorf("201: %q, %v, %v, secrets %v", report, on, err, secrets)
	}

	base, _ = serve(http.StatusUnprocessableEntity, `{"code":"invalid_webhook_url"}`)
	report, on, err = registerEndpoint(base, "sk_live_x", "http://127.0.0.1:9/events", setSecret)
	if err != nil || on || report != `the endpoint was refused: 422 Unprocessable Entity {"code":"invalid_webhook_url"}` {
		t.Errorf("422: %q, %v, %v", report, on, err)
	}

	base, _ = serve(http.StatusCreated, `{"id":"whe_1"}`)
	if _, _, err := registerEndpoint(base, "sk_live_x", "http://127.0.0.1:9/events", setSecret); err == nil {
		t.Error("an endpoint created without a secret is not an error")
	}
}

func TestCheckSecret(t *testing.T) {
	if err := checkSecret("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"); err != nil {
		t.Error(err)
	}
	for _, bad := range []string{"", "MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", "whsec_not base64!"} {
		if checkSecret(bad) == nil {
			t.Errorf("checkSecret(%q) accepted it", bad)
		}
	}
}

func TestPrintPipeline(t *testing.T) {
	slow := keptUpAt(1000)
	slow.queued.end = 4 * time.Second
	slow.cpu = pipelineCPU{herald: 15 * time.Second, postgres: 0, load: 2 * time.Second, fake: 3 * time.Second,
		busy: 22 * time.Second, total: 24 * time.Second, wall: 12 * time.Second}
	slow.stages = []stageShare{{"webhook apply (statuses to messages)", 0.4}, {otherStage, 0.6}}
	slow.profile = "/tmp/cpu.pprof"
	run := pipelineRun{engine: "SQLite FULL", results: []pipelineResult{keptUp(), slow}, best: 500}
	var b bytes.Buffer
	printPipeline(&b, pipelineOptions{duration: 10 * time.Second, drain: 10 * time.Second, sample: time.Second,
		latency: 100 * time.Millisecond, gap: 100 * time.Millisecond, webhookParallel: 64, mps: 1000}, []pipelineRun{run})
	out := b.String()
	for _, want := range []string{
		"| SQLite FULL | 500 | 500 |",
		"| SQLite FULL | 1000 | 1000 |",
		"| SQLite FULL | 500 | 0.18 s / 0.18 s / 0.12 s |",
		"Highest rate kept up with, SQLite FULL: 500 messages/s.",
		"SQLite FULL at 1000/s did not keep up: the oldest message not yet sent to the Cloud API was 4.00 s old when the load ended.",
		"| webhook apply (statuses to messages) | 40.0% |",
		"| SQLite FULL | 1000 | 1.25 | 0.00 | 0.17 | 0.25 | 0.00 | 0.17 | 12.0 |",
		"| SQLite FULL | 1000 | 1500 µs | – | 200 µs | 300 µs | 0 µs | 200 µs | 92% |",
		"CPU profile of SQLite FULL at 1000/s: /tmp/cpu.pprof",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the report lacks %q:\n%s", want, out)
		}
	}
}

// TestPipelineSmoke runs the whole pipeline for a few seconds at a small
// rate, on SQLite and, when HERALD_TEST_POSTGRES_URL names a server, on
// PostgreSQL: the built binary, the fake Cloud API and the receiver in
// their child processes, the sampler, the drain and the report, so that
// the tool cannot rot between benchmark runs.
func TestPipelineSmoke(t *testing.T) {
	if testing.Short() {
		t.Skip("builds herald and runs it for a few seconds")
	}
	t.Chdir("../..") // the module root, where the binary is built from
	o := pipelineOptions{rates: []int{20}, duration: 3 * time.Second, drain: 20 * time.Second, sample: 500 * time.Millisecond,
		latency: 20 * time.Millisecond, gap: 10 * time.Millisecond, webhookParallel: 8, mps: 1000,
		engines: []string{engineSQLite}, cpuProfile: t.TempDir()}
	if pg := os.Getenv("HERALD_TEST_POSTGRES_URL"); pg != "" {
		o.engines, o.postgres = append(o.engines, enginePostgres), pg
	}
	var b bytes.Buffer
	if err := runPipeline(o, &b); err != nil {
		t.Fatalf("%v\n%s", err, b.String())
	}
	out := b.String()
	for _, engine := range o.engines {
		label := engineLabel(engine)
		for _, want := range []string{
			"Highest rate kept up with, " + label + ": 20 messages/s.",
			"| " + label + " | 20 | 20 |",
			"CPU profile of " + label + " at 20/s:",
		} {
			if !strings.Contains(out, want) {
				t.Errorf("the report lacks %q:\n%s", want, out)
			}
		}
		if !strings.Contains(out, "Events, "+label+" at 20/s: not available in this build.") &&
			!strings.Contains(out, "Events, "+label+" at 20/s: the receiver got") {
			t.Errorf("the report says nothing of events on %s:\n%s", label, out)
		}
	}
}

// The numbers a run sends from each have their own id and token, in two
// accounts of two apps, and an app's numbers share its secret, as the
// webhooks Meta signs for them do.
func TestSenderNumbers(t *testing.T) {
	numbers := senderNumbers(4)
	ids, tokens, accounts, apps := map[string]bool{}, map[string]bool{}, map[string]bool{}, map[string]string{}
	for _, n := range numbers {
		ids[n.PhoneNumberID], tokens[n.Token], accounts[n.WABAID] = true, true, true
		if secret, ok := apps[n.AppID]; ok && secret != n.AppSecret {
			t.Errorf("app %s has two secrets", n.AppID)
		}
		apps[n.AppID] = n.AppSecret
	}
	if len(ids) != 4 || len(tokens) != 4 || len(accounts) != 2 || len(apps) != 2 {
		t.Errorf("%d ids, %d tokens, %d accounts, %d apps; want 4, 4, 2, 2: %+v", len(ids), len(tokens), len(accounts), len(apps), numbers)
	}
	if len(senderNumbers(0)) != 0 {
		t.Error("no numbers asked for, some made")
	}
}

// With a campaign per number, the sends go round them in turn, so that
// each number is offered the same share of the rate.
func TestSendsGoRoundTheCampaigns(t *testing.T) {
	var sent atomic.Uint64
	fill := sendTargeter(target{base: "http://127.0.0.1:1", token: "k", campaign: "cmp_env", campaigns: []string{"cmp_a", "cmp_b", "cmp_c"}},
		func(uint64) string { return "+14155550100" }, &sent)
	var got []string
	for range 6 {
		var tgt vegeta.Target
		fill(&tgt)
		var body struct{ CampaignID string }
		if err := json.Unmarshal(tgt.Body, &body); err != nil {
			t.Fatal(err)
		}
		got = append(got, body.CampaignID)
	}
	if want := []string{"cmp_a", "cmp_b", "cmp_c", "cmp_a", "cmp_b", "cmp_c"}; !slices.Equal(got, want) {
		t.Errorf("campaigns %v, want %v", got, want)
	}
}

func TestPrintPipelineByNumber(t *testing.T) {
	r := keptUp()
	r.engine = "SQLite FULL, 2 numbers"
	r.numbers = []numberResult{
		{metaID: "106540352200001", offered: 250, window: 2500, reads: 2500, counts: map[string]int{"read": 2500}},
		{metaID: "106540352200002", offered: 250, window: 2400, reads: 2490, counts: map[string]int{"read": 2480}},
	}
	var b bytes.Buffer
	printPipeline(&b, pipelineOptions{duration: 10 * time.Second, drain: 10 * time.Second, sample: time.Second,
		latency: 100 * time.Millisecond, gap: 100 * time.Millisecond, webhookParallel: 64, mps: 1000},
		[]pipelineRun{{engine: r.engine, results: []pipelineResult{r}, best: 500}})
	out := b.String()
	for _, want := range []string{
		"| SQLite FULL, 2 numbers | 500 | 106540352200001 | 250 | 250 | 2500 | 2500 |",
		"| SQLite FULL, 2 numbers | 500 | 106540352200002 | 250 | 240 | 2490 | 2480 |",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the report lacks %q:\n%s", want, out)
		}
	}
}

// TestPipelineSmokeWithNumbers runs the pipeline briefly on SQLite from two
// numbers stored with `herald numbers add`: every message of each number's
// campaign must reach read, and the report must say so by number.
func TestPipelineSmokeWithNumbers(t *testing.T) {
	if testing.Short() {
		t.Skip("builds herald and runs it for a few seconds")
	}
	t.Chdir("../..")
	o := pipelineOptions{rates: []int{20}, duration: 3 * time.Second, drain: 20 * time.Second, sample: 500 * time.Millisecond,
		latency: 20 * time.Millisecond, gap: 10 * time.Millisecond, webhookParallel: 8, mps: 1000,
		engines: []string{engineSQLite}, numbers: 2}
	var b bytes.Buffer
	if err := runPipeline(o, &b); err != nil {
		t.Fatalf("%v\n%s", err, b.String())
	}
	out := b.String()
	for _, want := range []string{
		"Highest rate kept up with, SQLite FULL, 2 numbers: 20 messages/s.",
		"| SQLite FULL, 2 numbers | 20 | 106540352200001 | 10 |",
		"| SQLite FULL, 2 numbers | 20 | 106540352200002 | 10 |",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the report lacks %q:\n%s", want, out)
		}
	}
}
