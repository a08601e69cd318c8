package delivery_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/heraldhq/herald/app"
	"github.com/heraldhq/herald/app/delivery"
	"github.com/heraldhq/herald/domain"
	"github.com/heraldhq/herald/ports"
	"github.com/heraldhq/herald/ports/portsmock"
)

// live is the fixture principal's workspace with a live key.
func (f *fixture) live() domain.Principal {
	p := f.principal
	p.Mode = domain.ModeLive
	return p
}

// sendOn accepts a message to phone on campaign c, or returns the refusal.
func (f *fixture) sendOn(p domain.Principal, c domain.Campaign, phone string) (domain.Message, error) {
	res, err := f.sender(f.st, nil).Handle(context.Background(), app.SendCampaignMessage{
		Principal: p, PhoneNumber: phone, CampaignID: string(c.ID), Variables: []string{"Ana", "1234"}})
	return res.Message, err
}

func (f *fixture) mustSendOn(t *testing.T, p domain.Principal, c domain.Campaign, phone string) domain.Message {
	t.Helper()
	m, err := f.sendOn(p, c, phone)
	if err != nil {
		t.Fatalf("send to %s on %s: %v", phone, c.Name, err)
	}
	return m
}

// campaignOf stores an active campaign in ws whose template has category
// cat (zero: defined here without one).
func (f *fixture) campaignOf(t *testing.T, ws domain.WorkspaceID, cat domain.TemplateCategory) domain.Campaign {
	t.Helper()
	return f.createCampaign(t, ws, app.CreateCampaign{Name: "Campaign " + cat.String(), TemplateName: "welcome",
		Language: "en_US", Body: "Hi {{1}}, your code is {{2}}", Category: cat, Activate: true})
}

var (
	optedOutFailure  = &domain.Failure{Title: domain.OptedOutTitle, HeraldCode: domain.CodeContactOptedOut}
	marketingFailure = &domain.Failure{Title: domain.MarketingStoppedTitle, HeraldCode: domain.CodeContactOptedOut}
)

// mustFailedWith checks that the message failed at at with failure and
// left the queue.
func (f *fixture) mustFailedWith(t *testing.T, ws domain.WorkspaceID, id domain.MessageID, at time.Time, failure *domain.Failure) {
	t.Helper()
	m, err := f.st.GetMessage(context.Background(), ws, id)
	if err != nil {
		t.Fatal(err)
	}
	if m.Status != domain.StatusFailed || !cmp.Equal(m.Failure, failure) {
		t.Errorf("message %s: %v %+v, want failed with %+v", id, m.Status, m.Failure, failure)
	}
	if last := m.History[len(m.History)-1]; last.Status != domain.StatusFailed || !last.At.Equal(at) {
		t.Errorf("message %s: last history entry %+v, want failed at %v", id, last, at)
	}
}

func (f *fixture) mustStatus(t *testing.T, ws domain.WorkspaceID, id domain.MessageID, want domain.MessageStatus) {
	t.Helper()
	m, err := f.st.GetMessage(context.Background(), ws, id)
	if err != nil || m.Status != want {
		t.Errorf("message %s: %v (%v), want %v", id, m.Status, err, want)
	}
}

// claimedIDs claims every due message at the fixture's time and returns
// their ids, sorted.
func (f *fixture) claimedIDs(t *testing.T) []domain.MessageID {
	t.Helper()
	now := f.clock.Now()
	cl, err := f.st.ClaimMessages(context.Background(), ports.Claim{Owner: "probe", Now: now, LeaseUntil: now.Add(time.Minute), Limit: 100})
	if err != nil {
		t.Fatal(err)
	}
	var out []domain.MessageID
	for _, c := range cl {
		out = append(out, c.Message.ID)
	}
	slices.Sort(out)
	return out
}

