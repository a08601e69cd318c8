package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// options are the command line of one load run.
type options struct {
	duration    time.Duration // each send phase; the lookup phase gets half, at least 2s
	conns       int           // vegeta workers and connections per phase
	maxRequests int           // a phase stops after this many requests even if time remains
	postgres    string        // PostgreSQL server to also measure on; empty skips it
	cpuProfile  string        // directory for herald's CPU profiles; empty: no profiling
	mode        string        // modeLive or modeTest: the key mode, and so the sender behind it
	liveMPS     int           // with modeLive: herald's HERALD_WHATSAPP_MPS
}

// The two modes of the HTTP load: which key sends, and so what herald does
// with each accepted message.
const (
	// modeLive sends with a live key: herald's dispatcher sends each
	// accepted message to a fake Cloud API on loopback, paced at -mps-live,
	// as it sends to Meta in production.
	modeLive = "live"
	// modeTest sends with a test key: the sandbox sends each accepted
	// message at once and records its statuses, unpaced.
	modeTest = "test"
)

// defaultLiveMPS is herald's own HERALD_WHATSAPP_MPS default, Meta's
// default pace per sender number.
const defaultLiveMPS = 80

func main() {
	if isChild() {
		if err := runChild(); err != nil {
			fmt.Fprintln(os.Stderr, "load child:", err)
			os.Exit(1)
		}
		return
	}
	var o options
	flag.DurationVar(&o.duration, "duration", 10*time.Second, "how long each send-campaign phase runs (the lookup phase runs half, at least 2s)")
	flag.IntVar(&o.conns, "connections", 64, "vegeta workers and connections per phase")
	flag.IntVar(&o.maxRequests, "max-requests", 2_000_000, "stop a phase after this many requests")
	flag.StringVar(&o.postgres, "postgres", os.Getenv("HERALD_TEST_POSTGRES_URL"),
		"PostgreSQL server to also measure on (a database is created and dropped); empty skips it")
	flag.StringVar(&o.cpuProfile, "cpuprofile", "", "write a CPU profile of each herald server's saturation phase into this directory")
	flag.StringVar(&o.mode, "mode", modeLive, `"live": a live key, whose messages the dispatcher sends to a fake Cloud API at -mps-live, as in production; "test": a test key, whose messages the sandbox sends and records statuses for at once`)
	flag.IntVar(&o.liveMPS, "mps-live", defaultLiveMPS, "with -mode live: the sender number's pace, HERALD_WHATSAPP_MPS (1 to 1000; herald's default is 80)")
	dispatch := flag.Int("dispatch", 0, "instead of the HTTP load, move this many messages to the fake Cloud API and report msg/s")
	latency := flag.Duration("latency", 100*time.Millisecond, "with -dispatch and -pipeline: the fake Cloud API's answer time")
	mps := flag.Int("mps", 1000, "with -dispatch and -pipeline: the sender number's pace (HERALD_WHATSAPP_MPS)")
	concurrency := flag.Int("concurrency", 0, "with -dispatch: sends in flight (0: the server's default for the pace)")
	pipeline := flag.Bool("pipeline", false, "instead of the HTTP load, run the whole pipeline (send-campaign at fixed rates, the dispatcher, "+
		"three status webhooks per message) and find the highest rate it keeps up with")
	rates := flag.String("rates", "250,500,750,1000", "with -pipeline: the rates to try, messages/s, lowest first; the search stops at the first that does not keep up")
	engines := flag.String("engines", "sqlite,postgres", "with -pipeline: the engines to measure (postgres only when -postgres names a server)")
	allRates := flag.Bool("all-rates", false, "with -pipeline: run every rate of -rates, not only up to the first that does not keep up")
	drain := flag.Duration("drain", 10*time.Second, "with -pipeline: how long after the load every accepted message may take to reach read")
	sample := flag.Duration("sample", time.Second, "with -pipeline: how often the backlog is sampled")
	gap := flag.Duration("gap", 100*time.Millisecond, "with -pipeline: the fake Cloud API's pause between a message's sent, delivered and read webhooks")
	heraldBin := flag.String("herald-bin", "", "with -pipeline: run this herald binary instead of building one from the working tree (to compare two builds in one session)")
	numbers := flag.Int("numbers", 0, "with -pipeline: send from this many business numbers, each stored with `herald numbers add` at -mps "+
		"with its own token, in two accounts of two Meta apps, each sending its own campaign, the load spread evenly over them; "+
		"0: the one number HERALD_WHATSAPP_* defines")
	numberMPS := flag.Int("number-mps", 0, "with -pipeline -numbers: each stored number's pace (its --mps), while -mps stays the server's "+
		"HERALD_WHATSAPP_MPS; 0: -mps")
	webhookParallel := flag.Int("webhook-parallel", 64, "with -pipeline: status webhook POSTs the fake Cloud API has in flight at most")
	flag.Parse()
	set := map[string]bool{}
	flag.Visit(func(f *flag.Flag) { set[f.Name] = true })

	var err error
	switch {
	case set["mps-live"] && o.mode != modeLive:
		err = errors.New("-mps-live applies to -mode live only")
	case *pipeline:
		po := pipelineOptions{allRates: *allRates, duration: o.duration, drain: *drain, sample: *sample, latency: *latency, gap: *gap,
			webhookParallel: *webhookParallel, mps: *mps, postgres: o.postgres, cpuProfile: o.cpuProfile, heraldBin: *heraldBin, numbers: *numbers, numberMPS: *numberMPS}
		if !set["duration"] {
			po.duration = time.Minute
		}
		for e := range strings.SplitSeq(*engines, ",") {
			if e = strings.TrimSpace(e); e == enginePostgres && o.postgres == "" && !set["engines"] {
				continue // the default asks for PostgreSQL only where there is one
			}
			if e != "" {
				po.engines = append(po.engines, e)
			}
		}
		if po.rates, err = parseRates(*rates); err == nil {
			err = runPipeline(po, os.Stdout)
		}
	case *dispatch > 0:
		err = runDispatch(*dispatch, *mps, *concurrency, *latency)
	default:
		err = run(o)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "load:", err)
		os.Exit(1)
	}
}

