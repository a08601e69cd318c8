package main

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"time"

	"github.com/heraldhq/herald/adapters/sandbox"
	"github.com/heraldhq/herald/adapters/sqlstore"
	"github.com/heraldhq/herald/adapters/system"
	"github.com/heraldhq/herald/adapters/whatsapp"
	"github.com/heraldhq/herald/app"
	"github.com/heraldhq/herald/app/delivery"
	"github.com/heraldhq/herald/app/usecase"
	"github.com/heraldhq/herald/domain"
	"github.com/heraldhq/herald/test/cpustat"
	"github.com/heraldhq/herald/test/fakemeta"
)

// cleanups runs functions at the end, like a test's Cleanup.
type cleanups []func()

func (c *cleanups) Cleanup(f func()) { *c = append(*c, f) }
func (c *cleanups) run() {
	for i := len(*c) - 1; i >= 0; i-- {
		(*c)[i]()
	}
}

// dispatchRun measures how fast one dispatcher moves n accepted messages on
// SQLite to the fake Cloud API answering after latency, paced at mps, with
// concurrency sends in flight; and the process CPU time per 1,000 messages
// (the fake runs in the same process and is counted too).
func dispatchRun(dir string, n, mps, concurrency int, latency time.Duration) error {
	var c cleanups
	defer c.run()
	fake := fakemeta.New(&c)
	fake.Latency = latency
	fake.AddTemplate(fakemeta.Template{Name: "welcome", Language: "en_US", Status: "APPROVED", BodyParams: 1})
	ctx := context.Background()
	db, d, err := sqlstore.Open(ctx, sqlstore.Config{DatabaseURL: "sqlite:" + filepath.Join(dir, "dispatch.db")})
	if err != nil {
		return err
	}
	defer db.Close()
	if err := sqlstore.Migrate(ctx, db, d); err != nil {
		return err
	}
	st := sqlstore.New(db, d)
	clock, ids := system.Clock{}, system.NewIDs()
	def := app.NewEnsureDefaultWorkspaceHandler(st, clock, ids)
	key, err := app.NewCreateKeyHandler(st, st, def, clock, ids).Handle(ctx, app.CreateKey{Name: "k", Mode: domain.ModeLive})
	if err != nil {
		return err
	}
	camp, err := app.NewCreateCampaignHandler(st, st, st, nil, def, clock, ids).Handle(ctx, app.CreateCampaign{
		Name: "c", TemplateName: "welcome", Language: "en_US", Body: "Hi {{1}}", Activate: true})
	if err != nil {
		return err
	}
	send := app.NewSendCampaignMessageHandler(app.SendCampaignDeps{Tx: st, Campaigns: st, Contacts: st, Messages: st,
		Idempotency: st, SendCounts: st, Clock: clock, IDs: ids, LiveSending: true})
	p := domain.Principal{Workspace: key.Key.Workspace, Key: key.Key.ID, Mode: domain.ModeLive}
	for i := range n {
		if _, err := send.Handle(ctx, app.SendCampaignMessage{Principal: p, PhoneNumber: fmt.Sprintf("+1415555%04d", i),
			CampaignID: string(camp.ID), Variables: []string{"Ana"}}); err != nil {
			return err
		}
	}
	obs := usecase.NewObserver(nil)
	cfg := delivery.Config{LiveMPS: mps, DispatchConcurrency: concurrency, DispatchBatch: 200, DispatchPoll: 10 * time.Millisecond}
	live := whatsapp.New(whatsapp.Config{APIURL: fake.URL, AccessToken: fake.Token, PhoneNumberID: fake.PhoneNumberID,
		Connections: cfg.WithDefaults().DispatchConcurrency})
	sb := sandbox.New(delivery.NewRecordStatusEventHandler(st, clock, nil, obs), clock, sandbox.Config{}, nil)
	defer sb.Close()
	dsp := delivery.NewDispatcher(st, st, st, st, delivery.Senders{Live: live, Sandbox: sb}, clock, ids, nil, nil,
		cfg, obs)

	cpu0 := cpustat.Self()
	start := time.Now()
	runCtx, stop := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() { dsp.Run(runCtx); close(done) }()
	deadline := time.After(5 * time.Minute)
	for fake.RequestCount() < n {
		select {
		case <-fake.Arrived():
		case <-deadline:
			stop()
			return fmt.Errorf("only %d of %d messages reached the fake in 5 minutes", fake.RequestCount(), n)
		}
	}
	elapsed := time.Since(start)
	stop()
	<-done
	cpu := cpustat.Self() - cpu0
	out, _ := json.Marshal(map[string]any{"messages": n, "latency": latency.String(), "mps_setting": mps, "concurrency": concurrency,
		"msg_per_s": float64(n) / elapsed.Seconds(), "cpu_s_per_1000": cpu.Seconds() / float64(n) * 1000})
	fmt.Printf("dispatch to fake Cloud API: %s\n", out)
	return nil
}
