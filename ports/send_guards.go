package ports

import (
	"context"
	"time"

	"github.com/heraldhq/herald/domain"
)

//go:generate go tool moq -rm -pkg portsmock -out portsmock/idempotency_repository.go . IdempotencyRepository

// IdempotencyRepository stores the Idempotency-Keys sends have claimed.
type IdempotencyRepository interface {
	// FindIdempotencyRecord returns the record of key in the workspace and
	// mode, and false when there is none.
	FindIdempotencyRecord(ctx context.Context, ws domain.WorkspaceID, mode domain.KeyMode, key domain.IdempotencyKey) (domain.IdempotencyRecord, bool, error)
	// ClaimIdempotencyKey stores rec. A record of the same workspace, mode
	// and key created at or after staleBefore makes it fail with
	// domain.ErrConflict and change nothing; an older one is replaced. In a
	// transaction, a concurrent claim of the same key waits for this one
	// to commit or roll back, and the loser gets domain.ErrConflict.
	ClaimIdempotencyKey(ctx context.Context, rec domain.IdempotencyRecord, staleBefore time.Time) error
	// PurgeIdempotencyRecords deletes records created before the time and
	// says how many went.
	PurgeIdempotencyRecords(ctx context.Context, before time.Time) (int, error)
}

// SendCountRepository counts each workspace's accepted sends per UTC day and
// mode, for the daily send cap.
type SendCountRepository interface {
	// CountSend adds one to the workspace's count for mode on day (a UTC
	// midnight) unless the count has reached limit, and reports whether it
	// counted; a limit below 1 counts nothing. In a transaction it is undone
	// by a rollback.
	CountSend(ctx context.Context, ws domain.WorkspaceID, mode domain.KeyMode, day time.Time, limit int) (bool, error)
	// PurgeSendCounts deletes the counts of days before the time.
	PurgeSendCounts(ctx context.Context, before time.Time) (int, error)
}
