package porttest

import (
	"context"
	"errors"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/heraldhq/herald/domain"
	"github.com/heraldhq/herald/ports"
)

var messageTests = []storeTest{
	{"RoundTrip", testMessageRoundTrip},
	{"CreateMany", testMessageCreateMany},
	{"CreateDuplicate", testMessageCreateDuplicate},
	{"NotFound", testMessageNotFound},
	{"OtherWorkspace", testMessageOtherWorkspace},
	{"Update", testMessageUpdate},
	{"UpdateError", testMessageUpdateError},
	{"ForwardOnlyRace", testMessageForwardOnlyRace},
	{"Locate", testMessageLocate},
	{"UpdateLocated", testMessageUpdateLocated},
	{"UpdateLocatedNotFound", testMessageUpdateLocatedNotFound},
	{"UpdateLocatedError", testMessageUpdateLocatedError},
	{"UpdateLocatedRace", testMessageUpdateLocatedRace},
	{"LockMessages", testMessageLock},
	{"WriteDeliveries", testMessageWriteDeliveries},
	{"LockAndWriteRace", testMessageLockAndWriteRace},
	{"CountByStatus", testMessageCountByStatus},
	{"CountFailuresByCode", testMessageCountFailuresByCode},
	{"CountStatusTimeline", testMessageCountStatusTimeline},
	{"ParkStatuses", testMessageParkStatuses},
	{"ParkStatusInTx", testMessageParkStatusInTx},
	{"PurgeParkedStatuses", testMessagePurgeParkedStatuses},
	{"ListByCampaign", testMessageListByCampaign},
	{"ListByCampaignOtherWorkspace", testMessageListByCampaignOtherWorkspace},
	{"ListFiltered", testMessageListFiltered},
}

func testMessageRoundTrip(t *testing.T, s Store) {
	f := newFixture(t, s)
	c, ct := f.campaign(), f.contact()
	queued := NewMessage(t, c, ct)

	failed := NewMessage(t, c, ct)
	failed.HeaderFormat = domain.HeaderImage
	failed.MediaHeaderURL = "https://cdn.example.com/banner.png"
	failed.ProviderID = "wamid." + NewID("x")
	failed.WaID = "447700900123"
	failed.Advance(domain.StatusSending, failed.CreatedAt.Add(time.Millisecond), nil)
	failed.Advance(domain.StatusSent, failed.CreatedAt.Add(2*time.Millisecond), nil)
	failed.Advance(domain.StatusFailed, failed.CreatedAt.Add(3*time.Millisecond),
		&domain.Failure{Code: 131026, Title: "Message undeliverable"})
	failed.RecordPricing(&domain.Pricing{Model: "PMP", Type: "regular", Category: "marketing", Billable: true})

	// A message keeps each slot's value; one accepted before slots has none.
	rich := f.campaign()
	rich.Template = NewSlotsTemplate(t)
	prep, err := rich.Prepare([]string{"Asha", "SAVE25", "Asha", "summer", "1767225600000"}, "", domain.MediaPolicy{})
	if err != nil {
		t.Fatalf("Prepare: %v", err)
	}
	slotted := domain.NewMessage(domain.MessageID(NewID(domain.PrefixMessage)), rich, ct,
		domain.Principal{Workspace: f.ws, Key: queued.KeyID, Mode: ct.Mode}, prep, Now())
	old := NewMessage(t, c, ct)
	old.Values = nil

	for _, m := range []domain.Message{queued, failed, slotted, old} {
		if err := s.CreateMessages(f.ctx, m); err != nil {
			t.Fatalf("CreateMessages: %v", err)
		}
		got, err := s.GetMessage(f.ctx, f.ws, m.ID)
		if err != nil {
			t.Fatalf("GetMessage: %v", err)
		}
		mustEqual(t, m.Status.String()+" message", m, got)
	}
}

// CreateMessages stores every message of a call as written, whatever its
// status; a call without messages succeeds.
func testMessageCreateMany(t *testing.T, s Store) {
	f := newFixture(t, s)
	c, ct := f.campaign(), f.contact()
	sent := NewMessage(t, c, ct)
	sent.ProviderID = NewWamid()
	sent.Advance(domain.StatusSending, sent.CreatedAt.Add(time.Millisecond), nil)
	sent.Advance(domain.StatusSent, sent.CreatedAt.Add(2*time.Millisecond), nil)
	ms := []domain.Message{NewMessage(t, c, ct), sent, NewMessage(t, c, f.contact())}
	var call []domain.Message
	for _, m := range ms {
		call = append(call, cloneMessage(m))
	}
	if err := s.CreateMessages(f.ctx, call...); err != nil {
		t.Fatalf("CreateMessages: %v", err)
	}
	for _, m := range ms {
		got, err := s.GetMessage(f.ctx, f.ws, m.ID)
		if err != nil {
			t.Fatalf("GetMessage: %v", err)
		}
		mustEqual(t, "message created with others", m, got)
	}
	got, err := s.LocateMessage(f.ctx, "", sent.ProviderID)
	if err != nil {
		t.Fatalf("LocateMessage: %v", err)
	}
	mustEqual(t, "message located by its wamid", sent, got)
	counts, err := s.CountMessagesByStatus(f.ctx, f.ws, c.ID, domain.KeyMode{})
	if err != nil {
		t.Fatalf("CountMessagesByStatus: %v", err)
	}
	mustEqual(t, "message counts", map[domain.MessageStatus]int{domain.StatusQueued: 2, domain.StatusSent: 1}, counts)
	if err := s.CreateMessages(f.ctx); err != nil {
		t.Fatalf("CreateMessages of no messages: %v", err)
	}
}

