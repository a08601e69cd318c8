package memstore

import (
	"cmp"
	"context"
	"errors"
	"slices"
	"time"

	"github.com/heraldhq/herald/domain"
	"github.com/heraldhq/herald/ports"
)

// parkKey is a parked status event's identity: one per status and wamid.
type parkKey struct {
	providerID string
	status     domain.MessageStatus
}

// parkedStatus is a parked status event and when it was parked.
type parkedStatus struct {
	event    ports.StatusEvent
	parkedAt time.Time
}

// ParkStatus keeps a status event for a wamid no message holds yet; the
// first event parked for a status and wamid stays, repeats are ignored.
func (r *repos) ParkStatus(ctx context.Context, e ports.StatusEvent, parkedAt time.Time) error {
	defer r.enter(ctx)()
	if e.ProviderID == "" {
		return errors.New("memstore: park status: the event has no provider id")
	}
	k := parkKey{e.ProviderID, e.Status}
	if _, ok := r.st.parked[k]; ok {
		return nil
	}
	put(r.st, r.st.parked, k, parkedStatus{event: copyStatusEvent(e), parkedAt: utc(parkedAt)})
	return nil
}

// TakeParkedStatuses removes and returns the events parked for the wamid,
// oldest event first (ties in lifecycle order).
func (r *repos) TakeParkedStatuses(ctx context.Context, providerID string) ([]ports.StatusEvent, error) {
	defer r.enter(ctx)()
	out := []ports.StatusEvent{}
	for k, p := range r.st.parked {
		if k.providerID == providerID {
			out = append(out, copyStatusEvent(p.event))
			del(r.st, r.st.parked, k)
		}
	}
	rank := func(st domain.MessageStatus) int { return slices.Index(domain.MessageStatuses(), st) }
	slices.SortFunc(out, func(a, b ports.StatusEvent) int {
		return cmp.Or(a.At.Compare(b.At), cmp.Compare(rank(a.Status), rank(b.Status)))
	})
	return out, nil
}

// PurgeParkedStatuses removes the events parked before the time and says
// how many went.
func (r *repos) PurgeParkedStatuses(ctx context.Context, before time.Time) (int, error) {
	defer r.enter(ctx)()
	before = utc(before)
	return deleteWhere(r.st, r.st.parked, func(_ parkKey, p parkedStatus) bool { return p.parkedAt.Before(before) }), nil
}

func copyStatusEvent(e ports.StatusEvent) ports.StatusEvent {
	e.At = utc(e.At)
	e.Failure = clonePtr(e.Failure)
	e.Pricing = clonePtr(e.Pricing)
	return e
}
