package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"github.com/heraldhq/herald/domain"
)

type idempotencyRow struct {
	WorkspaceID string `db:"workspace_id"`
	Mode        string `db:"mode"`
	Key         string `db:"key"`
	Fingerprint string `db:"fingerprint"`
	MessageID   string `db:"message_id"`
	CreatedAt   dbTime `db:"created_at"`
}

// FindIdempotencyRecord returns the record of key in the workspace and
// mode, if any.
func (s *Store) FindIdempotencyRecord(ctx context.Context, ws domain.WorkspaceID, mode domain.KeyMode, key domain.IdempotencyKey) (domain.IdempotencyRecord, bool, error) {
	const q = `SELECT workspace_id, mode, key, fingerprint, message_id, created_at FROM idempotency_keys
WHERE workspace_id = :workspace_id AND mode = :mode AND key = :key`
	var row idempotencyRow
	err := s.get(ctx, &row, q, map[string]any{"workspace_id": string(ws), "mode": mode.String(), "key": string(key)})
	if errors.Is(err, sql.ErrNoRows) {
		return domain.IdempotencyRecord{}, false, nil
	}
	if err != nil {
		return domain.IdempotencyRecord{}, false, s.fail("find idempotency record", err, nil)
	}
	m, err := parseStored("key mode", row.Mode, domain.ParseKeyMode)
	if err != nil {
		return domain.IdempotencyRecord{}, false, s.fail("find idempotency record", err, nil)
	}
	return domain.IdempotencyRecord{Workspace: domain.WorkspaceID(row.WorkspaceID), Mode: m, Key: domain.IdempotencyKey(row.Key),
		Fingerprint: domain.Fingerprint(row.Fingerprint), Message: domain.MessageID(row.MessageID),
		CreatedAt: row.CreatedAt.time()}, true, nil
}

// ClaimIdempotencyKey inserts the record, or replaces one created before
// staleBefore. One statement on both engines: a fresh record leaves the
// upsert's WHERE false, so no row changes and the claim is refused. On
// PostgreSQL a concurrent claim of the same key waits on the primary key
// until the first transaction ends; nothing aborts the transaction.
func (s *Store) ClaimIdempotencyKey(ctx context.Context, rec domain.IdempotencyRecord, staleBefore time.Time) error {
	const q = `INSERT INTO idempotency_keys (workspace_id, mode, key, fingerprint, message_id, created_at)
VALUES (:workspace_id, :mode, :key, :fingerprint, :message_id, :created_at)
ON CONFLICT (workspace_id, mode, key) DO UPDATE
SET fingerprint = excluded.fingerprint, message_id = excluded.message_id, created_at = excluded.created_at
WHERE idempotency_keys.created_at < :stale_before`
	changed, err := s.execOne(ctx, q, map[string]any{
		"workspace_id": string(rec.Workspace), "mode": rec.Mode.String(), "key": string(rec.Key), "fingerprint": string(rec.Fingerprint),
		"message_id": string(rec.Message), "created_at": newDBTime(rec.CreatedAt), "stale_before": newDBTime(staleBefore),
	})
	if err != nil {
		return s.fail("claim idempotency key", err, nil)
	}
	if !changed {
		return domain.ErrConflict
	}
	return nil
}

// PurgeIdempotencyRecords deletes records created before the time.
func (s *Store) PurgeIdempotencyRecords(ctx context.Context, before time.Time) (int, error) {
	const q = `DELETE FROM idempotency_keys WHERE created_at < :before`
	return s.purge(ctx, "purge idempotency records", q, before)
}

// CountSend adds one to the day's count unless it has reached limit, in one
// statement: the upsert's WHERE leaves a full count unchanged.
func (s *Store) CountSend(ctx context.Context, ws domain.WorkspaceID, mode domain.KeyMode, day time.Time, limit int) (bool, error) {
	const q = `INSERT INTO send_counts (workspace_id, mode, day, sends)
VALUES (:workspace_id, :mode, :day, 1)
ON CONFLICT (workspace_id, mode, day) DO UPDATE SET sends = send_counts.sends + 1
WHERE send_counts.sends < :limit`
	if limit < 1 {
		return false, nil
	}
	counted, err := s.execOne(ctx, q, map[string]any{
		"workspace_id": string(ws), "mode": mode.String(), "day": newDBTime(day), "limit": limit,
	})
	return counted, s.fail("count send", err, nil)
}

// PurgeSendCounts deletes the counts of days before the time.
func (s *Store) PurgeSendCounts(ctx context.Context, before time.Time) (int, error) {
	const q = `DELETE FROM send_counts WHERE day < :before`
	return s.purge(ctx, "purge send counts", q, before)
}

// purge runs a DELETE of rows older than before and says how many went.
func (s *Store) purge(ctx context.Context, what, q string, before time.Time) (int, error) {
	res, err := s.exec(ctx, q, map[string]any{"before": newDBTime(before)})
	if err != nil {
		return 0, s.fail(what, err, nil)
	}
	n, err := res.RowsAffected()
	return int(n), s.fail(what, err, nil)
}