// A message id stored already, or given twice in the call, makes
// CreateMessages a conflict that stores none of the call's messages and
// leaves the stored one as it was, however many messages the call holds.
func testMessageCreateDuplicate(t *testing.T, s Store) {
	f := newFixture(t, s)
	c, ct := f.campaign(), f.contact()
	stored := f.message(c, ct)
	again := cloneMessage(stored)
	again.Advance(domain.StatusFailed, again.CreatedAt.Add(time.Millisecond), &domain.Failure{Code: 131026})
	twice := NewMessage(t, c, ct)
	// More messages than a store may write in one statement, the stored id
	// last.
	many := make([]domain.Message, 0, 151)
	for range 150 {
		many = append(many, NewMessage(t, c, ct))
	}
	many = append(many, cloneMessage(again))
	for _, tc := range []struct {
		name string
		call []domain.Message
	}{
		{"an id stored already", []domain.Message{NewMessage(t, c, ct), again, NewMessage(t, c, ct)}},
		{"an id twice in the call", []domain.Message{twice, NewMessage(t, c, ct), cloneMessage(twice)}},
		{"an id stored already after 150 new ones", many},
	} {
		mustBe(t, "CreateMessages with "+tc.name, s.CreateMessages(f.ctx, tc.call...), domain.ErrConflict)
		for _, m := range tc.call {
			if m.ID == stored.ID {
				continue
			}
			_, err := s.GetMessage(f.ctx, f.ws, m.ID)
			mustBe(t, "GetMessage of a message of a refused call", err, domain.ErrMessageNotFound)
		}
		got, err := s.GetMessage(f.ctx, f.ws, stored.ID)
		if err != nil {
			t.Fatalf("GetMessage: %v", err)
		}
		mustEqual(t, "stored message after a call with "+tc.name, stored, got)
		counts, err := s.CountMessagesByStatus(f.ctx, f.ws, c.ID, domain.KeyMode{})
		if err != nil {
			t.Fatalf("CountMessagesByStatus: %v", err)
		}
		mustEqual(t, "message counts after a call with "+tc.name, map[domain.MessageStatus]int{domain.StatusQueued: 1}, counts)
	}
}

func testMessageNotFound(t *testing.T, s Store) {
	f := newFixture(t, s)
	id := domain.MessageID(NewID(domain.PrefixMessage))
	_, err := s.GetMessage(f.ctx, f.ws, id)
	mustBe(t, "GetMessage of an unknown id", err, domain.ErrMessageNotFound)
	called := false
	_, err = s.UpdateMessage(f.ctx, f.ws, id, func(*domain.Message) error {
		called = true
		return nil
	})
	mustBe(t, "UpdateMessage of an unknown id", err, domain.ErrMessageNotFound)
	if called {
		t.Fatal("UpdateMessage called fn for an unknown message")
	}
	_, err = s.LocateMessage(f.ctx, id, "")
	mustBe(t, "LocateMessage of an unknown id", err, domain.ErrMessageNotFound)
	_, err = s.LocateMessage(f.ctx, "", "wamid."+NewID("x"))
	mustBe(t, "LocateMessage of an unknown provider id", err, domain.ErrMessageNotFound)
	_, err = s.LocateMessage(f.ctx, "", "")
	mustBe(t, "LocateMessage of nothing", err, domain.ErrMessageNotFound)
}

func testMessageOtherWorkspace(t *testing.T, s Store) {
	f := newFixture(t, s)
	m := f.message(f.campaign(), f.contact())
	other := f.otherWorkspace()
	_, err := s.GetMessage(f.ctx, other, m.ID)
	mustBe(t, "GetMessage from another workspace", err, domain.ErrMessageNotFound)
	called := false
	_, err = s.UpdateMessage(f.ctx, other, m.ID, func(m *domain.Message) error {
		called = true
		m.Advance(domain.StatusSent, Now(), nil)
		return nil
	})
	mustBe(t, "UpdateMessage from another workspace", err, domain.ErrMessageNotFound)
	if called {
		t.Fatal("UpdateMessage called fn for another workspace's message")
	}
	got, err := s.GetMessage(f.ctx, f.ws, m.ID)
	if err != nil {
		t.Fatalf("GetMessage: %v", err)
	}
	mustEqual(t, "message after a foreign update", m, got)
}

