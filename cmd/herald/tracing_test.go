package main

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"
	"go.uber.org/fx"
	"go.uber.org/fx/fxtest"

	"github.com/heraldhq/herald/app"
	"github.com/heraldhq/herald/domain"
)

// TestTracesFollowAMessage runs the server's graph with the SDK's
// in-memory exporter: a send is a server span named by its route, with
// the caller's X-Request-Id, its use case and its store transaction as
// children; the dispatcher's span of the send is a trace of its own linked
// to the request that accepted the message (its traceparent was stored
// with it); the event it makes is delivered under a span of its own; and
// a webhook call from Meta is a server span with the use cases that
// receive and apply it.
func TestTracesFollowAMessage(t *testing.T) {
	t.Parallel()
	const appSecret = "app-secret-for-traces"
	c, err := loadConfig(envOf(map[string]string{
		"HERALD_DATABASE_URL": "sqlite:" + filepath.Join(t.TempDir(), "h.db"), "HERALD_ADDR": "127.0.0.1:0",
		"HERALD_SANDBOX_STEP_DELAY": "10ms", "HERALD_WHATSAPP_APP_SECRET": appSecret,
		"HERALD_WEBHOOK_ALLOW_HTTP": "true", "HERALD_WEBHOOK_ALLOWED_HOSTS": "127.0.0.1",
	}), "json")
	if err != nil {
		t.Fatal(err)
	}
	var logs syncBuffer
	opts, err := appOptions(c, &logs)
	if err != nil {
		t.Fatal(err)
	}
	spans := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(spans))
	var (
		def      *app.EnsureDefaultWorkspaceHandler
		keys     *app.CreateKeyHandler
		campaign *app.CreateCampaignHandler
	)
	a := fxtest.New(t, opts, fx.Provide(func() trace.TracerProvider { return tp }), fx.Populate(&def, &keys, &campaign))
	a.RequireStart()
	defer a.RequireStop()
	base := "http://" + listeningAddr(t, logs.String())

	ws, err := def.Handle(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	key, err := keys.Handle(t.Context(), app.CreateKey{Workspace: string(ws.ID), Name: "traces", Mode: domain.ModeTest})
	if err != nil {
		t.Fatal(err)
	}
	camp, err := campaign.Handle(t.Context(), app.CreateCampaign{Workspace: string(ws.ID), Name: "T", TemplateName: "welcome",
		Language: "en_US", Body: "Hi {{1}}", Activate: true})
	if err != nil {
		t.Fatal(err)
	}
	receiver := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.Copy(io.Discard, r.Body) }))
	defer receiver.Close()
	call := func(method, path string, header map[string]string, body string) int {
		t.Helper()
		req, _ := http.NewRequest(method, base+path, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		for k, v := range header {
			req.Header.Set(k, v)
		}
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, res.Body)
		res.Body.Close()
		return res.StatusCode
	}
	keyed := map[string]string{"X-API-KEY": key.Token.Plaintext()}
	if code := call("POST", "/v1/webhook-endpoints", keyed, `{"url":"`+receiver.URL+`/hook","events":["*"]}`); code != http.StatusCreated {
		t.Fatalf("create endpoint: %d", code)
	}
	send := map[string]string{"X-API-KEY": key.Token.Plaintext(), "X-Request-Id": "trace-me-1"}
	body, _ := json.Marshal(map[string]any{"phoneNumber": "+14155552671", "campaignId": camp.ID, "variables": []string{"Ana"}})
	if code := call("POST", "/v1/messages/send-campaign", send, string(body)); code != http.StatusAccepted {
		t.Fatalf("send: %d", code)
	}
	hook := []byte(`{"object":"whatsapp_business_account","entry":[]}`)
	mac := hmac.New(sha256.New, []byte(appSecret))
	mac.Write(hook)
	if code := call("POST", "/v1/webhooks/whatsapp", map[string]string{"X-Hub-Signature-256": "sha256=" + hex.EncodeToString(mac.Sum(nil))},
		string(hook)); code != http.StatusOK {
		t.Fatalf("webhook: %d", code)
	}

	// The send and the event's delivery happen after the answer: wait,
	// within a bound, for their spans to end.
	find := func(ended []sdktrace.ReadOnlySpan, name string) sdktrace.ReadOnlySpan {
		for _, s := range ended {
			if s.Name() == name {
				return s
			}
		}
		return nil
	}
	deadline := time.Now().Add(15 * time.Second)
	var ended []sdktrace.ReadOnlySpan
	for {
		ended = spans.Ended()
		if find(ended, "dispatch.send") != nil && find(ended, "event.deliver") != nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no dispatch.send and event.deliver spans within 15s; ended: %v\n%s", names(ended), logs.String())
		}
		time.Sleep(10 * time.Millisecond) // the workers run apart from the test: spans ending are the only sign
	}

	server := find(ended, "POST /v1/messages/send-campaign")
	if server == nil {
		t.Fatalf("no server span named by the send's route; ended: %v", names(ended))
	}
	if server.SpanKind() != trace.SpanKindServer {
		t.Errorf("the send's span is a %v span, want server", server.SpanKind())
	}
	if got := attr(server, "herald.request_id"); got != "trace-me-1" {
		t.Errorf("the send's span has request id %q, want the caller's trace-me-1", got)
	}
	if got := attr(server, "http.response.status_code"); got != "202" {
		t.Errorf("the send's span has status %q, want 202", got)
	}
	useCase := childOf(ended, server, "send_campaign_message")
	if useCase == nil {
		t.Fatalf("no send_campaign_message span under the request's; ended: %v", names(ended))
	}
	if tx := inTrace(ended, server.SpanContext().TraceID(), "store.tx"); tx == nil {
		t.Errorf("no store transaction span in the send's trace")
	}

	dispatch := find(ended, "dispatch.send")
	if dispatch.SpanContext().TraceID() == server.SpanContext().TraceID() {
		t.Error("the dispatcher's span is in the request's trace, want a trace of its own, linked")
	}
	if links := dispatch.Links(); len(links) != 1 || links[0].SpanContext.TraceID() != server.SpanContext().TraceID() ||
		links[0].SpanContext.SpanID() != useCase.SpanContext().SpanID() {
		t.Errorf("the dispatcher's span links to %v, want the accepting request's use case span %v", links, useCase.SpanContext())
	}
	if got := attr(dispatch, "herald.mode"); got != "test" {
		t.Errorf("the dispatcher's span has mode %q, want test", got)
	}
	if tx := inTrace(ended, dispatch.SpanContext().TraceID(), "store.tx"); tx == nil {
		t.Error("no store transaction span under the dispatcher's (recording the send)")
	}

	deliver := find(ended, "event.deliver")
	if got := attr(deliver, "http.response.status_code"); got != "200" {
		t.Errorf("the event delivery's span has status %q, want 200", got)
	}

	webhook := find(ended, "POST /v1/webhooks/whatsapp")
	if webhook == nil {
		t.Fatalf("no server span for Meta's webhook; ended: %v", names(ended))
	}
	receive := childOf(ended, webhook, "receive_webhook")
	if receive == nil {
		t.Fatalf("no receive_webhook span under the webhook's; ended: %v", names(ended))
	}
	if childOf(ended, receive, "apply_webhook_event") == nil {
		t.Errorf("no apply_webhook_event span under receive_webhook")
	}
}

