package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	vegeta "github.com/tsenart/vegeta/v12/lib"

	"github.com/heraldhq/herald/test/cpustat"
)

// pipelineOptions are the command line of a pipeline run.
type pipelineOptions struct {
	rates           []int         // messages per second to try, ascending
	allRates        bool          // run every rate, not only up to the first not kept up with
	duration        time.Duration // the load at each rate
	drain           time.Duration // how long after the load every message may take to reach read
	sample          time.Duration // how often the backlog is sampled
	latency         time.Duration // the fake Cloud API's answer time
	gap             time.Duration // between a message's status webhooks
	webhookParallel int           // webhook POSTs the fake has in flight at most
	mps             int           // herald's HERALD_WHATSAPP_MPS
	engines         []string      // engineSQLite, enginePostgres
	postgres        string        // the PostgreSQL server for enginePostgres
	cpuProfile      string        // directory for herald's CPU profiles; empty: none
	heraldBin       string        // a herald binary to run; empty: build one from the working tree
	// numbers is how many business numbers herald sends from, each stored
	// with `herald numbers add` at mps and sending its own campaign; 0:
	// the one number HERALD_WHATSAPP_* defines.
	numbers int
	// numberMPS is each stored number's pace; 0: mps.
	numberMPS int
}

// The engines a pipeline run measures.
const (
	engineSQLite   = "sqlite"
	enginePostgres = "postgres"
)

// Bounds on a pipeline run's settings, so that every run ends.
const (
	maxPipelineDuration = 10 * time.Minute
	maxDrain            = 5 * time.Minute
	maxWebhookParallel  = 1024
	// maxSendWorkers bounds vegeta's workers, and so the send-campaign
	// calls in flight: at 1,000/s, calls answered in 1 s.
	maxSendWorkers = 1024
	// pipelineRecipients is how many numbers the load sends to: a top-tier
	// business's traffic goes to many people, so most sends of a run create
	// their contact.
	pipelineRecipients = 100_000
)

func (o pipelineOptions) check() error {
	var errs []error
	if o.duration <= 0 || o.duration > maxPipelineDuration {
		errs = append(errs, fmt.Errorf("-duration must be positive and at most %s", maxPipelineDuration))
	}
	if o.drain <= 0 || o.drain > maxDrain {
		errs = append(errs, fmt.Errorf("-drain must be positive and at most %s", maxDrain))
	}
	if o.sample < 100*time.Millisecond || o.sample > o.duration {
		errs = append(errs, errors.New("-sample must be at least 100ms and at most -duration"))
	}
	if o.latency < 0 || o.latency > time.Minute || o.gap < 0 || o.gap > time.Minute {
		errs = append(errs, errors.New("-latency and -gap must be from 0 to 1m"))
	}
	if o.webhookParallel < 1 || o.webhookParallel > maxWebhookParallel {
		errs = append(errs, fmt.Errorf("-webhook-parallel must be from 1 to %d", maxWebhookParallel))
	}
	if o.mps < 1 || o.mps > 1000 {
		errs = append(errs, errors.New("-mps must be from 1 to 1000, as HERALD_WHATSAPP_MPS"))
	}
	for _, e := range o.engines {
		if e != engineSQLite && e != enginePostgres {
			errs = append(errs, fmt.Errorf("-engines: %q is neither %s nor %s", e, engineSQLite, enginePostgres))
		}
		if e == enginePostgres && o.postgres == "" {
			errs = append(errs, errors.New("-engines postgres needs -postgres (or HERALD_TEST_POSTGRES_URL)"))
		}
	}
	if o.numberMPS < 0 || o.numberMPS > 1000 {
		errs = append(errs, errors.New("-number-mps must be from 0 to 1000"))
	}
	if o.numbers < 0 || o.numbers > maxNumbers {
		errs = append(errs, fmt.Errorf("-numbers must be from 0 to %d", maxNumbers))
	}
	if len(o.engines) == 0 {
		errs = append(errs, errors.New("-engines: none given"))
	}
	return errors.Join(errs...)
}

func engineLabel(engine string) string {
	if engine == enginePostgres {
		return "PostgreSQL"
	}
	return "SQLite FULL"
}

// runLabel is a run's row label: the engine, and the stored numbers it
// sends from when there are any.
func (o pipelineOptions) runLabel(engine string) string {
	switch o.numbers {
	case 0:
		return engineLabel(engine)
	case 1:
		return engineLabel(engine) + ", 1 number"
	}
	return fmt.Sprintf("%s, %d numbers", engineLabel(engine), o.numbers)
}