// TestStopFailsWhatIsQueued: a STOP fails at once the live messages still
// queued or waiting for a retry to the number, in every workspace, with
// Herald's code; they are never claimed. Test messages to the number stay.
// The thread and the statistics show them failed.
func TestStopFailsWhatIsQueued(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	h := newHooks(f, f.st)
	ctx := context.Background()
	phone := "+14155552671"
	otherWS, theirs := f.otherWorkspace(t)
	live := f.live()

	retrying := f.mustSendOn(t, live, f.campaign, phone)
	sender := newSenderMock(&ports.SendError{Class: ports.ClassRetryable, Code: 131000, Title: "Something went wrong"})
	d := f.dispatcher(f.st, f.st, sender, sender, delivery.Config{})
	if n := dispatchOnce(t, d); n != 1 {
		t.Fatalf("claimed %d, want 1", n)
	}
	queued := f.mustSendOn(t, live, f.campaign, phone)
	elsewhere := f.mustSendOn(t, domain.Principal{Workspace: otherWS, Mode: domain.ModeLive}, theirs, phone)
	sandboxed := f.mustSendOn(t, f.principal, f.campaign, phone)

	stopAt := t0.Add(time.Minute)
	rep := h.post(t, inbound(text("14155552671", "wamid.STOP", "STOP", stopAt)))
	if rep.OptedOut != 2 || rep.QueuedFailed != 3 {
		t.Errorf("report %+v, want 2 contacts opted out and 3 queued messages failed", rep)
	}
	f.mustFailedWith(t, live.Workspace, retrying.ID, t0, optedOutFailure)
	f.mustFailedWith(t, live.Workspace, queued.ID, t0, optedOutFailure)
	f.mustFailedWith(t, otherWS, elsewhere.ID, t0, optedOutFailure)
	f.mustStatus(t, live.Workspace, sandboxed.ID, domain.StatusQueued)

	f.clock.Advance(time.Hour) // past the retry time
	if got := f.claimedIDs(t); !cmp.Equal(got, []domain.MessageID{sandboxed.ID}) {
		t.Errorf("claimed after the STOP: %v, want only the sandbox message %s", got, sandboxed.ID)
	}
	if n := len(sender.SendCalls()); n != 1 {
		t.Errorf("%d sends, want the one before the STOP", n)
	}

	c := f.contactOf(t, live.Workspace, domain.ModeLive, phone)
	for _, e := range f.thread(t, live.Workspace, c.ID) {
		if e.Direction == domain.Outbound && e.Status != domain.StatusFailed {
			t.Errorf("thread entry of message %s is %v, want failed", e.MessageID, e.Status)
		}
	}
	stats, err := app.NewGetCampaignStatsHandler(f.st, f.st, f.clock, nil).Handle(ctx,
		app.GetCampaignStats{Principal: live, CampaignID: string(f.campaign.ID)})
	if err != nil {
		t.Fatal(err)
	}
	if stats.Stats.Counts[domain.StatusFailed] != 2 ||
		!cmp.Equal(stats.Stats.FailuresByCode, map[domain.FailureKey]int{{HeraldCode: domain.CodeContactOptedOut}: 2}) {
		t.Errorf("live stats %+v, want 2 failed with contact_opted_out", stats.Stats)
	}

	// Meta delivers the STOP again: nothing more fails, nothing is counted twice.
	if rep := h.post(t, inbound(text("14155552671", "wamid.STOP", "STOP", stopAt))); rep.QueuedFailed != 0 || rep.Repeated != 1 {
		t.Errorf("redelivered STOP report %+v", rep)
	}
}

