package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/fx"
	"go.uber.org/fx/fxtest"

	"github.com/heraldhq/herald/adapters/system"
	"github.com/heraldhq/herald/app"
	"github.com/heraldhq/herald/app/events"
	"github.com/heraldhq/herald/domain"
	"github.com/heraldhq/herald/ports"
)

func testConfig(t *testing.T, databaseURL string) *Config {
	t.Helper()
	c, err := loadConfig(envOf(map[string]string{"HERALD_DATABASE_URL": databaseURL, "HERALD_ADDR": "127.0.0.1:0"}), "json")
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestGraphsAreComplete validates the server's and the CLI's object graphs
// for every supported store.
func TestGraphsAreComplete(t *testing.T) {
	t.Parallel()
	for _, url := range []string{"sqlite:" + filepath.Join(t.TempDir(), "h.db"), "postgres://postgres@127.0.0.1:5432/herald"} {
		c := testConfig(t, url)
		opts, err := appOptions(c, io.Discard)
		if err != nil {
			t.Fatal(err)
		}
		if err := fx.ValidateApp(opts); err != nil {
			t.Errorf("server graph for %s: %v", url, err)
		}
		cli, err := cliOptions(c, io.Discard, "error")
		if err != nil {
			t.Fatal(err)
		}
		if err := fx.ValidateApp(cli, fx.Invoke(cliTargets)); err != nil {
			t.Errorf("CLI graph for %s: %v", url, err)
		}
	}
	for _, url := range []string{"sqlite:" + filepath.Join(t.TempDir(), "h.db"), "postgres://postgres@127.0.0.1:5432/herald"} {
		for _, wa := range []struct{ name, phone, waba string }{
			{"sender", "106540352242922", ""},
			{"sender and templates", "106540352242922", "102290129340398"},
			{"templates only", "", "102290129340398"},
		} {
			live := testConfig(t, url)
			live.WhatsAppAccessToken, live.WhatsAppPhoneID, live.WhatsAppWABAID = "token", wa.phone, wa.waba
			// Automatic upload and the media cache join the graph too.
			live.MediaUpload, live.MediaCacheDir = "auto", t.TempDir()
			opts, err := appOptions(live, io.Discard)
			if err != nil {
				t.Fatal(err)
			}
			if err := fx.ValidateApp(opts); err != nil {
				t.Errorf("server graph for %s and the Cloud API (%s): %v", url, wa.name, err)
			}
			cli, err := cliOptions(live, io.Discard, "error")
			if err != nil {
				t.Fatal(err)
			}
			var sync *app.SyncTemplatesHandler
			if err := fx.ValidateApp(cli, fx.Invoke(cliTargets), fx.Populate(&sync)); err != nil {
				t.Errorf("CLI graph for %s and the Cloud API (%s): %v", url, wa.name, err)
			}
		}
	}
	if _, err := appOptions(&Config{DatabaseURL: "mysql://x"}, io.Discard); err == nil {
		t.Error("an unsupported database URL must be refused")
	}
}

// TestServerStartsAndStops starts the server's graph on a temporary SQLite
// file and a free loopback port, and asks it over HTTP whether it is up and
// ready.
func TestServerStartsAndStops(t *testing.T) {
	t.Parallel()
	c := testConfig(t, "sqlite:"+filepath.Join(t.TempDir(), "h.db"))
	var logs syncBuffer
	opts, err := appOptions(c, &logs)
	if err != nil {
		t.Fatal(err)
	}
	a := fxtest.New(t, opts)
	a.RequireStart()
	addr := listeningAddr(t, logs.String())
	for _, path := range []string{"/healthz", "/readyz"} {
		res, err := http.Get("http://" + addr + path)
		if err != nil {
			t.Fatalf("GET %s: %v", path, err)
		}
		body, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if res.StatusCode != http.StatusOK {
			t.Errorf("GET %s after start: %d %s", path, res.StatusCode, body)
		}
	}
	a.RequireStop()
	if _, err := http.Get("http://" + addr + "/healthz"); err == nil {
		t.Error("the server still answers after stop")
	}
}

// listeningAddr finds the address in the server's JSON "listening" line.
func listeningAddr(t testing.TB, logs string) string {
	t.Helper()
	for line := range strings.Lines(logs) {
		var l struct{ Msg, Addr string }
		if json.Unmarshal([]byte(line), &l) == nil && l.Msg == "listening" && l.Addr != "" {
			return l.Addr
		}
	}
	t.Fatalf("no listening line in the log:\n%s", logs)
	return ""
}

// syncBuffer is a bytes.Buffer safe for the server's goroutines to log into.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// cliTargets asks for everything the CLI commands use.
func cliTargets(*app.CreateWorkspaceHandler, *app.CreateKeyHandler, *app.ListKeysHandler, *app.RevokeKeyHandler,
	*app.CreateCampaignHandler, *app.ListCampaignsHandler, *app.ChangeCampaignStatusHandler, *app.EnsureDefaultWorkspaceHandler, *app.CreateOperatorHandler) {
}

// TestCommitsWakeTheEventWorker: in the graph, the Transactor every use
// case gets wakes the delivery worker once a transaction that appended
// events has committed (events.WakeOnCommit is wired at the root, so it
// reaches the modules that build the use cases).
func TestCommitsWakeTheEventWorker(t *testing.T) {
	t.Parallel()
	c := testConfig(t, "sqlite:"+filepath.Join(t.TempDir(), "h.db"))
	opts, err := cliOptions(c, io.Discard, "error")
	if err != nil {
		t.Fatal(err)
	}
	var tx ports.Transactor
	var wake *events.Wakeup
	var def *app.EnsureDefaultWorkspaceHandler
	a := fxtest.New(t, opts, fx.Populate(&tx, &wake, &def))
	a.RequireStart()
	defer a.RequireStop()
	ws, err := def.Handle(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	e, err := domain.NewEvent(domain.EventID(system.NewIDs().NewID(domain.PrefixEvent)), ws.ID, domain.ModeLive,
		domain.EventContactOptedOut, "", []byte(`{}`), time.Now())
	if err != nil {
		t.Fatal(err)
	}
	if err := tx.WithinTx(t.Context(), func(ctx context.Context, r ports.Repos) error {
		return r.Events.AppendEvents(ctx, e)
	}); err != nil {
		t.Fatal(err)
	}
	select {
	case <-wake.C():
	default:
		t.Fatal("a committed transaction that appended an event did not wake the worker")
	}
}
