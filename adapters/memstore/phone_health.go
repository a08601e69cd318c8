package memstore

import (
	"cmp"
	"context"
	"slices"
	"time"

	"github.com/heraldhq/herald/domain"
	"github.com/heraldhq/herald/ports"
)

// counterHealth numbers the health history in the order recorded.
const counterHealth = "health"

// reachKey is one recipient of one portfolio's templates.
type reachKey struct{ portfolio, recipient string }

// GetPhoneHealth returns the number's health.
func (r *repos) GetPhoneHealth(ctx context.Context, number string) (domain.PhoneHealth, error) {
	defer r.enter(ctx)()
	return r.healthOf(number), nil
}

func (r *repos) healthOf(number string) domain.PhoneHealth {
	if h, ok := r.st.health[number]; ok {
		return h
	}
	return domain.PhoneHealth{Number: number}
}

// RecordPhoneHealth applies rd to the number's health and keeps the change.
func (r *repos) RecordPhoneHealth(ctx context.Context, number string, rd domain.HealthReading) (domain.HealthChange, bool, error) {
	defer r.enter(ctx)()
	h := r.healthOf(number)
	ch, ok := h.Apply(rd)
	if !ok {
		return domain.HealthChange{}, false, nil
	}
	put(r.st, r.st.health, number, h)
	put(r.st, r.st.healthLog, r.st.next(counterHealth), ch)
	return ch, true, nil
}

// ListPhoneHealthChanges returns the number's changes, newest first.
func (r *repos) ListPhoneHealthChanges(ctx context.Context, number string, limit int) ([]domain.HealthChange, error) {
	defer r.enter(ctx)()
	var seqs []int64
	for seq, ch := range r.st.healthLog {
		if ch.Number == number {
			seqs = append(seqs, seq)
		}
	}
	slices.SortFunc(seqs, func(a, b int64) int { return cmp.Compare(b, a) })
	out := []domain.HealthChange{}
	for _, seq := range seqs[:min(len(seqs), max(limit, 1))] {
		out = append(out, r.st.healthLog[seq])
	}
	return out, nil
}

// ReachRecipients records templates to recipients, each unless the window
// is full.
func (r *repos) ReachRecipients(ctx context.Context, portfolio string, reaches []ports.Reach) ([]ports.Reached, error) {
	defer r.enter(ctx)()
	out := make([]ports.Reached, len(reaches))
	for i, x := range reaches {
		out[i].Reached, out[i].FreesAt = r.reach(portfolio, x.Recipient, x.At, x.Limit)
	}
	return out, nil
}

// reach records a template to recipient unless the window is full.
func (r *repos) reach(portfolio, recipient string, now time.Time, limit int) (bool, time.Time) {
	now = utc(now)
	since := now.Add(-domain.MessagingWindow)
	k := reachKey{portfolio, recipient}
	if last, ok := r.st.reach[k]; ok && last.After(since) {
		put(r.st, r.st.reach, k, now)
		return true, time.Time{}
	}
	if limit > 0 {
		n, oldest := 0, time.Time{}
		for rk, at := range r.st.reach {
			if rk.portfolio == portfolio && at.After(since) {
				n++
				if oldest.IsZero() || at.Before(oldest) {
					oldest = at
				}
			}
		}
		if n >= limit {
			return false, oldest.Add(domain.MessagingWindow)
		}
	}
	put(r.st, r.st.reach, k, now)
	return true, time.Time{}
}

// CountReached says how many recipients the portfolio reached in the
// window before now.
func (r *repos) CountReached(ctx context.Context, portfolio string, now time.Time) (int, error) {
	defer r.enter(ctx)()
	since := utc(now).Add(-domain.MessagingWindow)
	n := 0
	for rk, at := range r.st.reach {
		if rk.portfolio == portfolio && at.After(since) {
			n++
		}
	}
	return n, nil
}

// PurgeReach removes reaches older than the time.
func (r *repos) PurgeReach(ctx context.Context, before time.Time) (int, error) {
	defer r.enter(ctx)()
	before = utc(before)
	return deleteWhere(r.st, r.st.reach, func(_ reachKey, at time.Time) bool { return at.Before(before) }), nil
}

// ListCampaignsOnNumber returns the campaigns bound to the number, by id.
func (r *repos) ListCampaignsOnNumber(ctx context.Context, number domain.BusinessNumberID) ([]domain.Campaign, error) {
	defer r.enter(ctx)()
	var out []domain.Campaign
	for _, c := range r.st.campaigns {
		if c.Number == number {
			out = append(out, copyCampaign(c))
		}
	}
	slices.SortFunc(out, func(a, b domain.Campaign) int { return cmp.Compare(a.ID, b.ID) })
	return out, nil
}
