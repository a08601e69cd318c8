package porttest

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/heraldhq/herald/domain"
	"github.com/heraldhq/herald/ports"
)

var txTests = []storeTest{
	{"Commit", testTxCommit},
	{"RollbackOnError", testTxRollbackOnError},
	{"RollbackOnPanic", testTxRollbackOnPanic},
	{"RollbackUpdates", testTxRollbackUpdates},
	{"FailedUpdateInsideTx", testTxFailedUpdate},
	{"Isolation", testTxIsolation},
	{"FindAndSaveContacts", testTxFindAndSaveContacts},
	{"FindAndSaveContactsRollback", testTxFindAndSaveContactsRollback},
}

// sendWrites are the writes of one accepted send: a new contact, its message
// and the thread entry, as the send-campaign use case commits them.
type sendWrites struct {
	contact domain.Contact
	message domain.Message
	entry   domain.Entry
}

func newSendWrites(t *testing.T, c domain.Campaign) sendWrites {
	ct := NewContact(t, c.Workspace)
	m := NewMessage(t, c, ct)
	return sendWrites{contact: ct, message: m, entry: NewOutboundEntry(m, ct)}
}

// write stores w through r and checks that r reads its own writes.
func (w sendWrites) write(ctx context.Context, r ports.Repos) error {
	if err := r.Contacts.CreateContact(ctx, w.contact); err != nil {
		return fmt.Errorf("CreateContact: %w", err)
	}
	if err := r.Messages.CreateMessages(ctx, w.message); err != nil {
		return fmt.Errorf("CreateMessages: %w", err)
	}
	if err := r.Conversations.AppendEntries(ctx, w.entry); err != nil {
		return fmt.Errorf("AppendEntries: %w", err)
	}
	ws := w.contact.Workspace
	if _, err := r.Contacts.GetContactByPhone(ctx, ws, w.contact.Mode, w.contact.Phone); err != nil {
		return fmt.Errorf("the transaction does not see its own contact: %w", err)
	}
	if _, err := r.Messages.GetMessage(ctx, ws, w.message.ID); err != nil {
		return fmt.Errorf("the transaction does not see its own message: %w", err)
	}
	entries, _, err := r.Conversations.ListEntries(ctx, ws, w.contact.ID, domain.KeyMode{}, ports.Page{Limit: 10})
	if err != nil || len(entries) != 1 {
		return fmt.Errorf("the transaction does not see its own entry: %d entries, %v", len(entries), err)
	}
	return nil
}

// mustExist checks that every write of w is stored, as written.
func (w sendWrites) mustExist(t *testing.T, s Store) {
	t.Helper()
	ctx, ws := t.Context(), w.contact.Workspace
	ct, err := s.GetContactByPhone(ctx, ws, w.contact.Mode, w.contact.Phone)
	if err != nil {
		t.Fatalf("GetContactByPhone: %v", err)
	}
	mustEqual(t, "committed contact", w.contact, ct)
	m, err := s.GetMessage(ctx, ws, w.message.ID)
	if err != nil {
		t.Fatalf("GetMessage: %v", err)
	}
	mustEqual(t, "committed message", w.message, m)
	entries, _, err := s.ListEntries(ctx, ws, w.contact.ID, domain.KeyMode{}, ports.Page{Limit: 10})
	if err != nil {
		t.Fatalf("ListEntries: %v", err)
	}
	mustEqual(t, "committed entries", []domain.Entry{w.entry}, entries)
}

