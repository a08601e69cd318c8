package e2e

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// TestBackupUnderLoad: herald backup copies the SQLite database while the
// server accepts sends from four clients at once. Restored (the copy put in
// place of the database of a new instance) and served, the copy holds every
// message acknowledged (202) before the backup started, and none
// acknowledged after it finished: it is the snapshot, not the live file.
func TestBackupUnderLoad(t *testing.T) {
	t.Parallel()
	in := newInstance(t, "sqlite")
	var key struct{ Token string }
	in.cli(&key, "keys", "create", "--name", "load", "--mode", "test")
	var camp struct{ ID string }
	in.cli(&camp, "campaigns", "create", "--name", "W", "--template-name", "welcome", "--language", "en_US",
		"--body", "Hi {{1}}, your code is {{2}}", "--activate")
	srv := in.serve("HERALD_RATE_LIMIT=1000000", "HERALD_RATE_BURST=1000000")

	// acked is every 202, in the order the answers came: the message id
	// and when its request was sent.
	type ack struct {
		id   string
		sent time.Time
	}
	var (
		mu    sync.Mutex
		acked []ack
		stop  atomic.Bool
		sent  atomic.Int64
		wg    sync.WaitGroup
		fails atomic.Int64
	)
	ackedSoFar := func() []ack {
		mu.Lock()
		defer mu.Unlock()
		return append([]ack(nil), acked...)
	}
	const clients, maxSends = 4, 4000 // bounded even if stop never comes
	for c := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := c; i < maxSends && !stop.Load(); i += clients {
				body, _ := json.Marshal(map[string]any{"phoneNumber": fmt.Sprintf("+1415555%04d", i),
					"campaignId": camp.ID, "variables": []string{"Ana", "1234"}})
				req, _ := http.NewRequest("POST", srv.Base+"/v1/messages/send-campaign", bytes.NewReader(body))
				req.Header.Set("X-API-KEY", key.Token)
				req.Header.Set("Content-Type", "application/json")
				start := time.Now()
				res, err := http.DefaultClient.Do(req)
				sent.Add(1)
				if err != nil {
					fails.Add(1)
					continue
				}
				b, _ := io.ReadAll(res.Body)
				res.Body.Close()
				if res.StatusCode != http.StatusAccepted {
					fails.Add(1)
					continue
				}
				var m struct{ ID string }
				json.Unmarshal(b, &m)
				mu.Lock()
				acked = append(acked, ack{m.ID, start})
				mu.Unlock()
			}
		}()
	}
	waitFor := func(n int) {
		deadline := time.Now().Add(30 * time.Second)
		for len(ackedSoFar()) < n {
			if time.Now().After(deadline) {
				stop.Store(true)
				t.Fatalf("only %d sends acknowledged within 30 s (%d failed)\n%s", len(ackedSoFar()), fails.Load(), srv.Logs())
			}
			time.Sleep(5 * time.Millisecond) // another process's answers: nothing to wait on but them
		}
	}
	waitFor(200)

	before := ackedSoFar()
	copyPath := filepath.Join(t.TempDir(), "herald-backup.db")
	var out struct {
		From, To string
		Bytes    int64
	}
	in.cli(&out, "backup", "--to", copyPath)
	backedUp := time.Now()
	duringAndBefore := len(ackedSoFar())
	waitFor(duringAndBefore + 50) // the server kept accepting after the backup
	// Sent after the backup finished, so committed after its snapshot. (An
	// answer that merely arrived after it may be of a message committed
	// before.)
	var after []ack
	for _, a := range ackedSoFar()[duringAndBefore:] {
		if a.sent.After(backedUp) {
			after = append(after, a)
		}
	}
	stop.Store(true)
	wg.Wait()
	srv.Stop(t)
	if len(after) == 0 {
		t.Fatal("no send was made after the backup finished")
	}
	if fails.Load() > 0 {
		t.Fatalf("%d of %d sends were not acknowledged", fails.Load(), sent.Load())
	}
	t.Logf("%d acknowledged before the backup, %d while it ran, %d sent after it; the copy is %d bytes",
		len(before), duringAndBefore-len(before), len(after), out.Bytes)

	info, err := os.Stat(copyPath)
	if err != nil {
		t.Fatal(err)
	}
	if info.Mode().Perm() != 0o600 || out.To != copyPath || out.Bytes != info.Size() {
		t.Fatalf("the backup is %s, %d bytes, printed %+v; want 0600", info.Mode().Perm(), info.Size(), out)
	}
	// A second backup to the same file is refused, and the file is kept.
	cmd := exec.Command(binary, "backup", "--to", copyPath)
	cmd.Env = in.env
	msg, err := cmd.CombinedOutput()
	if err == nil || !strings.Contains(string(msg), "never overwrites") {
		t.Fatalf("a backup onto an existing file: %v %s", err, msg)
	}
	if again, _ := os.Stat(copyPath); again.Size() != info.Size() || !again.ModTime().Equal(info.ModTime()) {
		t.Fatal("the refused backup changed the existing file")
	}

	// Restore: the copy is the new instance's database file.
	restored := newInstance(t, "sqlite")
	b, err := os.ReadFile(copyPath)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(restored.dir, "herald.db"), b, 0o600); err != nil {
		t.Fatal(err)
	}
	back := restored.serve("HERALD_RATE_LIMIT=1000000", "HERALD_RATE_BURST=1000000")
	defer back.Stop(t)
	for _, a := range before {
		id := a.id
		var m message
		if code := back.call(t, "GET", "/v1/messages/"+id, key.Token, nil, &m); code != 200 || m.ID != id {
			t.Fatalf("message %s, acknowledged before the backup, after the restore: %d %+v", id, code, m)
		}
	}
	for _, a := range after {
		id := a.id
		if code := back.call(t, "GET", "/v1/messages/"+id, key.Token, nil, nil); code != 404 {
			t.Fatalf("message %s, acknowledged after the backup finished, is in the copy (%d)", id, code)
		}
	}
	// The restored server accepts sends of its own.
	var m message
	if code := back.call(t, "POST", "/v1/messages/send-campaign", key.Token, map[string]any{"phoneNumber": "+14155550199",
		"campaignId": camp.ID, "variables": []string{"Ana", "1234"}}, &m); code != 202 {
		t.Fatalf("a send to the restored server: %d", code)
	}
}

// TestHealthcheck: herald healthcheck exits 0 while the server on
// HERALD_ADDR answers (/healthz, and /readyz with --ready), and 1 with the
// reason when nothing listens there.
func TestHealthcheck(t *testing.T) {
	t.Parallel()
	in := newInstance(t, "sqlite")
	srv := in.serve()
	defer srv.Stop(t)
	check := func(addr string, args ...string) (string, error) {
		cmd := exec.Command(binary, append([]string{"healthcheck"}, args...)...)
		cmd.Env = append(in.env, "HERALD_ADDR="+addr)
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	addr := strings.TrimPrefix(srv.Base, "http://")
	if out, err := check(addr); err != nil || !strings.Contains(out, "/healthz: 200") {
		t.Fatalf("healthcheck of a running server: %v %s", err, out)
	}
	_, port, _ := net.SplitHostPort(addr)
	if out, err := check("0.0.0.0:"+port, "--ready"); err != nil || !strings.Contains(out, "127.0.0.1:"+port+"/readyz: 200") {
		t.Fatalf("healthcheck --ready of a server on every address: %v %s", err, out)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := l.Addr().String()
	l.Close()
	out, err := check(closed)
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 || !strings.Contains(out, "connection refused") {
		t.Fatalf("healthcheck with nothing listening: %v %s", err, out)
	}
}
