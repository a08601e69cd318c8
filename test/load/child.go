package main

import (
	"bufio"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"net"
	"net/http"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/heraldhq/herald/test/fakemeta"
	"github.com/heraldhq/herald/test/hookreceiver"
)

// The pipeline run's fake Cloud API and event receiver each run in a child
// process of their own, the load binary started again with childEnv set,
// so that /proc gives each its own CPU time: the fake's signing and posting
// of three webhooks per message is work Meta does on its own machines, and
// must not be counted as the load generator's or Herald's.
//
// The child reads its settings from childEnv (JSON), prints one JSON line
// (childHello) on stdout once it listens, serves a small control API on
// loopback, and exits when its stdin closes, so that a parent that dies
// takes it along.
const childEnv = "HERALD_LOAD_CHILD"

// The two kinds of child.
const (
	childFake     = "fake"
	childReceiver = "receiver"
)

// childConfig is a child's settings.
type childConfig struct {
	Kind string
	// The fake's: Meta's answer time, the gap between a message's status
	// webhooks, how many webhook POSTs may be in flight, and the app secret
	// that signs them.
	Latency   time.Duration
	Gap       time.Duration
	Parallel  int
	AppSecret string
	// Numbers are the business numbers the fake serves beside its own.
	Numbers []fakemeta.Number
}

// childHello is the line a child prints once it listens.
type childHello struct {
	Control string // the control API's base URL
	// The fake's Cloud API, as HERALD_WHATSAPP_API_URL, _ACCESS_TOKEN and
	// _PHONE_NUMBER_ID want it; the receiver's base URL in URL.
	URL, Token, PhoneNumberID string
}

// fakeStats is what the fake child has counted so far.
type fakeStats struct {
	Requests    int // sends received
	Accepted    int // sends accepted (each owes its three statuses)
	Connections int // TCP connections the Cloud API accepted
	Posts       int // webhook POSTs, tries included
	Acked       int // of those, answered 200
	GivenUp     int // statuses given up after their last try
	Reads       int // read statuses answered 200: messages that reached read
	Owed        int // statuses due and not yet answered 200 or given up
	// OldestOwed is when the oldest owed status became due, in Unix
	// microseconds; 0 when none is owed.
	OldestOwed int64
	// AcceptedBy and ReadsBy are Accepted and Reads by sending number
	// (Meta's phone number id).
	AcceptedBy, ReadsBy map[string]int
}

// ackLatencies are the webhook POSTs' answer times.
type ackLatencies struct {
	Count         int
	P50, P99, Max time.Duration
}

// receiverStats is what the receiver child has counted so far.
type receiverStats = hookreceiver.Stats

// isChild reports whether this process was started as a child.
func isChild() bool { return os.Getenv(childEnv) != "" }

// runChild runs this process as the child childEnv describes, until its
// stdin closes.
func runChild() error {
	var cfg childConfig
	if err := json.Unmarshal([]byte(os.Getenv(childEnv)), &cfg); err != nil {
		return fmt.Errorf("child settings: %w", err)
	}
	var c cleanups
	defer c.run()
	mux := http.NewServeMux()
	var hello childHello
	switch cfg.Kind {
	case childFake:
		fake := serveFakeChild(&c, cfg, mux)
		hello.URL, hello.Token, hello.PhoneNumberID = fake.URL, fake.Token, fake.PhoneNumberID
	case childReceiver:
		hello.URL = serveReceiverChild(&c, mux)
	default:
		return fmt.Errorf("unknown child kind %q", cfg.Kind)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	go srv.Serve(ln)
	defer srv.Close()
	hello.Control = "http://" + ln.Addr().String()
	if err := json.NewEncoder(os.Stdout).Encode(hello); err != nil {
		return err
	}
	io.Copy(io.Discard, os.Stdin) // until the parent closes it, or dies
	return nil
}

// fakeCounter counts what the fake's webhook posts report.
type fakeCounter struct {
	mu             sync.Mutex
	posts, acked   int
	givenUp, reads int
	readsBy        map[string]int  // reads by sending number
	took           []time.Duration // every POST's answer time
	readsChanged   chan struct{}   // closed at each new read, then replaced
}

func (f *fakeCounter) post(p fakemeta.WebhookPost) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.posts++
	f.took = append(f.took, p.Took)
	switch {
	case p.Answered == http.StatusOK:
		f.acked++
		if p.Status == "read" {
			f.reads++
			f.readsBy[p.Number]++
			close(f.readsChanged)
			f.readsChanged = make(chan struct{})
		}
	case p.Last:
		f.givenUp++
	}
}

