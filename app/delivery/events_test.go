package delivery_test

import (
	"context"
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/heraldhq/herald/app"
	"github.com/heraldhq/herald/app/delivery"
	"github.com/heraldhq/herald/domain"
	"github.com/heraldhq/herald/ports"
	"github.com/heraldhq/herald/ports/portsmock"
)

// Events are written in the transaction of the change they report
// (decision 0020); these tests read them back as the pull API does.

// told is one event as a test compares it: its type, mode, subject, and a
// few fields of its data.
type told struct {
	Type, Mode, Subject string
	Data                map[string]any
}

// events sequences what was committed and returns the workspace's events
// of mode, oldest first.
func (f *fixture) eventsOf(t *testing.T, ws domain.WorkspaceID, mode domain.KeyMode) []domain.Event {
	t.Helper()
	ctx := context.Background()
	if _, err := f.st.SequenceEvents(ctx, 10_000); err != nil {
		t.Fatal(err)
	}
	es, err := f.st.ListEvents(ctx, ws, mode, ports.EventFilter{Limit: 10_000})
	if err != nil {
		t.Fatal(err)
	}
	return es
}

func (f *fixture) told(t *testing.T, ws domain.WorkspaceID, mode domain.KeyMode) []told {
	t.Helper()
	var out []told
	for _, e := range f.eventsOf(t, ws, mode) {
		var body struct {
			Type      string         `json:"type"`
			Timestamp string         `json:"timestamp"`
			Data      map[string]any `json:"data"`
		}
		if err := json.Unmarshal(e.Body, &body); err != nil {
			t.Fatalf("event %s: body %s: %v", e.ID, e.Body, err)
		}
		if body.Type != e.Type.String() {
			t.Fatalf("event %s of type %s has a body of type %s", e.ID, e.Type, body.Type)
		}
		out = append(out, told{Type: body.Type, Mode: e.Mode.String(), Subject: e.Subject, Data: body.Data})
	}
	return out
}

func types(ts []told) []string {
	out := make([]string, len(ts))
	for i, t := range ts {
		out[i] = t.Type
	}
	return out
}

// TestStatusEventsFromTheSandbox: a test key's message, sent to the
// sandbox, makes message.sent, delivered and read as test events, each
// with the message as GET /v1/messages/{id} shows it at that moment; a
// late delivered after read, and duplicates, make none; live keys see
// none of them.
func TestStatusEventsFromTheSandbox(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	m := f.send(t, f.principal, phone)
	rec := delivery.NewRecordStatusEventHandler(f.st, f.clock, f.events, nil)
	ctx := context.Background()
	for _, st := range []domain.MessageStatus{domain.StatusSent, domain.StatusDelivered, domain.StatusRead,
		domain.StatusDelivered, domain.StatusRead} {
		f.clock.Advance(time.Second)
		if err := rec.RecordStatus(ctx, ports.StatusEvent{MessageID: m.ID, ProviderID: "wamid.SB", Status: st, At: f.clock.Now()}); err != nil {
			t.Fatal(err)
		}
	}
	got := f.told(t, f.principal.Workspace, domain.ModeTest)
	if want := []string{"message.sent", "message.delivered", "message.read"}; !cmp.Equal(types(got), want) {
		t.Fatalf("events %v, want %v (a late delivered after read makes none)", types(got), want)
	}
	for i, st := range []string{"sent", "delivered", "read"} {
		e := got[i]
		if e.Mode != "test" || e.Subject != string(m.ID) || e.Data["id"] != string(m.ID) || e.Data["status"] != st ||
			e.Data["mode"] != "test" || e.Data["providerMessageId"] != "wamid.SB" {
			t.Errorf("event %d: %+v; want the test message %s as it was when %s", i, e, m.ID, st)
		}
		if h, _ := e.Data["history"].([]any); len(h) != i+2 {
			t.Errorf("event %d's message has %d history entries, want %d: it is the message at that moment", i, len(h), i+2)
		}
	}
	if live := f.told(t, f.principal.Workspace, domain.ModeLive); len(live) != 0 {
		t.Errorf("live events %v from test traffic", types(live))
	}
}

// TestFailedSendMakesMessageFailed: a send Meta refuses for good fails the
// message with Meta's code and title, told as message.failed; the
// template verdict that came with it tells template.status_changed in each
// mode, naming the workspace's campaign.
func TestFailedSendMakesMessageFailed(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	m := f.send(t, f.principal, phone)
	sender := newSenderMock(&ports.SendError{Class: ports.ClassPermanent, Code: 132015, Title: "Template is paused",
		TemplateStatus: domain.TemplatePaused})
	d := f.dispatcher(f.st, f.st, sender, sender, delivery.Config{})
	f.clock.Advance(time.Second)
	dispatchOnce(t, d)
	test := f.told(t, f.principal.Workspace, domain.ModeTest)
	if want := []string{"template.status_changed", "message.failed"}; !cmp.Equal(types(test), want) {
		t.Fatalf("test events %v, want %v", types(test), want)
	}
	failed := test[1]
	errData, _ := failed.Data["error"].(map[string]any)
	if failed.Subject != string(m.ID) || failed.Data["status"] != "failed" || errData["code"] != float64(132015) ||
		errData["title"] != "Template is paused" {
		t.Errorf("message.failed %+v; want the message failed with Meta's 132015", failed)
	}
	live := f.told(t, f.principal.Workspace, domain.ModeLive)
	if want := []string{"template.status_changed"}; !cmp.Equal(types(live), want) {
		t.Fatalf("live events %v, want %v: a verdict concerns both modes", types(live), want)
	}
	tpl := live[0].Data
	if tpl["name"] != "welcome" || tpl["language"] != "en_US" || tpl["status"] != "PAUSED" ||
		!cmp.Equal(tpl["campaigns"], []any{string(f.campaign.ID)}) {
		t.Errorf("template.status_changed data %v", tpl)
	}
}

