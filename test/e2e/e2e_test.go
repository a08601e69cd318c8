package e2e

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/heraldhq/herald/test/testenv"
)

var binary string

func TestMain(m *testing.M) { testenv.RunWithHerald(m, &binary) }

// instance is one data directory and database with its settings.
type instance struct {
	t   *testing.T
	dir string
	url string
	env []string
}

func databaseURL(in *instance) string { return in.url }

// newInstance prepares a data directory and a database: a SQLite file in
// the directory, or a fresh PostgreSQL database (migrated with herald
// migrate, as production does) when engine is "postgres".
func newInstance(t *testing.T, engine string) *instance {
	dir := t.TempDir()
	url := "sqlite:" + filepath.Join(dir, "herald.db")
	if engine == "postgres" {
		url = testenv.PostgresDatabase(t)
	}
	in := &instance{t: t, dir: dir, url: url, env: append(os.Environ(), "HERALD_DATABASE_URL="+url, "HERALD_LOG_FORMAT=json")}
	if engine == "postgres" {
		var migrated struct{ From, To int }
		in.cli(&migrated, "migrate")
		if migrated.From != 0 || migrated.To < 1 {
			t.Fatalf("herald migrate printed %+v", migrated)
		}
	}
	return in
}

// cli runs a command with --json and decodes its output.
func (in *instance) cli(out any, args ...string) {
	in.t.Helper()
	cmd := exec.Command(binary, append(args, "--json")...)
	cmd.Env = in.env
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	b, err := cmd.Output()
	if err != nil {
		in.t.Fatalf("herald %s: %v\n%s", strings.Join(args, " "), err, stderr.String())
	}
	if err := json.Unmarshal(b, out); err != nil {
		in.t.Fatalf("herald %s printed %q: %v", strings.Join(args, " "), b, err)
	}
}

// server is a running herald serve.
type server struct{ *testenv.Herald }

func (in *instance) serve(extraEnv ...string) *server {
	in.t.Helper()
	return &server{testenv.Serve(in.t, binary, append(append(in.env, "HERALD_SANDBOX_STEP_DELAY=50ms"), extraEnv...))}
}

func (s *server) call(t *testing.T, method, path, key string, body any, out any) int {
	t.Helper()
	var rd io.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		rd = bytes.NewReader(b)
	}
	req, _ := http.NewRequest(method, s.Base+path, rd)
	req.Header.Set("X-API-KEY", key)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	if out != nil {
		if err := json.Unmarshal(b, out); err != nil {
			t.Fatalf("%s %s answered %d %q: %v", method, path, res.StatusCode, b, err)
		}
	}
	return res.StatusCode
}

type message struct {
	ID      string
	Status  string
	History []struct{ Status string }
	Error   *struct {
		Code  int
		Title string
	}
}

