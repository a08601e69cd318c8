package sqlstore

import (
	"context"

	"github.com/heraldhq/herald/domain"
	"github.com/heraldhq/herald/ports"
)

type entryRow struct {
	ID             string     `db:"id"`
	WorkspaceID    string     `db:"workspace_id"`
	ContactID      string     `db:"contact_id"`
	ConversationID string     `db:"conversation_id"`
	Direction      string     `db:"direction"`
	MessageID      nullString `db:"message_id"`
	Status         nullString `db:"status"`
	Body           string     `db:"body"`
	CreatedAt      dbTime     `db:"created_at"`
}

func toEntryRow(e domain.Entry) entryRow {
	return entryRow{
		ID: string(e.ID), WorkspaceID: string(e.Workspace), ContactID: string(e.ContactID),
		ConversationID: string(e.ConversationID), Direction: e.Direction.String(),
		MessageID: nullString(e.MessageID), Status: nullString(e.Status.String()), Body: e.Body,
		CreatedAt: newDBTime(e.CreatedAt),
	}
}

func (r entryRow) toDomain() (domain.Entry, error) {
	dir, err := parseStored("direction", r.Direction, domain.ParseDirection)
	if err != nil {
		return domain.Entry{}, err
	}
	status, err := parseStored("message status", string(r.Status), domain.ParseMessageStatus)
	if err != nil {
		return domain.Entry{}, err
	}
	return domain.Entry{
		ID: domain.EntryID(r.ID), Workspace: domain.WorkspaceID(r.WorkspaceID), ContactID: domain.ContactID(r.ContactID),
		ConversationID: domain.ConversationID(r.ConversationID), Direction: dir,
		MessageID: domain.MessageID(r.MessageID), Status: status, Body: r.Body, CreatedAt: r.CreatedAt.time(),
	}, nil
}

// AppendEntry adds an entry to a contact's thread.
func (s *Store) AppendEntry(ctx context.Context, e domain.Entry) error {
	const q = `INSERT INTO conversation_entries
    (id, workspace_id, contact_id, conversation_id, direction, message_id, status, body, created_at)
VALUES (:id, :workspace_id, :contact_id, :conversation_id, :direction, :message_id, :status, :body, :created_at)`
	_, err := s.exec(ctx, q, toEntryRow(e))
	return s.fail("append entry", err, nil)
}

// ListEntries returns one page of a contact's thread, newest first, and the
// cursor of the next page (empty on the last). An outbound entry carries the
// current status of its message.
func (s *Store) ListEntries(ctx context.Context, ws domain.WorkspaceID, contact domain.ContactID, p ports.Page) ([]domain.Entry, string, error) {
	const q = `SELECT e.id, e.workspace_id, e.contact_id, e.conversation_id, e.direction, e.message_id,
       COALESCE(m.status, e.status) AS status, e.body, e.created_at
FROM conversation_entries e
LEFT JOIN messages m ON m.id = e.message_id AND m.workspace_id = e.workspace_id
WHERE e.workspace_id = :workspace_id AND e.contact_id = :contact_id AND (:cursor = '' OR e.id < :cursor)
ORDER BY e.id DESC
LIMIT :limit`
	limit := pageLimit(p)
	var rows []entryRow
	arg := map[string]any{"workspace_id": string(ws), "contact_id": string(contact), "cursor": p.Cursor, "limit": limit + 1}
	if err := s.selectAll(ctx, &rows, q, arg); err != nil {
		return nil, "", s.fail("list entries", err, nil)
	}
	next := ""
	if len(rows) > limit {
		rows = rows[:limit]
		next = rows[limit-1].ID
	}
	out := make([]domain.Entry, 0, len(rows))
	for _, r := range rows {
		e, err := r.toDomain()
		if err != nil {
			return nil, "", s.fail("list entries", err, nil)
		}
		out = append(out, e)
	}
	return out, next, nil
}