// TestSyncOptedOutFailsWhatIsQueued: contacts/sync with optedOut fails the
// key's mode's contact's waiting messages in the same transaction; a sync
// repeating the value, or opting in, fails nothing.
func TestSyncOptedOutFailsWhatIsQueued(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	phone := "+14155552671"
	live := f.live()
	liveMsg := f.mustSendOn(t, live, f.campaign, phone)
	testMsg := f.mustSendOn(t, f.principal, f.campaign, phone)
	syncer := app.NewSyncContactHandler(f.st, f.clock, f.ids, nil, nil)
	if _, err := syncer.Handle(ctx, app.SyncContact{Principal: f.principal, PhoneNumber: phone,
		Changes: domain.ContactSync{OptedOut: ptr(true)}}); err != nil {
		t.Fatal(err)
	}
	f.mustFailedWith(t, live.Workspace, testMsg.ID, t0, optedOutFailure)
	f.mustStatus(t, live.Workspace, liveMsg.ID, domain.StatusQueued)

	if _, err := syncer.Handle(ctx, app.SyncContact{Principal: live, PhoneNumber: phone,
		Changes: domain.ContactSync{OptedOut: ptr(false)}}); err != nil {
		t.Fatal(err)
	}
	f.mustStatus(t, live.Workspace, liveMsg.ID, domain.StatusQueued)
	if _, err := syncer.Handle(ctx, app.SyncContact{Principal: live, PhoneNumber: phone,
		Changes: domain.ContactSync{OptedOut: ptr(true)}}); err != nil {
		t.Fatal(err)
	}
	f.mustFailedWith(t, live.Workspace, liveMsg.ID, t0, optedOutFailure)
	if got := f.claimedIDs(t); len(got) != 0 {
		t.Errorf("claimed after the syncs: %v, want none", got)
	}
}

// TestUserPreferencesStopMarketing: Meta's user_preferences stop refuses
// marketing campaigns (and those of unknown category) with
// contact_opted_out, fails the number's marketing messages still queued,
// and leaves utility and authentication ones; a resume lets marketing go
// again; an older word changes nothing.
func TestUserPreferencesStopMarketing(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	h := newHooks(f, f.st)
	phone, waID := "+14155552671", "14155552671"
	live := f.live()
	ws := live.Workspace
	marketing := f.campaignOf(t, ws, domain.CategoryMarketing)
	utility := f.campaignOf(t, ws, domain.CategoryUtility)
	auth := f.campaignOf(t, ws, domain.CategoryAuthentication)
	unknown := f.campaign // defined here without a category

	queuedMarketing := f.mustSendOn(t, live, marketing, phone)
	queuedUnknown := f.mustSendOn(t, live, unknown, phone)
	queuedUtility := f.mustSendOn(t, live, utility, phone)

	stopAt := t0.Add(time.Minute)
	pref := func(stopped bool, at time.Time) ports.WebhookBatch {
		return ports.WebhookBatch{Preferences: []ports.MarketingPreferenceEvent{{User: domain.WhatsAppUser{WaID: waID}, Stopped: stopped, At: at}}}
	}
	rep := h.post(t, pref(true, stopAt))
	if rep.MarketingStopped != 1 || rep.QueuedFailed != 2 || rep.OptedOut != 0 {
		t.Errorf("stop report %+v, want 1 contact stopped and 2 queued messages failed", rep)
	}
	c := f.contactOf(t, ws, domain.ModeLive, phone)
	if c.OptedOut || !c.Marketing.Stopped || !c.Marketing.ChangedAt.Equal(stopAt) {
		t.Errorf("contact after the stop: opted out %v, marketing %+v", c.OptedOut, c.Marketing)
	}
	f.mustFailedWith(t, ws, queuedMarketing.ID, t0, marketingFailure)
	f.mustFailedWith(t, ws, queuedUnknown.ID, t0, marketingFailure)
	f.mustStatus(t, ws, queuedUtility.ID, domain.StatusQueued)

	for _, camp := range []domain.Campaign{marketing, unknown} {
		_, err := f.sendOn(live, camp, phone)
		var de *domain.Error
		if !errors.As(err, &de) || de.Code != domain.CodeContactOptedOut || de.Param != "phoneNumber" {
			t.Errorf("send of %s after the stop: %v, want contact_opted_out", camp.Name, err)
		}
	}
	f.mustSendOn(t, live, utility, phone)
	f.mustSendOn(t, live, auth, phone)

	if rep := h.post(t, pref(false, t0)); rep.MarketingResumed != 0 {
		t.Errorf("a resume older than the stop: report %+v, want nothing changed", rep)
	}
	if _, err := f.sendOn(live, marketing, phone); !errors.Is(err, domain.ErrContactOptedOut) {
		t.Errorf("marketing send after a stale resume: %v, want contact_opted_out", err)
	}
	if rep := h.post(t, pref(false, stopAt.Add(time.Minute))); rep.MarketingResumed != 1 {
		t.Errorf("resume report %+v, want 1 contact resumed", rep)
	}
	f.mustSendOn(t, live, marketing, phone)
}