// TestInboundAndStopMakeEvents: a reply makes message.received with the
// entry and its contact; a STOP makes contact.opted_out in every
// workspace where the person is a live contact, and message.failed for
// what still waited to be sent to them; START makes contact.opted_in. A
// redelivered STOP makes nothing.
func TestInboundAndStopMakeEvents(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	h := newHooks(f, f.st)
	live := f.principal
	live.Mode = domain.ModeLive
	queued := f.send(t, live, phone)
	ws := f.principal.Workspace

	h.post(t, inbound(text("14155552671", "wamid.HI", "Hi there", t0.Add(time.Second))))
	h.post(t, inbound(text("14155552671", "wamid.STOP", "STOP", t0.Add(2*time.Second))))
	h.post(t, inbound(text("14155552671", "wamid.STOP", "STOP", t0.Add(2*time.Second))))
	h.post(t, inbound(text("14155552671", "wamid.START", "START", t0.Add(3*time.Second))))

	got := f.told(t, ws, domain.ModeLive)
	want := []string{"message.received", "message.received", "contact.opted_out", "message.failed",
		"message.received", "contact.opted_in"}
	if !cmp.Equal(types(got), want) {
		t.Fatalf("live events %v, want %v", types(got), want)
	}
	msg, _ := got[0].Data["message"].(map[string]any)
	contact, _ := got[0].Data["contact"].(map[string]any)
	if msg["body"] != "Hi there" || msg["direction"] != "inbound" || msg["providerMessageId"] != "wamid.HI" ||
		contact["phoneNumber"] != phone {
		t.Errorf("message.received data %v", got[0].Data)
	}
	if got[2].Data["optedOut"] != true || got[2].Data["phoneNumber"] != phone {
		t.Errorf("contact.opted_out data %v", got[2].Data)
	}
	errData, _ := got[3].Data["error"].(map[string]any)
	if got[3].Subject != string(queued.ID) || errData["heraldCode"] != "contact_opted_out" {
		t.Errorf("message.failed %+v; want the queued message failed as contact_opted_out", got[3])
	}
	if got[5].Data["optedOut"] != false {
		t.Errorf("contact.opted_in data %v", got[5].Data)
	}
	if test := f.told(t, ws, domain.ModeTest); len(test) != 0 {
		t.Errorf("test events %v from a live person's messages", types(test))
	}
}

// TestMarketingStopMakesOptedOut: a user's stop of marketing messages is a
// contact.opted_out (failing the marketing message still queued), and
// their resume a contact.opted_in.
func TestMarketingStopMakesOptedOut(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	h := newHooks(f, f.st)
	live := f.principal
	live.Mode = domain.ModeLive
	f.send(t, live, phone)
	user := domain.WhatsAppUser{WaID: "14155552671"}
	h.post(t, ports.WebhookBatch{Preferences: []ports.MarketingPreferenceEvent{{User: user, Stopped: true, At: t0.Add(time.Second)}}})
	h.post(t, ports.WebhookBatch{Preferences: []ports.MarketingPreferenceEvent{{User: user, Stopped: false, At: t0.Add(2 * time.Second)}}})
	got := f.told(t, f.principal.Workspace, domain.ModeLive)
	if want := []string{"contact.opted_out", "message.failed", "contact.opted_in"}; !cmp.Equal(types(got), want) {
		t.Fatalf("live events %v, want %v (the queued marketing message fails)", types(got), want)
	}
	if got[0].Data["marketingOptedOut"] != true || got[2].Data["marketingOptedOut"] != false {
		t.Errorf("data %v then %v", got[0].Data, got[2].Data)
	}
}