func testMessageUpdate(t *testing.T, s Store) {
	f := newFixture(t, s)
	m := f.message(f.campaign(), f.contact())
	at := m.CreatedAt.Add(time.Second)
	apply := func(m *domain.Message) error {
		m.ProviderID = "wamid.ABC"
		m.WaID = "447700900123"
		m.Advance(domain.StatusSending, at, nil)
		m.Advance(domain.StatusSent, at.Add(time.Millisecond), nil)
		m.Advance(domain.StatusRead, at.Add(3*time.Millisecond), nil)
		m.Advance(domain.StatusDelivered, at.Add(2*time.Millisecond), nil) // late: history only
		m.RecordPricing(&domain.Pricing{Model: "PMP", Type: "free_customer_service", Category: "utility"})
		return nil
	}
	want := cloneMessage(m)
	_ = apply(&want)
	got, err := s.UpdateMessage(f.ctx, f.ws, m.ID, apply)
	if err != nil {
		t.Fatalf("UpdateMessage: %v", err)
	}
	mustEqual(t, "UpdateMessage result", want, got)
	read, err := s.GetMessage(f.ctx, f.ws, m.ID)
	if err != nil {
		t.Fatalf("GetMessage: %v", err)
	}
	mustEqual(t, "updated message read back", want, read)
	if read.Status != domain.StatusRead {
		t.Fatalf("status = %v, want read", read.Status)
	}
}

func testMessageUpdateError(t *testing.T, s Store) {
	f := newFixture(t, s)
	m := f.message(f.campaign(), f.contact())
	boom := errors.New("boom")
	_, err := s.UpdateMessage(f.ctx, f.ws, m.ID, func(m *domain.Message) error {
		m.Variables[0] = "changed"
		m.History[0].At = m.History[0].At.Add(time.Hour)
		m.ProviderID = "wamid.changed"
		m.Advance(domain.StatusFailed, Now(), &domain.Failure{Code: 1, Title: "changed"})
		return boom
	})
	mustBe(t, "UpdateMessage with a failing fn", err, boom)
	got, err := s.GetMessage(f.ctx, f.ws, m.ID)
	if err != nil {
		t.Fatalf("GetMessage: %v", err)
	}
	mustEqual(t, "message after a failed update", m, got)
	_, err = s.LocateMessage(f.ctx, "", "wamid.changed")
	mustBe(t, "LocateMessage by a provider id that was never stored", err, domain.ErrMessageNotFound)
}

// testMessageForwardOnlyRace has 20 goroutines advance one message at once.
// Every update must land (read-modify-write is atomic), the history must
// hold each status once, and the status must be one that forward-only rules
// allow for the statuses applied.
func testMessageForwardOnlyRace(t *testing.T, s Store) {
	f := newFixture(t, s)
	m := f.message(f.campaign(), f.contact())
	choices := []domain.MessageStatus{domain.StatusSent, domain.StatusDelivered, domain.StatusRead, domain.StatusFailed}
	const n = 20
	statuses := make([]domain.MessageStatus, n)
	for i := range statuses {
		statuses[i] = choices[rand.IntN(len(choices))]
	}
	results := make([]domain.Message, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			at := m.CreatedAt.Add(time.Duration(i+1) * time.Millisecond)
			results[i], errs[i] = f.s.UpdateMessage(f.ctx, f.ws, m.ID, func(m *domain.Message) error {
				var failure *domain.Failure
				if statuses[i] == domain.StatusFailed {
					failure = &domain.Failure{Code: 131026, Title: "Message undeliverable"}
				}
				m.Advance(statuses[i], at, failure)
				return nil
			})
		})
	}
	wg.Wait()

	applied := map[domain.MessageStatus]bool{domain.StatusQueued: true}
	for i := range n {
		if errs[i] != nil {
			t.Fatalf("UpdateMessage: %v", errs[i])
		}
		if !hasStatus(results[i].History, statuses[i]) {
			t.Fatalf("update %d (%v) returned a history without its own status: %v", i, statuses[i], results[i].History)
		}
		applied[statuses[i]] = true
	}
	got, err := s.GetMessage(f.ctx, f.ws, m.ID)
	if err != nil {
		t.Fatalf("GetMessage: %v", err)
	}
	seen := map[domain.MessageStatus]bool{}
	for _, h := range got.History {
		if seen[h.Status] {
			t.Fatalf("status %v appears twice in the history %v", h.Status, got.History)
		}
		seen[h.Status] = true
	}
	mustEqual(t, "statuses in the history (lost update?)", applied, seen)

	var legal []domain.MessageStatus
	switch {
	case applied[domain.StatusRead] || applied[domain.StatusFailed]:
		for _, st := range []domain.MessageStatus{domain.StatusRead, domain.StatusFailed} {
			if applied[st] {
				legal = append(legal, st)
			}
		}
	case applied[domain.StatusDelivered]:
		legal = []domain.MessageStatus{domain.StatusDelivered}
	default:
		legal = []domain.MessageStatus{domain.StatusSent}
	}
	ok := false
	for _, st := range legal {
		ok = ok || got.Status == st
	}
	if !ok {
		t.Fatalf("status = %v after applying %v; want one of %v", got.Status, statuses, legal)
	}
	if (got.Status == domain.StatusFailed) != (got.Failure != nil) {
		t.Fatalf("status %v with failure %+v", got.Status, got.Failure)
	}
}

