package sqlstore

import (
	"context"
	"fmt"

	"github.com/heraldhq/herald/domain"
	"github.com/heraldhq/herald/ports"
)

type entryRow struct {
	ID             string     `db:"id"`
	WorkspaceID    string     `db:"workspace_id"`
	Mode           string     `db:"mode"`
	ContactID      string     `db:"contact_id"`
	ConversationID string     `db:"conversation_id"`
	Direction      string     `db:"direction"`
	Kind           string     `db:"kind"`
	MessageID      nullString `db:"message_id"`
	Status         nullString `db:"status"`
	Body           string     `db:"body"`
	ProviderID     nullString `db:"provider_id"`
	Payload        string     `db:"payload"`
	Media          nullJSON   `db:"media"`
	ReplyTo        nullString `db:"reply_to"`
	CreatedAt      dbTime     `db:"created_at"`
}

// attachmentJSON is the stored form of an inbound entry's media.
type attachmentJSON struct {
	ID       string `json:"id"`
	MimeType string `json:"mimeType"`
	SHA256   string `json:"sha256"`
	Filename string `json:"filename"`
}

func toEntryRow(e domain.Entry) (entryRow, error) {
	var media nullJSON
	if a := e.Media; a != nil {
		var err error
		if media, err = toNullJSON(&attachmentJSON{ID: a.ID, MimeType: a.MimeType, SHA256: a.SHA256, Filename: a.Filename}); err != nil {
			return entryRow{}, err
		}
	}
	return entryRow{
		ID: string(e.ID), WorkspaceID: string(e.Workspace), Mode: e.Mode.String(), ContactID: string(e.ContactID),
		ConversationID: string(e.ConversationID), Direction: e.Direction.String(), Kind: e.Kind,
		MessageID: nullString(e.MessageID), Status: nullString(e.Status.String()), Body: e.Body,
		ProviderID: nullString(e.ProviderID), Payload: e.Payload, Media: media, ReplyTo: nullString(e.ReplyTo),
		CreatedAt: newDBTime(e.CreatedAt),
	}, nil
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
	mode, err := parseStored("mode of entry "+r.ID, r.Mode, domain.ParseKeyMode)
	if err != nil {
		return domain.Entry{}, err
	}
	var a attachmentJSON
	ok, err := r.Media.decode(&a)
	if err != nil {
		return domain.Entry{}, corrupt("media of entry "+r.ID, string(r.Media))
	}
	var media *domain.Attachment
	if ok {
		media = &domain.Attachment{ID: a.ID, MimeType: a.MimeType, SHA256: a.SHA256, Filename: a.Filename}
	}
	return domain.Entry{
		ID: domain.EntryID(r.ID), Workspace: domain.WorkspaceID(r.WorkspaceID), Mode: mode, ContactID: domain.ContactID(r.ContactID),
		ConversationID: domain.ConversationID(r.ConversationID), Direction: dir, Kind: r.Kind,
		MessageID: domain.MessageID(r.MessageID), Status: status, Body: r.Body,
		ProviderID: string(r.ProviderID), Payload: r.Payload, Media: media, ReplyTo: domain.MessageID(r.ReplyTo),
		CreatedAt: r.CreatedAt.time(),
	}, nil
}

// AppendEntries adds entries to contacts' threads in one statement. An
// entry whose provider id (an inbound message's wamid) the workspace already
// holds is not stored, and makes the call a conflict. The statement skips
// such entries rather than fail, so a PostgreSQL transaction it runs in
// stays usable; a duplicate entry id still fails the statement.
func (s *Store) AppendEntries(ctx context.Context, es ...domain.Entry) error {
	const q = `INSERT INTO conversation_entries
    (id, workspace_id, mode, contact_id, conversation_id, direction, kind, message_id, status, body, provider_id, payload,
     media, reply_to, created_at)
VALUES (:id, :workspace_id, :mode, :contact_id, :conversation_id, :direction, :kind, :message_id, :status, :body,
        :provider_id, :payload, :media, :reply_to, :created_at)
ON CONFLICT (workspace_id, provider_id) WHERE provider_id IS NOT NULL DO NOTHING`
	if len(es) == 0 {
		return nil
	}
	rows := make([]entryRow, len(es))
	for i, e := range es {
		var err error
		if rows[i], err = toEntryRow(e); err != nil {
			return s.fail("append entries", err, nil)
		}
	}
	n, err := execRows(ctx, s, q, rows)
	if err != nil {
		return s.fail("append entries", err, nil)
	}
	if n < int64(len(es)) {
		conflict := &domain.Error{Code: domain.CodeConflict, Detail: "the workspace already holds an entry with this provider id"}
		return fmt.Errorf("sqlstore: append entries: %d of %d not stored: %w", int64(len(es))-n, len(es), conflict)
	}
	return nil
}

// GetInboundEntry finds an inbound entry by its wamid, through the
// workspace's unique index of wamids.
func (s *Store) GetInboundEntry(ctx context.Context, ws domain.WorkspaceID, mode domain.KeyMode, providerID string) (domain.Entry, error) {
	const q = `SELECT e.id, e.workspace_id, e.mode, e.contact_id, e.conversation_id, e.direction, e.kind, e.message_id,
       e.status, e.body, e.provider_id, e.payload, e.media, e.reply_to, e.created_at
FROM conversation_entries e
WHERE e.workspace_id = :workspace_id AND e.provider_id = :provider_id AND e.direction = 'inbound'
  AND (:mode = '' OR e.mode = :mode)`
	var rows []entryRow
	arg := map[string]any{"workspace_id": string(ws), "provider_id": providerID, "mode": mode.String()}
	if err := s.selectAll(ctx, &rows, q, arg); err != nil {
		return domain.Entry{}, s.fail("get inbound entry", err, nil)
	}
	if len(rows) == 0 {
		return domain.Entry{}, domain.NotFound(domain.ErrMessageNotFound)
	}
	e, err := rows[0].toDomain()
	if err != nil {
		return domain.Entry{}, s.fail("get inbound entry", err, nil)
	}
	return e, nil
}

// ListEntries returns one page of a contact's thread of mode (every mode
// when zero), newest first, and the cursor of the next page (empty on the
// last). An outbound entry carries the current status of its message.
func (s *Store) ListEntries(ctx context.Context, ws domain.WorkspaceID, contact domain.ContactID, mode domain.KeyMode, p ports.Page) ([]domain.Entry, string, error) {
	const q = `SELECT e.id, e.workspace_id, e.mode, e.contact_id, e.conversation_id, e.direction, e.kind, e.message_id,
       COALESCE(m.status, e.status) AS status, e.body, e.provider_id, e.payload, e.media, e.reply_to, e.created_at
FROM conversation_entries e
LEFT JOIN messages m ON m.id = e.message_id AND m.workspace_id = e.workspace_id
WHERE e.workspace_id = :workspace_id AND e.contact_id = :contact_id AND (:cursor = '' OR e.id < :cursor)
  AND (:mode = '' OR e.mode = :mode)
ORDER BY e.id DESC
LIMIT :limit`
	limit := pageLimit(p)
	var rows []entryRow
	arg := map[string]any{"workspace_id": string(ws), "contact_id": string(contact), "mode": mode.String(), "cursor": p.Cursor,
		"limit": limit + 1}
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
