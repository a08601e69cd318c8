package memstore

import (
	"bytes"
	"cmp"
	"context"
	"slices"

	"github.com/heraldhq/herald/domain"
)

// CreateEndpoint stores a new endpoint.
func (r *repos) CreateEndpoint(ctx context.Context, e domain.WebhookEndpoint) error {
	defer r.enter(ctx)()
	if _, ok := r.st.endpoints[e.ID]; ok {
		return conflict("an endpoint with this id exists")
	}
	put(r.st, r.st.endpoints, e.ID, copyEndpoint(e))
	return nil
}

// GetEndpoint returns one of the workspace's endpoints of mode (any mode
// for the zero mode).
func (r *repos) GetEndpoint(ctx context.Context, ws domain.WorkspaceID, mode domain.KeyMode, id domain.WebhookEndpointID) (domain.WebhookEndpoint, error) {
	defer r.enter(ctx)()
	e, err := r.st.endpoint(ws, mode, id)
	return copyEndpoint(e), err
}

func (st *state) endpoint(ws domain.WorkspaceID, mode domain.KeyMode, id domain.WebhookEndpointID) (domain.WebhookEndpoint, error) {
	e, ok := st.endpoints[id]
	if !ok || e.Workspace != ws || !ofMode(e.Mode, mode) {
		return domain.WebhookEndpoint{}, domain.NotFound(domain.ErrWebhookEndpointNotFound)
	}
	return e, nil
}

// ListEndpoints returns the workspace's endpoints of mode, oldest first.
func (r *repos) ListEndpoints(ctx context.Context, ws domain.WorkspaceID, mode domain.KeyMode) ([]domain.WebhookEndpoint, error) {
	defer r.enter(ctx)()
	out := []domain.WebhookEndpoint{}
	for _, e := range r.st.endpoints {
		if e.Workspace == ws && ofMode(e.Mode, mode) {
			out = append(out, copyEndpoint(e))
		}
	}
	slices.SortFunc(out, func(a, b domain.WebhookEndpoint) int { return cmp.Compare(a.ID, b.ID) })
	return out, nil
}

// UpdateEndpoint runs fn on the endpoint and stores the result if fn
// succeeds.
func (r *repos) UpdateEndpoint(ctx context.Context, ws domain.WorkspaceID, mode domain.KeyMode, id domain.WebhookEndpointID, fn func(*domain.WebhookEndpoint) error) (domain.WebhookEndpoint, error) {
	defer r.enter(ctx)()
	old, err := r.st.endpoint(ws, mode, id)
	if err != nil {
		return domain.WebhookEndpoint{}, err
	}
	e, err := applyEndpoint(old, fn)
	if err != nil {
		return domain.WebhookEndpoint{}, err
	}
	r.st.storeEndpoint(old, e)
	return copyEndpoint(e), nil
}

// applyEndpoint returns fn's result on a copy of old, with its id,
// workspace, mode and creation time kept.
func applyEndpoint(old domain.WebhookEndpoint, fn func(*domain.WebhookEndpoint) error) (domain.WebhookEndpoint, error) {
	e := copyEndpoint(old)
	if err := fn(&e); err != nil {
		return domain.WebhookEndpoint{}, err
	}
	e.ID, e.Workspace, e.Mode, e.CreatedAt = old.ID, old.Workspace, old.Mode, old.CreatedAt
	return copyEndpoint(e), nil
}

// storeEndpoint stores e over old. A change of status takes the due times
// of the endpoint's pending deliveries away, or makes those without one
// due at the endpoint's new UpdatedAt.
func (st *state) storeEndpoint(old, e domain.WebhookEndpoint) {
	put(st, st.endpoints, e.ID, e)
	if e.Status == old.Status {
		return
	}
	for k, d := range st.deliveries {
		switch {
		case k.endpoint != e.ID || d.state != domain.DeliveryPending:
			continue
		case e.Status == domain.EndpointDisabled:
			d.next = nil
		case d.next == nil:
			now := e.UpdatedAt
			d.next = &now
		}
		put(st, st.deliveries, k, d)
	}
}

// DeleteEndpoint removes the endpoint with its deliveries and attempts.
func (r *repos) DeleteEndpoint(ctx context.Context, ws domain.WorkspaceID, mode domain.KeyMode, id domain.WebhookEndpointID) error {
	defer r.enter(ctx)()
	if _, err := r.st.endpoint(ws, mode, id); err != nil {
		return err
	}
	del(r.st, r.st.endpoints, id)
	deleteWhere(r.st, r.st.deliveries, func(k deliveryKey, _ delivery) bool { return k.endpoint == id })
	deleteWhere(r.st, r.st.attempts, func(_ int64, a storedAttempt) bool { return a.a.Endpoint == id })
	return nil
}

// copyEndpoint is e as the store keeps it: times in UTC to the
// microsecond, secrets newest first (equal times in the order given), and
// nothing shared.
func copyEndpoint(e domain.WebhookEndpoint) domain.WebhookEndpoint {
	e.CreatedAt, e.UpdatedAt = utc(e.CreatedAt), utc(e.UpdatedAt)
	e.DisabledAt, e.FailingSince = utcPtr(e.DisabledAt), utcPtr(e.FailingSince)
	secrets := make([]domain.EndpointSecret, len(e.Secrets))
	for i, s := range e.Secrets {
		secrets[i] = domain.EndpointSecret{Key: bytes.Clone(s.Key), CreatedAt: utc(s.CreatedAt), ExpiresAt: utcPtr(s.ExpiresAt)}
	}
	slices.SortStableFunc(secrets, func(a, b domain.EndpointSecret) int { return b.CreatedAt.Compare(a.CreatedAt) })
	e.Secrets = secrets
	return e
}
