package porttest

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/heraldhq/herald/domain"
	"github.com/heraldhq/herald/ports"
)

// optOutQueueTests run with the queue cases, one after another (see
// RunStore): they claim.
var optOutQueueTests = []storeTest{
	{"OptOutFailsWaiting", testOptOutFailsWaiting},
	{"OptOutMarketingOnly", testOptOutMarketingOnly},
	{"OptOutReceiving", testOptOutReceiving},
	{"OptOutOtherMode", testOptOutOtherMode},
	{"OptOutRollback", testOptOutRollback},
}

// marketingTests round-trip what marketing opt-outs store.
var marketingTests = []storeTest{
	{"ContactRoundTrip", testMarketingContactRoundTrip},
	{"CampaignCategory", testMarketingCampaignCategory},
	{"FailureHeraldCode", testMarketingFailureHeraldCode},
	{"SetTemplateCategory", testTemplateSetCategory},
	{"OptOutState", testOptOutState},
}

// threadMessage stores a queued message of campaign c to contact ct with
// its outbound thread entry, as send-campaign does.
func (f *fixture) threadMessage(c domain.Campaign, ct domain.Contact) domain.Message {
	f.t.Helper()
	m := f.message(c, ct)
	f.entry(NewOutboundEntry(m, ct))
	return m
}

// campaignOf stores an active campaign whose template has category cat.
func (f *fixture) campaignOf(cat domain.TemplateCategory) domain.Campaign {
	f.t.Helper()
	c := NewCampaign(f.t, f.ws)
	c.Category = cat
	if err := f.s.CreateCampaign(f.ctx, c); err != nil {
		f.t.Fatalf("CreateCampaign: %v", err)
	}
	return cloneCampaign(c)
}

// setContact stores fn's change to a contact and returns the result.
func (f *fixture) setContact(ct domain.Contact, fn func(*domain.Contact)) domain.Contact {
	f.t.Helper()
	got, err := f.s.UpdateContact(f.ctx, f.ws, ct.ID, func(c *domain.Contact) error {
		fn(c)
		return nil
	})
	if err != nil {
		f.t.Fatalf("UpdateContact: %v", err)
	}
	return got
}

func (f *fixture) stored(id domain.MessageID) domain.Message {
	f.t.Helper()
	m, err := f.s.GetMessage(f.ctx, f.ws, id)
	if err != nil {
		f.t.Fatalf("GetMessage: %v", err)
	}
	return m
}

// failedAs is m as FailQueuedMessages leaves it: failed at at with f.
func failedAs(m domain.Message, at time.Time, f *domain.Failure) domain.Message {
	want := cloneMessage(m)
	want.Advance(domain.StatusFailed, at, f)
	return want
}

