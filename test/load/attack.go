package main

import (
	"fmt"
	"math"
	"net"
	"net/http"
	"net/url"
	"sync/atomic"
	"time"

	vegeta "github.com/tsenart/vegeta/v12/lib"
)

// recipientCount is how many numbers the load rotates through, as real
// traffic spreads over many contacts.
const recipientCount = 10_000

// requestTimeout bounds every request, so that a stuck server ends a phase
// at most this long after its duration.
const requestTimeout = 10 * time.Second

// target is one server under load.
type target struct {
	name     string // the row label
	base     string // http://127.0.0.1:PORT
	token    string // an API key: live or test, as -mode says
	campaign string // an active campaign's id
	// campaigns, when set, are the campaigns sends rotate over instead
	// (one per sender number).
	campaigns []string
}

// report is what one target measured.
type report struct {
	name    string
	send    phase       // send-campaign at saturation
	paced   phase       // send-campaign at half the saturation rate
	lookup  phase       // contact lookup at saturation
	peakRSS float64     // MiB; 0 for the floor, which runs inside this process
	profile string      // the CPU profile written, if any
	cloud   *cloudCount // live mode: what herald sent the fake Cloud API; nil otherwise
}

// cloudCount is what reached a live herald's fake Cloud API from herald's
// start to its stop.
type cloudCount struct {
	received int           // sends that arrived
	accepted int           // of those, the sends the fake accepted
	served   time.Duration // from herald's start to its stop
}

// phase is one vegeta attack's outcome. Only the expected status counts as
// a success; rate and latencies are over successes only, and everything else
// is counted in errors, by kind.
type phase struct {
	label    string
	rate     float64 // successful requests per second
	p50, p99 time.Duration
	ok       uint64
	errors   uint64
	kinds    map[string]int // error text or status -> count
	asked    int            // the paced rate asked for; 0 at saturation
	capped   bool           // stopped by -max-requests before its duration
	cpu      cpuUse         // CPU time the phase took, by process
}

// measure runs the three phases against t, reading the CPU time of each
// with m. prof, when not nil, profiles the server during the saturation
// phase.
func measure(o options, t target, m cpuMeter, prof *profiler) (report, error) {
	r := report{name: t.name}
	attack := func(label string, tr vegeta.Targeter, rate vegeta.Rate, d time.Duration, conns int, want int) phase {
		before := m.sample()
		p := attack(label, tr, rate, d, conns, want)
		p.cpu = m.sample().since(before)
		return p
	}
	var sent atomic.Uint64 // send requests issued so far, over both send phases
	send := sendTargeter(t, phone, &sent)

	var profDone <-chan error
	if prof != nil {
		profDone = prof.start(o.duration)
	}
	r.send = attack("send-campaign, saturation", bounded(o.maxRequests, send), vegeta.Rate{}, o.duration, o.conns, http.StatusAccepted)
	if profDone != nil {
		if err := <-profDone; err != nil {
			return r, fmt.Errorf("cpu profile of %s: %w", t.name, err)
		}
		r.profile = prof.path
	}
	if r.send.ok == 0 {
		return r, fmt.Errorf("%s: no send-campaign request succeeded at saturation (%s)", t.name, r.send.errorSummary())
	}

	half := max(1, int(math.Round(r.send.rate/2)))
	r.paced = attack(fmt.Sprintf("send-campaign, paced at %d/s", half), bounded(o.maxRequests, send),
		vegeta.Rate{Freq: half, Per: time.Second}, o.duration, o.conns, http.StatusAccepted)
	r.paced.asked = half

	// Every number sent to so far is a contact now (less any send that
	// failed, whose lookup then shows up as a 404 error).
	known := min(sent.Load(), recipientCount)
	r.lookup = attack("contact lookup, saturation", bounded(o.maxRequests, lookupTargeter(t, known)),
		vegeta.Rate{}, max(o.duration/2, 2*time.Second), o.conns, http.StatusOK)
	return r, nil
}

// phone is the n-th of the rotating recipient numbers.
func phone(n uint64) string {
	return fmt.Sprintf("+1415555%04d", n%recipientCount)
}

