package main

import (
	"bufio"
	"bytes"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // the PostgreSQL driver, for creating the load database

	"github.com/heraldhq/herald/test/fakemeta"
)

// startTimeout bounds how long herald may take to log that it listens.
const startTimeout = 30 * time.Second

// stopTimeout bounds the graceful stop before herald is killed.
const stopTimeout = 10 * time.Second

// maxForwarded is how many of herald's warning and error log lines are
// copied to stderr; enough to see what went wrong, not a flood. The rest
// are counted.
const maxForwarded = 10

// buildHerald builds the binary under test into dir.
func buildHerald(dir string) (string, error) {
	bin := filepath.Join(dir, "herald")
	build := exec.Command("go", "build", "-o", bin, "./cmd/herald")
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		return "", fmt.Errorf("build herald: %w", err)
	}
	return bin, nil
}

// The load campaign's template: the campaign is created with this name,
// language and a body of two placeholders, and in live mode the fake Cloud
// API knows it as approved.
const (
	templateName     = "load_test"
	templateLanguage = "en_US"
	templateBody     = "Hi {{1}}, your code is {{2}}"
)

// heraldTarget is herald on one database: a key and an active campaign
// made with its CLI, then a server.
type heraldTarget struct {
	name, slug  string // row label; file-name part of the CPU profile
	bin         string
	databaseURL string
	// cloud is the Cloud API a live key's messages go to; nil in test
	// mode, where the key is a test key and the sandbox sends.
	cloud *cloudAPI
	// fake is the in-process fake behind cloud in the HTTP load run, for
	// counting what reached it; nil otherwise.
	fake     *fakemeta.Server
	mps      int      // with cloud: the sender number's pace, HERALD_WHATSAPP_MPS
	extraEnv []string // more settings for herald serve
	// secretKey seals stored numbers' tokens (HERALD_SECRET_KEY); empty:
	// none given.
	secretKey string
	token     string // set by prepare
	campaign  string // set by prepare
}

// cloudAPI is where herald's sender is pointed: a fake Cloud API's base
// URL, token and sender number id.
type cloudAPI struct{ URL, Token, PhoneNumberID string }

// startFakeMeta starts a fake Cloud API on 127.0.0.1 that accepts the load
// campaign's template; c closes it.
func startFakeMeta(c *cleanups) (*fakemeta.Server, error) {
	fake := fakemeta.New(c)
	u, err := url.Parse(fake.URL)
	if err != nil {
		return nil, err
	}
	if u.Hostname() != "127.0.0.1" {
		return nil, fmt.Errorf("the fake Cloud API listens on %s, not on 127.0.0.1", u.Host)
	}
	fake.AddTemplate(fakemeta.Template{Name: templateName, Language: templateLanguage, Status: "APPROVED", BodyParams: 2})
	return fake, nil
}

// env is the environment of every herald command. One key drives the whole
// load, so its rate limit is lifted: otherwise the limiter is what would be
// measured.
func (h *heraldTarget) env() []string {
	return append(os.Environ(), "HERALD_DATABASE_URL="+h.databaseURL, "HERALD_LOG_FORMAT=json",
		"HERALD_LOG_LEVEL=warn", "HERALD_RATE_LIMIT=1000000", "HERALD_RATE_BURST=1000000", "HERALD_SECRET_KEY="+h.secretKey)
}

// prepare migrates PostgreSQL (SQLite migrates itself), then creates the
// key (live when there is a fake Cloud API, test otherwise) and the active
// campaign the load uses. The campaign brings its own body, so no template
// sync is needed.
func (h *heraldTarget) prepare() error {
	if strings.HasPrefix(h.databaseURL, "postgres") {
		var migrated struct{ To int }
		if err := h.cli(&migrated, "migrate", "--json"); err != nil {
			return err
		}
	}
	mode := modeTest
	if h.cloud != nil {
		mode = modeLive
	}
	var key struct{ Token string }
	if err := h.cli(&key, "keys", "create", "--name", "load", "--mode", mode, "--json"); err != nil {
		return err
	}
	var camp struct{ ID string }
	if err := h.cli(&camp, "campaigns", "create", "--name", "Load", "--template-name", templateName,
		"--language", templateLanguage, "--body", templateBody, "--activate", "--json"); err != nil {
		return err
	}
	h.token, h.campaign = key.Token, camp.ID
	return nil
}