// An opt-out fails at once the contact's messages that wait to be sent
// (queued, released for a retry, or claimed by a dispatcher whose lease ran
// out), with Herald's code; a send in flight (a live lease), a message
// already sent and another contact's messages are left as they are. The
// failed ones are never claimed again, and the thread shows them failed.
func testOptOutFailsWaiting(t *testing.T, s Store) {
	f := newFixture(t, s)
	camp, ct, other := f.campaign(), f.contact(), f.contact()
	expired, retry, flight, done := f.threadMessage(camp, ct), f.threadMessage(camp, ct), f.threadMessage(camp, ct), f.threadMessage(camp, ct)
	elsewhere := f.threadMessage(camp, other)
	own := ids(expired, retry, flight, done, elsewhere)
	base := Now()
	if got := claimOwn(t, s, ports.Claim{Owner: "a", Now: base, LeaseUntil: base.Add(time.Second), Limit: 1000}, own); len(got) != 5 {
		t.Fatalf("claimed %d of our messages, want 5", len(got))
	}
	retryAt := base.Add(time.Hour)
	for _, r := range []struct {
		m  domain.Message
		at *time.Time
	}{{retry, &retryAt}, {done, nil}, {elsewhere, &retryAt}} {
		if err := s.ReleaseMessage(f.ctx, r.m.ID, "a", 1, r.at); err != nil {
			t.Fatalf("ReleaseMessage: %v", err)
		}
	}
	f.advance(done.ID, domain.StatusSent, base, nil)
	if err := s.RenewLeases(f.ctx, "a", []domain.MessageID{flight.ID}, base.Add(time.Hour)); err != nil {
		t.Fatalf("RenewLeases: %v", err)
	}
	queued := f.threadMessage(camp, ct)
	at := Now().Add(2 * time.Second) // expired's lease has run out, flight's has not
	before := map[domain.MessageID]domain.Message{}
	for _, m := range []domain.Message{expired, retry, flight, done, elsewhere, queued} {
		before[m.ID] = f.stored(m.ID)
	}

	ct = f.setContact(ct, func(c *domain.Contact) { c.SetOptOut(true, at, at) })
	got, err := s.FailQueuedMessages(f.ctx, ct, at)
	if err != nil {
		t.Fatalf("FailQueuedMessages: %v", err)
	}
	want := []domain.MessageID{expired.ID, retry.ID, queued.ID}
	slices.Sort(want)
	mustEqual(t, "messages failed", want, got)
	failure := &domain.Failure{Title: domain.OptedOutTitle, HeraldCode: domain.CodeContactOptedOut}
	for _, id := range want {
		mustEqual(t, "failed message", failedAs(before[id], at, failure), f.stored(id))
	}
	for _, id := range []domain.MessageID{flight.ID, done.ID, elsewhere.ID} {
		mustEqual(t, "message left alone", before[id], f.stored(id))
	}
	entries, _, err := s.ListEntries(f.ctx, f.ws, ct.ID, ct.Mode, ports.Page{Limit: 10})
	if err != nil {
		t.Fatalf("ListEntries: %v", err)
	}
	for _, e := range entries {
		if e.MessageID == queued.ID && e.Status != domain.StatusFailed {
			t.Errorf("the thread shows the failed message as %v", e.Status)
		}
	}

	// The send in flight is its dispatcher's: its lease still holds. Once
	// released for a retry it waits, and the next opt-out fails it.
	if err := s.ReleaseMessage(f.ctx, flight.ID, "a", 1, &retryAt); err != nil {
		t.Fatalf("ReleaseMessage of the send in flight: %v", err)
	}
	got, err = s.FailQueuedMessages(f.ctx, ct, at)
	if err != nil {
		t.Fatalf("FailQueuedMessages again: %v", err)
	}
	mustEqual(t, "messages failed the second time", []domain.MessageID{flight.ID}, got)
	// Of all of them, only the other contact's message is ever sent.
	far := at.Add(365 * 24 * time.Hour)
	var claimed []domain.MessageID
	for _, c := range claimOwn(t, s, claim("b", far), ids(expired, retry, flight, done, elsewhere, queued)) {
		claimed = append(claimed, c.Message.ID)
	}
	mustEqual(t, "messages claimed after the opt-out", []domain.MessageID{elsewhere.ID}, claimed)
}

// A stop of marketing messages fails the contact's waiting messages of
// marketing campaigns, and of campaigns whose category is not known; their
// utility and authentication messages stay queued.
func testOptOutMarketingOnly(t *testing.T, s Store) {
	f := newFixture(t, s)
	ct := f.contact()
	marketing := f.threadMessage(f.campaignOf(domain.CategoryMarketing), ct)
	unknown := f.threadMessage(f.campaignOf(domain.TemplateCategory{}), ct)
	utility := f.threadMessage(f.campaignOf(domain.CategoryUtility), ct)
	auth := f.threadMessage(f.campaignOf(domain.CategoryAuthentication), ct)
	at := Now()
	ct = f.setContact(ct, func(c *domain.Contact) { c.SetMarketingOptOut(true, at, at) })

	got, err := s.FailQueuedMessages(f.ctx, ct, at)
	if err != nil {
		t.Fatalf("FailQueuedMessages: %v", err)
	}
	want := []domain.MessageID{marketing.ID, unknown.ID}
	slices.Sort(want)
	mustEqual(t, "messages failed", want, got)
	failure := &domain.Failure{Title: domain.MarketingStoppedTitle, HeraldCode: domain.CodeContactOptedOut}
	for _, m := range []domain.Message{marketing, unknown} {
		mustEqual(t, "failed marketing message", failedAs(m, at, failure), f.stored(m.ID))
	}
	for _, m := range []domain.Message{utility, auth} {
		mustEqual(t, "message of a category that still goes", m, f.stored(m.ID))
	}
	got2 := claimOwn(t, s, claim("a", at.Add(time.Second)), ids(marketing, unknown, utility, auth))
	var claimed []domain.MessageID
	for _, c := range got2 {
		claimed = append(claimed, c.Message.ID)
	}
	slices.Sort(claimed)
	wantClaimed := []domain.MessageID{utility.ID, auth.ID}
	slices.Sort(wantClaimed)
	mustEqual(t, "messages still claimed", wantClaimed, claimed)
}

// A contact who takes every message has nothing failed.
func testOptOutReceiving(t *testing.T, s Store) {
	f := newFixture(t, s)
	ct := f.contact()
	m := f.threadMessage(f.campaign(), ct)
	got, err := s.FailQueuedMessages(f.ctx, ct, Now())
	if err != nil {
		t.Fatalf("FailQueuedMessages: %v", err)
	}
	if len(got) != 0 {
		t.Fatalf("FailQueuedMessages failed %v for a contact who takes every message", got)
	}
	mustEqual(t, "message", m, f.stored(m.ID))
	mustClaimOne(t, s, claim("a", Now()), m, 1)
}

