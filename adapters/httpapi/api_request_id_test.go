package httpapi_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"

	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"

	"github.com/heraldhq/herald/adapters/httpapi"
	"github.com/heraldhq/herald/app"
	"github.com/heraldhq/herald/app/usecase"
	"github.com/heraldhq/herald/ports/porttest"
)

// TestCallerRequestID: a well-formed X-Request-Id from the caller (1 to 128
// characters of A-Z a-z 0-9 . _ -) is the request's id: echoed in the
// header, in the problem body, in the access log and in the use case's log
// line. Any other is replaced
// by one Herald makes, so a caller cannot put arbitrary text in the log.
func TestCallerRequestID(t *testing.T) {
	t.Parallel()
	core, logs := observer.New(zap.DebugLevel)
	log := zap.New(core)
	e := newEnv(t, func(d *httpapi.Deps, st porttest.Store) {
		d.GetMessage = app.NewGetMessageHandler(st, usecase.NewObserver(log))
	})
	h := httpapi.NewHandler(e.deps, unlimited, log)
	generated := regexp.MustCompile(`^req_[a-z2-7]{16}$`)
	long := strings.Repeat("a", 128)

	for name, tc := range map[string]struct {
		sent []string // X-Request-Id headers sent
		kept bool     // the id is the one sent
	}{
		"uuid":                 {[]string{"0d7a6c7e-6f55-4a43-9a8e-2f0f4d3b1a2c"}, true},
		"dots and underscores": {[]string{"edge.lb-1_7F"}, true},
		"128 characters":       {[]string{long}, true},
		"129 characters":       {[]string{long + "a"}, false},
		"empty":                {[]string{""}, false},
		"space":                {[]string{"abc def"}, false},
		"quote":                {[]string{`abc"def`}, false},
		"newline escape":       {[]string{`abc\ndef`}, false},
		"non-ASCII":            {[]string{"réq"}, false},
		"two headers":          {[]string{"one", "two"}, false},
		"none":                 {nil, false},
	} {
		t.Run(name, func(t *testing.T) {
			logs.TakeAll()
			req := httptest.NewRequest("GET", "/v1/messages/msg_00000000000000000000000000", nil)
			req.Header.Set("X-API-KEY", e.key)
			for _, v := range tc.sent {
				req.Header.Add("X-Request-Id", v)
			}
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, req)
			res := rec.Result()
			body, _ := io.ReadAll(res.Body)
			validateAgainstSpec(t, req, res.StatusCode, res.Header, body)
			if res.StatusCode != http.StatusNotFound {
				t.Fatalf("status %d, want 404: %s", res.StatusCode, body)
			}
			id := res.Header.Get("X-Request-Id")
			switch {
			case tc.kept && id != tc.sent[0]:
				t.Fatalf("X-Request-Id %q, want the caller's %q", id, tc.sent[0])
			case !tc.kept && !generated.MatchString(id):
				t.Fatalf("X-Request-Id %q, want one Herald made (req_…) in place of %q", id, tc.sent)
			}
			var p struct {
				RequestID string `json:"requestId"`
			}
			if err := json.Unmarshal(body, &p); err != nil || p.RequestID != id {
				t.Fatalf("problem requestId %q, header %q (%v)", p.RequestID, id, err)
			}
			entries := logs.FilterMessage("request").All()
			if len(entries) != 1 || entries[0].ContextMap()["request_id"] != id {
				t.Fatalf("access log %v, want one line with request_id %q", entries, id)
			}
			entries = logs.FilterMessage("use case refused").All()
			if len(entries) != 1 || entries[0].ContextMap()["request_id"] != id {
				t.Fatalf("use case log %v, want one line with request_id %q", entries, id)
			}
		})
	}
}
