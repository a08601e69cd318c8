package porttest

import (
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/heraldhq/herald/domain"
	"github.com/heraldhq/herald/ports"
)

var sessionMessageTests = []storeTest{
	{"RoundTrip", testSessionMessageRoundTrip},
	{"LastInbound", testSessionMessageLastInbound},
	{"InboundEntryByWamid", testInboundEntryByWamid},
}

// An inbound entry is found by its wamid in its workspace and mode only;
// an outbound entry, another mode's or another workspace's is not found.
func testInboundEntryByWamid(t *testing.T, s Store) {
	f := newFixture(t, s)
	ct := f.contact()
	in := NewInboundEntry(ct, "Can I change the address?") // live, as Meta's are
	if err := s.AppendEntries(f.ctx, in); err != nil {
		t.Fatalf("AppendEntries: %v", err)
	}
	got, err := s.GetInboundEntry(f.ctx, f.ws, domain.ModeLive, in.ProviderID)
	if err != nil {
		t.Fatalf("GetInboundEntry: %v", err)
	}
	mustEqual(t, "inbound entry", in, got)
	for name, find := range map[string]func() error{
		"another mode": func() error { _, err := s.GetInboundEntry(f.ctx, f.ws, domain.ModeTest, in.ProviderID); return err },
		"another workspace": func() error {
			_, err := s.GetInboundEntry(f.ctx, f.otherWorkspace(), domain.ModeLive, in.ProviderID)
			return err
		},
		"an unknown wamid": func() error { _, err := s.GetInboundEntry(f.ctx, f.ws, domain.ModeLive, NewWamid()); return err },
		"no wamid":         func() error { _, err := s.GetInboundEntry(f.ctx, f.ws, domain.ModeLive, ""); return err },
	} {
		if err := find(); !errors.Is(err, domain.ErrMessageNotFound) {
			t.Errorf("%s: %v, want message_not_found", name, err)
		}
	}
}

// NewSessionMessage returns a queued session message to ct, of ct's mode,
// not yet stored: an interactive list quoting a wamid.
func NewSessionMessage(t testing.TB, ct domain.Contact) domain.Message {
	t.Helper()
	content := domain.SessionContent{Type: domain.KindInteractive, Interactive: &domain.Interactive{
		Type: domain.InteractiveList, Body: "Pick a speed", Footer: "Acme",
		Header: &domain.InteractiveHeader{Type: "text", Text: "Delivery"},
		List: &domain.ListAction{Button: "Options", Sections: []domain.ListSection{
			{Title: "Fast", Rows: []domain.ListRow{{ID: "x", Title: "Express", Description: "Next day"}}}}}}}
	if err := content.Check(domain.MediaPolicy{}); err != nil {
		t.Fatal(err)
	}
	p := domain.Principal{Workspace: ct.Workspace, Key: domain.KeyID(NewID(domain.PrefixKey)), Mode: ct.Mode}
	return domain.NewSessionMessage(domain.MessageID(NewID(domain.PrefixMessage)), ct, p, ct.Phone, content, "wamid.Q"+NewID("q"), Now())
}

// A session message (no campaign, its kind, content and quoted wamid) is
// stored and read back as written, by id, in the workspace's list and in
// its contact's thread; a contact's opt-out fails it while it waits, and a
// stop of marketing messages does not.
func testSessionMessageRoundTrip(t *testing.T, s Store) {
	f := newFixture(t, s)
	ct := f.contact()
	m := NewSessionMessage(t, ct)
	if err := s.CreateMessages(f.ctx, m); err != nil {
		t.Fatalf("CreateMessages: %v", err)
	}
	if err := s.AppendEntries(f.ctx, NewOutboundEntry(m, ct)); err != nil {
		t.Fatalf("AppendEntries: %v", err)
	}
	got, err := s.GetMessage(f.ctx, f.ws, m.ID)
	if err != nil {
		t.Fatalf("GetMessage: %v", err)
	}
	mustEqual(t, "session message", m, got)
	list, _, err := s.ListMessages(f.ctx, f.ws, ports.MessageFilter{Mode: ct.Mode}, ports.Page{Limit: 10})
	if err != nil || !slices.ContainsFunc(list, func(x domain.Message) bool { return x.ID == m.ID && x.IsSession() }) {
		t.Fatalf("ListMessages: %v, %v", list, err)
	}
	thread, _, err := s.ListEntries(f.ctx, f.ws, ct.ID, ct.Mode, ports.Page{Limit: 10})
	if err != nil || len(thread) != 1 || thread[0].Kind != domain.KindInteractive || thread[0].MessageID != m.ID {
		t.Fatalf("thread: %+v, %v", thread, err)
	}

	stopped := ct
	stopped.Marketing = domain.MarketingPreference{Stopped: true}
	if failed, err := s.FailQueuedMessages(f.ctx, stopped, Now()); err != nil || len(failed) != 0 {
		t.Fatalf("a stop of marketing failed %v, %v; want nothing", failed, err)
	}
	out := ct
	out.OptedOut = true
	failed, err := s.FailQueuedMessages(f.ctx, out, Now())
	if err != nil || !slices.Equal(failed, []domain.MessageID{m.ID}) {
		t.Fatalf("an opt-out failed %v, %v; want the session message", failed, err)
	}
	got, err = s.GetMessage(f.ctx, f.ws, m.ID)
	if err != nil || got.Status != domain.StatusFailed || got.Failure == nil || got.Failure.HeraldCode != domain.CodeContactOptedOut {
		t.Fatalf("after the opt-out: %+v, %v", got, err)
	}
}

// A contact's last inbound time is kept apart from its last message time.
func testSessionMessageLastInbound(t *testing.T, s Store) {
	f := newFixture(t, s)
	ct := f.contact()
	wrote := Now().Add(-time.Hour)
	updated, err := s.UpdateContact(f.ctx, f.ws, ct.ID, func(c *domain.Contact) error {
		c.RecordInbound("", "", wrote, wrote)
		c.Touch(Now())
		return nil
	})
	if err != nil {
		t.Fatalf("UpdateContact: %v", err)
	}
	got, err := s.GetContact(f.ctx, f.ws, ct.ID)
	if err != nil {
		t.Fatalf("GetContact: %v", err)
	}
	mustEqual(t, "contact", updated, got)
	if got.LastInboundAt == nil || !got.LastInboundAt.Equal(wrote) || !got.LastMessageAt.After(wrote) {
		t.Fatalf("last inbound %v, last message %v", got.LastInboundAt, got.LastMessageAt)
	}
	if err := s.SaveContacts(f.ctx, got); err != nil {
		t.Fatalf("SaveContacts: %v", err)
	}
	again, err := s.GetContact(f.ctx, f.ws, ct.ID)
	if err != nil {
		t.Fatal(err)
	}
	mustEqual(t, "contact saved again", got, again)
}