// TestSyncContactOptOutMakesEvents: opting a contact out through the
// contacts API tells contact.opted_out in the key's mode, with
// message.failed for its queued messages; opting it in again tells
// contact.opted_in; a sync that changes nothing else tells nothing.
func TestSyncContactOptOutMakesEvents(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	m := f.send(t, f.principal, phone)
	sync := app.NewSyncContactHandler(f.st, f.clock, f.ids, f.events, nil)
	ctx := context.Background()
	for _, out := range []bool{true, true, false} {
		if _, err := sync.Handle(ctx, app.SyncContact{Principal: f.principal, PhoneNumber: phone,
			Changes: domain.ContactSync{OptedOut: ptr(out)}}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := sync.Handle(ctx, app.SyncContact{Principal: f.principal, PhoneNumber: phone,
		Changes: domain.ContactSync{Name: ptr("Ana")}}); err != nil {
		t.Fatal(err)
	}
	got := f.told(t, f.principal.Workspace, domain.ModeTest)
	if want := []string{"contact.opted_out", "message.failed", "contact.opted_in"}; !cmp.Equal(types(got), want) {
		t.Fatalf("test events %v, want %v", types(got), want)
	}
	if got[1].Subject != string(m.ID) {
		t.Errorf("message.failed about %s, want %s", got[1].Subject, m.ID)
	}
}

// TestRolledBackChangeLeavesNoEvent: when a store step after the event was
// written fails, the transaction rolls back and takes the event with it.
func TestRolledBackChangeLeavesNoEvent(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.send(t, f.principal, phone)
	broken := errors.New("the store refused the step")
	tx := &portsmock.TransactorMock{WithinTxFunc: func(ctx context.Context, fn func(context.Context, ports.Repos) error) error {
		return f.st.WithinTx(ctx, func(ctx context.Context, r ports.Repos) error {
			r.Queue = &portsmock.MessageQueueMock{FailQueuedMessagesFunc: func(context.Context, domain.Contact, time.Time) ([]domain.MessageID, error) {
				return nil, broken
			}}
			return fn(ctx, r)
		})
	}}
	_, err := app.NewSyncContactHandler(tx, f.clock, f.ids, f.events, nil).Handle(context.Background(),
		app.SyncContact{Principal: f.principal, PhoneNumber: phone, Changes: domain.ContactSync{OptedOut: ptr(true)}})
	if !errors.Is(err, broken) {
		t.Fatalf("opt-out with a failing step: %v, want the step's error", err)
	}
	if got := f.told(t, f.principal.Workspace, domain.ModeTest); len(got) != 0 {
		t.Fatalf("a rolled-back opt-out left events %v", types(got))
	}
	if f.contact(t, f.principal.Workspace, phone).OptedOut {
		t.Fatal("a rolled-back opt-out opted the contact out")
	}
}

// TestCampaignStatusMakesEventsInBothModes: pausing a campaign tells
// campaign.status_changed to each mode, with the previous status; a change
// the campaign refuses tells nothing.
func TestCampaignStatusMakesEventsInBothModes(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	h := app.NewChangeCampaignStatusHandler(f.st, f.st, f.def, f.clock, f.events)
	ctx := context.Background()
	ws := string(f.principal.Workspace)
	if _, err := h.Handle(ctx, app.ChangeCampaignStatus{Workspace: ws, CampaignID: string(f.campaign.ID), To: domain.CampaignPaused}); err != nil {
		t.Fatal(err)
	}
	if _, err := h.Handle(ctx, app.ChangeCampaignStatus{Workspace: ws, CampaignID: string(f.campaign.ID), To: domain.CampaignPaused}); err != nil {
		t.Logf("pausing again: %v", err)
	}
	for _, mode := range []domain.KeyMode{domain.ModeLive, domain.ModeTest} {
		got := f.told(t, f.principal.Workspace, mode)
		if len(got) != 1 || got[0].Type != "campaign.status_changed" {
			t.Fatalf("%s events %v, want one campaign.status_changed", mode, types(got))
		}
		if d := got[0].Data; d["id"] != string(f.campaign.ID) || d["status"] != "paused" || d["previousStatus"] != "active" {
			t.Errorf("%s data %v", mode, d)
		}
	}
}

// TestTemplateVerdictTellsEachWorkspace: Meta's template webhook tells
// template.status_changed, with its reason, to each workspace whose
// campaigns send the template, in both modes, naming only that workspace's
// campaigns; the same verdict again tells nothing.
func TestTemplateVerdictTellsEachWorkspace(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	h := newHooks(f, f.st)
	otherWS, theirs := f.otherWorkspace(t)
	verdict := ports.WebhookBatch{Templates: []ports.TemplateStatusEvent{{Account: "waba1", Name: "welcome", Language: "en_US",
		Status: domain.TemplateRejected, Event: "REJECTED", Reason: "INCORRECT_CATEGORY", At: t0}}}
	h.post(t, verdict)
	h.post(t, verdict)
	for ws, camp := range map[domain.WorkspaceID]domain.CampaignID{f.principal.Workspace: f.campaign.ID, otherWS: theirs.ID} {
		for _, mode := range []domain.KeyMode{domain.ModeLive, domain.ModeTest} {
			got := f.told(t, ws, mode)
			if len(got) != 1 || got[0].Type != "template.status_changed" {
				t.Fatalf("%s %s events %v, want one template.status_changed", ws, mode, types(got))
			}
			d := got[0].Data
			if d["status"] != "REJECTED" || d["reason"] != "INCORRECT_CATEGORY" || !cmp.Equal(d["campaigns"], []any{string(camp)}) {
				t.Errorf("%s %s data %v", ws, mode, d)
			}
		}
	}
}