// sendTargeter returns send-campaign requests to the next recipient each,
// phone(n) for the n-th, counting them in sent. Vegeta calls a targeter from
// many workers at once, hence the atomic counter.
func sendTargeter(t target, phone func(uint64) string, sent *atomic.Uint64) func(*vegeta.Target) {
	hdr := http.Header{"Content-Type": {"application/json"}, "X-Api-Key": {t.token}}
	u := t.base + "/v1/messages/send-campaign"
	return func(tgt *vegeta.Target) {
		n := sent.Add(1) - 1
		campaign := t.campaign
		if len(t.campaigns) > 0 {
			campaign = t.campaigns[n%uint64(len(t.campaigns))]
		}
		*tgt = vegeta.Target{Method: http.MethodPost, URL: u, Header: hdr,
			Body: fmt.Appendf(nil, `{"phoneNumber":%q,"campaignId":%q,"variables":["Ana","1234"]}`, phone(n), campaign)}
	}
}

// lookupTargeter returns contact lookups rotating over the first known
// recipients. The "+" is escaped, as a client must in a path.
func lookupTargeter(t target, known uint64) func(*vegeta.Target) {
	hdr := http.Header{"X-Api-Key": {t.token}}
	var next atomic.Uint64
	return func(tgt *vegeta.Target) {
		n := next.Add(1) - 1
		*tgt = vegeta.Target{Method: http.MethodGet, Header: hdr,
			URL: t.base + "/v1/contacts/by-phone/" + url.PathEscape(phone(n%max(known, 1)))}
	}
}

// bounded turns fill into a vegeta.Targeter that gives out at most limit
// targets, then vegeta.ErrNoTargets, which ends the attack: the count bound
// beside the duration.
func bounded(limit int, fill func(*vegeta.Target)) vegeta.Targeter {
	var issued atomic.Int64
	return func(tgt *vegeta.Target) error {
		if issued.Add(1) > int64(limit) {
			return vegeta.ErrNoTargets
		}
		fill(tgt)
		return nil
	}
}

// attack runs one vegeta attack for d at rate (the zero rate is unlimited:
// each worker sends its next request when the previous one is answered) from
// exactly conns workers over at most conns kept-alive connections, and
// collects the results, counting only status want as success.
func attack(label string, tr vegeta.Targeter, rate vegeta.Rate, d time.Duration, conns int, want int) phase {
	// Our own transport, so that its connections are closed when the phase
	// ends instead of idling into the next one. Proxy is nil: the load goes
	// straight to 127.0.0.1 whatever the environment says.
	transport := &http.Transport{Proxy: nil, DialContext: (&net.Dialer{Timeout: 5 * time.Second}).DialContext}
	defer transport.CloseIdleConnections()
	n := uint64(conns)
	atk := vegeta.NewAttacker(
		vegeta.Client(&http.Client{Transport: transport}), // first: the options below tune its transport
		vegeta.Workers(n), vegeta.MaxWorkers(n),
		vegeta.Connections(conns), vegeta.MaxConnections(conns), vegeta.KeepAlive(true),
		vegeta.Timeout(requestTimeout), vegeta.Redirects(vegeta.NoFollow),
	)
	return collect(label, atk.Attack(tr, rate, d, ""), want)
}

// collect reads an attack's results, counting only status want as success.
func collect(label string, results <-chan *vegeta.Result, want int) phase {
	p := phase{label: label, kinds: map[string]int{}}
	var ok vegeta.Metrics
	for res := range results {
		switch {
		case res.Error == vegeta.ErrNoTargets.Error():
			p.capped = true // the count bound, not a request
		case int(res.Code) == want:
			ok.Add(res)
		default:
			p.errors++
			p.kinds[errorKind(res)]++
		}
	}
	ok.Close()
	p.ok, p.rate = ok.Requests, ok.Throughput
	p.p50, p.p99 = ok.Latencies.P50, ok.Latencies.P99
	return p
}

// errorKind names a failed result for the error summary: the transport
// error, or the unexpected status.
func errorKind(res *vegeta.Result) string {
	if res.Code == 0 {
		return res.Error
	}
	return fmt.Sprintf("status %d", res.Code)
}
