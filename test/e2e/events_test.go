package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/heraldhq/herald/adapters/sqlstore"
	"github.com/heraldhq/herald/domain"
	"github.com/heraldhq/herald/ports"
	"github.com/heraldhq/herald/test/hookreceiver"
)

// addEndpoint creates an endpoint through the API with key, subscribed to
// every event type, posting to url, and returns its id and secret.
func addEndpoint(t *testing.T, srv *server, key, url string) (id domain.WebhookEndpointID, secret string) {
	t.Helper()
	var ep struct{ ID, Secret string }
	if code := srv.call(t, "POST", "/v1/webhook-endpoints", key, map[string]any{
		"url": url, "events": []string{"*"}, "description": "e2e"}, &ep); code != http.StatusCreated {
		t.Fatalf("create endpoint: %d", code)
	}
	return domain.WebhookEndpointID(ep.ID), ep.Secret
}

func openStore(t *testing.T, in *instance) *sqlstore.Store {
	t.Helper()
	db, d, err := sqlstore.Open(context.Background(), sqlstore.Config{DatabaseURL: in.url})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return sqlstore.New(db, d)
}

// flaky answers a delivery's first attempt with a 500 for every third
// event of the second round's messages, never answers one delivery (the
// worker gives up on it after 15 s and tries again), and accepts
// everything else. The 500s are kept to the messages sent after the kill:
// a delivery claimed when the server was killed has used an attempt
// number, so a 500 on its next try would be its second failure, retried
// after 5 minutes as the schedule says, far past this test's wait.
type flaky struct {
	mu    sync.Mutex
	tries map[string]int
	hung  bool
}

func (f *flaky) answer(d hookreceiver.Delivery) hookreceiver.Answer {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.tries[d.ID]++
	switch {
	case f.tries[d.ID] > 1:
		return hookreceiver.Answer{}
	case !f.hung && len(f.tries) == 5:
		f.hung = true
		return hookreceiver.Answer{Hang: true}
	case len(f.tries)%3 == 0 && bytes.Contains(d.Body, []byte(`"phoneNumber":"+1415501`)):
		return hookreceiver.Answer{Status: http.StatusInternalServerError, Body: "try later"}
	}
	return hookreceiver.Answer{}
}

// awaitFinal polls the message until it is read or failed.
func awaitFinal(t *testing.T, srv *server, key, id string) {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	var m message
	for time.Now().Before(deadline) {
		if code := srv.call(t, "GET", "/v1/messages/"+id, key, nil, &m); code != 200 {
			t.Fatalf("GET message: %d", code)
		}
		if m.Status == "read" || m.Status == "failed" {
			return
		}
		time.Sleep(20 * time.Millisecond) // another process: its answers are the only signal
	}
	t.Fatalf("message %s is %s after 15s, want read or failed\n%s", id, m.Status, srv.Logs())
}