func hasStatus(h []domain.StatusChange, s domain.MessageStatus) bool {
	for _, c := range h {
		if c.Status == s {
			return true
		}
	}
	return false
}

// LocateMessage looks across workspaces, by id or by provider id.
func testMessageLocate(t *testing.T, s Store) {
	f := newFixture(t, s)
	m := f.message(f.campaign(), f.contact())
	providerID := "wamid." + NewID("x")
	m, err := s.UpdateMessage(f.ctx, f.ws, m.ID, func(m *domain.Message) error {
		m.ProviderID = providerID
		m.WaID = "919812345678"
		m.Advance(domain.StatusSent, m.CreatedAt.Add(time.Millisecond), nil)
		return nil
	})
	if err != nil {
		t.Fatalf("UpdateMessage: %v", err)
	}
	got, err := s.LocateMessage(f.ctx, m.ID, "")
	if err != nil {
		t.Fatalf("LocateMessage by id: %v", err)
	}
	mustEqual(t, "message located by id", m, got)
	got, err = s.LocateMessage(f.ctx, "", providerID)
	if err != nil {
		t.Fatalf("LocateMessage by provider id: %v", err)
	}
	mustEqual(t, "message located by provider id", m, got)
	got, err = s.LocateMessage(f.ctx, m.ID, providerID)
	if err != nil {
		t.Fatalf("LocateMessage by both: %v", err)
	}
	mustEqual(t, "message located by both", m, got)
}

// testMessageListByCampaign pins a campaign's message pagination: newest
// first (identifiers descending), pages of exactly Limit messages but the
// last, every message once and complete, as GetMessage returns it (status,
// history, failure, pricing), an empty cursor exactly on the last page, and
// a default page size when the page asks for none. Other campaigns'
// messages, to the same contacts, are not listed.
func testMessageListByCampaign(t *testing.T, s Store) {
	f := newFixture(t, s)
	c, ct := f.campaign(), f.contact()
	byID := map[domain.MessageID]domain.Message{}
	var ids []domain.MessageID
	other := newFixture(t, s)
	for i := range 7 {
		if i == 3 {
			// Between the pages: another campaign's message of the
			// workspace, to the same contact, and another workspace's.
			f.message(f.campaign(), ct)
			other.message(other.campaign(), other.contact())
		}
		m := f.message(c, ct)
		at := m.CreatedAt.Add(time.Millisecond)
		switch i % 3 {
		case 1:
			f.advance(m.ID, domain.StatusSending, at, nil)
			m = f.advance(m.ID, domain.StatusSent, at.Add(time.Millisecond), nil)
		case 2:
			var err error
			m, err = s.UpdateMessage(f.ctx, f.ws, m.ID, func(m *domain.Message) error {
				m.ProviderID = NewWamid()
				m.Advance(domain.StatusFailed, at, &domain.Failure{Code: 131026, Title: "Message undeliverable"})
				m.RecordPricing(&domain.Pricing{Model: "PMP", Type: "regular", Category: "marketing", Billable: true})
				return nil
			})
			if err != nil {
				t.Fatalf("UpdateMessage: %v", err)
			}
		}
		byID[m.ID] = m
		ids = append(ids, m.ID)
	}
	var want []domain.Message
	for _, id := range sortedDesc(ids) {
		m, err := s.GetMessage(f.ctx, f.ws, id)
		if err != nil {
			t.Fatalf("GetMessage: %v", err)
		}
		mustEqual(t, "message read back", byID[id], m)
		want = append(want, m)
	}
	for _, limit := range []int{1, 2, 3, 7, 10} {
		got := collectPages(t, len(ids), limit, func(p ports.Page) ([]domain.Message, string, error) {
			return s.ListCampaignMessages(f.ctx, f.ws, c.ID, p)
		})
		mustEqual(t, "campaign messages listed in pages", want, got)
	}
	got, cursor, err := s.ListCampaignMessages(f.ctx, f.ws, c.ID, ports.Page{})
	if err != nil || cursor != "" {
		t.Fatalf("ListCampaignMessages with no limit: cursor %q, %v; want one page", cursor, err)
	}
	mustEqual(t, "campaign messages listed with the default limit", want, got)
}

