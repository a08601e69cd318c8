package app_test

import (
	"context"
	"errors"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/heraldhq/herald/app"
	"github.com/heraldhq/herald/app/delivery"
	"github.com/heraldhq/herald/app/usecase"
	"github.com/heraldhq/herald/domain"
	"github.com/heraldhq/herald/ports"
	"github.com/heraldhq/herald/ports/portsmock"
)

// readMarker is a sandbox that records the messages it is told were read.
type readMarker struct {
	*portsmock.WhatsAppSenderMock
	mu   sync.Mutex
	read []string
}

func (m *readMarker) MarkRead(_ context.Context, wamid string, _ bool) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.read = append(m.read, wamid)
	return nil
}

func (m *readMarker) marked() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return slices.Clone(m.read)
}

// Opening a thread shows it oldest first and marks it read: the inbox
// counts nothing unread, and WhatsApp hears of the contact's latest
// message once, not on every later visit; a message that arrives after is
// unread again until the thread is opened again.
func TestReadThreadMarksRead(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	marker := &readMarker{WhatsAppSenderMock: &portsmock.WhatsAppSenderMock{}}
	obs := usecase.NewObserver(nil)
	inbound := app.NewSimulateInboundHandler(f.st, f.st, f.def, f.clock, f.ids, nil)
	read := app.NewReadThreadHandler(f.st, f.st, f.st, f.st,
		app.NewMarkReadHandler(f.st, delivery.Senders{Sandbox: marker}, obs), f.clock, obs)
	list := app.NewListThreadsHandler(f.st, obs)
	ws := f.principal.Workspace

	say := func(text string) app.SimulateInboundResult {
		t.Helper()
		f.clock.Advance(time.Second)
		r, err := inbound.Handle(ctx, app.SimulateInbound{Workspace: string(ws), From: "+447700900123", Text: text})
		if err != nil {
			t.Fatalf("SimulateInbound: %v", err)
		}
		return r
	}
	unread := func() int {
		t.Helper()
		p, err := list.Handle(ctx, app.ListThreads{Workspace: ws})
		if err != nil || len(p.Threads) != 1 {
			t.Fatalf("ListThreads = %+v, %v; want one thread", p, err)
		}
		return p.Threads[0].Unread
	}
	open := func(id domain.ContactID) app.ThreadView {
		t.Helper()
		v, err := read.Handle(ctx, app.ReadThread{Workspace: ws, ContactID: string(id)})
		if err != nil {
			t.Fatalf("ReadThread: %v", err)
		}
		if v.ReceiptError != nil {
			t.Fatalf("ReadThread could not tell WhatsApp: %v", v.ReceiptError)
		}
		return v
	}

	first := say("Hello?")
	second := say("Can I change the delivery address?")
	if n := unread(); n != 2 {
		t.Fatalf("unread before opening = %d, want 2", n)
	}
	v := open(first.Contact.ID)
	var bodies []string
	for _, e := range v.Entries {
		bodies = append(bodies, e.Body)
	}
	if want := []string{"Hello?", "Can I change the delivery address?"}; !slices.Equal(bodies, want) {
		t.Fatalf("thread = %q, want %q (oldest first)", bodies, want)
	}
	if n := unread(); n != 0 {
		t.Fatalf("unread after opening = %d, want 0", n)
	}
	open(first.Contact.ID)
	if got, want := marker.marked(), []string{second.Entry.ProviderID}; !slices.Equal(got, want) {
		t.Fatalf("marked read on WhatsApp %q, want only the latest message once %q", got, want)
	}
	third := say("Hello again")
	if n := unread(); n != 1 {
		t.Fatalf("unread after a new message = %d, want 1", n)
	}
	open(first.Contact.ID)
	if got, want := marker.marked(), []string{second.Entry.ProviderID, third.Entry.ProviderID}; !slices.Equal(got, want) {
		t.Fatalf("marked read on WhatsApp %q, want %q", got, want)
	}
}

// A failed message in a thread comes with its reason.
func TestReadThreadShowsFailures(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	obs := usecase.NewObserver(nil)
	m := f.send(t, f.principal, "+447700900456")
	failure := &domain.Failure{Code: 131026, Title: "Message undeliverable"}
	if _, err := f.st.UpdateMessage(ctx, m.Workspace, m.ID, func(m *domain.Message) error {
		m.Advance(domain.StatusFailed, t0.Add(time.Second), failure)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	read := app.NewReadThreadHandler(f.st, f.st, f.st, f.st,
		app.NewMarkReadHandler(f.st, delivery.Senders{}, obs), f.clock, obs)
	v, err := read.Handle(ctx, app.ReadThread{Workspace: m.Workspace, ContactID: string(m.ContactID)})
	if err != nil {
		t.Fatalf("ReadThread: %v", err)
	}
	if len(v.Entries) != 1 || v.Entries[0].Status != domain.StatusFailed {
		t.Fatalf("entries = %+v, want the failed message", v.Entries)
	}
	if got := v.Failures[v.Entries[0].ID]; got != *failure {
		t.Fatalf("failure = %+v, want %+v", got, *failure)
	}
	_, err = read.Handle(ctx, app.ReadThread{Workspace: m.Workspace, ContactID: f.ids.NewID(domain.PrefixContact)})
	if !errors.Is(err, domain.ErrContactNotFound) {
		t.Fatalf("ReadThread of an unknown contact: %v, want contact_not_found", err)
	}
}

var _ ports.ReadMarker = (*readMarker)(nil)