// mustNotExist checks that nothing of w is stored, and that the phone
// number is free again.
func (w sendWrites) mustNotExist(t *testing.T, s Store) {
	t.Helper()
	ctx, ws := t.Context(), w.contact.Workspace
	_, err := s.GetContact(ctx, ws, w.contact.ID)
	mustBe(t, "GetContact after rollback", err, domain.ErrContactNotFound)
	_, err = s.GetContactByPhone(ctx, ws, w.contact.Mode, w.contact.Phone)
	mustBe(t, "GetContactByPhone after rollback", err, domain.ErrContactNotFound)
	_, err = s.GetMessage(ctx, ws, w.message.ID)
	mustBe(t, "GetMessage after rollback", err, domain.ErrMessageNotFound)
	_, err = s.LocateMessage(ctx, w.message.ID, "")
	mustBe(t, "LocateMessage after rollback", err, domain.ErrMessageNotFound)
	entries, _, err := s.ListEntries(ctx, ws, w.contact.ID, domain.KeyMode{}, ports.Page{Limit: 10})
	if err != nil {
		t.Fatalf("ListEntries: %v", err)
	}
	if len(entries) != 0 {
		t.Fatalf("ListEntries after rollback = %d entries, want none", len(entries))
	}
	again := newContactWithPhone(t, ws, w.contact.Phone)
	if err := s.CreateContact(ctx, again); err != nil {
		t.Fatalf("CreateContact with the rolled-back contact's phone: %v", err)
	}
}

func testTxCommit(t *testing.T, s Store) {
	f := newFixture(t, s)
	w := newSendWrites(t, f.campaign())
	if err := s.WithinTx(f.ctx, w.write); err != nil {
		t.Fatalf("WithinTx: %v", err)
	}
	w.mustExist(t, s)
}

func testTxRollbackOnError(t *testing.T, s Store) {
	f := newFixture(t, s)
	w := newSendWrites(t, f.campaign())
	boom := errors.New("boom")
	err := s.WithinTx(f.ctx, func(ctx context.Context, r ports.Repos) error {
		if err := w.write(ctx, r); err != nil {
			return err
		}
		return boom
	})
	mustBe(t, "WithinTx with a failing fn", err, boom)
	w.mustNotExist(t, s)
}

func testTxRollbackOnPanic(t *testing.T, s Store) {
	f := newFixture(t, s)
	w := newSendWrites(t, f.campaign())
	type boom struct{ msg string }
	var writeErr error
	recovered := func() (v any) {
		defer func() { v = recover() }()
		_ = s.WithinTx(f.ctx, func(ctx context.Context, r ports.Repos) error {
			writeErr = w.write(ctx, r)
			panic(boom{"inside the transaction"})
		})
		return nil
	}()
	if writeErr != nil {
		t.Fatal(writeErr)
	}
	if recovered != (boom{"inside the transaction"}) {
		t.Fatalf("WithinTx panicked with %v, want fn's panic value re-raised", recovered)
	}
	w.mustNotExist(t, s)
}

// Updates made inside a failed transaction are undone too.
func testTxRollbackUpdates(t *testing.T, s Store) {
	f := newFixture(t, s)
	k, c, ct := f.key(), f.campaign(), f.contact()
	m := f.message(c, ct)
	providerID := "wamid." + NewID("x")
	boom := errors.New("boom")
	err := s.WithinTx(f.ctx, func(ctx context.Context, r ports.Repos) error {
		now := Now().Add(time.Second)
		if _, err := r.Keys.UpdateKey(ctx, f.ws, k.ID, func(k *domain.APIKey) error { k.Revoke(now); return nil }); err != nil {
			return err
		}
		if err := r.Keys.TouchKeys(ctx, map[domain.KeyID]time.Time{k.ID: now}); err != nil {
			return err
		}
		if _, err := r.Campaigns.UpdateCampaign(ctx, f.ws, c.ID, func(c *domain.Campaign) error { return c.Pause(now) }); err != nil {
			return err
		}
		if _, err := r.Contacts.UpdateContact(ctx, f.ws, ct.ID, func(c *domain.Contact) error { c.Touch(now); return nil }); err != nil {
			return err
		}
		_, err := r.Messages.UpdateMessage(ctx, f.ws, m.ID, func(m *domain.Message) error {
			m.ProviderID = providerID
			m.Advance(domain.StatusSent, now, nil)
			return nil
		})
		if err != nil {
			return err
		}
		if _, err := r.Messages.LocateMessage(ctx, "", providerID); err != nil {
			return fmt.Errorf("the transaction does not see its own provider id: %w", err)
		}
		return boom
	})
	mustBe(t, "WithinTx with a failing fn", err, boom)

	gotKey, err := keyIn(t, s, f.ws, k.ID)
	if err != nil {
		t.Fatalf("ListKeys: %v", err)
	}
	mustEqual(t, "key after rollback", k, gotKey)
	gotCampaign, err := s.GetCampaign(f.ctx, f.ws, c.ID)
	if err != nil {
		t.Fatalf("GetCampaign: %v", err)
	}
	mustEqual(t, "campaign after rollback", c, gotCampaign)
	gotContact, err := s.GetContact(f.ctx, f.ws, ct.ID)
	if err != nil {
		t.Fatalf("GetContact: %v", err)
	}
	mustEqual(t, "contact after rollback", ct, gotContact)
	gotMessage, err := s.GetMessage(f.ctx, f.ws, m.ID)
	if err != nil {
		t.Fatalf("GetMessage: %v", err)
	}
	mustEqual(t, "message after rollback", m, gotMessage)
	_, err = s.LocateMessage(f.ctx, "", providerID)
	mustBe(t, "LocateMessage by a rolled-back provider id", err, domain.ErrMessageNotFound)
}

