package main

import (
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"testing"

	"go.uber.org/fx"
	"go.uber.org/fx/fxtest"

	"github.com/heraldhq/herald/app"
)

func testConfig(t *testing.T, databaseURL string) *Config {
	t.Helper()
	fs, c, err := newFlagSet("serve", envOf(map[string]string{"HERALD_DATABASE_URL": databaseURL, "HERALD_ADDR": "127.0.0.1:0"}), io.Discard, "json")
	if err != nil {
		t.Fatal(err)
	}
	fs.Parse(nil)
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
		cli, err := cliOptions(c, io.Discard)
		if err != nil {
			t.Fatal(err)
		}
		if err := fx.ValidateApp(cli, fx.Invoke(cliTargets)); err != nil {
			t.Errorf("CLI graph for %s: %v", url, err)
		}
	}
	live := testConfig(t, "postgres://postgres@127.0.0.1:5432/herald")
	live.WhatsAppAccessToken, live.WhatsAppPhoneID = "token", "106540352242922"
	opts, err := appOptions(live, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if err := fx.ValidateApp(opts); err != nil {
		t.Errorf("server graph for PostgreSQL and the Cloud API: %v", err)
	}
	if _, err := appOptions(testConfig(t, "mysql://x"), io.Discard); err == nil {
		t.Error("an unsupported database URL must be refused")
	}
}

func TestServerStartsAndStops(t *testing.T) {
	t.Parallel()
	c := testConfig(t, "sqlite:"+filepath.Join(t.TempDir(), "h.db"))
	opts, err := appOptions(c, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	var srv *http.Server
	a := fxtest.New(t, opts, fx.Populate(&srv))
	a.RequireStart()
	rec := httptest.NewRecorder()
	srv.Handler.ServeHTTP(rec, httptest.NewRequest("GET", "/readyz", nil))
	if rec.Code != http.StatusOK {
		t.Errorf("/readyz after start: %d %s", rec.Code, rec.Body)
	}
	a.RequireStop()
}

// cliTargets asks for everything the CLI commands use.
func cliTargets(*app.CreateWorkspaceHandler, *app.CreateKeyHandler, *app.ListKeysHandler, *app.RevokeKeyHandler,
	*app.CreateCampaignHandler, *app.ListCampaignsHandler, *app.ChangeCampaignStatusHandler, *app.EnsureDefaultWorkspaceHandler) {
}
