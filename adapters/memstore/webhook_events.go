package memstore

import (
	"cmp"
	"context"
	"slices"

	"github.com/heraldhq/herald/domain"
	"github.com/heraldhq/herald/ports"
)

// defaultEventLimit is how many webhook events a filter without a limit
// lists.
const defaultEventLimit = 100

// SaveWebhookEvent stores e unless an event with the same SHA-256 is
// stored: then it returns that one and created false.
func (r *repos) SaveWebhookEvent(ctx context.Context, e domain.WebhookEvent) (domain.WebhookEvent, bool, error) {
	defer r.enter(ctx)()
	if id, ok := r.st.eventIDs[e.SHA256]; ok {
		return copyEvent(r.st.events[id]), false, nil
	}
	if _, ok := r.st.events[e.ID]; ok {
		return domain.WebhookEvent{}, false, conflict("a webhook event with this id exists")
	}
	e = copyEvent(e)
	put(r.st, r.st.events, e.ID, e)
	put(r.st, r.st.eventIDs, e.SHA256, e.ID)
	return copyEvent(e), true, nil
}

// SaveWebhookEvents saves each event as SaveWebhookEvent does, or none
// when one's id is taken.
func (r *repos) SaveWebhookEvents(ctx context.Context, es []domain.WebhookEvent) ([]ports.SavedWebhookEvent, error) {
	defer r.enter(ctx)()
	batch := map[string]domain.WebhookEvent{} // by digest, those this call creates
	for _, e := range es {
		_, stored := r.st.eventIDs[e.SHA256]
		_, created := batch[e.SHA256]
		if stored || created {
			continue
		}
		_, taken := r.st.events[e.ID]
		for _, b := range batch {
			taken = taken || b.ID == e.ID
		}
		if taken {
			return nil, conflict("a webhook event with this id exists")
		}
		batch[e.SHA256] = e
	}
	out := make([]ports.SavedWebhookEvent, 0, len(es))
	for _, e := range es {
		if id, ok := r.st.eventIDs[e.SHA256]; ok {
			out = append(out, ports.SavedWebhookEvent{Stored: copyEvent(r.st.events[id])})
			continue
		}
		e = copyEvent(e)
		put(r.st, r.st.events, e.ID, e)
		put(r.st, r.st.eventIDs, e.SHA256, e.ID)
		out = append(out, ports.SavedWebhookEvent{Stored: copyEvent(e), Created: true})
	}
	return out, nil
}

// GetWebhookEvent returns one stored event.
func (r *repos) GetWebhookEvent(ctx context.Context, id domain.WebhookEventID) (domain.WebhookEvent, error) {
	defer r.enter(ctx)()
	e, ok := r.st.events[id]
	if !ok {
		return domain.WebhookEvent{}, domain.NotFound(domain.ErrWebhookEventNotFound)
	}
	return copyEvent(e), nil
}

// ListWebhookEvents returns up to f.Limit events matching f (100 when f
// sets no limit), smallest id first.
func (r *repos) ListWebhookEvents(ctx context.Context, f ports.WebhookEventFilter) ([]domain.WebhookEvent, error) {
	defer r.enter(ctx)()
	out := []domain.WebhookEvent{}
	for _, e := range r.st.events {
		switch {
		case f.Unapplied && e.AppliedAt != nil,
			!f.ReceivedBefore.IsZero() && !e.ReceivedAt.Before(utc(f.ReceivedBefore)),
			!f.ReceivedSince.IsZero() && e.ReceivedAt.Before(utc(f.ReceivedSince)),
			f.After != "" && e.ID <= f.After,
			f.BelowAttempts > 0 && e.Attempts >= f.BelowAttempts:
			continue
		}
		out = append(out, e)
	}
	slices.SortFunc(out, func(a, b domain.WebhookEvent) int { return cmp.Compare(a.ID, b.ID) })
	limit := f.Limit
	if limit <= 0 {
		limit = defaultEventLimit
	}
	out = out[:min(len(out), limit)]
	for i := range out {
		out[i] = copyEvent(out[i])
	}
	return out, nil
}

// UpdateWebhookEvent runs fn on the event and stores its outcome fields
// (AppliedAt, Attempts, LastError) if fn succeeds.
func (r *repos) UpdateWebhookEvent(ctx context.Context, id domain.WebhookEventID, fn func(*domain.WebhookEvent) error) (domain.WebhookEvent, error) {
	defer r.enter(ctx)()
	old, ok := r.st.events[id]
	if !ok {
		return domain.WebhookEvent{}, domain.NotFound(domain.ErrWebhookEventNotFound)
	}
	e := copyEvent(old)
	if err := fn(&e); err != nil {
		return domain.WebhookEvent{}, err
	}
	stored := old
	stored.AppliedAt, stored.Attempts, stored.LastError = utcPtr(e.AppliedAt), e.Attempts, e.LastError
	put(r.st, r.st.events, id, stored)
	return copyEvent(stored), nil
}

func copyEvent(e domain.WebhookEvent) domain.WebhookEvent {
	e.Body = slices.Clone(e.Body)
	e.ReceivedAt = utc(e.ReceivedAt)
	e.AppliedAt = utcPtr(e.AppliedAt)
	return e
}
