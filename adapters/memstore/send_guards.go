package memstore

import (
	"context"
	"time"

	"github.com/heraldhq/herald/domain"
)

// idemKey is a claimed Idempotency-Key's identity: one per workspace and
// mode.
type idemKey struct {
	ws   domain.WorkspaceID
	mode domain.KeyMode
	key  domain.IdempotencyKey
}

// countKey is one workspace's sends in one mode on one UTC day.
type countKey struct {
	ws   domain.WorkspaceID
	mode domain.KeyMode
	day  time.Time
}

// FindIdempotencyRecord returns the record of key in the workspace and
// mode, if any.
func (r *repos) FindIdempotencyRecord(ctx context.Context, ws domain.WorkspaceID, mode domain.KeyMode, key domain.IdempotencyKey) (domain.IdempotencyRecord, bool, error) {
	defer r.enter(ctx)()
	rec, ok := r.st.idempotency[idemKey{ws, mode, key}]
	return rec, ok, nil
}

// ClaimIdempotencyKey stores rec unless a record of its key created at or
// after staleBefore exists.
func (r *repos) ClaimIdempotencyKey(ctx context.Context, rec domain.IdempotencyRecord, staleBefore time.Time) error {
	defer r.enter(ctx)()
	k := idemKey{rec.Workspace, rec.Mode, rec.Key}
	if old, ok := r.st.idempotency[k]; ok && !old.CreatedAt.Before(utc(staleBefore)) {
		return domain.ErrConflict
	}
	rec.CreatedAt = utc(rec.CreatedAt)
	put(r.st, r.st.idempotency, k, rec)
	return nil
}

// PurgeIdempotencyRecords removes records created before the time.
func (r *repos) PurgeIdempotencyRecords(ctx context.Context, before time.Time) (int, error) {
	defer r.enter(ctx)()
	before = utc(before)
	return deleteWhere(r.st, r.st.idempotency, func(_ idemKey, rec domain.IdempotencyRecord) bool {
		return rec.CreatedAt.Before(before)
	}), nil
}

// CountSend adds one to the day's count unless it has reached limit.
func (r *repos) CountSend(ctx context.Context, ws domain.WorkspaceID, mode domain.KeyMode, day time.Time, limit int) (bool, error) {
	defer r.enter(ctx)()
	k := countKey{ws, mode, utc(day)}
	n := r.st.sendCounts[k]
	if n >= limit || limit < 1 {
		return false, nil
	}
	put(r.st, r.st.sendCounts, k, n+1)
	return true, nil
}

// PurgeSendCounts removes the counts of days before the time.
func (r *repos) PurgeSendCounts(ctx context.Context, before time.Time) (int, error) {
	defer r.enter(ctx)()
	before = utc(before)
	return deleteWhere(r.st, r.st.sendCounts, func(k countKey, _ int) bool { return k.day.Before(before) }), nil
}