// runPipeline searches, on each engine, for the highest rate the whole
// pipeline keeps up with, and writes the results to w, even when a run
// failed.
func runPipeline(o pipelineOptions, w io.Writer) error {
	if err := o.check(); err != nil {
		return err
	}
	if o.cpuProfile != "" {
		if err := os.MkdirAll(o.cpuProfile, 0o755); err != nil {
			return err
		}
	}
	dir, err := os.MkdirTemp("", "herald-pipeline-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	bin := o.heraldBin
	if bin == "" {
		if bin, err = buildHerald(dir); err != nil {
			return err
		}
	}
	var runs []pipelineRun
	var errs []error
	for _, engine := range o.engines {
		run := pipelineRun{engine: o.runLabel(engine)}
		run.results, run.best, run.err = searchRates(o.rates, o.allRates, func(rate int) (pipelineResult, error) {
			return runPipelineOnce(o, bin, dir, engine, rate)
		})
		if run.err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", run.engine, run.err))
		}
		runs = append(runs, run)
	}
	printPipeline(w, o, runs)
	return errors.Join(errs...)
}

// runPipelineOnce runs the pipeline at one rate on a fresh database, with
// a fresh herald, fake Cloud API and event receiver:
//
//  1. it starts the receiver and the fake (each a child process), prepares
//     herald (a live key, an active campaign) and serves it, pointed at
//     the fake and with the fake's app secret, and points the fake's
//     webhooks at herald;
//  2. it subscribes the receiver to every event if herald has the
//     endpoints API;
//  3. it sends at the rate for the duration, open loop, while sampling the
//     backlog of each stage;
//  4. it waits, at most the drain bound, until every accepted message has
//     reached read, then reads herald's own count, the CPU each process
//     took and herald's peak memory.
func runPipelineOnce(o pipelineOptions, bin, dir, engine string, rate int) (pipelineResult, error) {
	r := pipelineResult{engine: o.runLabel(engine), rate: rate, duration: o.duration}
	fmt.Fprintf(os.Stderr, "load: pipeline on %s at %d messages/s for %s\n", r.engine, rate, o.duration)
	databaseURL := "sqlite:" + filepath.Join(dir, fmt.Sprintf("pipeline-%d.db", rate))
	if engine == enginePostgres {
		u, drop, err := createDatabase(o.postgres)
		if err != nil {
			return r, err
		}
		defer drop()
		databaseURL = u
	} else {
		defer removeSQLite(strings.TrimPrefix(databaseURL, "sqlite:"))
	}

	receiver, err := startChild(childConfig{Kind: childReceiver})
	if err != nil {
		return r, err
	}
	defer receiver.stop()
	secret := randomHex(16)
	numbers := senderNumbers(o.numbers)
	fake, err := startChild(childConfig{Kind: childFake, Latency: o.latency, Gap: o.gap, Parallel: o.webhookParallel, AppSecret: secret,
		Numbers: numbers})
	if err != nil {
		return r, err
	}
	defer fake.stop()
	receiverURL, err := url.Parse(receiver.hello.URL)
	if err != nil {
		return r, err
	}
	h := &heraldTarget{name: r.engine, slug: engine, bin: bin, databaseURL: databaseURL, mps: o.mps,
		cloud: &cloudAPI{URL: fake.hello.URL, Token: fake.hello.Token, PhoneNumberID: fake.hello.PhoneNumberID},
		// The events' settings are those of issue 26; a build without
		// them ignores them.
		extraEnv: []string{"HERALD_WHATSAPP_APP_SECRET=" + secret, "HERALD_WEBHOOK_ALLOW_HTTP=true",
			"HERALD_WEBHOOK_ALLOWED_HOSTS=" + receiverURL.Host},
		secretKey: newSecretKey()}
	if err := h.prepare(); err != nil {
		return r, err
	}
	numberMPS := o.mps
	if o.numberMPS > 0 {
		numberMPS = o.numberMPS
	}
	numberIDs, err := h.addNumbers(dir, numbers, numberMPS)
	if err != nil {
		return r, err
	}
	srv, err := h.serve(o.cpuProfile != "")
	if err != nil {
		return r, err
	}
	stopped := false
	stop := func() {
		if !stopped {
			stopped = true
			srv.stop()
		}
	}
	defer stop()
	base := "http://" + srv.addr
	if err := fake.post("/webhook-url", base+"/v1/webhooks/whatsapp"); err != nil {
		return r, err
	}
	var campaigns []string
	if len(numberIDs) > 0 {
		if campaigns, err = createNumberCampaigns(base, h.token, numberIDs); err != nil {
			return r, err
		}
	}
	var eventsOn bool
	r.events, eventsOn, err = registerEndpoint(base, h.token, receiver.hello.URL+"/events",
		func(s string) error { return receiver.post("/secret", s) })
	if err != nil {
		return r, err
	}

	reader, err := openBacklog(databaseURL)
	if err != nil {
		return r, fmt.Errorf("open herald's database to sample it: %w", err)
	}
	defer reader.Close()
	m := &pipelineMeter{reader: reader, fake: fake, pids: [3]int{srv.cmd.Process.Pid, fake.pid(), receiver.pid()}}
	if reader.postgres {
		m.pg = newPostgresCPU(reader.db)
	}

	var prof *profiler
	var profDone <-chan error
	if o.cpuProfile != "" {
		name := fmt.Sprintf("cpu-pipeline-%s-%d.pprof", engine, rate)
		if o.numbers > 0 {
			name = fmt.Sprintf("cpu-pipeline-%s-%d-numbers-%d.pprof", engine, rate, o.numbers)
		}
		prof = &profiler{debugAddr: srv.debugAddr, path: filepath.Join(o.cpuProfile, name)}
	}
	cpu0 := m.cpu()
	var fake0 fakeStats
	if err := fake.get("/stats", &fake0); err != nil {
		return r, err
	}
	sampling := m.sampleEvery(o.sample)
	if prof != nil {
		profDone = prof.start(o.duration)
	}
	t := target{name: r.engine, base: base, token: h.token, campaign: h.campaign, campaigns: campaigns}
	r.send = paceSends(t, rate, o.duration)
	loadEnd := time.Now()
	samples := sampling.stop()
	var fakeEnd fakeStats
	if err := fake.get("/stats", &fakeEnd); err != nil {
		return r, err
	}
	end, err := m.backlog(loadEnd)
	if err != nil {
		r.notes = append(r.notes, "the backlog at the load's end could not be read: "+err.Error())
	}
	r.window = fakeEnd.minus(fake0)
	r.queued, r.unapplied, r.parked, r.owed = series(samples, end)
	r.notes = append(r.notes, m.notes()...)

	if err := fake.get(fmt.Sprintf("/wait?reads=%d&timeout=%s", r.accepted(), o.drain), &r.final); err != nil {
		return r, err
	}
	r.drain = time.Since(loadEnd)
	r.drained = r.final.Reads >= r.accepted()
	if !r.drained {
		r.drain = o.drain
	}
	cpu1 := m.cpu()
	r.cpu = cpu1.since(cpu0)
	if err := fake.get("/latencies", &r.acks); err != nil {
		return r, err
	}
	if r.heraldCounts, err = campaignCounts(base, h.token, h.campaign); err != nil {
		return r, err
	}
	for i, n := range numbers {
		nr := numberResult{metaID: n.PhoneNumberID, campaign: campaigns[i], offered: float64(rate) / float64(len(numbers)),
			window: r.window.AcceptedBy[n.PhoneNumberID], reads: r.final.ReadsBy[n.PhoneNumberID]}
		if nr.counts, err = campaignCounts(base, h.token, campaigns[i]); err != nil {
			return r, err
		}
		for status, c := range nr.counts {
			r.heraldCounts[status] += c
		}
		r.numbers = append(r.numbers, nr)
	}
	if eventsOn {
		var st receiverStats
		if err := receiver.get("/stats", &st); err != nil {
			return r, err
		}
		r.events = fmt.Sprintf("the receiver got %d deliveries, %d verified and answered 2xx (%v)", st.Received, st.Answered2xx, st.Types)
	}
	if profDone != nil {
		if err := <-profDone; err != nil {
			return r, fmt.Errorf("cpu profile: %w", err)
		}
		r.profile = prof.path
		if r.stages, err = profileStages(prof.path); err != nil {
			return r, fmt.Errorf("read the cpu profile: %w", err)
		}
	}
	if r.peakRSS, err = srv.peakRSS(); err != nil {
		return r, err
	}
	stop()
	return r, nil
}