// serveFakeChild starts the fake Cloud API, lean, knowing the load
// campaign's template, and adds its control routes to mux:
//
//	POST /webhook-url     the body is the URL to post status webhooks to
//	GET  /stats           fakeStats
//	GET  /wait?reads=N&timeout=D  fakeStats once N messages reached read, or after D
//	GET  /latencies       ackLatencies of every webhook POST so far
func serveFakeChild(c *cleanups, cfg childConfig, mux *http.ServeMux) *fakemeta.Server {
	fake := fakemeta.New(c)
	fake.Latency, fake.WebhookGap, fake.WebhookParallel = cfg.Latency, cfg.Gap, cfg.Parallel
	fake.AppSecret, fake.Lean = cfg.AppSecret, true
	fake.AddTemplate(fakemeta.Template{Name: templateName, Language: templateLanguage, Status: "APPROVED", BodyParams: 2})
	for _, n := range cfg.Numbers {
		fake.AddNumber(n)
		// Templates belong to a business account: each number's account
		// has the campaign's template too.
		fake.AddTemplate(fakemeta.Template{Name: templateName, Language: templateLanguage, WABAID: n.WABAID, Status: "APPROVED", BodyParams: 2})
	}
	count := &fakeCounter{readsChanged: make(chan struct{}), readsBy: map[string]int{}}
	fake.OnWebhookPost = count.post
	stats := func() fakeStats {
		owed, oldest := fake.WebhookBacklog()
		count.mu.Lock()
		defer count.mu.Unlock()
		s := fakeStats{Requests: fake.RequestCount(), Accepted: fake.AcceptedCount(), Connections: fake.Connections(),
			Posts: count.posts, Acked: count.acked, GivenUp: count.givenUp, Reads: count.reads, Owed: owed,
			AcceptedBy: fake.AcceptedByNumber(), ReadsBy: maps.Clone(count.readsBy)}
		if !oldest.IsZero() {
			s.OldestOwed = oldest.UnixMicro()
		}
		return s
	}
	mux.HandleFunc("POST /webhook-url", func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(io.LimitReader(r.Body, 4096))
		// Set before herald sends anything (the parent starts the load
		// only after this answer), as fakemeta asks of WebhookURL.
		fake.WebhookURL = strings.TrimSpace(string(b))
		w.WriteHeader(http.StatusNoContent)
	})
	mux.HandleFunc("GET /stats", func(w http.ResponseWriter, r *http.Request) { writeJSONLine(w, stats()) })
	mux.HandleFunc("GET /wait", func(w http.ResponseWriter, r *http.Request) {
		want, err1 := strconv.Atoi(r.URL.Query().Get("reads"))
		timeout, err2 := time.ParseDuration(r.URL.Query().Get("timeout"))
		if err1 != nil || err2 != nil {
			http.Error(w, "reads and timeout", http.StatusBadRequest)
			return
		}
		deadline := time.NewTimer(timeout)
		defer deadline.Stop()
	wait:
		for {
			count.mu.Lock()
			reads, changed := count.reads, count.readsChanged
			count.mu.Unlock()
			if reads >= want {
				break
			}
			select {
			case <-changed:
			case <-deadline.C:
				break wait
			case <-r.Context().Done():
				break wait
			}
		}
		writeJSONLine(w, stats())
	})
	mux.HandleFunc("GET /latencies", func(w http.ResponseWriter, r *http.Request) {
		count.mu.Lock()
		took := slices.Clone(count.took)
		count.mu.Unlock()
		slices.Sort(took)
		writeJSONLine(w, ackLatencies{Count: len(took), P50: quantile(took, 0.50), P99: quantile(took, 0.99), Max: quantile(took, 1)})
	})
	return fake
}