// TestUserPreferencesOfANewNumber: a stop from a number no workspace knows
// makes its live contact in the default workspace, stopped, so a first
// marketing send there is refused; a resume from an unknown number makes
// nothing.
func TestUserPreferencesOfANewNumber(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	h := newHooks(f, f.st)
	rep := h.post(t, ports.WebhookBatch{Preferences: []ports.MarketingPreferenceEvent{
		{User: domain.WhatsAppUser{WaID: "14155552672"}, Stopped: false, At: t0},
		{User: domain.WhatsAppUser{WaID: "14155552671"}, Stopped: true, At: t0},
		{User: domain.WhatsAppUser{WaID: "not-a-number"}, Stopped: true, At: t0},
	}})
	if rep.MarketingStopped != 1 || len(rep.Skipped) != 1 {
		t.Errorf("report %+v, want one contact stopped and the odd wa_id skipped", rep)
	}
	if _, err := f.st.GetContactByPhone(context.Background(), f.principal.Workspace, domain.ModeLive,
		domain.MustPhoneNumber("+14155552672")); !errors.Is(err, domain.ErrContactNotFound) {
		t.Errorf("a resume from an unknown number made a contact: %v", err)
	}
	if !f.contactOf(t, f.principal.Workspace, domain.ModeLive, "+14155552671").Marketing.Stopped {
		t.Error("the new contact has not stopped marketing")
	}
	if _, err := f.sendOn(f.live(), f.campaign, "+14155552671"); !errors.Is(err, domain.ErrContactOptedOut) {
		t.Errorf("first marketing send: %v, want contact_opted_out", err)
	}
}

// TestMarketingStoppedFailureRecordsTheStop: a failed status with Meta's
// 131050 says what user_preferences says: the number's contact stops
// marketing at the status's time and its queued marketing messages fail;
// utility ones still go.
func TestMarketingStoppedFailureRecordsTheStop(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	h := newHooks(f, f.st)
	phone := "+14155552671"
	live := f.live()
	utility := f.campaignOf(t, live.Workspace, domain.CategoryUtility)
	refused := f.mustSendOn(t, live, f.campaign, phone)
	queued := f.mustSendOn(t, live, f.campaign, phone)
	queuedUtility := f.mustSendOn(t, live, utility, phone)
	at := t0.Add(time.Minute)
	rep := h.post(t, statuses(ports.StatusEvent{MessageID: refused.ID, ProviderID: "wamid.R", Status: domain.StatusFailed, At: at,
		Failure: &domain.Failure{Code: 131050, Title: "Unable to deliver the message."}, MarketingStopped: true}))
	if rep.Statuses != 1 || rep.MarketingStopped != 1 || rep.QueuedFailed != 1 {
		t.Errorf("report %+v, want the status applied, 1 contact stopped and 1 queued message failed", rep)
	}
	if c := f.contactOf(t, live.Workspace, domain.ModeLive, phone); !c.Marketing.Stopped || !c.Marketing.ChangedAt.Equal(at) {
		t.Errorf("contact marketing %+v, want stopped at %v", c.Marketing, at)
	}
	f.mustFailedWith(t, live.Workspace, queued.ID, t0, marketingFailure)
	f.mustStatus(t, live.Workspace, queuedUtility.ID, domain.StatusQueued)
	if m := f.message(t, refused.ID); m.Failure == nil || m.Failure.Code != 131050 || m.Failure.HeraldCode != "" {
		t.Errorf("the refused message's failure %+v, want Meta's 131050", m.Failure)
	}
}