// paceSends posts send-campaign at rate for d, open loop: each call leaves
// at its time whether or not earlier ones were answered (vegeta's constant
// pacer), from up to maxSendWorkers workers.
func paceSends(t target, rate int, d time.Duration) phase {
	transport := &http.Transport{Proxy: nil, DialContext: (&net.Dialer{Timeout: 5 * time.Second}).DialContext,
		MaxIdleConnsPerHost: maxSendWorkers}
	defer transport.CloseIdleConnections()
	atk := vegeta.NewAttacker(
		vegeta.Client(&http.Client{Transport: transport}),
		vegeta.Workers(64), vegeta.MaxWorkers(maxSendWorkers),
		vegeta.Connections(maxSendWorkers), vegeta.MaxConnections(maxSendWorkers), vegeta.KeepAlive(true),
		vegeta.Timeout(requestTimeout), vegeta.Redirects(vegeta.NoFollow),
	)
	var sent atomic.Uint64
	phone := func(n uint64) string { return fmt.Sprintf("+141555%05d", n%pipelineRecipients) }
	tr := bounded(rate*int(d/time.Second+1), sendTargeter(t, phone, &sent))
	p := collect(fmt.Sprintf("send-campaign at %d/s", rate), atk.Attack(tr, vegeta.Rate{Freq: rate, Per: time.Second}, d, ""), http.StatusAccepted)
	p.asked = rate
	return p
}