// An update whose fn fails inside a transaction stores nothing, and the
// transaction can go on and commit its other writes.
func testTxFailedUpdate(t *testing.T, s Store) {
	f := newFixture(t, s)
	ct := f.contact()
	c := NewCampaign(t, f.ws)
	boom := errors.New("boom")
	err := s.WithinTx(f.ctx, func(ctx context.Context, r ports.Repos) error {
		_, err := r.Contacts.UpdateContact(ctx, f.ws, ct.ID, func(c *domain.Contact) error {
			c.OptedOut = true
			return boom
		})
		if !errors.Is(err, boom) {
			return fmt.Errorf("UpdateContact with a failing fn: got %v, want boom", err)
		}
		return r.Campaigns.CreateCampaign(ctx, c)
	})
	if err != nil {
		t.Fatalf("WithinTx: %v", err)
	}
	gotContact, err := s.GetContact(f.ctx, f.ws, ct.ID)
	if err != nil {
		t.Fatalf("GetContact: %v", err)
	}
	mustEqual(t, "contact after a failed update inside a transaction", ct, gotContact)
	gotCampaign, err := s.GetCampaign(f.ctx, f.ws, c.ID)
	if err != nil {
		t.Fatalf("GetCampaign: %v", err)
	}
	mustEqual(t, "campaign created in the same transaction", c, gotCampaign)
}

// testTxIsolation reads from outside while a transaction has written but not
// finished: the reader must either wait or see the committed state, never
// the transaction's uncommitted (here, finally rolled-back) writes.
func testTxIsolation(t *testing.T, s Store) {
	f := newFixture(t, s)
	w := newSendWrites(t, f.campaign())
	outside := make(chan error, 1)
	var early error
	answered := false
	boom := errors.New("boom")
	err := s.WithinTx(f.ctx, func(ctx context.Context, r ports.Repos) error {
		if err := w.write(ctx, r); err != nil {
			return err
		}
		go func() {
			_, err := s.GetMessage(f.ctx, f.ws, w.message.ID) // the test's context, not the transaction's
			outside <- err
		}()
		select {
		case early = <-outside:
			answered = true
		case <-time.After(50 * time.Millisecond): // the reader waits for the transaction
		}
		return boom
	})
	mustBe(t, "WithinTx with a failing fn", err, boom)
	if answered {
		mustBe(t, "a read outside a running transaction", early, domain.ErrMessageNotFound)
	} else {
		mustBe(t, "a read outside a transaction that rolled back", <-outside, domain.ErrMessageNotFound)
	}
	w.mustNotExist(t, s)
}