// awaitStatus polls the message until it reaches want. The server is another
// process: its HTTP answers are the only signal there is. Bounded by time.
func (s *server) awaitStatus(t *testing.T, key, id, want string) message {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	var m message
	for time.Now().Before(deadline) {
		if code := s.call(t, "GET", "/v1/messages/"+id, key, nil, &m); code != 200 {
			t.Fatalf("GET message: %d", code)
		}
		if m.Status == want {
			return m
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("message %s is %s after 15s, want %s\n%s", id, m.Status, want, s.Logs())
	return m
}

func TestSendToReadEndToEnd(t *testing.T) {
	t.Parallel()
	for _, engine := range []string{"sqlite", "postgres"} {
		t.Run(engine, func(t *testing.T) {
			t.Parallel()
			sendToRead(t, engine)
		})
	}
}

func sendToRead(t *testing.T, engine string) {
	in := newInstance(t, engine)
	var key struct{ ID, Token, Identifier, Mode, WorkspaceID string }
	in.cli(&key, "keys", "create", "--name", "e2e", "--mode", "test")
	if !strings.HasPrefix(key.Token, "sk_test_") || key.Mode != "test" || !strings.Contains(key.Token, key.Identifier) {
		t.Fatalf("keys create printed %+v", key)
	}
	var camp struct {
		ID, Status   string
		Placeholders []struct {
			Index int
			Label string
		}
	}
	in.cli(&camp, "campaigns", "create", "--name", "Welcome", "--template-name", "welcome", "--language", "en_US",
		"--body", "Hi {{1}}, your code is {{2}}", "--variable-label", "First name", "--variable-label", "Code", "--activate")
	if camp.Status != "active" || len(camp.Placeholders) != 2 || camp.Placeholders[1].Label != "Code" {
		t.Fatalf("campaigns create printed %+v", camp)
	}

	srv := in.serve()
	var accepted struct{ ID, Status, ContactID string }
	if code := srv.call(t, "POST", "/v1/messages/send-campaign", key.Token,
		map[string]any{"phoneNumber": "+14155552671", "campaignId": camp.ID, "variables": []string{"Ana", "1234"}}, &accepted); code != 202 {
		t.Fatalf("send: %d %+v", code, accepted)
	}
	m := srv.awaitStatus(t, key.Token, accepted.ID, "read")
	var got []string
	for _, h := range m.History {
		got = append(got, h.Status)
	}
	if strings.Join(got, ",") != "queued,sending,sent,delivered,read" {
		t.Errorf("history %v", got)
	}

	var contact struct {
		ID, PhoneNumber, ConversationID string
		LastMessageAt                   *string
	}
	if code := srv.call(t, "GET", "/v1/contacts/by-phone/%2B14155552671", key.Token, nil, &contact); code != 200 ||
		contact.ID != accepted.ContactID || contact.LastMessageAt == nil {
		t.Fatalf("contact: %d %+v", code, contact)
	}
	var thread struct {
		Data []struct{ Direction, Status, Body, MessageID string }
	}
	srv.call(t, "GET", "/v1/contacts/"+contact.ID+"/conversation", key.Token, nil, &thread)
	if len(thread.Data) != 1 || thread.Data[0].Status != "read" || thread.Data[0].Body != "Hi Ana, your code is 1234" ||
		thread.Data[0].Direction != "outbound" {
		t.Fatalf("thread %+v", thread)
	}
	var stats struct {
		Total        int
		Counts       map[string]int
		DeliveryRate float64
		ReadRate     float64
	}
	srv.call(t, "GET", "/v1/campaigns/"+camp.ID+"/stats", key.Token, nil, &stats)
	if stats.Total != 1 || stats.Counts["read"] != 1 || stats.ReadRate != 1 {
		t.Fatalf("stats %+v", stats)
	}

	// The sandbox's undeliverable number fails with Meta's code.
	srv.call(t, "POST", "/v1/messages/send-campaign", key.Token,
		map[string]any{"phoneNumber": "+14155550001", "campaignId": camp.ID, "variables": []string{"Bo", "1"}}, &accepted)
	failed := srv.awaitStatus(t, key.Token, accepted.ID, "failed")
	if failed.Error == nil || failed.Error.Code != 131026 {
		t.Fatalf("failed message error %+v", failed.Error)
	}
	var after struct {
		FailuresByCode []struct{ Code, Count int }
	}
	srv.call(t, "GET", "/v1/campaigns/"+camp.ID+"/stats", key.Token, nil, &after)
	if len(after.FailuresByCode) != 1 || after.FailuresByCode[0].Code != 131026 || after.FailuresByCode[0].Count != 1 {
		t.Fatalf("failures by code %+v, want one 131026", after.FailuresByCode)
	}

	srv.Stop(t)

	// The token's secret is in neither the log nor the database files.
	secret := key.Token[24:]
	if strings.Contains(srv.Logs(), secret) {
		t.Errorf("the server log holds the key's secret")
	}
	if engine != "sqlite" {
		return
	}
	files, _ := filepath.Glob(filepath.Join(in.dir, "herald.db*"))
	if len(files) == 0 {
		t.Fatal("no database files found")
	}
	for _, f := range files {
		b, _ := os.ReadFile(f)
		if bytes.Contains(b, []byte(secret)) {
			t.Errorf("%s holds the key's secret", filepath.Base(f))
		}
	}
}

func TestRevokedKeyIsRefused(t *testing.T) {
	t.Parallel()
	in := newInstance(t, "sqlite")
	var key struct{ ID, Token string }
	in.cli(&key, "keys", "create", "--name", "e2e")
	srv := in.serve("HERALD_KEY_CACHE_TTL=1ms")
	if code := srv.call(t, "GET", "/v1/campaigns", key.Token, nil, nil); code != 200 {
		t.Fatalf("fresh key: %d", code)
	}
	var revoked struct{ ID, RevokedAt string }
	in.cli(&revoked, "keys", "revoke", key.ID)
	if revoked.ID != key.ID || revoked.RevokedAt == "" {
		t.Fatalf("keys revoke printed %+v", revoked)
	}
	// The server's cache TTL is 1ms, so the next request reads the key again.
	var problem struct{ Code string }
	if code := srv.call(t, "GET", "/v1/campaigns", key.Token, nil, &problem); code != 401 || problem.Code != "invalid_api_key" {
		t.Fatalf("revoked key: %d %+v", code, problem)
	}
	var keys []struct {
		ID        string
		RevokedAt *string
		Token     *string
	}
	in.cli(&keys, "keys", "list")
	if len(keys) != 1 || keys[0].RevokedAt == nil || keys[0].Token != nil {
		t.Fatalf("keys list printed %+v", keys)
	}
	srv.Stop(t)
}