// A campaign of another workspace, or an unknown one, lists no messages:
// the caller checks the campaign first when it needs a 404.
func testMessageListByCampaignOtherWorkspace(t *testing.T, s Store) {
	f := newFixture(t, s)
	c := f.campaign()
	m := f.message(c, f.contact())
	other := f.otherWorkspace()
	for _, tc := range []struct {
		what   string
		ws     domain.WorkspaceID
		id     domain.CampaignID
		cursor string
	}{
		{"another workspace", other, c.ID, ""},
		{"another workspace, after a cursor", other, c.ID, string(m.ID) + "~"},
		{"an unknown campaign", f.ws, domain.CampaignID(NewID(domain.PrefixCampaign)), ""},
	} {
		got, next, err := s.ListCampaignMessages(f.ctx, tc.ws, tc.id, ports.Page{Cursor: tc.cursor, Limit: 10})
		if err != nil {
			t.Fatalf("ListCampaignMessages of %s: %v", tc.what, err)
		}
		if len(got) != 0 || next != "" {
			t.Fatalf("ListCampaignMessages of %s = %d messages, cursor %q; want none", tc.what, len(got), next)
		}
	}
}

// ListMessages lists the workspace's messages newest first, each filter
// keeping only what matches it (together, all of them), in pages that
// neither skip nor repeat a message; another workspace's are never listed.
func testMessageListFiltered(t *testing.T, s Store) {
	f := newFixture(t, s)
	c1, c2 := f.campaign(), f.campaign()
	test := f.contact()
	live := NewContact(t, f.ws)
	live.Mode = domain.ModeLive
	if err := s.CreateContact(f.ctx, live); err != nil {
		t.Fatalf("CreateContact: %v", err)
	}
	var all []domain.Message
	for i := range 12 {
		c, ct := c1, test
		if i%3 == 0 {
			c = c2
		}
		if i%4 == 0 {
			ct = live
		}
		m := f.message(c, ct)
		if i%2 == 1 {
			m = f.advance(m.ID, domain.StatusSent, m.CreatedAt.Add(time.Millisecond), nil)
		}
		all = append(all, m)
	}
	other := newFixture(t, s)
	other.message(other.campaign(), other.contact())

	since, until := all[3].CreatedAt, all[9].CreatedAt
	for _, tc := range []struct {
		what string
		f    ports.MessageFilter
		keep func(domain.Message) bool
	}{
		{"no filter", ports.MessageFilter{}, func(domain.Message) bool { return true }},
		{"test mode", ports.MessageFilter{Mode: domain.ModeTest}, func(m domain.Message) bool { return m.Mode == domain.ModeTest }},
		{"live mode", ports.MessageFilter{Mode: domain.ModeLive}, func(m domain.Message) bool { return m.Mode == domain.ModeLive }},
		{"campaign", ports.MessageFilter{Campaign: c2.ID}, func(m domain.Message) bool { return m.CampaignID == c2.ID }},
		{"status", ports.MessageFilter{Status: domain.StatusSent}, func(m domain.Message) bool { return m.Status == domain.StatusSent }},
		{"phone number", ports.MessageFilter{Phone: live.Phone}, func(m domain.Message) bool { return m.Phone == live.Phone }},
		{"since and until", ports.MessageFilter{Since: since, Until: until}, func(m domain.Message) bool {
			return !m.CreatedAt.Before(since) && m.CreatedAt.Before(until)
		}},
		{"every filter", ports.MessageFilter{Mode: domain.ModeTest, Campaign: c1.ID, Status: domain.StatusSent,
			Phone: test.Phone, Since: since}, func(m domain.Message) bool {
			return m.Mode == domain.ModeTest && m.CampaignID == c1.ID && m.Status == domain.StatusSent &&
				m.Phone == test.Phone && !m.CreatedAt.Before(since)
		}},
		{"an unknown campaign", ports.MessageFilter{Campaign: domain.CampaignID(NewID(domain.PrefixCampaign))},
			func(domain.Message) bool { return false }},
	} {
		var want []domain.Message
		for i := len(all) - 1; i >= 0; i-- {
			if tc.keep(all[i]) {
				want = append(want, all[i])
			}
		}
		slices.SortFunc(want, func(a, b domain.Message) int { return strings.Compare(string(b.ID), string(a.ID)) })
		for _, limit := range []int{1, 5, 100} {
			got := collectPages(t, len(want), limit, func(p ports.Page) ([]domain.Message, string, error) {
				return s.ListMessages(f.ctx, f.ws, tc.f, p)
			})
			if len(want) == 0 {
				want = nil
			}
			if len(got) == 0 {
				got = nil
			}
			mustEqual(t, tc.what+" (limit "+strconv.Itoa(limit)+")", want, got)
		}
	}
	got, next, err := s.ListMessages(f.ctx, other.otherWorkspace(), ports.MessageFilter{}, ports.Page{Limit: 10})
	if err != nil || len(got) != 0 || next != "" {
		t.Fatalf("ListMessages of a fresh workspace = %d messages, cursor %q, %v; want none", len(got), next, err)
	}
}