// cli runs one herald command and decodes its --json output into out. It
// has the Cloud API's settings too, as the server will, so that a live
// key is made without a warning that it cannot send.
func (h *heraldTarget) cli(out any, args ...string) error {
	cmd := exec.Command(h.bin, args...)
	cmd.Env = append(h.env(), h.cloudEnv()...)
	cmd.Stderr = os.Stderr
	b, err := cmd.Output()
	if err != nil {
		return fmt.Errorf("herald %s: %w", strings.Join(args, " "), err)
	}
	if err := json.Unmarshal(b, out); err != nil {
		return fmt.Errorf("herald %s: %w", strings.Join(args, " "), err)
	}
	return nil
}

// cloudEnv points a live herald's sender at the fake Cloud API, paced at
// h.mps. The business account is blanked, whatever the environment says, so
// that no template sync runs against the fake. Nil in test mode.
func (h *heraldTarget) cloudEnv() []string {
	if h.cloud == nil {
		return nil
	}
	return []string{"HERALD_WHATSAPP_API_URL=" + h.cloud.URL, "HERALD_WHATSAPP_ACCESS_TOKEN=" + h.cloud.Token,
		"HERALD_WHATSAPP_PHONE_NUMBER_ID=" + h.cloud.PhoneNumberID, "HERALD_WHATSAPP_WABA_ID=",
		"HERALD_WHATSAPP_MPS=" + strconv.Itoa(h.mps)}
}

// server is a running `herald serve`.
type server struct {
	cmd       *exec.Cmd
	out       *io.PipeWriter // herald's stdout and stderr
	exited    chan struct{}  // closed when herald has exited
	logDone   chan struct{}  // closed when watchLog has read all of out
	addr      string         // the API's loopback address
	debugAddr string         // the profiler's address; empty unless asked for
}

// serve starts herald on a free loopback port, with the profiler on another
// when debug is set, and returns once it has logged the address of each.
func (h *heraldTarget) serve(debug bool) (*server, error) {
	cmd := exec.Command(h.bin, "serve")
	debugAddr := "" // an inherited HERALD_DEBUG_ADDR must not turn it on
	if debug {
		debugAddr = "127.0.0.1:0"
	}
	cmd.Env = append(h.env(), "HERALD_ADDR=127.0.0.1:0", "HERALD_DEBUG_ADDR="+debugAddr, "HERALD_LOG_LEVEL=info")
	cmd.Env = append(cmd.Env, h.cloudEnv()...)
	cmd.Env = append(cmd.Env, h.extraEnv...)
	pr, pw := io.Pipe()
	cmd.Stdout, cmd.Stderr = pw, pw
	cmd.WaitDelay = time.Second // Wait returns even if something kept herald's output open
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	s := &server{cmd: cmd, out: pw, exited: make(chan struct{}), logDone: make(chan struct{})}
	go func() { cmd.Wait(); close(s.exited) }()
	addrs := make(chan startLine, 2)
	go func() { watchLog(h.name, pr, addrs); close(s.logDone) }()
	deadline := time.After(startTimeout)
	for s.addr == "" || (debug && s.debugAddr == "") {
		select {
		case l := <-addrs:
			if l.debug {
				s.debugAddr = l.addr
			} else {
				s.addr = l.addr
			}
		case <-s.exited:
			s.stop()
			return nil, fmt.Errorf("%s exited before it was listening (%s)", h.name, cmd.ProcessState)
		case <-deadline:
			s.stop()
			return nil, fmt.Errorf("%s did not log its listening addresses within %s", h.name, startTimeout)
		}
	}
	return s, nil
}