func names(spans []sdktrace.ReadOnlySpan) []string {
	var out []string
	for _, s := range spans {
		out = append(out, s.Name())
	}
	return out
}

func attr(s sdktrace.ReadOnlySpan, key string) string {
	for _, kv := range s.Attributes() {
		if string(kv.Key) == key {
			return kv.Value.String()
		}
	}
	return ""
}

// childOf finds the span named name whose parent is parent.
func childOf(spans []sdktrace.ReadOnlySpan, parent sdktrace.ReadOnlySpan, name string) sdktrace.ReadOnlySpan {
	for _, s := range spans {
		if s.Name() == name && s.Parent().SpanID() == parent.SpanContext().SpanID() {
			return s
		}
	}
	return nil
}

// inTrace finds a span named name in the trace id.
func inTrace(spans []sdktrace.ReadOnlySpan, id trace.TraceID, name string) sdktrace.ReadOnlySpan {
	for _, s := range spans {
		if s.Name() == name && s.SpanContext().TraceID() == id {
			return s
		}
	}
	return nil
}

// Tracing is off without an exporter, and a setting Herald cannot honour
// is refused at start rather than ignored.
func TestTracingSettings(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		env   map[string]string
		valid bool
	}{
		{map[string]string{}, true},
		{map[string]string{"OTEL_TRACES_EXPORTER": "none"}, true},
		{map[string]string{"OTEL_TRACES_EXPORTER": "otlp"}, true},
		{map[string]string{"OTEL_TRACES_EXPORTER": "otlp", "OTEL_EXPORTER_OTLP_PROTOCOL": "http/protobuf"}, true},
		{map[string]string{"OTEL_TRACES_EXPORTER": "console"}, true},
		{map[string]string{"OTEL_TRACES_EXPORTER": "otlp", "OTEL_SDK_DISABLED": "true"}, true},
		{map[string]string{"OTEL_TRACES_EXPORTER": "otlp", "OTEL_EXPORTER_OTLP_PROTOCOL": "grpc"}, false},
		{map[string]string{"OTEL_TRACES_EXPORTER": "otlp", "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL": "grpc"}, false},
		{map[string]string{"OTEL_TRACES_EXPORTER": "zipkin"}, false},
	} {
		_, err := tracing(envOf(c.env), io.Discard)
		if (err == nil) != c.valid {
			t.Errorf("%v: error %v, want valid %v", c.env, err, c.valid)
		}
	}
}
