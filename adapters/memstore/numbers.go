package memstore

import (
	"cmp"
	"context"
	"slices"

	"github.com/heraldhq/herald/domain"
	"github.com/heraldhq/herald/ports"
)

// CreateNumber stores a new number; its id and Meta id must be unused.
func (r *repos) CreateNumber(ctx context.Context, n domain.BusinessNumber) error {
	defer r.enter(ctx)()
	if _, ok := r.st.numbers[n.ID]; ok {
		return conflict("a phone number with this id exists")
	}
	if r.st.numberByMetaID(n.MetaID, "") {
		return conflict("a phone number with this Meta phone number id exists")
	}
	put(r.st, r.st.numbers, n.ID, storedNumber(n))
	return nil
}

// numberByMetaID reports whether a number other than except has Meta's id.
func (st *state) numberByMetaID(metaID string, except domain.BusinessNumberID) bool {
	for id, n := range st.numbers {
		if n.MetaID == metaID && id != except {
			return true
		}
	}
	return false
}

// GetNumber returns a number.
func (r *repos) GetNumber(ctx context.Context, id domain.BusinessNumberID) (domain.BusinessNumber, error) {
	defer r.enter(ctx)()
	n, ok := r.st.numbers[id]
	if !ok {
		return domain.BusinessNumber{}, domain.NotFound(domain.ErrPhoneNumberNotFound)
	}
	return copyNumber(n), nil
}

// GetNumberByMetaID returns the number with Meta's phone number id.
func (r *repos) GetNumberByMetaID(ctx context.Context, metaID string) (domain.BusinessNumber, error) {
	defer r.enter(ctx)()
	for _, n := range r.st.numbers {
		if n.MetaID == metaID && metaID != "" {
			return copyNumber(n), nil
		}
	}
	return domain.BusinessNumber{}, domain.NotFound(domain.ErrPhoneNumberNotFound)
}

// ListNumbers returns every number, oldest first.
func (r *repos) ListNumbers(ctx context.Context) ([]domain.BusinessNumber, error) {
	defer r.enter(ctx)()
	out := []domain.BusinessNumber{}
	for _, n := range r.st.numbers {
		out = append(out, copyNumber(n))
	}
	slices.SortFunc(out, func(a, b domain.BusinessNumber) int { return cmp.Compare(a.ID, b.ID) })
	return out, nil
}

// UpdateNumber runs fn on a copy of the number and stores it if fn
// succeeds.
func (r *repos) UpdateNumber(ctx context.Context, id domain.BusinessNumberID, fn func(*domain.BusinessNumber) error) (domain.BusinessNumber, error) {
	defer r.enter(ctx)()
	old, ok := r.st.numbers[id]
	if !ok {
		return domain.BusinessNumber{}, domain.NotFound(domain.ErrPhoneNumberNotFound)
	}
	n := copyNumber(old)
	if err := fn(&n); err != nil {
		return domain.BusinessNumber{}, err
	}
	n.ID, n.CreatedAt = old.ID, old.CreatedAt
	if r.st.numberByMetaID(n.MetaID, id) {
		return domain.BusinessNumber{}, conflict("a phone number with this Meta phone number id exists")
	}
	n = storedNumber(n)
	put(r.st, r.st.numbers, id, n)
	return copyNumber(n), nil
}

// DeleteNumber removes a number.
func (r *repos) DeleteNumber(ctx context.Context, id domain.BusinessNumberID) error {
	defer r.enter(ctx)()
	if _, ok := r.st.numbers[id]; !ok {
		return domain.NotFound(domain.ErrPhoneNumberNotFound)
	}
	del(r.st, r.st.numbers, id)
	return nil
}

// PutApp stores a Meta app, keeping the creation time of the one it
// replaces.
func (r *repos) PutApp(ctx context.Context, a domain.MetaApp) error {
	defer r.enter(ctx)()
	if old, ok := r.st.apps[a.ID]; ok {
		a.CreatedAt = old.CreatedAt
	}
	a.CreatedAt, a.UpdatedAt = utc(a.CreatedAt), utc(a.UpdatedAt)
	a.Secret.Data = slices.Clone(a.Secret.Data)
	put(r.st, r.st.apps, a.ID, a)
	return nil
}

// GetApp returns a Meta app.
func (r *repos) GetApp(ctx context.Context, id string) (domain.MetaApp, error) {
	defer r.enter(ctx)()
	a, ok := r.st.apps[id]
	if !ok {
		return domain.MetaApp{}, ports.ErrAppNotFound
	}
	a.Secret.Data = slices.Clone(a.Secret.Data)
	return a, nil
}

// ListApps returns every Meta app, by id.
func (r *repos) ListApps(ctx context.Context) ([]domain.MetaApp, error) {
	defer r.enter(ctx)()
	out := []domain.MetaApp{}
	for _, a := range r.st.apps {
		a.Secret.Data = slices.Clone(a.Secret.Data)
		out = append(out, a)
	}
	slices.SortFunc(out, func(a, b domain.MetaApp) int { return cmp.Compare(a.ID, b.ID) })
	return out, nil
}

// DeleteApp removes a Meta app.
func (r *repos) DeleteApp(ctx context.Context, id string) error {
	defer r.enter(ctx)()
	del(r.st, r.st.apps, id)
	return nil
}

// storedNumber is n as the store keeps it: times in UTC microseconds, no
// shared slices.
func storedNumber(n domain.BusinessNumber) domain.BusinessNumber {
	n = copyNumber(n)
	n.CreatedAt, n.UpdatedAt = utc(n.CreatedAt), utc(n.UpdatedAt)
	if !n.HealthCheckedAt.IsZero() {
		n.HealthCheckedAt = utc(n.HealthCheckedAt)
	}
	return n
}

func copyNumber(n domain.BusinessNumber) domain.BusinessNumber {
	n.Workspaces = slices.Clone(n.Workspaces)
	n.AccessToken.Data = slices.Clone(n.AccessToken.Data)
	return n
}