// startLine is an address herald logged at start.
type startLine struct {
	addr  string
	debug bool // the profiler's, not the API's
}

// watchLog reads herald's JSON log to its end, which also keeps herald from
// blocking on a full pipe. It sends the addresses of the "listening" and
// "debug listening" lines, and copies the first warnings, errors and lines
// that are not JSON (a panic, a failed start) to stderr. Only lines that can
// matter are decoded: at info level herald logs every request.
func watchLog(name string, r io.Reader, addrs chan<- startLine) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	problems := 0
	for sc.Scan() {
		b := sc.Bytes()
		isListen := bytes.Contains(b, []byte(`listening"`))
		isProblem := bytes.Contains(b, []byte(`"level":"warn"`)) || bytes.Contains(b, []byte(`"level":"error"`))
		if !isListen && !isProblem && bytes.HasPrefix(b, []byte("{")) {
			continue
		}
		var line struct{ Msg, Addr string }
		if json.Unmarshal(b, &line) != nil {
			isProblem = true
		}
		switch {
		case line.Msg == "listening" && line.Addr != "":
			offer(addrs, startLine{addr: line.Addr})
		case line.Msg == "debug listening" && line.Addr != "":
			offer(addrs, startLine{addr: line.Addr, debug: true})
		case isProblem:
			if problems++; problems <= maxForwarded {
				fmt.Fprintf(os.Stderr, "%s: %s\n", name, b)
			}
		}
	}
	if problems > maxForwarded {
		fmt.Fprintf(os.Stderr, "%s: %d more warning and error lines not shown\n", name, problems-maxForwarded)
	}
	// A line longer than the buffer stops the scanner: drain the rest.
	io.Copy(io.Discard, r)
}

// offer sends l unless the channel is full: the log must never stop being
// read, or herald would block writing it.
func offer(addrs chan<- startLine, l startLine) {
	select {
	case addrs <- l:
	default:
	}
}

// peakRSS is the server's peak resident set size (VmHWM) in MiB.
func (s *server) peakRSS() (float64, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", s.cmd.Process.Pid))
	if err != nil {
		return 0, err
	}
	for line := range strings.Lines(string(b)) {
		f := strings.Fields(line)
		if len(f) == 3 && f[0] == "VmHWM:" && f[2] == "kB" {
			kb, err := strconv.ParseFloat(f[1], 64)
			return kb / 1024, err
		}
	}
	return 0, errors.New("no VmHWM in /proc/<pid>/status")
}

// stop interrupts herald, as an operator would, and waits for it to finish;
// it is killed if it does not within stopTimeout.
func (s *server) stop() {
	s.cmd.Process.Signal(os.Interrupt)
	select {
	case <-s.exited:
	case <-time.After(stopTimeout):
		s.cmd.Process.Kill()
		<-s.exited
	}
	// Herald has exited: end its log and let the watcher report the last
	// lines before the results are printed.
	s.out.Close()
	<-s.logDone
}

// createDatabase makes a fresh database on the PostgreSQL server admin names
// and returns its URL and a function that drops it.
func createDatabase(admin string) (string, func(), error) {
	u, err := url.Parse(admin)
	if err != nil {
		return "", nil, err
	}
	db, err := sql.Open("pgx", admin)
	if err != nil {
		return "", nil, err
	}
	name := fmt.Sprintf("herald_load_%d", time.Now().UnixNano())
	if _, err := db.Exec("CREATE DATABASE " + name); err != nil {
		db.Close()
		return "", nil, err
	}
	u.Path = "/" + name
	return u.String(), func() {
		if _, err := db.Exec("DROP DATABASE IF EXISTS " + name + " WITH (FORCE)"); err != nil {
			fmt.Fprintf(os.Stderr, "load: database %s is left behind: %v\n", name, err)
		}
		db.Close()
	}, nil
}