// TestTemplateCategoryWebhook moves every campaign on the template, in
// every workspace, and the synced template, to Meta's new category: a
// contact who stopped marketing then receives it if it became utility.
func TestTemplateCategoryWebhook(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	h := newHooks(f, f.st)
	ctx := context.Background()
	_, theirs := f.otherWorkspace(t)
	if err := f.st.ReplaceTemplates(ctx, "waba1", []domain.SyncedTemplate{{Account: "waba1", Name: "welcome", Language: "en_US",
		Status: domain.TemplateApproved, Category: "MARKETING", Definition: f.campaign.Template, SyncedAt: t0}}); err != nil {
		t.Fatal(err)
	}
	live := f.live()
	h.post(t, ports.WebhookBatch{Preferences: []ports.MarketingPreferenceEvent{{User: domain.WhatsAppUser{WaID: "14155552671"}, Stopped: true, At: t0}}})
	if _, err := f.sendOn(live, f.campaign, "+14155552671"); !errors.Is(err, domain.ErrContactOptedOut) {
		t.Fatalf("send before the category change: %v, want contact_opted_out", err)
	}
	rep := h.post(t, ports.WebhookBatch{Categories: []ports.TemplateCategoryEvent{{Account: "waba1", Name: "welcome", Language: "en_US",
		Category: domain.CategoryUtility, Previous: domain.CategoryMarketing, At: t0}}})
	if rep.Categories != 2 {
		t.Errorf("report %+v, want 2 campaigns changed", rep)
	}
	for _, c := range []domain.Campaign{f.campaign, theirs} {
		got, err := f.st.GetCampaign(ctx, c.Workspace, c.ID)
		if err != nil || got.Category != domain.CategoryUtility {
			t.Errorf("campaign %s: %v (%v), want UTILITY", c.ID, got.Category, err)
		}
	}
	if st, err := f.st.GetTemplate(ctx, "waba1", "welcome", "en_US"); err != nil || st.Category != "UTILITY" {
		t.Errorf("synced template: %q (%v), want UTILITY", st.Category, err)
	}
	f.mustSendOn(t, live, f.campaign, "+14155552671")
	if rep := h.post(t, ports.WebhookBatch{Categories: []ports.TemplateCategoryEvent{{Account: "waba1", Name: "welcome",
		Language: "en_US", Category: domain.CategoryUtility, At: t0}}}); rep.Categories != 0 {
		t.Errorf("the same category again: report %+v, want nothing changed", rep)
	}
}

// optOutOnClaim is a queue that opts the claimed messages' contacts out
// right after the claim: a STOP that commits while the dispatcher holds the
// message, which the STOP's own transaction therefore leaves alone.
type optOutOnClaim struct {
	ports.MessageQueue
	f         *fixture
	marketing bool
}

func (q optOutOnClaim) ClaimMessages(ctx context.Context, c ports.Claim) ([]ports.Claimed, error) {
	got, err := q.MessageQueue.ClaimMessages(ctx, c)
	for _, cl := range got {
		m := cl.Message
		if _, err := q.f.st.UpdateContact(ctx, m.Workspace, m.ContactID, func(ct *domain.Contact) error {
			if q.marketing {
				ct.SetMarketingOptOut(true, c.Now, c.Now)
			} else {
				ct.SetOptOut(true, c.Now, c.Now)
			}
			return nil
		}); err != nil {
			return nil, err
		}
	}
	return got, err
}