// runDispatch runs the -dispatch mode (dispatch.go) in a scratch directory.
func runDispatch(n, mps, concurrency int, latency time.Duration) error {
	dir, err := os.MkdirTemp("", "herald-dispatch-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	return dispatchRun(dir, n, mps, concurrency, latency)
}

// run measures the floor, Herald on SQLite and, when asked, Herald on
// PostgreSQL, then prints what it measured, even when a later target failed.
func run(o options) error {
	if o.duration <= 0 || o.conns <= 0 || o.maxRequests <= 0 {
		return errors.New("-duration, -connections and -max-requests must be positive")
	}
	if o.mode != modeLive && o.mode != modeTest {
		return fmt.Errorf("-mode must be %s or %s, not %q", modeLive, modeTest, o.mode)
	}
	if o.liveMPS < 1 || o.liveMPS > 1000 {
		return errors.New("-mps-live must be between 1 and 1000, as HERALD_WHATSAPP_MPS")
	}
	if o.cpuProfile != "" {
		if err := os.MkdirAll(o.cpuProfile, 0o755); err != nil {
			return err
		}
	}
	dir, err := os.MkdirTemp("", "herald-load-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	reports, err := measureAll(o, dir)
	if len(reports) > 0 {
		printReport(os.Stdout, o, reports)
	}
	return err
}

// measureAll builds herald and measures each target in turn, one at a time,
// so that no server competes with another for the CPU.
func measureAll(o options, dir string) ([]report, error) {
	bin, err := buildHerald(dir)
	if err != nil {
		return nil, err
	}
	var fakes cleanups // the fake Cloud APIs of live mode, closed after their heralds
	defer fakes.run()
	newTarget := func(name, slug, databaseURL string) (*heraldTarget, error) {
		h := &heraldTarget{name: name, slug: slug, bin: bin, databaseURL: databaseURL}
		if o.mode == modeLive {
			fake, err := startFakeMeta(&fakes)
			if err != nil {
				return nil, err
			}
			h.fake, h.mps = fake, o.liveMPS
			h.cloud = &cloudAPI{URL: fake.URL, Token: fake.Token, PhoneNumberID: fake.PhoneNumberID}
		}
		return h, nil
	}
	sqlite, err := newTarget("herald (SQLite FULL)", "sqlite", "sqlite:"+filepath.Join(dir, "herald.db"))
	if err != nil {
		return nil, err
	}
	// The floor checks the SQLite key's token, so that it parses and hashes
	// the same token format Herald does.
	if err := sqlite.prepare(); err != nil {
		return nil, err
	}
	floor, err := startFloor(sqlite.token)
	if err != nil {
		return nil, err
	}
	defer floor.Close()

	var reports []report
	r, err := measure(o, target{name: "floor (no storage)", base: "http://" + floor.Addr().String(),
		token: sqlite.token, campaign: sqlite.campaign}, cpuMeter{}, nil)
	if err != nil {
		return nil, err
	}
	reports = append(reports, r)
	if r, err = measureHerald(o, sqlite); err != nil {
		return reports, err
	}
	reports = append(reports, r)
	if o.postgres == "" {
		return reports, nil
	}
	url, drop, err := createDatabase(o.postgres)
	if err != nil {
		return reports, err
	}
	defer drop()
	pg, err := newTarget("herald (PostgreSQL)", "postgres", url)
	if err != nil {
		return reports, err
	}
	if err := pg.prepare(); err != nil {
		return reports, err
	}
	if r, err = measureHerald(o, pg); err != nil {
		return reports, err
	}
	return append(reports, r), nil
}

// measureHerald starts a prepared herald, measures it, reads its peak
// memory and stops it; in live mode it then counts what reached the fake
// Cloud API, once herald has finished its in-flight sends.
func measureHerald(o options, h *heraldTarget) (report, error) {
	start := time.Now()
	srv, err := h.serve(o.cpuProfile != "")
	if err != nil {
		return report{}, err
	}
	t := target{name: h.name, base: "http://" + srv.addr, token: h.token, campaign: h.campaign}
	var prof *profiler
	if o.cpuProfile != "" {
		prof = &profiler{debugAddr: srv.debugAddr, path: filepath.Join(o.cpuProfile, "cpu-"+h.slug+".pprof")}
	}
	m := cpuMeter{server: srv.cmd.Process.Pid, database: strings.HasPrefix(h.databaseURL, "postgres")}
	r, err := measure(o, t, m, prof)
	if err == nil {
		// VmHWM is the process's peak resident set; it must be read while
		// the process still exists.
		r.peakRSS, err = srv.peakRSS()
	}
	srv.stop()
	if h.fake != nil {
		r.cloud = &cloudCount{received: len(h.fake.Requests()), accepted: len(h.fake.Accepted()), served: time.Since(start)}
	}
	return r, err
}
