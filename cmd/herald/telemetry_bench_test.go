package main

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"path/filepath"
	"strconv"
	"sync/atomic"
	"testing"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
	"go.uber.org/fx"
	"go.uber.org/fx/fxtest"

	"github.com/heraldhq/herald/app"
	"github.com/heraldhq/herald/domain"
	"github.com/heraldhq/herald/test/cpustat"
)

// BenchmarkSendCampaignTelemetry measures the cost of metrics and traces on
// the send path: POST /v1/messages/send-campaign over loopback HTTP into the
// whole server graph on SQLite (the dispatcher and the sandbox running
// behind it), with telemetry off, with metrics on (HERALD_METRICS_ADDR),
// and with metrics and every span sampled (an SDK tracer provider whose
// spans go nowhere, so the exporter's cost is left out). Compare cpu-ns/op
// (the process's CPU per send, the client's included) and ns/op, each
// variant run in turn:
//
//	go test -run '^$' -bench SendCampaignTelemetry -benchtime 3000x -count 6 ./cmd/herald/
func BenchmarkSendCampaignTelemetry(b *testing.B) {
	for _, v := range []struct {
		name           string
		metrics, trace bool
	}{{"off", false, false}, {"metrics", true, false}, {"metrics+traces", true, true}} {
		b.Run(v.name, func(b *testing.B) {
			env := map[string]string{
				"HERALD_DATABASE_URL": "sqlite:" + filepath.Join(b.TempDir(), "h.db"), "HERALD_ADDR": "127.0.0.1:0",
				"HERALD_RATE_LIMIT": "1000000", "HERALD_RATE_BURST": "1000000", "HERALD_SANDBOX_STEP_DELAY": "10ms",
			}
			if v.metrics {
				env["HERALD_METRICS_ADDR"] = "127.0.0.1:0"
			}
			c, err := loadConfig(envOf(env), "json")
			if err != nil {
				b.Fatal(err)
			}
			var logs syncBuffer
			opts, err := appOptions(c, &logs)
			if err != nil {
				b.Fatal(err)
			}
			if v.trace {
				tp := sdktrace.NewTracerProvider() // samples every span, exports none
				opts = fx.Options(opts, fx.Provide(func() trace.TracerProvider { return tp }))
			}
			var (
				def      *app.EnsureDefaultWorkspaceHandler
				keys     *app.CreateKeyHandler
				campaign *app.CreateCampaignHandler
			)
			a := fxtest.New(b, opts, fx.Populate(&def, &keys, &campaign))
			a.RequireStart()
			defer a.RequireStop()
			ws, err := def.Handle(b.Context())
			if err != nil {
				b.Fatal(err)
			}
			key, err := keys.Handle(b.Context(), app.CreateKey{Workspace: string(ws.ID), Name: "bench", Mode: domain.ModeTest})
			if err != nil {
				b.Fatal(err)
			}
			camp, err := campaign.Handle(b.Context(), app.CreateCampaign{Workspace: string(ws.ID), Name: "B", TemplateName: "welcome",
				Language: "en_US", Body: "Hi {{1}}", Activate: true})
			if err != nil {
				b.Fatal(err)
			}
			url := "http://" + listeningAddr(b, logs.String()) + "/v1/messages/send-campaign"
			token := key.Token.Plaintext()
			client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64}}
			var n atomic.Int64
			b.SetParallelism(4)
			b.ReportAllocs()
			b.ResetTimer()
			self := cpustat.Self()
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					i := n.Add(1)
					body, _ := json.Marshal(map[string]any{"phoneNumber": "+1415" + strconv.FormatInt(5_000_000+i%1_000_000, 10),
						"campaignId": camp.ID, "variables": []string{"Ana"}})
					req, _ := http.NewRequest("POST", url, bytes.NewReader(body))
					req.Header.Set("X-API-KEY", token)
					req.Header.Set("Content-Type", "application/json")
					res, err := client.Do(req)
					if err != nil {
						b.Error(err)
						return
					}
					io.Copy(io.Discard, res.Body)
					res.Body.Close()
					if res.StatusCode != http.StatusAccepted {
						b.Errorf("send: %d", res.StatusCode)
						return
					}
				}
			})
			// The whole process's CPU: the client's, the API's and the
			// workers' behind it; steadier than ns/op on a shared machine.
			b.ReportMetric(float64(cpustat.Self()-self)/float64(b.N), "cpu-ns/op")
		})
	}
}
