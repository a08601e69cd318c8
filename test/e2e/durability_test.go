package e2e

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/heraldhq/herald/test/fakemeta"
)

// TestAcceptedMessagesSurviveKills streams live sends at the server, kills
// it with SIGKILL twice and restarts it on the same database: every message
// answered 202 reaches (the fake) Meta at least once, and duplicates stay
// within what the dispatcher can have in flight at a kill.
func TestAcceptedMessagesSurviveKills(t *testing.T) {
	t.Parallel()
	const perRound, rounds, inFlight = 150, 3, 250 // inFlight: the default sends in flight at 1,000 msg/s
	fake := fakemeta.New(t)
	fake.AddTemplate(fakemeta.Template{Name: "welcome", Language: "en_US", Status: "APPROVED", BodyParams: 2})
	in := newInstance(t, "sqlite")
	var key struct{ Token string }
	in.cli(&key, "keys", "create", "--name", "live", "--mode", "live")
	var camp struct{ ID string }
	in.cli(&camp, "campaigns", "create", "--name", "W", "--template-name", "welcome", "--language", "en_US",
		"--body", "Hi {{1}}, your code is {{2}}", "--activate")
	env := []string{"HERALD_WHATSAPP_API_URL=" + fake.URL, "HERALD_WHATSAPP_ACCESS_TOKEN=" + fake.Token,
		"HERALD_WHATSAPP_PHONE_NUMBER_ID=" + fake.PhoneNumberID, "HERALD_WHATSAPP_MPS=1000", "HERALD_LEASE_DURATION=2s",
		"HERALD_RATE_LIMIT=1000000", "HERALD_RATE_BURST=1000000"}

	var accepted []string
	for round := range rounds {
		before := len(fake.Requests())
		srv := in.serve(env...)
		var mu sync.Mutex
		var wg sync.WaitGroup
		for w := range 4 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := w; i < perRound; i += 4 {
					body, _ := json.Marshal(map[string]any{"phoneNumber": fmt.Sprintf("+14155%02d%04d", round, i),
						"campaignId": camp.ID, "variables": []string{"Ana", "1234"}})
					req, _ := http.NewRequest("POST", srv.Base+"/v1/messages/send-campaign", bytes.NewReader(body))
					req.Header.Set("X-API-KEY", key.Token)
					req.Header.Set("Content-Type", "application/json")
					res, err := http.DefaultClient.Do(req)
					if err != nil {
						return // the server was killed under us: this request has no answer
					}
					b, _ := io.ReadAll(res.Body)
					res.Body.Close()
					if res.StatusCode == http.StatusAccepted {
						var m struct{ ID string }
						json.Unmarshal(b, &m)
						mu.Lock()
						accepted = append(accepted, m.ID)
						mu.Unlock()
					}
				}
			}()
		}
		if round < rounds-1 {
			// Kill in the middle of the stream, once a good part of this
			// round's sends have reached Meta.
			for fake.RequestCount() < before+perRound/3 {
				select {
				case <-fake.Arrived():
				case <-time.After(30 * time.Second):
					t.Fatalf("sends stopped reaching the Cloud API\n%s", srv.Logs())
				}
			}
			srv.Cmd.Process.Signal(syscall.SIGKILL)
			<-srv.Done
			wg.Wait()
			continue
		}
		wg.Wait()
		defer srv.Stop(t)
	}

	received := func() map[string]int {
		n := map[string]int{}
		for _, r := range fake.Requests() {
			var p struct {
				Biz string `json:"biz_opaque_callback_data"`
			}
			json.Unmarshal(r.Body, &p)
			n[p.Biz]++
		}
		return n
	}
	deadline := time.After(60 * time.Second)
	for {
		got := received()
		missing := 0
		for _, id := range accepted {
			if got[id] == 0 {
				missing++
			}
		}
		if missing == 0 {
			break
		}
		select {
		case <-fake.Arrived():
		case <-deadline:
			t.Fatalf("%d of %d accepted messages never reached the Cloud API", missing, len(accepted))
		case <-time.After(time.Second): // leases of killed instances expire on their own
		}
	}
	dups := 0
	for _, n := range received() {
		dups += n - 1
	}
	t.Logf("%d accepted, %d sends to Meta, %d duplicates after %d kills", len(accepted), len(fake.Requests()), dups, rounds-1)
	if len(accepted) < perRound {
		t.Errorf("only %d messages were accepted over %d rounds", len(accepted), rounds)
	}
	if dups > inFlight*(rounds-1) {
		t.Errorf("%d duplicates: more than the %d sends that can be in flight at %d kills", dups, inFlight*(rounds-1), rounds-1)
	}
}
