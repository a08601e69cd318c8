package domain_test

import (
	"strings"
	"testing"
	"time"

	"github.com/heraldhq/herald/domain"
)

var t0 = time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)

func sending() domain.Message {
	return domain.Message{Status: domain.StatusSending, History: []domain.StatusChange{
		{Status: domain.StatusQueued, At: t0}, {Status: domain.StatusSending, At: t0.Add(time.Second)}}, UpdatedAt: t0.Add(time.Second)}
}

func statuses(m domain.Message) string {
	var s []string
	for _, h := range m.History {
		s = append(s, h.Status.String())
	}
	return strings.Join(s, ",")
}

func TestAdvanceMovesForwardOnly(t *testing.T) {
	t.Parallel()
	m := sending()
	m.Advance(domain.StatusSent, t0.Add(2*time.Second), nil)
	m.Advance(domain.StatusRead, t0.Add(4*time.Second), nil)
	if m.Status != domain.StatusRead {
		t.Fatalf("status %s, want read", m.Status)
	}
	// A late delivered is kept in the history but does not move the status back.
	if !m.Advance(domain.StatusDelivered, t0.Add(3*time.Second), nil) {
		t.Fatal("a late delivered should be recorded")
	}
	if m.Status != domain.StatusRead || statuses(m) != "queued,sending,sent,delivered,read" {
		t.Fatalf("after late delivered: %s %s", m.Status, statuses(m))
	}
	// A duplicate changes nothing.
	before := len(m.History)
	if m.Advance(domain.StatusSent, t0.Add(9*time.Second), nil) || len(m.History) != before {
		t.Fatal("a duplicate event changed the message")
	}
}

func TestAdvanceEveryOrdering(t *testing.T) {
	t.Parallel()
	at := map[domain.MessageStatus]time.Time{
		domain.StatusSent: t0.Add(2 * time.Second), domain.StatusDelivered: t0.Add(3 * time.Second), domain.StatusRead: t0.Add(4 * time.Second)}
	perms := [][]domain.MessageStatus{
		{domain.StatusSent, domain.StatusDelivered, domain.StatusRead},
		{domain.StatusSent, domain.StatusRead, domain.StatusDelivered},
		{domain.StatusDelivered, domain.StatusSent, domain.StatusRead},
		{domain.StatusDelivered, domain.StatusRead, domain.StatusSent},
		{domain.StatusRead, domain.StatusSent, domain.StatusDelivered},
		{domain.StatusRead, domain.StatusDelivered, domain.StatusSent},
	}
	for _, p := range perms {
		m := sending()
		for _, s := range p {
			m.Advance(s, at[s], nil)
			m.Advance(s, at[s], nil) // and again: duplicates change nothing
		}
		if m.Status != domain.StatusRead || statuses(m) != "queued,sending,sent,delivered,read" {
			t.Errorf("order %v: status %s history %s", p, m.Status, statuses(m))
		}
	}
}

func TestFailed(t *testing.T) {
	t.Parallel()
	f := &domain.Failure{Code: 131026, Title: "Message undeliverable"}
	m := sending()
	m.Advance(domain.StatusSent, t0.Add(2*time.Second), nil)
	m.Advance(domain.StatusFailed, t0.Add(3*time.Second), f)
	if m.Status != domain.StatusFailed || m.Failure == nil || m.Failure.Code != 131026 {
		t.Fatalf("failed after sent: %s %+v", m.Status, m.Failure)
	}
	m.Advance(domain.StatusRead, t0.Add(4*time.Second), nil)
	if m.Status != domain.StatusFailed {
		t.Fatalf("read after failed moved the status to %s", m.Status)
	}
	r := sending()
	r.Advance(domain.StatusRead, t0.Add(2*time.Second), nil)
	r.Advance(domain.StatusFailed, t0.Add(3*time.Second), f)
	if r.Status != domain.StatusRead || r.Failure != nil || !strings.Contains(statuses(r), "failed") {
		t.Fatalf("failed after read: status %s failure %+v history %s", r.Status, r.Failure, statuses(r))
	}
}