// A send's batch reads its contacts with FindContactsByPhone and writes them
// back, with the new ones, by SaveContacts in one transaction: it sees its
// own writes, and they are committed.
func testTxFindAndSaveContacts(t *testing.T, s Store) {
	f := newFixture(t, s)
	known := f.contact()
	at := Now().Add(time.Second)
	fresh := NewContact(t, f.ws)
	fresh.Touch(at)
	touched := cloneContact(known)
	touched.Touch(at)
	want := []domain.Contact{touched, cloneContact(fresh)}
	slices.SortFunc(want, byPhone)
	phones := []domain.PhoneNumber{fresh.Phone, known.Phone}
	err := s.WithinTx(f.ctx, func(ctx context.Context, r ports.Repos) error {
		found, err := r.Contacts.FindContactsByPhone(ctx, f.ws, domain.ModeTest, phones)
		if err != nil {
			return fmt.Errorf("FindContactsByPhone: %w", err)
		}
		if diff := cmp.Diff([]domain.Contact{known}, found, cmpOptions); diff != "" {
			return fmt.Errorf("contacts found before saving (-want +got):\n%s", diff)
		}
		found[0].Touch(at)
		if err := r.Contacts.SaveContacts(ctx, found[0], fresh); err != nil {
			return fmt.Errorf("SaveContacts: %w", err)
		}
		again, err := r.Contacts.FindContactsByPhone(ctx, f.ws, domain.ModeTest, phones)
		if err != nil {
			return fmt.Errorf("FindContactsByPhone: %w", err)
		}
		if diff := cmp.Diff(want, again, cmpOptions); diff != "" {
			return fmt.Errorf("the transaction does not see the contacts it saved (-want +got):\n%s", diff)
		}
		return nil
	})
	if err != nil {
		t.Fatalf("WithinTx: %v", err)
	}
	got, err := s.FindContactsByPhone(f.ctx, f.ws, domain.ModeTest, phones)
	if err != nil {
		t.Fatalf("FindContactsByPhone: %v", err)
	}
	mustEqual(t, "committed contacts", want, got)
}

// Contacts saved in a transaction that fails are rolled back: a new one is
// gone with its number, a replaced one is back as it was, under its old
// number, and the number it moved to is free again.
func testTxFindAndSaveContactsRollback(t *testing.T, s Store) {
	f := newFixture(t, s)
	known := f.contact()
	fresh := NewContact(t, f.ws)
	newPhone := RandomPhone()
	boom := errors.New("boom")
	err := s.WithinTx(f.ctx, func(ctx context.Context, r ports.Repos) error {
		found, err := r.Contacts.FindContactsByPhone(ctx, f.ws, domain.ModeTest, []domain.PhoneNumber{known.Phone, fresh.Phone})
		if err != nil {
			return fmt.Errorf("FindContactsByPhone: %w", err)
		}
		if len(found) != 1 {
			return fmt.Errorf("FindContactsByPhone found %d contacts, want 1", len(found))
		}
		found[0].Phone = newPhone
		found[0].Touch(Now().Add(time.Second))
		if err := r.Contacts.SaveContacts(ctx, found[0], fresh); err != nil {
			return fmt.Errorf("SaveContacts: %w", err)
		}
		return boom
	})
	mustBe(t, "WithinTx with a failing fn", err, boom)
	got, err := s.FindContactsByPhone(f.ctx, f.ws, domain.ModeTest, []domain.PhoneNumber{known.Phone, fresh.Phone, newPhone})
	if err != nil {
		t.Fatalf("FindContactsByPhone: %v", err)
	}
	mustEqual(t, "contacts after rollback", []domain.Contact{known}, got)
	_, err = s.GetContact(f.ctx, f.ws, fresh.ID)
	mustBe(t, "GetContact of a rolled-back new contact", err, domain.ErrContactNotFound)
	for _, p := range []domain.PhoneNumber{fresh.Phone, newPhone} {
		if err := s.CreateContact(f.ctx, newContactWithPhone(t, f.ws, p)); err != nil {
			t.Fatalf("CreateContact with a rolled-back number: %v", err)
		}
	}
}