// TestEventsSurviveAKill: a test key's messages go through the sandbox,
// whose statuses make message.sent, delivered and read events; a flaky
// endpoint (500s, an attempt that never answers) and one that answers 410
// Gone receive them, every delivery verified against the Standard
// Webhooks specification. The server is killed with SIGKILL mid-run and
// started again: every event the database holds reaches the flaky
// endpoint at least once, a message's events in the order they happened,
// and the endpoint that answered 410 is disabled after its first attempt.
func TestEventsSurviveAKill(t *testing.T) {
	t.Parallel()
	const perRound = 20
	in := newInstance(t, "sqlite")
	var key struct{ Token, WorkspaceID string }
	in.cli(&key, "keys", "create", "--name", "events", "--mode", "test")
	var camp struct{ ID string }
	in.cli(&camp, "campaigns", "create", "--name", "W", "--template-name", "welcome", "--language", "en_US",
		"--body", "Hi {{1}}, your code is {{2}}", "--activate")
	ws := domain.WorkspaceID(key.WorkspaceID)

	recv := hookreceiver.New(t)
	fl := &flaky{tries: map[string]int{}}
	recv.SetFallback(fl.answer)
	gone := hookreceiver.New(t)
	gone.SetFallback(func(hookreceiver.Delivery) hookreceiver.Answer { return hookreceiver.Answer{Status: http.StatusGone} })
	env := []string{"HERALD_WEBHOOK_ALLOW_HTTP=true", "HERALD_WEBHOOK_ALLOWED_HOSTS=127.0.0.1", "HERALD_LEASE_DURATION=2s"}

	send := func(srv *server, round int) []string {
		var ids []string
		for i := range perRound {
			phone := fmt.Sprintf("+14155%02d%04d", round, 10+i)
			if i == 0 {
				phone = fmt.Sprintf("+14155%02d0001", round) // the sandbox fails it: message.failed
			}
			var m struct{ ID string }
			code := srv.call(t, "POST", "/v1/messages/send-campaign", key.Token, map[string]any{
				"phoneNumber": phone, "campaignId": camp.ID, "variables": []string{"Ana", "1"}}, &m)
			if code != http.StatusAccepted {
				t.Fatalf("send: %d", code)
			}
			ids = append(ids, m.ID)
		}
		return ids
	}

	srv := in.serve(env...)
	_, flakySecret := addEndpoint(t, srv, key.Token, recv.URL+"/herald")
	goneID, goneSecret := addEndpoint(t, srv, key.Token, gone.URL+"/herald")
	recv.SetSecrets(t, flakySecret)
	gone.SetSecrets(t, goneSecret)
	send(srv, 0)
	recv.WaitFor(t, perRound, 30*time.Second) // a good part of the first round's events
	if err := srv.Cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	<-srv.Done

	srv = in.serve(env...)
	last := send(srv, 1)
	for _, id := range last {
		awaitFinal(t, srv, key.Token, id)
	}
	st := openStore(t, in)
	committed := func() []domain.Event {
		es, err := st.ListEvents(context.Background(), ws, domain.ModeTest, ports.EventFilter{Limit: 10_000})
		if err != nil {
			t.Fatal(err)
		}
		return es
	}
	// The bound is far above what a run takes (about 20 s: a hung attempt's
	// 15 s, the lease after the kill): on a loaded machine the retries
	// still come within it.
	deadline := time.Now().Add(180 * time.Second)
	var events []domain.Event
	for {
		events = committed()
		got, missing := recv.Succeeded(), 0
		for _, e := range events {
			if got[string(e.ID)] == 0 {
				missing++
			}
		}
		if missing == 0 && len(events) >= 3*(perRound-1)+1 {
			break
		}
		if time.Now().After(deadline) {
			var late []string
			for _, e := range events {
				if got[string(e.ID)] == 0 {
					ds, _ := st.ListDeliveries(context.Background(), ws, domain.ModeTest, e.ID)
					late = append(late, fmt.Sprintf("%s %s: %+v", e.ID, e.Type, ds))
				}
			}
			t.Fatalf("%d of %d committed events never reached the endpoint:\n%s\n%s", missing, len(events),
				strings.Join(late, "\n"), srv.Logs())
		}
		select {
		case <-time.After(200 * time.Millisecond): // the server is another process: the database is the signal
		case <-srv.Done:
			t.Fatalf("the server stopped\n%s", srv.Logs())
		}
	}
	srv.Stop(t)

	// Order per message: each event's first arrival comes after the
	// previous event of the message was answered 2xx.
	subject := map[string]domain.Event{}
	for _, e := range events {
		subject[string(e.ID)] = e
	}
	arrivals := recv.Deliveries()
	firstOK := map[string]int{}
	for i, d := range arrivals {
		if !d.Verified {
			t.Fatalf("delivery %s failed verification: %s", d.ID, d.Problem)
		}
		if _, ok := firstOK[d.ID]; !ok && d.Answered >= 200 && d.Answered <= 299 {
			firstOK[d.ID] = i
		}
	}
	bySubject := map[string][]domain.Event{}
	for _, e := range events {
		if e.Type.IsMessage() {
			bySubject[e.Subject] = append(bySubject[e.Subject], e)
		}
	}
	for m, es := range bySubject {
		for k := 1; k < len(es); k++ {
			prev, next := es[k-1], es[k]
			for i, d := range arrivals {
				if d.ID == string(next.ID) && i < firstOK[string(prev.ID)] {
					t.Errorf("message %s: %s arrived before %s succeeded", m, next.Type, prev.Type)
				}
			}
		}
	}
	dups := 0
	for _, n := range recv.Succeeded() {
		dups += n - 1
	}
	var body struct {
		Type string
		Data struct{ Mode string }
	}
	if err := json.Unmarshal(arrivals[0].Body, &body); err != nil || body.Data.Mode != "test" {
		t.Errorf("first delivery %s: %+v (%v), want a test message's event", arrivals[0].Body, body, err)
	}
	ep, err := st.GetEndpoint(context.Background(), ws, domain.ModeTest, goneID)
	if err != nil {
		t.Fatal(err)
	}
	if ep.Status != domain.EndpointDisabled || ep.DisabledReason != domain.DisabledGone || gone.Count() > perRound {
		t.Errorf("the endpoint answering 410 is %v (%v) after %d requests; want disabled as gone at its first answer",
			ep.Status, ep.DisabledReason, gone.Count())
	}
	t.Logf("%d events, %d requests to the flaky endpoint, %d duplicate successes after a kill", len(events), len(arrivals), dups)
}
