package sqlstore

import (
	"context"
	"strconv"
	"strings"
	"time"

	"github.com/heraldhq/herald/domain"
	"github.com/heraldhq/herald/ports"
)

// threadRow is a contact with its thread's newest entry (the e_ columns,
// NULL when the thread is empty) and unread count.
type threadRow struct {
	contactRow
	ReadThrough     nullString `db:"read_through"`
	LastEntryID     nullString `db:"last_entry_id"`
	Unread          int        `db:"unread"`
	EntryID         nullString `db:"e_id"`
	EntryMode       nullString `db:"e_mode"`
	EntryConv       nullString `db:"e_conversation_id"`
	EntryDirection  nullString `db:"e_direction"`
	EntryKind       nullString `db:"e_kind"`
	EntryMessageID  nullString `db:"e_message_id"`
	EntryStatus     nullString `db:"e_status"`
	EntryBody       nullString `db:"e_body"`
	EntryProviderID nullString `db:"e_provider_id"`
	EntryPayload    nullString `db:"e_payload"`
	EntryMedia      nullJSON   `db:"e_media"`
	EntryReplyTo    nullString `db:"e_reply_to"`
	EntryCreatedAt  nullTime   `db:"e_created_at"`
}

func (r threadRow) toDomain() (domain.Thread, error) {
	c, err := r.contactRow.toDomain()
	if err != nil {
		return domain.Thread{}, err
	}
	t := domain.Thread{Contact: c, Unread: r.Unread}
	if r.EntryID == "" {
		return t, nil
	}
	e := entryRow{ID: string(r.EntryID), WorkspaceID: r.WorkspaceID, Mode: string(r.EntryMode), ContactID: r.ID,
		ConversationID: string(r.EntryConv), Direction: string(r.EntryDirection), Kind: string(r.EntryKind),
		MessageID: r.EntryMessageID, Status: r.EntryStatus, Body: string(r.EntryBody), ProviderID: r.EntryProviderID,
		Payload: string(r.EntryPayload), Media: r.EntryMedia, ReplyTo: r.EntryReplyTo, CreatedAt: r.EntryCreatedAt.T}
	if t.Last, err = e.toDomain(); err != nil {
		return domain.Thread{}, err
	}
	return t, nil
}

// ListThreads lists conversations by last activity in one statement: the
// page of contacts comes from the contacts_last_activity index, each
// row's newest entry id and unread count from the thread's (workspace_id,
// contact_id, id) index, and the newest entry and its message by their
// primary keys. The ids are compared in the collation of the index that
// serves each comparison (Dialect.asID, asRef).
func (s *Store) ListThreads(ctx context.Context, ws domain.WorkspaceID, mode domain.KeyMode, p ports.Page) ([]domain.Thread, string, error) {
	qPage := `SELECT ` + contactColumns + `, read_through FROM contacts
      WHERE workspace_id = :workspace_id AND last_message_at IS NOT NULL AND (:mode = '' OR mode = :mode)`
	if p.Cursor != "" {
		qPage += `
        AND last_message_at <= :at AND (last_message_at < :at OR id < :id)`
	}
	qPage += `
      ORDER BY last_message_at DESC, id DESC
      LIMIT :limit`
	q := `SELECT t.*,
  e.id AS e_id, e.mode AS e_mode, e.conversation_id AS e_conversation_id, e.direction AS e_direction, e.kind AS e_kind,
  e.message_id AS e_message_id, COALESCE(m.status, e.status) AS e_status, e.body AS e_body,
  e.provider_id AS e_provider_id, e.payload AS e_payload, e.media AS e_media, e.reply_to AS e_reply_to,
  e.created_at AS e_created_at
FROM (
  SELECT c.*,
    (SELECT x.id FROM conversation_entries x
     WHERE x.workspace_id = c.workspace_id AND x.contact_id = ` + s.d.asRef("c.id") + `
     ORDER BY x.id DESC LIMIT 1) AS last_entry_id,
    (SELECT COUNT(*) FROM conversation_entries u
     WHERE u.workspace_id = c.workspace_id AND u.contact_id = ` + s.d.asRef("c.id") + ` AND u.direction = 'inbound'
       AND (c.read_through IS NULL OR u.id > c.read_through)) AS unread
  FROM (` + qPage + `) c
) t
LEFT JOIN conversation_entries e ON e.id = t.last_entry_id
LEFT JOIN messages m ON m.id = ` + s.d.asID("e.message_id") + ` AND m.workspace_id = e.workspace_id
ORDER BY t.last_message_at DESC, t.id DESC`
	limit := pageLimit(p)
	arg := map[string]any{"workspace_id": string(ws), "mode": mode.String(), "limit": limit + 1}
	if p.Cursor != "" {
		at, id, err := parseThreadCursor(p.Cursor)
		if err != nil {
			return nil, "", err
		}
		arg["at"], arg["id"] = newDBTime(at), id
	}
	var rows []threadRow
	if err := s.selectAll(ctx, &rows, q, arg); err != nil {
		return nil, "", s.fail("list threads", err, nil)
	}
	next := ""
	if len(rows) > limit {
		rows = rows[:limit]
		last := rows[limit-1]
		next = threadCursor(last.LastMessageAt.T.time(), last.ID)
	}
	out := make([]domain.Thread, 0, len(rows))
	for _, r := range rows {
		t, err := r.toDomain()
		if err != nil {
			return nil, "", s.fail("list threads", err, nil)
		}
		out = append(out, t)
	}
	return out, next, nil
}

// threadCursor is the position after a conversation: its last message
// time in Unix microseconds and its contact id.
func threadCursor(at time.Time, id string) string {
	return strconv.FormatInt(at.UnixMicro(), 10) + "." + id
}

func parseThreadCursor(cursor string) (time.Time, string, error) {
	micros, id, ok := strings.Cut(cursor, ".")
	n, err := strconv.ParseInt(micros, 10, 64)
	if !ok || err != nil || id == "" {
		return time.Time{}, "", domain.InvalidParameter("cursor", "the cursor is not one this list returned")
	}
	return time.UnixMicro(n).UTC(), id, nil
}

// MarkThreadRead moves the contact's read mark forward to through and
// returns the mark it had; an older mark changes nothing.
func (s *Store) MarkThreadRead(ctx context.Context, ws domain.WorkspaceID, contact domain.ContactID, through domain.EntryID) (domain.EntryID, error) {
	const (
		qGet = `SELECT read_through FROM contacts WHERE workspace_id = :workspace_id AND id = :id`
		qSet = `UPDATE contacts SET read_through = :through WHERE workspace_id = :workspace_id AND id = :id`
	)
	arg := map[string]any{"workspace_id": string(ws), "id": string(contact), "through": string(through)}
	var before nullString
	err := s.inTx(ctx, func(ctx context.Context, ts *Store) error {
		if err := ts.get(ctx, &before, qGet+ts.d.lockRows(), arg); err != nil {
			return ts.fail("mark thread read", err, domain.ErrContactNotFound)
		}
		if domain.EntryID(before) >= through {
			return nil
		}
		_, err := ts.exec(ctx, qSet, arg)
		return ts.fail("mark thread read", err, nil)
	})
	return domain.EntryID(before), err
}