// UpdateLocatedMessage finds the message as LocateMessage does, by id or
// by provider id, and stores what fn makes of its delivery (status,
// history, wamid, wa_id, failure, pricing, time of change); the rest of
// the message stays as it was, whatever fn did to it.
func testMessageUpdateLocated(t *testing.T, s Store) {
	f := newFixture(t, s)
	m := f.message(f.campaign(), f.contact())
	providerID := "wamid." + NewID("x")
	at := m.CreatedAt.Add(time.Second)
	sent := func(m *domain.Message) error {
		m.ProviderID = providerID
		m.Advance(domain.StatusSent, at, nil)
		m.RecordPricing(&domain.Pricing{Model: "PMP", Type: "regular", Category: "marketing", Billable: true})
		return nil
	}
	want := cloneMessage(m)
	_ = sent(&want)
	other := f.otherWorkspace()
	got, err := s.UpdateLocatedMessage(f.ctx, m.ID, "", func(m *domain.Message) error {
		_ = sent(m)
		m.ID, m.Workspace = "msg_elsewhere", other
		m.CampaignID, m.ContactID = "cmp_elsewhere", "con_elsewhere"
		m.Variables = append(m.Variables, "not a delivery")
		m.RenderedBody, m.TemplateName, m.KeyID = "changed body", "changed_template", "key_elsewhere"
		return nil
	})
	if err != nil {
		t.Fatalf("UpdateLocatedMessage by id: %v", err)
	}
	mustEqual(t, "UpdateLocatedMessage result", want, got)
	read, err := s.GetMessage(f.ctx, f.ws, m.ID)
	if err != nil {
		t.Fatalf("GetMessage: %v", err)
	}
	mustEqual(t, "message updated by id, read back", want, read)

	readLate := func(m *domain.Message) error {
		m.Advance(domain.StatusRead, at.Add(2*time.Millisecond), nil)
		m.Advance(domain.StatusDelivered, at.Add(time.Millisecond), nil) // late: history only
		return nil
	}
	_ = readLate(&want)
	got, err = s.UpdateLocatedMessage(f.ctx, "", providerID, readLate)
	if err != nil {
		t.Fatalf("UpdateLocatedMessage by provider id: %v", err)
	}
	mustEqual(t, "UpdateLocatedMessage by provider id", want, got)
	if got, err = s.LocateMessage(f.ctx, "", providerID); err != nil {
		t.Fatalf("LocateMessage: %v", err)
	}
	mustEqual(t, "message updated by provider id, located", want, got)
	if got.Status != domain.StatusRead {
		t.Fatalf("status = %v, want read", got.Status)
	}

	// A failure and Meta's wa_id are the delivery's too.
	m2 := f.message(f.campaign(), f.contact())
	want2 := cloneMessage(m2)
	failed := func(m *domain.Message) error {
		m.WaID = "15550001111"
		m.Advance(domain.StatusFailed, at, &domain.Failure{Code: 131026, Title: "Message undeliverable"})
		return nil
	}
	_ = failed(&want2)
	if _, err := s.UpdateLocatedMessage(f.ctx, m2.ID, "", failed); err != nil {
		t.Fatalf("UpdateLocatedMessage to failed: %v", err)
	}
	read2, err := s.GetMessage(f.ctx, f.ws, m2.ID)
	if err != nil {
		t.Fatalf("GetMessage: %v", err)
	}
	mustEqual(t, "failed message, read back", want2, read2)
}

func testMessageUpdateLocatedNotFound(t *testing.T, s Store) {
	f := newFixture(t, s)
	m := f.message(f.campaign(), f.contact())
	called := false
	fn := func(*domain.Message) error {
		called = true
		return nil
	}
	_, err := s.UpdateLocatedMessage(f.ctx, domain.MessageID(NewID(domain.PrefixMessage)), "", fn)
	mustBe(t, "UpdateLocatedMessage of an unknown id", err, domain.ErrMessageNotFound)
	_, err = s.UpdateLocatedMessage(f.ctx, "", "wamid."+NewID("x"), fn)
	mustBe(t, "UpdateLocatedMessage of an unknown provider id", err, domain.ErrMessageNotFound)
	_, err = s.UpdateLocatedMessage(f.ctx, "", "", fn)
	mustBe(t, "UpdateLocatedMessage of nothing", err, domain.ErrMessageNotFound)
	if called {
		t.Fatal("UpdateLocatedMessage called fn for an unknown message")
	}
	got, err := s.GetMessage(f.ctx, f.ws, m.ID)
	if err != nil {
		t.Fatalf("GetMessage: %v", err)
	}
	mustEqual(t, "another message after updates of unknown ones", m, got)
}