// Only the contact's own mode's messages fail: a message of the other mode
// pointing at the contact (sent before contacts were kept per mode) is
// left alone.
func testOptOutOtherMode(t *testing.T, s Store) {
	f := newFixture(t, s)
	camp, ct := f.campaign(), f.contact()
	m := NewMessage(t, camp, ct)
	m.Mode = domain.ModeLive // ct is a test contact
	if err := s.CreateMessages(f.ctx, m); err != nil {
		t.Fatalf("CreateMessages: %v", err)
	}
	f.entry(NewOutboundEntry(m, ct))
	at := Now()
	ct = f.setContact(ct, func(c *domain.Contact) { c.SetOptOut(true, at, at) })
	got, err := s.FailQueuedMessages(f.ctx, ct, at)
	if err != nil {
		t.Fatalf("FailQueuedMessages: %v", err)
	}
	if len(got) != 0 {
		t.Fatalf("FailQueuedMessages failed %v of another mode", got)
	}
	mustClaimOne(t, s, claim("a", at), m, 1)
}

// Failed within a transaction that rolls back, the messages stay queued.
func testOptOutRollback(t *testing.T, s Store) {
	f := newFixture(t, s)
	ct := f.contact()
	m := f.threadMessage(f.campaign(), ct)
	at := Now()
	ct = f.setContact(ct, func(c *domain.Contact) { c.SetOptOut(true, at, at) })
	boom := errors.New("boom")
	err := s.WithinTx(f.ctx, func(ctx2 context.Context, r ports.Repos) error {
		got, err := r.Queue.FailQueuedMessages(ctx2, ct, at)
		if err != nil {
			return err
		}
		if len(got) != 1 {
			t.Errorf("FailQueuedMessages in the transaction failed %v, want the message", got)
		}
		return boom
	})
	mustBe(t, "WithinTx", err, boom)
	mustEqual(t, "message after the rollback", m, f.stored(m.ID))
	mustClaimOne(t, s, claim("a", at), m, 1)
}

// A contact's marketing preference is stored with every write and read
// back with every read.
func testMarketingContactRoundTrip(t *testing.T, s Store) {
	f := newFixture(t, s)
	at := Now().Add(-time.Minute)
	c := NewContact(t, f.ws)
	c.SetMarketingOptOut(true, at, Now())
	if err := s.CreateContact(f.ctx, c); err != nil {
		t.Fatalf("CreateContact: %v", err)
	}
	got, err := s.GetContact(f.ctx, f.ws, c.ID)
	if err != nil {
		t.Fatalf("GetContact: %v", err)
	}
	mustEqual(t, "contact who stopped marketing", c, got)

	later := at.Add(time.Second)
	want := cloneContact(c)
	want.SetMarketingOptOut(false, later, later)
	got, err = s.UpdateContact(f.ctx, f.ws, c.ID, func(c *domain.Contact) error {
		c.SetMarketingOptOut(false, later, later)
		return nil
	})
	if err != nil {
		t.Fatalf("UpdateContact: %v", err)
	}
	mustEqual(t, "UpdateContact result", want, got)
	found, err := s.FindContactsByPhone(f.ctx, f.ws, c.Mode, []domain.PhoneNumber{c.Phone})
	if err != nil || len(found) != 1 {
		t.Fatalf("FindContactsByPhone: %v %v", found, err)
	}
	mustEqual(t, "contact who resumed marketing", want, found[0])

	want.SetMarketingOptOut(true, later.Add(time.Second), later.Add(time.Second))
	if err := s.SaveContacts(f.ctx, want); err != nil {
		t.Fatalf("SaveContacts: %v", err)
	}
	page, _, err := s.ListContacts(f.ctx, f.ws, ports.ContactFilter{}, ports.Page{Limit: 10})
	if err != nil || len(page) != 1 {
		t.Fatalf("ListContacts: %v %v", page, err)
	}
	mustEqual(t, "saved contact", want, page[0])
}

