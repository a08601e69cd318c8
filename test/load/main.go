package main

import (
	"bufio"
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"database/sql"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // the PostgreSQL driver, for creating the load database

	"github.com/heraldhq/herald/domain"
)

func main() {
	duration := flag.Duration("duration", 10*time.Second, "how long each target is driven")
	conns := flag.Int("connections", 64, "concurrent connections (closed loop)")
	maxRequests := flag.Int("max-requests", 2_000_000, "stop a target after this many requests")
	postgres := flag.String("postgres", os.Getenv("HERALD_TEST_POSTGRES_URL"),
		"PostgreSQL server to also measure on (a database is created and dropped); empty skips it")
	dispatch := flag.Int("dispatch", 0, "instead of the HTTP load, move this many messages to the fake Cloud API and report msg/s")
	latency := flag.Duration("latency", 100*time.Millisecond, "with -dispatch: the fake Cloud API's answer time")
	mps := flag.Int("mps", 1000, "with -dispatch: the sender number's pace")
	concurrency := flag.Int("concurrency", 0, "with -dispatch: sends in flight (0: the server's default for the pace)")
	flag.Parse()
	if *dispatch > 0 {
		dir, err := os.MkdirTemp("", "herald-dispatch-")
		if err == nil {
			err = dispatchRun(dir, *dispatch, *mps, *concurrency, *latency)
			os.RemoveAll(dir)
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "load:", err)
			os.Exit(1)
		}
		return
	}
	if err := run(*duration, *conns, *maxRequests, *postgres); err != nil {
		fmt.Fprintln(os.Stderr, "load:", err)
		os.Exit(1)
	}
}

func run(duration time.Duration, conns, maxRequests int, postgres string) error {
	dir, err := os.MkdirTemp("", "herald-load-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	bin := filepath.Join(dir, "herald")
	build := exec.Command("go", "build", "-o", bin, "./cmd/herald")
	build.Stderr = os.Stderr
	if err := build.Run(); err != nil {
		return fmt.Errorf("build: %w", err)
	}
	type target struct {
		name string
		res  result
	}
	results := []target{}
	floorToken := ""
	var floor net.Listener
	defer func() {
		if floor != nil {
			floor.Close()
		}
	}()
	measure := func(name, databaseURL string) error {
		// One key drives the whole load: lift its rate limit, which would
		// otherwise be what is measured.
		env := append(os.Environ(), "HERALD_DATABASE_URL="+databaseURL,
			"HERALD_LOG_FORMAT=json", "HERALD_LOG_LEVEL=warn", "HERALD_RATE_LIMIT=1000000", "HERALD_RATE_BURST=1000000")
		if strings.HasPrefix(databaseURL, "postgres") {
			var migrated struct{ To int }
			if err := cli(bin, env, &migrated, "migrate", "--json"); err != nil {
				return err
			}
		}
		var key struct{ Token string }
		if err := cli(bin, env, &key, "keys", "create", "--name", "load", "--mode", "test", "--json"); err != nil {
			return err
		}
		var camp struct{ ID string }
		if err := cli(bin, env, &camp, "campaigns", "create", "--name", "Load", "--template-name", "load_test",
			"--language", "en_US", "--body", "Hi {{1}}, your code is {{2}}", "--activate", "--json"); err != nil {
			return err
		}
		addr, stop, err := serve(bin, env)
		if err != nil {
			return err
		}
		defer stop()
		// Recipients rotate through 10,000 numbers, as real traffic spreads
		// over many contacts.
		body := func(n int64) string {
			return fmt.Sprintf(`{"phoneNumber":"+1415555%04d","campaignId":%q,"variables":["Ana","1234"]}`, n%10000, camp.ID)
		}
		if floor == nil {
			floorToken = key.Token
			if floor, err = startFloor(floorToken); err != nil {
				return err
			}
			results = append(results, target{"floor (no storage)",
				drive("http://"+floor.Addr().String()+"/v1/messages/send-campaign", floorToken, body, duration, conns, maxRequests)})
		}
		results = append(results, target{name, drive("http://"+addr+"/v1/messages/send-campaign", key.Token, body, duration, conns, maxRequests)})
		return nil
	}
	if err := measure("herald (SQLite FULL)", "sqlite:"+filepath.Join(dir, "herald.db")); err != nil {
		return err
	}
	if postgres != "" {
		url, drop, err := createDatabase(postgres)
		if err != nil {
			return err
		}
		defer drop()
		if err := measure("herald (PostgreSQL)", url); err != nil {
			return err
		}
	}
	fmt.Printf("send-campaign, %d connections, %s per target, loopback, GOMAXPROCS=%d\n\n", conns, duration, runtime.GOMAXPROCS(0))
	fmt.Printf("%-22s %10s %10s %10s %10s %8s\n", "target", "req/s", "p50", "p99", "errors", "ratio")
	for _, r := range results {
		fmt.Printf("%-22s %10.0f %10s %10s %10d %8.2f\n", r.name, r.res.rps, r.res.p50.Round(time.Microsecond),
			r.res.p99.Round(time.Microsecond), r.res.errors, r.res.rps/results[0].res.rps)
	}
	return nil
}

func cli(bin string, env []string, out any, args ...string) error {
	cmd := exec.Command(bin, args...)
	cmd.Env = env
	cmd.Stderr = os.Stderr
	b, err := cmd.Output()
	if err != nil {
		return fmt.Errorf("herald %s: %w", strings.Join(args, " "), err)
	}
	return json.Unmarshal(b, out)
}

// serve starts herald on a free loopback port and returns its address once
// it logs that it is listening.
func serve(bin string, env []string) (string, func(), error) {
	cmd := exec.Command(bin, "serve")
	cmd.Env = append(env, "HERALD_ADDR=127.0.0.1:0", "HERALD_LOG_LEVEL=info")
	pr, pw := io.Pipe()
	cmd.Stdout, cmd.Stderr = pw, pw
	if err := cmd.Start(); err != nil {
		return "", nil, err
	}
	stop := func() {
		cmd.Process.Signal(os.Interrupt)
		done := make(chan struct{})
		go func() { cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			cmd.Process.Kill()
		}
		pw.Close()
	}
	found := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(pr)
		for sc.Scan() {
			var line struct {
				Msg  string `json:"msg"`
				Addr string `json:"addr"`
			}
			if json.Unmarshal(sc.Bytes(), &line) == nil && line.Msg == "listening" && line.Addr != "" {
				select {
				case found <- line.Addr:
				default:
				}
			}
		}
	}()
	select {
	case a := <-found:
		return a, stop, nil
	case <-time.After(30 * time.Second):
		stop()
		return "", nil, errors.New("herald did not log that it is listening within 30s")
	}
}