func testMessageUpdateLocatedError(t *testing.T, s Store) {
	f := newFixture(t, s)
	m := f.message(f.campaign(), f.contact())
	boom := errors.New("boom")
	_, err := s.UpdateLocatedMessage(f.ctx, m.ID, "", func(m *domain.Message) error {
		m.History[0].At = m.History[0].At.Add(time.Hour)
		m.ProviderID = "wamid.changed-located"
		m.Advance(domain.StatusFailed, Now(), &domain.Failure{Code: 1, Title: "changed"})
		return boom
	})
	mustBe(t, "UpdateLocatedMessage with a failing fn", err, boom)
	got, err := s.GetMessage(f.ctx, f.ws, m.ID)
	if err != nil {
		t.Fatalf("GetMessage: %v", err)
	}
	mustEqual(t, "message after a failed update", m, got)
	_, err = s.LocateMessage(f.ctx, "", "wamid.changed-located")
	mustBe(t, "LocateMessage by a provider id that was never stored", err, domain.ErrMessageNotFound)
}

// testMessageUpdateLocatedRace has 20 goroutines advance one message at
// once, located by its provider id: every update lands (the read locks
// what the write changes), and the history holds each status once.
func testMessageUpdateLocatedRace(t *testing.T, s Store) {
	f := newFixture(t, s)
	m := f.message(f.campaign(), f.contact())
	providerID := "wamid." + NewID("x")
	if _, err := s.UpdateMessage(f.ctx, f.ws, m.ID, func(m *domain.Message) error {
		m.ProviderID = providerID
		return nil
	}); err != nil {
		t.Fatalf("UpdateMessage: %v", err)
	}
	choices := []domain.MessageStatus{domain.StatusSent, domain.StatusDelivered, domain.StatusRead}
	const n = 20
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			at := m.CreatedAt.Add(time.Duration(i+1) * time.Millisecond)
			_, errs[i] = f.s.UpdateLocatedMessage(f.ctx, "", providerID, func(m *domain.Message) error {
				m.Advance(choices[i%len(choices)], at, nil)
				return nil
			})
		})
	}
	wg.Wait()
	for i := range n {
		if errs[i] != nil {
			t.Fatalf("UpdateLocatedMessage: %v", errs[i])
		}
	}
	got, err := s.GetMessage(f.ctx, f.ws, m.ID)
	if err != nil {
		t.Fatalf("GetMessage: %v", err)
	}
	if got.Status != domain.StatusRead {
		t.Fatalf("status = %v, want read", got.Status)
	}
	for _, st := range choices {
		seen := 0
		for _, h := range got.History {
			if h.Status == st {
				seen++
			}
		}
		if seen != 1 {
			t.Fatalf("history holds %v %d times, want once: %v", st, seen, got.History)
		}
	}
}

// LockMessages reads the messages with the ids or provider ids given, of
// any workspace, each once, in id order, and leaves out what no message
// has.
func testMessageLock(t *testing.T, s Store) {
	f := newFixture(t, s)
	c, ct := f.campaign(), f.contact()
	var ms []domain.Message
	for range 4 {
		ms = append(ms, f.message(c, ct))
	}
	o := newFixture(t, s)
	elsewhere := o.message(o.campaign(), o.contact())
	wamid := func(m domain.Message) string { return "wamid.lock-" + string(m.ID) }
	for _, m := range []domain.Message{ms[1], ms[2], elsewhere} {
		if _, err := s.UpdateLocatedMessage(f.ctx, m.ID, "", func(x *domain.Message) error {
			x.ProviderID = wamid(m)
			return nil
		}); err != nil {
			t.Fatalf("UpdateLocatedMessage: %v", err)
		}
	}
	got, err := s.LockMessages(f.ctx,
		[]domain.MessageID{ms[3].ID, ms[1].ID, domain.MessageID(NewID(domain.PrefixMessage))},
		[]string{wamid(elsewhere), wamid(ms[1]), "wamid.nobody"})
	if err != nil {
		t.Fatalf("LockMessages: %v", err)
	}
	want := []domain.Message{ms[1], ms[3], elsewhere}
	want[0].ProviderID, want[2].ProviderID = wamid(ms[1]), wamid(elsewhere)
	slices.SortFunc(want, func(a, b domain.Message) int { return strings.Compare(string(a.ID), string(b.ID)) })
	mustEqual(t, "LockMessages", want, got)

	none, err := s.LockMessages(f.ctx, nil, []string{"wamid.nobody"})
	if err != nil || len(none) != 0 {
		t.Fatalf("LockMessages of nobody = %v, %v; want none", none, err)
	}
	none, err = s.LockMessages(f.ctx, nil, nil)
	if err != nil || len(none) != 0 {
		t.Fatalf("LockMessages of nothing = %v, %v; want none", none, err)
	}
}