// TestDispatcherChecksTheContactBeforeSending: a contact who opted out
// after their message was claimed does not get it: the dispatcher reads the
// contact right before the call, and fails the message with Herald's code.
// A contact who stopped marketing still gets a utility template.
func TestDispatcherChecksTheContactBeforeSending(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name      string
		marketing bool
		category  domain.TemplateCategory
		failure   *domain.Failure
	}{
		{"STOP", false, domain.CategoryUtility, optedOutFailure},
		{"marketing stop, marketing template", true, domain.CategoryMarketing, marketingFailure},
		{"marketing stop, utility template", true, domain.CategoryUtility, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			f := newFixture(t)
			live := f.live()
			m := f.mustSendOn(t, live, f.campaignOf(t, live.Workspace, tc.category), "+14155552671")
			sender := newSenderMock()
			d := f.dispatcher(optOutOnClaim{MessageQueue: f.st, f: f, marketing: tc.marketing}, f.st, sender, &portsmock.WhatsAppSenderMock{}, delivery.Config{})
			if n := dispatchOnce(t, d); n != 1 {
				t.Fatalf("claimed %d, want 1", n)
			}
			if tc.failure == nil {
				if n := len(sender.SendCalls()); n != 1 {
					t.Fatalf("%d sends, want 1", n)
				}
				return
			}
			if n := len(sender.SendCalls()); n != 0 {
				t.Fatalf("%d sends to a contact who opted out", n)
			}
			f.mustFailedWith(t, live.Workspace, m.ID, t0, tc.failure)
			f.clock.Advance(time.Hour)
			if n := dispatchOnce(t, d); n != 0 {
				t.Errorf("claimed %d after the failure, want none", n)
			}
		})
	}
}

// TestOptOutDuringASendThatFailsEndsTheRetries: a STOP that commits while a
// send is in flight leaves that message to the dispatcher; when the send
// then fails in a way that would be retried, the dispatcher fails it with
// the opt-out instead, and it is never sent again.
func TestOptOutDuringASendThatFailsEndsTheRetries(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	live := f.live()
	m := f.mustSendOn(t, live, f.campaign, "+14155552671")
	calls := 0
	sender := &portsmock.WhatsAppSenderMock{SendFunc: func(ctx context.Context, out ports.OutboundMessage) (ports.SendResult, error) {
		calls++
		if _, err := f.st.UpdateContact(ctx, m.Workspace, m.ContactID, func(c *domain.Contact) error {
			c.SetOptOut(true, t0, t0)
			return nil
		}); err != nil {
			t.Error(err)
		}
		return ports.SendResult{}, &ports.SendError{Class: ports.ClassRetryable, Code: 131000, Title: "Something went wrong"}
	}}
	d := f.dispatcher(f.st, f.st, sender, &portsmock.WhatsAppSenderMock{}, delivery.Config{})
	if n := dispatchOnce(t, d); n != 1 {
		t.Fatalf("claimed %d, want 1", n)
	}
	f.mustFailedWith(t, live.Workspace, m.ID, t0, optedOutFailure)
	f.clock.Advance(time.Hour)
	if n := dispatchOnce(t, d); n != 0 || calls != 1 {
		t.Errorf("after the opt-out: claimed %d, %d calls; want none claimed, one call", n, calls)
	}
}

