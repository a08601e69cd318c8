package sqlstore

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/heraldhq/herald/domain"
)

// A webhook group applies many statuses in one transaction. Read and
// written one at a time, each took two statements (UpdateLocatedMessage);
// the group reads its messages in one statement (LockMessages) and, on
// PostgreSQL, writes what changed in one more (WriteMessageDeliveries).
//
// On PostgreSQL both are planned at every run (selectPlanned): kept as
// generic plans made while messages was small, both read the whole table,
// 11 and 14 ms a run at 22,500 messages, where the indexes take a fraction
// of a millisecond (docs/benchmarks.md).

// LockMessages reads the messages with the ids or provider ids, in id
// order, locking them on PostgreSQL (SQLite's write transaction holds the
// database's one write lock already).
func (s *Store) LockMessages(ctx context.Context, ids []domain.MessageID, providerIDs []string) ([]domain.Message, error) {
	q := `SELECT ` + messageColumns + ` FROM messages
WHERE ` + s.d.inList("id", "ids") + ` OR ` + s.d.inList("provider_id", "provider_ids") + `
ORDER BY id` + s.d.lockRows()
	if len(ids) == 0 && len(providerIDs) == 0 {
		return nil, nil
	}
	idList := make([]string, 0, len(ids))
	for _, id := range ids {
		idList = append(idList, string(id))
	}
	idJSON, err := toJSON(idList)
	if err != nil {
		return nil, err
	}
	providerJSON, err := toJSON(append(make([]string, 0, len(providerIDs)), providerIDs...))
	if err != nil {
		return nil, err
	}
	var rows []messageRow
	if err := s.selectPlanned(ctx, &rows, q, map[string]any{"ids": idJSON, "provider_ids": providerJSON}); err != nil {
		return nil, s.fail("lock messages", err, nil)
	}
	out := make([]domain.Message, 0, len(rows))
	for _, r := range rows {
		m, err := r.toDomain()
		if err != nil {
			return nil, s.fail("lock messages", err, nil)
		}
		out = append(out, m)
	}
	return out, nil
}

// WriteMessageDeliveries writes each message's delivery: on PostgreSQL in
// one UPDATE from a JSON list of the rows, in SQLite one prepared UPDATE
// per message (in process, a long statement cost more to parse than it
// saved).
func (s *Store) WriteMessageDeliveries(ctx context.Context, ms []domain.Message) error {
	const q = `UPDATE messages AS m
SET status = u.status, history = u.history, provider_id = u.provider_id, wa_id = u.wa_id, failure_code = u.failure_code,
    failure_title = u.failure_title, failure_herald_code = u.failure_herald_code, pricing = u.pricing, updated_at = u.updated_at,
    sent_at = u.sent_at, delivered_at = u.delivered_at, read_at = u.read_at, failed_at = u.failed_at
FROM jsonb_to_recordset(CAST(:rows AS jsonb)) AS u (id text, status text, history jsonb, provider_id text, wa_id text,
    failure_code integer, failure_title text, failure_herald_code text, pricing jsonb, updated_at timestamptz,
    sent_at timestamptz, delivered_at timestamptz, read_at timestamptz, failed_at timestamptz)
WHERE m.id = u.id COLLATE "C"`
	if len(ms) == 0 {
		return nil
	}
	return s.inTx(ctx, func(ctx context.Context, ts *Store) error {
		if !ts.d.remote() {
			for _, m := range ms {
				ok, err := ts.updateMessageDelivery(ctx, m)
				if err != nil {
					return ts.fail("write message deliveries", err, nil)
				}
				if !ok {
					return domain.NotFound(domain.ErrMessageNotFound)
				}
			}
			return nil
		}
		rows := make([]deliveryJSON, 0, len(ms))
		for _, m := range ms {
			r, err := toMessageDeliveryRow(m)
			if err != nil {
				return err
			}
			rows = append(rows, r.toJSON(m.ID))
		}
		list, err := json.Marshal(rows)
		if err != nil {
			return fmt.Errorf("sqlstore: encode message deliveries: %w", err)
		}
		res, err := ts.execPlanned(ctx, q, map[string]any{"rows": string(list)})
		if err != nil {
			return ts.fail("write message deliveries", err, nil)
		}
		n, err := res.RowsAffected()
		if err != nil {
			return ts.fail("write message deliveries", err, nil)
		}
		if n != int64(len(ms)) {
			return domain.NotFound(domain.ErrMessageNotFound)
		}
		return nil
	})
}

// deliveryJSON is a message's delivery as one element of
// WriteMessageDeliveries' JSON list: NULL where the column is NULL, the
// JSON columns as they are, times in RFC 3339 with microseconds.
type deliveryJSON struct {
	ID            string          `json:"id"`
	Status        string          `json:"status"`
	History       json.RawMessage `json:"history"`
	ProviderID    *string         `json:"provider_id"`
	WaID          string          `json:"wa_id"`
	FailureCode   *int64          `json:"failure_code"`
	FailureTitle  *string         `json:"failure_title"`
	FailureHerald string          `json:"failure_herald_code"`
	Pricing       json.RawMessage `json:"pricing"`
	UpdatedAt     time.Time       `json:"updated_at"`
	SentAt        *time.Time      `json:"sent_at"`
	DeliveredAt   *time.Time      `json:"delivered_at"`
	ReadAt        *time.Time      `json:"read_at"`
	FailedAt      *time.Time      `json:"failed_at"`
}

func (r messageDeliveryRow) toJSON(id domain.MessageID) deliveryJSON {
	text := func(s nullString) *string {
		if s == "" {
			return nil
		}
		v := string(s)
		return &v
	}
	at := func(t nullTime) *time.Time {
		if !t.Valid {
			return nil
		}
		v := time.Time(t.T).UTC()
		return &v
	}
	out := deliveryJSON{ID: string(id), Status: r.Status, History: json.RawMessage(r.History), ProviderID: text(r.ProviderID),
		WaID: r.WaID, FailureTitle: text(r.FailureTitle), FailureHerald: r.FailureHerald, Pricing: json.RawMessage("null"),
		UpdatedAt: time.Time(r.UpdatedAt).UTC(), SentAt: at(r.SentAt), DeliveredAt: at(r.DeliveredAt), ReadAt: at(r.ReadAt),
		FailedAt: at(r.FailedAt)}
	if r.FailureCode.Valid {
		out.FailureCode = &r.FailureCode.Int64
	}
	if r.Pricing != "" {
		out.Pricing = json.RawMessage(r.Pricing)
	}
	return out
}
