package testenv

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"syscall"
	"testing"
	"time"
)

// RunWithHerald is a TestMain's body: it builds the herald binary into a
// temporary directory, sets *binary to its path, runs the package's tests
// and exits with their code. With HERALD_E2E_BINARY set it tests that
// binary instead, say an earlier build, to measure a change against it.
func RunWithHerald(m *testing.M, binary *string) {
	if b := os.Getenv("HERALD_E2E_BINARY"); b != "" {
		*binary = b
		os.Exit(m.Run())
	}
	dir, err := os.MkdirTemp("", "herald-bin-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	*binary = filepath.Join(dir, "herald")
	build := exec.Command("go", "build", "-o", *binary, "github.com/heraldhq/herald/cmd/herald")
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "building herald:", err)
		os.RemoveAll(dir)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// Herald is a running herald serve.
type Herald struct {
	Cmd  *exec.Cmd
	Base string     // http://host:port it listens on
	Done chan error // receives the process's exit, once

	mu  sync.Mutex
	log bytes.Buffer
}

// Logs returns what the server has written so far.
func (h *Herald) Logs() string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.log.String()
}

// Serve starts binary serve with env on a free loopback port, with JSON
// logs, and returns once it listens. args are added to serve's command line
// (a flag wins over the environment: --addr 0.0.0.0:0 listens on every
// interface). Base is https:// when the server serves TLS, and names
// 127.0.0.1 when it listens on every interface. A server still running when
// the test ends is killed.
func Serve(t testing.TB, binary string, env []string, args ...string) *Herald {
	t.Helper()
	cmd := exec.Command(binary, append([]string{"serve"}, args...)...)
	cmd.Env = append(env, "HERALD_ADDR=127.0.0.1:0", "HERALD_LOG_FORMAT=json")
	pr, pw := io.Pipe()
	cmd.Stdout, cmd.Stderr = pw, pw
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	h := &Herald{Cmd: cmd, Done: make(chan error, 1)}
	go func() { h.Done <- cmd.Wait(); pw.Close() }()
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			cmd.Process.Kill()
			<-h.Done
		}
	})
	addr := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(pr)
		for sc.Scan() {
			h.mu.Lock()
			h.log.Write(sc.Bytes())
			h.log.WriteByte('\n')
			h.mu.Unlock()
			var line struct {
				Msg, Addr string
				TLS       bool
			}
			if json.Unmarshal(sc.Bytes(), &line) == nil && line.Msg == "listening" {
				base := "http://"
				if line.TLS {
					base = "https://"
				}
				if host, port, err := net.SplitHostPort(line.Addr); err == nil {
					if ip := net.ParseIP(host); ip != nil && ip.IsUnspecified() {
						line.Addr = net.JoinHostPort("127.0.0.1", port)
					}
				}
				select {
				case addr <- base + line.Addr:
				default: // keep reading, or the server blocks on its log
				}
			}
		}
	}()
	select {
	case a := <-addr:
		h.Base = a
	case err := <-h.Done:
		t.Fatalf("herald serve exited before listening: %v\n%s", err, h.Logs())
	case <-time.After(30 * time.Second):
		t.Fatalf("herald serve did not listen within 30s\n%s", h.Logs())
	}
	return h
}

// Stop sends SIGTERM and waits for a clean exit.
func (h *Herald) Stop(t testing.TB) {
	t.Helper()
	h.Cmd.Process.Signal(syscall.SIGTERM)
	select {
	case err := <-h.Done:
		if err != nil {
			t.Fatalf("herald serve exited with %v\n%s", err, h.Logs())
		}
	case <-time.After(20 * time.Second):
		t.Fatalf("herald serve did not stop within 20s of SIGTERM")
	}
}