// WriteMessageDeliveries stores each message's delivery and nothing else
// of it; a message that is not stored fails the call, and none is
// written.
func testMessageWriteDeliveries(t *testing.T, s Store) {
	f := newFixture(t, s)
	c, ct := f.campaign(), f.contact()
	a, b := f.message(c, ct), f.message(c, ct)
	at := a.CreatedAt.Add(time.Second)
	wantA, wantB := cloneMessage(a), cloneMessage(b)
	wantA.ProviderID, wantA.WaID = "wamid.write-a", "15550001111"
	wantA.Advance(domain.StatusSent, at, nil)
	wantA.RecordPricing(&domain.Pricing{Model: "PMP", Type: "regular", Category: "utility", Billable: true})
	wantA.Advance(domain.StatusRead, at.Add(time.Millisecond), nil)
	wantB.Advance(domain.StatusFailed, at, &domain.Failure{Code: 131026, Title: "Message undeliverable"})
	writeA := cloneMessage(wantA)
	writeA.RenderedBody, writeA.Variables, writeA.TemplateName = "not stored", []string{"not", "stored"}, "not_stored"
	if err := s.WriteMessageDeliveries(f.ctx, []domain.Message{writeA, cloneMessage(wantB)}); err != nil {
		t.Fatalf("WriteMessageDeliveries: %v", err)
	}
	for _, want := range []domain.Message{wantA, wantB} {
		got, err := s.GetMessage(f.ctx, f.ws, want.ID)
		if err != nil {
			t.Fatalf("GetMessage: %v", err)
		}
		mustEqual(t, "message after WriteMessageDeliveries", want, got)
	}
	located, err := s.LocateMessage(f.ctx, "", "wamid.write-a")
	if err != nil || located.ID != a.ID {
		t.Fatalf("LocateMessage by the written wamid = %s, %v; want %s", located.ID, err, a.ID)
	}

	again := cloneMessage(wantA)
	again.Advance(domain.StatusFailed, at.Add(time.Hour), &domain.Failure{Code: 1, Title: "not stored"})
	missing := cloneMessage(wantB)
	missing.ID = domain.MessageID(NewID(domain.PrefixMessage))
	err = s.WriteMessageDeliveries(f.ctx, []domain.Message{again, missing})
	mustBe(t, "WriteMessageDeliveries with a message not stored", err, domain.ErrMessageNotFound)
	got, err := s.GetMessage(f.ctx, f.ws, a.ID)
	if err != nil {
		t.Fatalf("GetMessage: %v", err)
	}
	mustEqual(t, "message after a failed WriteMessageDeliveries", wantA, got)
	if err := s.WriteMessageDeliveries(f.ctx, nil); err != nil {
		t.Fatalf("WriteMessageDeliveries of none: %v", err)
	}
}

// Transactions that read messages with LockMessages and write them with
// WriteMessageDeliveries take turns: none loses another's write.
func testMessageLockAndWriteRace(t *testing.T, s Store) {
	f := newFixture(t, s)
	c, ct := f.campaign(), f.contact()
	a, b := f.message(c, ct), f.message(c, ct)
	const n = 12
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			errs[i] = s.WithinTx(f.ctx, func(ctx context.Context, r ports.Repos) error {
				ms, err := r.Messages.LockMessages(ctx, []domain.MessageID{b.ID, a.ID}, nil)
				if err != nil {
					return err
				}
				for j := range ms {
					// Each transaction adds one entry to each history.
					ms[j].History = append(ms[j].History, domain.StatusChange{Status: domain.StatusSent,
						At: ms[j].CreatedAt.Add(time.Duration(i+1) * time.Millisecond)})
				}
				return r.Messages.WriteMessageDeliveries(ctx, ms)
			})
		})
	}
	wg.Wait()
	for i := range n {
		if errs[i] != nil {
			t.Fatalf("transaction %d: %v", i, errs[i])
		}
	}
	for _, m := range []domain.Message{a, b} {
		got, err := s.GetMessage(f.ctx, f.ws, m.ID)
		if err != nil {
			t.Fatalf("GetMessage: %v", err)
		}
		if len(got.History) != 1+n {
			t.Errorf("message %s has %d history entries, want %d: a write was lost", m.ID, len(got.History), 1+n)
		}
	}
}
