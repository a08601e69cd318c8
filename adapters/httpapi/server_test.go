package httpapi_test

import (
	"bytes"
	"mime/multipart"
	"net/http"
	"strings"
	"testing"

	"go.uber.org/fx"
	"go.uber.org/fx/fxtest"
	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"

	"github.com/heraldhq/herald/adapters/httpapi"
)

// TestServerLimits: the server has every timeout set, so a slow client
// cannot hold a connection open (Slowloris), and a bounded header size.
func TestServerLimits(t *testing.T) {
	t.Parallel()
	srv := httpapi.NewServer(fxtest.NewLifecycle(t), httpapi.Config{}, http.NotFoundHandler(), zap.NewNop())
	if srv.ReadHeaderTimeout <= 0 || srv.ReadTimeout <= 0 || srv.WriteTimeout <= 0 || srv.IdleTimeout <= 0 {
		t.Fatalf("timeouts: read header %s, read %s, write %s, idle %s", srv.ReadHeaderTimeout, srv.ReadTimeout, srv.WriteTimeout, srv.IdleTimeout)
	}
	if srv.MaxHeaderBytes <= 0 || srv.MaxHeaderBytes > 32<<10 {
		t.Fatalf("MaxHeaderBytes %d, want 1 to 32 KiB", srv.MaxHeaderBytes)
	}
	if srv.ErrorLog == nil {
		t.Fatal("the server's own errors go to the standard logger, not zap")
	}
}

// The profiler listens on its own address once the application starts,
// logs the address it took, serves Go's profiles there, and stops with the
// application.
func TestDebugServer(t *testing.T) {
	t.Parallel()
	core, logs := observer.New(zap.InfoLevel)
	app := fxtest.New(t, fx.NopLogger, fx.Supply(zap.New(core)), httpapi.DebugModule("127.0.0.1:0"))
	app.RequireStart()
	listening := logs.FilterMessage("debug listening").All()
	if len(listening) != 1 {
		t.Fatalf("%d \"debug listening\" log lines, want 1", len(listening))
	}
	url := "http://" + listening[0].ContextMap()["addr"].(string) + "/debug/pprof/cmdline"
	res, err := http.Get(url)
	if err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusOK {
		t.Fatalf("GET %s = %d, want 200", url, res.StatusCode)
	}
	// Its handlers read parameters with FormValue: a multipart body, which
	// that would parse into temporary files, is refused unread.
	var form bytes.Buffer
	mw := multipart.NewWriter(&form)
	f, _ := mw.CreateFormFile("upload", "big.bin")
	f.Write(make([]byte, 1<<20))
	mw.Close()
	goroutines := strings.TrimSuffix(url, "cmdline") + "goroutine"
	res, err = http.Post(goroutines, mw.FormDataContentType(), &form)
	if err != nil {
		t.Fatalf("POST %s: %v", goroutines, err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusUnsupportedMediaType {
		t.Fatalf("a multipart POST %s = %d, want 415", goroutines, res.StatusCode)
	}
	app.RequireStop()
	if _, err := http.Get(url); err == nil {
		t.Fatal("the profiler still answers after the application stopped")
	}
}