// TestMarketingStoppedSendRecordsTheStop: a send Meta refuses with 131050
// fails with Meta's code and records the stop on the number's contact:
// the next marketing send is refused, a utility one goes.
func TestMarketingStoppedSendRecordsTheStop(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	live := f.live()
	phone := "+14155552671"
	m := f.mustSendOn(t, live, f.campaign, phone)
	sender := newSenderMock(&ports.SendError{Class: ports.ClassPermanent, Code: 131050,
		Title: "Unable to deliver the message.", MarketingStopped: true})
	d := f.dispatcher(f.st, f.st, sender, &portsmock.WhatsAppSenderMock{}, delivery.Config{})
	if n := dispatchOnce(t, d); n != 1 {
		t.Fatalf("claimed %d, want 1", n)
	}
	f.mustFailedWith(t, live.Workspace, m.ID, t0, &domain.Failure{Code: 131050, Title: "Unable to deliver the message."})
	if c := f.contactOf(t, live.Workspace, domain.ModeLive, phone); !c.Marketing.Stopped || c.OptedOut {
		t.Errorf("contact after 131050: marketing %+v, opted out %v; want marketing stopped only", c.Marketing, c.OptedOut)
	}
	if _, err := f.sendOn(live, f.campaign, phone); !errors.Is(err, domain.ErrContactOptedOut) {
		t.Errorf("marketing send after 131050: %v, want contact_opted_out", err)
	}
	f.mustSendOn(t, live, f.campaignOf(t, live.Workspace, domain.CategoryUtility), phone)
}

// TestMarketingPreferenceFindsTheContactSentTo: a user_preferences stop
// names the user by the wa_id Meta writes, which may be another form of
// the number Herald sent to (Brazil's ninth digit dropped, Mexico's 521).
// It is found as a reply or a STOP is (decision 0018): it stops the contact
// Herald sent to, fails its queued marketing message and makes no second
// contact; a marketing send to either form is then refused, a utility one
// goes.
func TestMarketingPreferenceFindsTheContactSentTo(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, sentTo, waID, otherForm string
		answered                      bool // Meta answered a send with the wa_id first
	}{
		{"Brazil", "+5582999448232", "558299448232", "+558299448232", true},
		{"Mexico", "+525512345678", "5215512345678", "+525512345678", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			f := newFixture(t)
			h := newHooks(f, f.st)
			live := f.live()
			ws := live.Workspace
			marketing := f.campaignOf(t, ws, domain.CategoryMarketing)
			utility := f.campaignOf(t, ws, domain.CategoryUtility)
			if tc.answered {
				f.mustSendOn(t, live, marketing, tc.sentTo)
				meta := metaSender(map[string]string{strings.TrimPrefix(tc.sentTo, "+"): tc.waID})
				if n := dispatchOnce(t, f.dispatcher(f.st, f.st, meta, meta, delivery.Config{})); n != 1 {
					t.Fatalf("dispatched %d, want 1", n)
				}
			}
			queued := f.mustSendOn(t, live, marketing, tc.sentTo)
			sentTo := f.contactOf(t, ws, domain.ModeLive, tc.sentTo)

			stopAt := t0.Add(time.Minute)
			rep := h.post(t, ports.WebhookBatch{Preferences: []ports.MarketingPreferenceEvent{
				{User: domain.WhatsAppUser{WaID: tc.waID}, Stopped: true, At: stopAt}}})
			if rep.MarketingStopped != 1 || rep.QueuedFailed != 1 || len(rep.Skipped) != 0 {
				t.Errorf("stop report %+v, want 1 contact stopped and 1 queued message failed", rep)
			}
			cs := f.liveContacts(t, ws)
			if len(cs) != 1 || cs[0].ID != sentTo.ID || !cs[0].Marketing.Stopped || !cs[0].Marketing.ChangedAt.Equal(stopAt) {
				t.Fatalf("live contacts after the stop: %+v, want only %s, marketing stopped at %v", cs, sentTo.ID, stopAt)
			}
			f.mustFailedWith(t, ws, queued.ID, t0, marketingFailure)
			for _, p := range []string{tc.sentTo, tc.otherForm} {
				if _, err := f.sendOn(live, marketing, p); !errors.Is(err, domain.ErrContactOptedOut) {
					t.Errorf("marketing send to %s after the stop: %v, want contact_opted_out", p, err)
				}
			}
			f.mustSendOn(t, live, utility, tc.sentTo)
		})
	}
}