type result struct {
	rps      float64
	p50, p99 time.Duration
	errors   int64
}

// drive runs a closed loop: each connection sends its next request when the
// previous one is answered, until duration or maxRequests.
func drive(url, token string, body func(n int64) string, duration time.Duration, conns, maxRequests int) result {
	tr := &http.Transport{MaxIdleConnsPerHost: conns, MaxConnsPerHost: conns,
		DialContext: (&net.Dialer{Timeout: 5 * time.Second}).DialContext}
	client := &http.Client{Transport: tr, Timeout: 10 * time.Second}
	defer tr.CloseIdleConnections()
	ctx, cancel := context.WithTimeout(context.Background(), duration)
	defer cancel()
	var sent, errs atomic.Int64
	lat := make([][]time.Duration, conns)
	var wg sync.WaitGroup
	start := time.Now()
	for i := range conns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for ctx.Err() == nil {
				n := sent.Add(1)
				if n > int64(maxRequests) {
					break
				}
				req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(body(n)))
				req.Header.Set("Content-Type", "application/json")
				req.Header.Set("X-API-KEY", token)
				t0 := time.Now()
				resp, err := client.Do(req)
				if err != nil {
					errs.Add(1)
					continue
				}
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				if resp.StatusCode != http.StatusAccepted {
					errs.Add(1)
					continue
				}
				lat[i] = append(lat[i], time.Since(t0))
			}
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)
	var all []time.Duration
	for _, l := range lat {
		all = append(all, l...)
	}
	sort.Slice(all, func(a, b int) bool { return all[a] < all[b] })
	r := result{errors: errs.Load()}
	if len(all) > 0 {
		r.rps = float64(len(all)) / elapsed.Seconds()
		r.p50 = all[len(all)/2]
		r.p99 = all[len(all)*99/100]
	}
	return r
}

// startFloor serves the floor: the same token parse and constant-time hash
// compare, strict decoding and phone validation as Herald, then a 202 with
// no storage.
func startFloor(token string) (net.Listener, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	want := sha256.Sum256([]byte(token))
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		tok, err := domain.ParseToken(r.Header.Get("X-API-KEY"))
		got := tok.Hash()
		if err != nil || subtle.ConstantTimeCompare(got[:], want[:]) != 1 {
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		var in struct {
			PhoneNumber    string   `json:"phoneNumber"`
			CampaignID     string   `json:"campaignId"`
			Variables      []string `json:"variables"`
			MediaHeaderURL string   `json:"mediaHeaderUrl"`
		}
		dec := json.NewDecoder(http.MaxBytesReader(w, r.Body, 64<<10))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&in); err != nil {
			w.WriteHeader(http.StatusBadRequest)
			return
		}
		if _, err := domain.ParsePhoneNumber(in.PhoneNumber); err != nil {
			w.WriteHeader(http.StatusUnprocessableEntity)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusAccepted)
		fmt.Fprintf(w, `{"id":"msg_x","status":"queued","campaignId":%q,"phoneNumber":%q}`, in.CampaignID, in.PhoneNumber)
	})
	go http.Serve(ln, h)
	return ln, nil
}

// createDatabase makes a fresh database on the PostgreSQL server admin names
// and returns its URL and a function that drops it.
func createDatabase(admin string) (string, func(), error) {
	db, err := sql.Open("pgx", admin)
	if err != nil {
		return "", nil, err
	}
	name := fmt.Sprintf("herald_load_%d", time.Now().UnixNano())
	if _, err := db.Exec("CREATE DATABASE " + name); err != nil {
		db.Close()
		return "", nil, err
	}
	u, err := url.Parse(admin)
	if err != nil {
		db.Close()
		return "", nil, err
	}
	u.Path = "/" + name
	return u.String(), func() {
		db.Exec("DROP DATABASE IF EXISTS " + name + " WITH (FORCE)")
		db.Close()
	}, nil
}
