package sqlstore

import (
	"context"
	"crypto/sha256"
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/heraldhq/herald/domain"
)

type keyRow struct {
	ID          string   `db:"id"`
	WorkspaceID string   `db:"workspace_id"`
	Name        string   `db:"name"`
	Mode        string   `db:"mode"`
	Identifier  string   `db:"identifier"`
	Hash        []byte   `db:"hash"`
	CreatedAt   dbTime   `db:"created_at"`
	LastUsedAt  nullTime `db:"last_used_at"`
	RevokedAt   nullTime `db:"revoked_at"`
	ExpiresAt   nullTime `db:"expires_at"`
}

const keyColumns = `id, workspace_id, name, mode, identifier, hash, created_at, last_used_at, revoked_at, expires_at`

func toKeyRow(k domain.APIKey) keyRow {
	return keyRow{
		ID: string(k.ID), WorkspaceID: string(k.Workspace), Name: k.Name, Mode: k.Mode.String(),
		Identifier: k.Identifier, Hash: k.Hash[:], CreatedAt: newDBTime(k.CreatedAt),
		LastUsedAt: newNullTime(k.LastUsedAt), RevokedAt: newNullTime(k.RevokedAt), ExpiresAt: newNullTime(k.ExpiresAt),
	}
}

func (r keyRow) toDomain() (domain.APIKey, error) {
	mode, err := parseStored("key mode", r.Mode, domain.ParseKeyMode)
	if err != nil {
		return domain.APIKey{}, err
	}
	if len(r.Hash) != sha256.Size {
		return domain.APIKey{}, fmt.Errorf("sqlstore: stored hash of key %s has %d bytes", r.ID, len(r.Hash))
	}
	k := domain.APIKey{
		ID: domain.KeyID(r.ID), Workspace: domain.WorkspaceID(r.WorkspaceID), Name: r.Name, Mode: mode,
		Identifier: r.Identifier, CreatedAt: r.CreatedAt.time(),
		LastUsedAt: r.LastUsedAt.ptr(), RevokedAt: r.RevokedAt.ptr(), ExpiresAt: r.ExpiresAt.ptr(),
	}
	copy(k.Hash[:], r.Hash)
	return k, nil
}

// CreateKey stores a key; a taken identifier is a conflict.
func (s *Store) CreateKey(ctx context.Context, k domain.APIKey) error {
	const q = `INSERT INTO api_keys (` + keyColumns + `)
VALUES (:id, :workspace_id, :name, :mode, :identifier, :hash, :created_at, :last_used_at, :revoked_at, :expires_at)`
	_, err := s.exec(ctx, q, toKeyRow(k))
	return s.fail("create key", err, nil)
}

// GetKeyByIdentifier finds a key by its token's identifier, in any workspace.
func (s *Store) GetKeyByIdentifier(ctx context.Context, identifier string) (domain.APIKey, error) {
	const q = `SELECT ` + keyColumns + ` FROM api_keys WHERE identifier = :identifier`
	return s.getKey(ctx, "get key by identifier", q, map[string]any{"identifier": identifier})
}

func (s *Store) getKey(ctx context.Context, op, q string, arg any) (domain.APIKey, error) {
	var row keyRow
	if err := s.get(ctx, &row, q, arg); err != nil {
		return domain.APIKey{}, s.fail(op, err, domain.ErrKeyNotFound)
	}
	k, err := row.toDomain()
	return k, s.fail(op, err, nil)
}

// ListKeys lists a workspace's keys, newest first.
func (s *Store) ListKeys(ctx context.Context, ws domain.WorkspaceID) ([]domain.APIKey, error) {
	const q = `SELECT ` + keyColumns + ` FROM api_keys WHERE workspace_id = :workspace_id ORDER BY id DESC`
	var rows []keyRow
	if err := s.selectAll(ctx, &rows, q, map[string]any{"workspace_id": string(ws)}); err != nil {
		return nil, s.fail("list keys", err, nil)
	}
	keys := make([]domain.APIKey, 0, len(rows))
	for _, r := range rows {
		k, err := r.toDomain()
		if err != nil {
			return nil, s.fail("list keys", err, nil)
		}
		keys = append(keys, k)
	}
	return keys, nil
}

// UpdateKey runs fn on the stored key and stores the result, atomically.
// The id, workspace, mode, identifier and hash do not change.
func (s *Store) UpdateKey(ctx context.Context, ws domain.WorkspaceID, id domain.KeyID, fn func(*domain.APIKey) error) (domain.APIKey, error) {
	const qGet = `SELECT ` + keyColumns + ` FROM api_keys WHERE workspace_id = :workspace_id AND id = :id`
	const qUpdate = `UPDATE api_keys
SET name = :name, last_used_at = :last_used_at, revoked_at = :revoked_at, expires_at = :expires_at
WHERE workspace_id = :workspace_id AND id = :id`
	var k domain.APIKey
	err := s.inTx(ctx, func(ctx context.Context, ts *Store) error {
		var err error
		k, err = ts.getKey(ctx, "update key", qGet+ts.d.lockRows(), map[string]any{"workspace_id": string(ws), "id": string(id)})
		if err != nil {
			return err
		}
		stored := k
		if err := fn(&k); err != nil {
			return err
		}
		k.ID, k.Workspace, k.Mode, k.Identifier, k.Hash = stored.ID, stored.Workspace, stored.Mode, stored.Identifier, stored.Hash
		_, err = ts.exec(ctx, qUpdate, toKeyRow(k))
		return ts.fail("update key", err, nil)
	})
	if err != nil {
		return domain.APIKey{}, err
	}
	return k, nil
}

// TouchKeys records last use times in one transaction. A time earlier than
// the stored one is ignored and unknown ids are skipped.
func (s *Store) TouchKeys(ctx context.Context, lastUsed map[domain.KeyID]time.Time) error {
	const q = `UPDATE api_keys SET last_used_at = :last_used_at
WHERE id = :id AND (last_used_at IS NULL OR last_used_at < :last_used_at)`
	if len(lastUsed) == 0 {
		return nil
	}
	return s.inTx(ctx, func(ctx context.Context, ts *Store) error {
		// In id order, so concurrent batches lock rows in the same order.
		for _, id := range slices.Sorted(maps.Keys(lastUsed)) {
			arg := map[string]any{"id": string(id), "last_used_at": newDBTime(lastUsed[id])}
			if _, err := ts.exec(ctx, q, arg); err != nil {
				return ts.fail("touch keys", err, nil)
			}
		}
		return nil
	})
}