// TestMarketingStoppedFailureFindsThePersonEverywhere: Meta's 131050 on a
// message to a Brazilian number stops the contact the message went to and,
// in another workspace, the same person's contact kept under the number's
// other form (found by the wa_id Meta answered the send with); a contact of
// another person is left alone.
func TestMarketingStoppedFailureFindsThePersonEverywhere(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	h := newHooks(f, f.st)
	live := f.live()
	otherWS, theirs := f.otherWorkspace(t)
	refused := f.mustSendOn(t, live, f.campaign, "+5582999448232")
	meta := metaSender(map[string]string{"5582999448232": "558299448232"})
	if n := dispatchOnce(t, f.dispatcher(f.st, f.st, meta, meta, delivery.Config{})); n != 1 {
		t.Fatalf("dispatched %d, want 1", n)
	}
	elsewhere := f.mustSendOn(t, domain.Principal{Workspace: otherWS, Mode: domain.ModeLive}, theirs, "+558299448232")
	stranger := f.mustSendOn(t, domain.Principal{Workspace: otherWS, Mode: domain.ModeLive}, theirs, "+5582999448233")

	at := t0.Add(time.Minute)
	rep := h.post(t, statuses(ports.StatusEvent{MessageID: refused.ID, ProviderID: "wamid.TO5582999448232",
		Status: domain.StatusFailed, At: at, Failure: &domain.Failure{Code: 131050, Title: "Unable to deliver the message."},
		MarketingStopped: true, Recipient: domain.WhatsAppUser{WaID: "558299448232"}}))
	if rep.MarketingStopped != 2 || rep.QueuedFailed != 1 {
		t.Errorf("report %+v, want 2 contacts stopped and the other workspace's queued message failed", rep)
	}
	for _, c := range []struct {
		ws    domain.WorkspaceID
		phone string
		want  bool
	}{{live.Workspace, "+5582999448232", true}, {otherWS, "+558299448232", true}, {otherWS, "+5582999448233", false}} {
		if got := f.contactOf(t, c.ws, domain.ModeLive, c.phone).Marketing.Stopped; got != c.want {
			t.Errorf("contact %s in %s: marketing stopped %v, want %v", c.phone, c.ws, got, c.want)
		}
	}
	if m, err := f.st.GetMessage(context.Background(), otherWS, elsewhere.ID); err != nil || m.Status != domain.StatusFailed {
		t.Errorf("the other workspace's queued message: %v (%v), want failed", m.Status, err)
	}
	if m, err := f.st.GetMessage(context.Background(), otherWS, stranger.ID); err != nil || m.Status != domain.StatusQueued {
		t.Errorf("another person's queued message: %v (%v), want queued", m.Status, err)
	}
}

// TestMarketingPreferenceOfAUsernameUser: a user known only by a
// business-scoped user id (no number) who wrote first and then stopped
// marketing messages is found by that id: their contact is stopped, no other
// contact is made.
func TestMarketingPreferenceOfAUsernameUser(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	h := newHooks(f, f.st)
	ws := f.principal.Workspace
	h.post(t, inbound(ports.InboundEvent{UserID: "BR.1502576394655843", Username: "ana.silva",
		Message: domain.InboundMessage{ProviderID: "wamid.OI", Kind: domain.KindText, Text: "oi", At: t0}}))
	rep := h.post(t, ports.WebhookBatch{Preferences: []ports.MarketingPreferenceEvent{
		{User: domain.WhatsAppUser{UserID: "BR.1502576394655843"}, Stopped: true, At: t0.Add(time.Minute)}}})
	if rep.MarketingStopped != 1 {
		t.Errorf("report %+v, want the contact stopped", rep)
	}
	if cs := f.liveContacts(t, ws); len(cs) != 1 || cs[0].UserID != "BR.1502576394655843" || !cs[0].Phone.IsZero() ||
		!cs[0].Marketing.Stopped {
		t.Errorf("live contacts: %+v, want the user's, without a number, marketing stopped", cs)
	}
}
