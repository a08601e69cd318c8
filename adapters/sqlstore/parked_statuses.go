package sqlstore

import (
	"cmp"
	"context"
	"database/sql"
	"errors"
	"slices"
	"time"

	"github.com/heraldhq/herald/domain"
	"github.com/heraldhq/herald/ports"
)

type parkedRow struct {
	ProviderID   string        `db:"provider_id"`
	Status       string        `db:"status"`
	MessageID    string        `db:"message_id"`
	At           dbTime        `db:"at"`
	FailureCode  sql.NullInt64 `db:"failure_code"`
	FailureTitle nullString    `db:"failure_title"`
	Pricing      nullJSON      `db:"pricing"`
	ParkedAt     dbTime        `db:"parked_at"`
}

const parkedColumns = `provider_id, status, message_id, at, failure_code, failure_title, pricing, parked_at`

func toParkedRow(e ports.StatusEvent, parkedAt time.Time) (parkedRow, error) {
	pricing, err := toPricingJSON(e.Pricing)
	if err != nil {
		return parkedRow{}, err
	}
	row := parkedRow{
		ProviderID: e.ProviderID, Status: e.Status.String(), MessageID: string(e.MessageID), At: newDBTime(e.At),
		Pricing: pricing, ParkedAt: newDBTime(parkedAt),
	}
	if e.Failure != nil {
		row.FailureCode = sql.NullInt64{Int64: int64(e.Failure.Code), Valid: true}
		row.FailureTitle = nullString(e.Failure.Title)
	}
	return row, nil
}

func (r parkedRow) toEvent() (ports.StatusEvent, error) {
	status, err := parseStored("message status", r.Status, domain.ParseMessageStatus)
	if err != nil {
		return ports.StatusEvent{}, err
	}
	pricing, err := fromPricingJSON(r.Pricing, "parked status of "+r.ProviderID)
	if err != nil {
		return ports.StatusEvent{}, err
	}
	e := ports.StatusEvent{
		MessageID: domain.MessageID(r.MessageID), ProviderID: r.ProviderID, Status: status, At: r.At.time(),
		Pricing: pricing,
	}
	if r.FailureCode.Valid {
		e.Failure = &domain.Failure{Code: int(r.FailureCode.Int64), Title: string(r.FailureTitle)}
	}
	return e, nil
}

// ParkStatus keeps a status event for a wamid no message holds yet. The
// same status for the same wamid is kept once: the first one parked stays,
// and a repeat is ignored without an error (ON CONFLICT DO NOTHING, so a
// PostgreSQL transaction carries on).
func (s *Store) ParkStatus(ctx context.Context, e ports.StatusEvent, parkedAt time.Time) error {
	const q = `INSERT INTO parked_statuses (` + parkedColumns + `)
VALUES (:provider_id, :status, :message_id, :at, :failure_code, :failure_title, :pricing, :parked_at)
ON CONFLICT (provider_id, status) DO NOTHING`
	if e.ProviderID == "" {
		return s.fail("park status", errors.New("the event has no provider id"), nil)
	}
	row, err := toParkedRow(e, parkedAt)
	if err == nil {
		_, err = s.exec(ctx, q, row)
	}
	return s.fail("park status", err, nil)
}

// TakeParkedStatuses deletes the events parked for the wamid and returns
// them oldest event first (ties in lifecycle order). Concurrent takers each
// get an event at most once: the delete claims it.
func (s *Store) TakeParkedStatuses(ctx context.Context, providerID string) ([]ports.StatusEvent, error) {
	const q = `DELETE FROM parked_statuses WHERE provider_id = :provider_id
RETURNING ` + parkedColumns
	unlock, err := s.lockWriter(ctx) // a DELETE, though it returns rows
	if err != nil {
		return nil, s.fail("take parked statuses", err, nil)
	}
	var rows []parkedRow
	err = s.selectAll(ctx, &rows, q, map[string]any{"provider_id": providerID})
	unlock()
	if err != nil {
		return nil, s.fail("take parked statuses", err, nil)
	}
	out := make([]ports.StatusEvent, 0, len(rows))
	for _, r := range rows {
		e, err := r.toEvent()
		if err != nil {
			return nil, s.fail("take parked statuses", err, nil)
		}
		out = append(out, e)
	}
	sortStatusEvents(out)
	return out, nil
}

// PurgeParkedStatuses deletes the events parked before the time and says
// how many went.
func (s *Store) PurgeParkedStatuses(ctx context.Context, before time.Time) (int, error) {
	const q = `DELETE FROM parked_statuses WHERE parked_at < :before`
	res, err := s.exec(ctx, q, map[string]any{"before": newDBTime(before)})
	if err != nil {
		return 0, s.fail("purge parked statuses", err, nil)
	}
	n, err := res.RowsAffected()
	return int(n), s.fail("purge parked statuses", err, nil)
}

// sortStatusEvents orders events by time, then in lifecycle order.
func sortStatusEvents(es []ports.StatusEvent) {
	rank := func(st domain.MessageStatus) int { return slices.Index(domain.MessageStatuses(), st) }
	slices.SortStableFunc(es, func(a, b ports.StatusEvent) int {
		return cmp.Or(a.At.Compare(b.At), cmp.Compare(rank(a.Status), rank(b.Status)))
	})
}