// registerEndpoint subscribes url to every event through herald's
// endpoints API (POST /v1/webhook-endpoints), and hands the endpoint's
// secret to setSecret. A build without the API answers 404 (or 405): that
// is reported, not an error. It returns what to report, and whether events
// will come.
func registerEndpoint(base, token, url string, setSecret func(string) error) (string, bool, error) {
	body, _ := json.Marshal(map[string]any{"url": url, "events": []string{"*"}, "description": "load run"})
	req, err := http.NewRequest(http.MethodPost, base+"/v1/webhook-endpoints", bytes.NewReader(body))
	if err != nil {
		return "", false, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-API-KEY", token)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		return "", false, err
	}
	defer res.Body.Close()
	answer, _ := io.ReadAll(io.LimitReader(res.Body, 64<<10))
	switch res.StatusCode {
	case http.StatusNotFound, http.StatusMethodNotAllowed:
		return "not available in this build", false, nil
	case http.StatusCreated:
		var ep struct{ Secret string }
		if err := json.Unmarshal(answer, &ep); err != nil || ep.Secret == "" {
			return "", false, fmt.Errorf("webhook endpoint created without a secret: %s", answer)
		}
		if err := setSecret(ep.Secret); err != nil {
			return "", false, err
		}
		return "subscribed", true, nil
	default:
		return fmt.Sprintf("the endpoint was refused: %s %s", res.Status, bytes.TrimSpace(answer)), false, nil
	}
}

// campaignCounts is herald's own count of the campaign's messages by
// status (GET /v1/campaigns/{id}/stats).
func campaignCounts(base, token, campaign string) (map[string]int, error) {
	req, err := http.NewRequest(http.MethodGet, base+"/v1/campaigns/"+campaign+"/stats", nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("X-API-KEY", token)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, err
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("campaign stats: %s", res.Status)
	}
	var st struct{ Counts map[string]int }
	if err := json.NewDecoder(res.Body).Decode(&st); err != nil {
		return nil, fmt.Errorf("campaign stats: %w", err)
	}
	return st.Counts, nil
}

// pipelineMeter reads the CPU time of every process of a run and the
// backlog of every stage; its readings are serialised, since they share
// one database connection.
type pipelineMeter struct {
	mu     sync.Mutex
	reader *backlogReader
	pg     *postgresCPU // nil on SQLite
	fake   *child
	pids   [3]int // herald, the fake, the receiver
	errs   []string
}

// cpuReading is the CPU time used so far by each process.
type cpuReading struct {
	at                                     time.Time
	herald, postgres, load, fake, receiver time.Duration
	busy, total                            time.Duration
}

func (m *pipelineMeter) cpu() cpuReading {
	m.mu.Lock()
	defer m.mu.Unlock()
	c := cpuReading{at: time.Now(), load: cpustat.Self(), herald: cpustat.Process(m.pids[0]),
		fake: cpustat.Process(m.pids[1]), receiver: cpustat.Process(m.pids[2])}
	if m.pg != nil {
		if err := m.pg.observe(context.Background()); err != nil {
			m.errs = append(m.errs, "PostgreSQL's processes could not be read: "+err.Error())
		}
		c.postgres = m.pg.total()
	}
	c.busy, c.total = cpustat.Machine()
	return c
}