// programTB is a receiver's caller outside a test. Fatalf is never reached
// here: secrets are checked before they are set.
type programTB struct{ *cleanups }

func (programTB) Helper()                           {}
func (programTB) Fatalf(format string, args ...any) { panic(fmt.Sprintf(format, args...)) }

// serveReceiverChild starts a lean Standard Webhooks receiver, with no
// secret until the parent sets one, and adds its control routes to mux:
//
//	POST /secret   the body is the endpoint's secret (whsec_…)
//	GET  /stats    receiverStats
func serveReceiverChild(c *cleanups, mux *http.ServeMux) string {
	rec := hookreceiver.New(programTB{c})
	rec.Lean()
	mux.HandleFunc("POST /secret", func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(io.LimitReader(r.Body, 4096))
		secret := strings.TrimSpace(string(b))
		if err := checkSecret(secret); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		rec.SetSecrets(programTB{c}, secret)
		w.WriteHeader(http.StatusNoContent)
	})
	mux.HandleFunc("GET /stats", func(w http.ResponseWriter, r *http.Request) { writeJSONLine(w, rec.Stats()) })
	return rec.URL
}

// checkSecret accepts a Standard Webhooks secret: whsec_ and base64.
func checkSecret(s string) error {
	rest, ok := strings.CutPrefix(s, "whsec_")
	if !ok {
		return errors.New("the secret does not start with whsec_")
	}
	if _, err := base64.StdEncoding.DecodeString(rest); err != nil {
		return fmt.Errorf("the secret is not base64: %w", err)
	}
	return nil
}

func writeJSONLine(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(v)
}

// child is a running child process, from the parent's side.
type child struct {
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	exited chan struct{}
	hello  childHello
	client *http.Client
}

// childStartTimeout bounds how long a child may take to say it listens.
const childStartTimeout = 30 * time.Second

// startChild starts this binary again as the child cfg describes.
func startChild(cfg childConfig) (*child, error) {
	self, err := os.Executable()
	if err != nil {
		return nil, err
	}
	b, err := json.Marshal(cfg)
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(self)
	cmd.Env = append(os.Environ(), childEnv+"="+string(b))
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	ch := &child{cmd: cmd, stdin: stdin, exited: make(chan struct{}),
		// Long enough for /wait's longest drain.
		client: &http.Client{Timeout: maxDrain + time.Minute, Transport: &http.Transport{Proxy: nil}}}
	hello := make(chan error, 1)
	go func() {
		line, err := bufio.NewReader(stdout).ReadBytes('\n')
		if err == nil {
			err = json.Unmarshal(line, &ch.hello)
		}
		hello <- err
		io.Copy(io.Discard, stdout)
		cmd.Wait()
		close(ch.exited)
	}()
	select {
	case err := <-hello:
		if err != nil {
			ch.stop()
			return nil, fmt.Errorf("%s child: %w", cfg.Kind, err)
		}
	case <-time.After(childStartTimeout):
		ch.stop()
		return nil, fmt.Errorf("%s child did not start within %s", cfg.Kind, childStartTimeout)
	}
	return ch, nil
}

func (c *child) pid() int { return c.cmd.Process.Pid }

// get decodes the JSON answer of a control route.
func (c *child) get(path string, out any) error {
	res, err := c.client.Get(c.hello.Control + path)
	if err != nil {
		return err
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(io.LimitReader(res.Body, 512))
		return fmt.Errorf("%s: %s: %s", path, res.Status, b)
	}
	return json.NewDecoder(res.Body).Decode(out)
}

// post sends body to a control route that answers 204.
func (c *child) post(path, body string) error {
	res, err := c.client.Post(c.hello.Control+path, "text/plain", strings.NewReader(body))
	if err != nil {
		return err
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusNoContent {
		b, _ := io.ReadAll(io.LimitReader(res.Body, 512))
		return fmt.Errorf("%s: %s: %s", path, res.Status, b)
	}
	return nil
}

// stop closes the child's stdin, which ends it, and kills it if it has not
// exited within stopTimeout.
func (c *child) stop() {
	c.stdin.Close()
	select {
	case <-c.exited:
	case <-time.After(stopTimeout):
		c.cmd.Process.Kill()
		<-c.exited
	}
}