// A campaign's template category is stored, changed and read back, and
// ListCampaignsByTemplate carries it.
func testMarketingCampaignCategory(t *testing.T, s Store) {
	f := newFixture(t, s)
	name := NewTemplateName()
	var made []domain.Campaign
	for _, cat := range []domain.TemplateCategory{{}, domain.CategoryMarketing, domain.CategoryUtility, domain.CategoryAuthentication} {
		c := NewCampaign(t, f.ws)
		c.Template.Name, c.Category = name, cat
		if err := s.CreateCampaign(f.ctx, c); err != nil {
			t.Fatalf("CreateCampaign: %v", err)
		}
		got, err := s.GetCampaign(f.ctx, f.ws, c.ID)
		if err != nil {
			t.Fatalf("GetCampaign: %v", err)
		}
		mustEqual(t, "campaign of category "+cat.String(), c, got)
		made = append(made, c)
	}
	newer, err := domain.ParseTemplateCategory("MARKETING_LITE") // one Meta may add
	if err != nil {
		t.Fatal(err)
	}
	want := cloneCampaign(made[2])
	want.SetCategory(newer, Now())
	got, err := s.UpdateCampaign(f.ctx, f.ws, want.ID, func(c *domain.Campaign) error {
		c.SetCategory(newer, want.UpdatedAt)
		return nil
	})
	if err != nil {
		t.Fatalf("UpdateCampaign: %v", err)
	}
	mustEqual(t, "campaign moved to another category", want, got)
	made[2] = want
	list, err := s.ListCampaignsByTemplate(f.ctx, name, "en_US")
	if err != nil {
		t.Fatalf("ListCampaignsByTemplate: %v", err)
	}
	byID := func(a, b domain.Campaign) int { return strings.Compare(string(a.ID), string(b.ID)) }
	slices.SortFunc(made, byID)
	slices.SortFunc(list, byID)
	mustEqual(t, "campaigns by template", made, list)
}

// Herald's own code on a failed message is stored and read back.
func testMarketingFailureHeraldCode(t *testing.T, s Store) {
	f := newFixture(t, s)
	c := f.campaign()
	m := f.message(c, f.contact())
	failure := &domain.Failure{Title: domain.MarketingStoppedTitle, HeraldCode: domain.CodeContactOptedOut}
	want := f.advance(m.ID, domain.StatusFailed, m.CreatedAt.Add(time.Millisecond), failure)
	if want.Failure == nil || want.Failure.HeraldCode != domain.CodeContactOptedOut {
		t.Fatalf("UpdateMessage returned failure %+v", want.Failure)
	}
	mustEqual(t, "message failed by Herald", want, f.stored(m.ID))
	page, _, err := s.ListCampaignMessages(f.ctx, f.ws, c.ID, ports.Page{Limit: 10})
	if err != nil || len(page) != 1 {
		t.Fatalf("ListCampaignMessages: %v %v", page, err)
	}
	mustEqual(t, "listed message failed by Herald", want, page[0])
}

// SetTemplateCategory changes one template's category and nothing else; an
// unknown template, or another account's, is left as it is, without error.
func testTemplateSetCategory(t *testing.T, s Store) {
	mine, theirs := NewAccount(), NewAccount()
	set := templateSet(t, mine)
	replaceTemplates(t, s, mine, set)
	other := NewSyncedTemplate(t, theirs, "order_update", "en_US")
	replaceTemplates(t, s, theirs, []domain.SyncedTemplate{other})

	want := cloneSyncedTemplates(set)
	if err := s.SetTemplateCategory(t.Context(), mine, "order_update", "en-us", domain.CategoryUtility); err != nil {
		t.Fatalf("SetTemplateCategory: %v", err)
	}
	want[1].Category = "UTILITY" // order_update (en_US)
	mustListTemplates(t, s, mine, sortedTemplates(want...))
	mustListTemplates(t, s, theirs, []domain.SyncedTemplate{other})

	if err := s.SetTemplateCategory(t.Context(), mine, "order_update", "fr", domain.CategoryUtility); err != nil {
		t.Fatalf("SetTemplateCategory of an unknown template: %v", err)
	}
	_, err := s.GetTemplate(t.Context(), mine, "order_update", "fr")
	mustBe(t, "GetTemplate of the unknown template after SetTemplateCategory", err, domain.ErrTemplateNotFound)
}

// GetOptOutState reads a contact's two flags as they are stored; an
// unknown contact, or another workspace's, is not found.
func testOptOutState(t *testing.T, s Store) {
	f := newFixture(t, s)
	ct := f.contact()
	at := Now()
	for _, change := range []func(*domain.Contact){
		func(*domain.Contact) {},
		func(c *domain.Contact) { c.SetMarketingOptOut(true, at, at) },
		func(c *domain.Contact) { c.SetOptOut(true, at, at) },
		func(c *domain.Contact) { c.SetMarketingOptOut(false, at.Add(time.Second), at) },
	} {
		ct = f.setContact(ct, change)
		got, err := s.GetOptOutState(f.ctx, f.ws, ct.ID)
		if err != nil {
			t.Fatalf("GetOptOutState: %v", err)
		}
		mustEqual(t, "opt-out state", ct.OptOutState(), got)
	}
	_, err := s.GetOptOutState(f.ctx, f.otherWorkspace(), ct.ID)
	mustBe(t, "GetOptOutState from another workspace", err, domain.ErrContactNotFound)
	_, err = s.GetOptOutState(f.ctx, f.ws, domain.ContactID(NewID(domain.PrefixContact)))
	mustBe(t, "GetOptOutState of an unknown contact", err, domain.ErrContactNotFound)
}