func (c cpuReading) since(before cpuReading) pipelineCPU {
	return pipelineCPU{herald: c.herald - before.herald, postgres: c.postgres - before.postgres, load: c.load - before.load,
		fake: c.fake - before.fake, receiver: c.receiver - before.receiver,
		busy: c.busy - before.busy, total: c.total - before.total, wall: c.at.Sub(before.at)}
}

// backlog samples every stage's oldest waiting item at now: herald's from
// its database, the status webhooks still owed from the fake.
func (m *pipelineMeter) backlog(now time.Time) (backlog, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	b, err := m.reader.sample(ctx, now)
	if err != nil {
		return b, err
	}
	var st fakeStats
	if err := m.fake.get("/stats", &st); err != nil {
		return b, err
	}
	b.owedCount = st.Owed
	if st.OldestOwed != 0 {
		b.owed = max(0, now.Sub(time.UnixMicro(st.OldestOwed)))
	}
	if m.pg != nil {
		if err := m.pg.observe(ctx); err != nil {
			return b, err
		}
	}
	return b, nil
}

// notes are the sampling errors so far, each once.
func (m *pipelineMeter) notes() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	seen := map[string]bool{}
	var out []string
	for _, e := range m.errs {
		if !seen[e] {
			seen[e] = true
			out = append(out, e)
		}
	}
	return out
}

// sampling is a running sampler.
type sampling struct {
	done    chan struct{}
	stopped chan struct{}
	samples []backlog
}

// sampleEvery samples the backlog every period until stopped.
func (m *pipelineMeter) sampleEvery(period time.Duration) *sampling {
	s := &sampling{done: make(chan struct{}), stopped: make(chan struct{})}
	go func() {
		defer close(s.stopped)
		tick := time.NewTicker(period)
		defer tick.Stop()
		for {
			select {
			case <-s.done:
				return
			case now := <-tick.C:
				b, err := m.backlog(now)
				if err != nil {
					m.mu.Lock()
					m.errs = append(m.errs, "a backlog sample failed: "+err.Error())
					m.mu.Unlock()
					continue
				}
				s.samples = append(s.samples, b)
			}
		}
	}()
	return s
}

// stop ends the sampling and returns the samples.
func (s *sampling) stop() []backlog {
	close(s.done)
	<-s.stopped
	return s.samples
}

// series splits samples, and the sample at the load's end, into each
// stage's ages.
func series(samples []backlog, end backlog) (queued, unapplied, parked, owed ageSeries) {
	for _, b := range samples {
		queued.samples = append(queued.samples, b.queued)
		unapplied.samples = append(unapplied.samples, b.unapplied)
		parked.samples = append(parked.samples, b.parked)
		owed.samples = append(owed.samples, b.owed)
	}
	queued.end, unapplied.end, parked.end, owed.end = end.queued, end.unapplied, end.parked, end.owed
	return
}

// minus is what the fake counted between before and s.
func (s fakeStats) minus(before fakeStats) fakeStats {
	return fakeStats{Requests: s.Requests - before.Requests, Accepted: s.Accepted - before.Accepted,
		Connections: s.Connections - before.Connections, Posts: s.Posts - before.Posts, Acked: s.Acked - before.Acked,
		GivenUp: s.GivenUp - before.GivenUp, Reads: s.Reads - before.Reads, Owed: s.Owed, OldestOwed: s.OldestOwed,
		AcceptedBy: minusBy(s.AcceptedBy, before.AcceptedBy), ReadsBy: minusBy(s.ReadsBy, before.ReadsBy)}
}

// minusBy is each number's count in now less its count in before.
func minusBy(now, before map[string]int) map[string]int {
	if now == nil {
		return nil
	}
	out := make(map[string]int, len(now))
	for k, v := range now {
		out[k] = v - before[k]
	}
	return out
}

// removeSQLite removes a database file and its WAL and shared-memory files.
func removeSQLite(path string) {
	for _, suffix := range []string{"", "-wal", "-shm"} {
		os.Remove(path + suffix)
	}
}

func randomHex(n int) string {
	b := make([]byte, n)
	rand.Read(b)
	return hex.EncodeToString(b)
}
