package sqlstore

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"time"

	"github.com/heraldhq/herald/domain"
	"github.com/heraldhq/herald/ports"
)

type messageRow struct {
	ID             string     `db:"id"`
	WorkspaceID    string     `db:"workspace_id"`
	CampaignID     nullString `db:"campaign_id"`
	ContactID      string     `db:"contact_id"`
	KeyID          string     `db:"key_id"`
	Mode           string     `db:"mode"`
	PhoneNumber    string     `db:"phone_number"`
	TemplateName   string     `db:"template_name"`
	Language       string     `db:"language"`
	HeaderFormat   string     `db:"header_format"`
	Variables      jsonText   `db:"variables"`
	MediaHeaderURL string     `db:"media_header_url"`
	MediaFilename  string     `db:"media_filename"`
	Parameters     nullJSON   `db:"parameters"`
	RenderedBody   string     `db:"rendered_body"`
	CreatedAt      dbTime     `db:"created_at"`
	Kind           string     `db:"kind"`
	Session        nullJSON   `db:"session"`
	ReplyTo        string     `db:"reply_to"`
	NumberID       string     `db:"business_number_id"`
	TraceParent    string     `db:"trace_parent"`
	messageDeliveryRow
}

// messageDeliveryRow is what a provider's reports change of a message
// (domain.Message.WithDelivery), with the message's id.
type messageDeliveryRow struct {
	Status        string        `db:"status"`
	History       jsonText      `db:"history"`
	ProviderID    nullString    `db:"provider_id"`
	WaID          string        `db:"wa_id"`
	FailureCode   sql.NullInt64 `db:"failure_code"`
	FailureTitle  nullString    `db:"failure_title"`
	FailureHerald string        `db:"failure_herald_code"`
	Pricing       nullJSON      `db:"pricing"`
	UpdatedAt     dbTime        `db:"updated_at"`

	// The timeline: when the message first reached each status
	// (domain.Message.ReachedAt), written with the message, never read
	// back into it.
	SentAt      nullTime `db:"sent_at"`
	DeliveredAt nullTime `db:"delivered_at"`
	ReadAt      nullTime `db:"read_at"`
	FailedAt    nullTime `db:"failed_at"`
}

const messageColumns = `id, workspace_id, campaign_id, contact_id, key_id, mode, phone_number, template_name,
language, header_format, variables, media_header_url, media_filename, parameters, rendered_body, status, history, provider_id,
wa_id, failure_code, failure_title, failure_herald_code, pricing, created_at, updated_at, trace_parent, kind, session, reply_to,
business_number_id`

// messageTimelineColumns are written with every write of a message (a claim
// only adds sending, which no timeline column records) and read only by
// CountStatusTimeline.
const messageTimelineColumns = `sent_at, delivered_at, read_at, failed_at`

// statusChangeJSON is the stored form of one status history entry.
type statusChangeJSON struct {
	Status string    `json:"status"`
	At     time.Time `json:"at"` // RFC 3339 with nanoseconds, UTC
}

// pricingJSON is the stored form of Meta's pricing of a message.
type pricingJSON struct {
	Model    string `json:"model"`
	Type     string `json:"type"`
	Category string `json:"category"`
	Billable bool   `json:"billable"`
}

func toPricingJSON(p *domain.Pricing) (nullJSON, error) {
	if p == nil {
		return "", nil
	}
	return toNullJSON(&pricingJSON{Model: p.Model, Type: p.Type, Category: p.Category, Billable: p.Billable})
}

func fromPricingJSON(j nullJSON, of string) (*domain.Pricing, error) {
	var p pricingJSON
	ok, err := j.decode(&p)
	if err != nil {
		return nil, corrupt("pricing of "+of, string(j))
	}
	if !ok {
		return nil, nil
	}
	return &domain.Pricing{Model: p.Model, Type: p.Type, Category: p.Category, Billable: p.Billable}, nil
}

// reachedAt is when m first reached status, or NULL.
func reachedAt(m domain.Message, status domain.MessageStatus) nullTime {
	at, ok := m.ReachedAt(status)
	if !ok {
		return nullTime{}
	}
	return newNullTime(&at)
}

func toMessageRow(m domain.Message) (messageRow, error) {
	vars, err := toJSON(m.Variables)
	if err != nil {
		return messageRow{}, err
	}
	params, err := toValuesJSON(m.Values)
	if err != nil {
		return messageRow{}, err
	}
	// A session message's content is stored as domain.SessionContent
	// encodes (its Go field names): the form is Herald's own and never
	// leaves the store.
	session, err := toNullJSON(m.Session)
	if err != nil {
		return messageRow{}, err
	}
	delivery, err := toMessageDeliveryRow(m)
	if err != nil {
		return messageRow{}, err
	}
	kind := m.Kind
	if kind == "" {
		kind = domain.MessageKindTemplate
	}
	return messageRow{Parameters: params,
		ID: string(m.ID), WorkspaceID: string(m.Workspace), CampaignID: nullString(m.CampaignID),
		Kind: kind, Session: session, ReplyTo: m.ReplyTo, NumberID: string(m.Number),
		ContactID: string(m.ContactID), KeyID: string(m.KeyID), Mode: m.Mode.String(),
		PhoneNumber: m.Phone.String(), TemplateName: m.TemplateName, Language: m.Language,
		HeaderFormat: m.HeaderFormat.String(), Variables: vars, MediaHeaderURL: m.MediaHeaderURL,
		MediaFilename: m.MediaFilename, RenderedBody: m.RenderedBody,
		CreatedAt: newDBTime(m.CreatedAt), TraceParent: m.TraceParent,
		messageDeliveryRow: delivery,
	}, nil
}

func toMessageDeliveryRow(m domain.Message) (messageDeliveryRow, error) {
	var hist []statusChangeJSON
	if m.History != nil {
		hist = make([]statusChangeJSON, 0, len(m.History))
		for _, h := range m.History {
			hist = append(hist, statusChangeJSON{Status: h.Status.String(), At: h.At.UTC()})
		}
	}
	histJSON, err := toJSON(hist)
	if err != nil {
		return messageDeliveryRow{}, err
	}
	pricing, err := toPricingJSON(m.Pricing)
	if err != nil {
		return messageDeliveryRow{}, err
	}
	row := messageDeliveryRow{
		Status: m.Status.String(), History: histJSON, ProviderID: nullString(m.ProviderID), WaID: m.WaID,
		Pricing: pricing, UpdatedAt: newDBTime(m.UpdatedAt),
		SentAt: reachedAt(m, domain.StatusSent), DeliveredAt: reachedAt(m, domain.StatusDelivered),
		ReadAt: reachedAt(m, domain.StatusRead), FailedAt: reachedAt(m, domain.StatusFailed),
	}
	if m.Failure != nil {
		row.FailureCode = sql.NullInt64{Int64: int64(m.Failure.Code), Valid: true}
		row.FailureTitle = nullString(m.Failure.Title)
		row.FailureHerald = string(m.Failure.HeraldCode)
	}
	return row, nil
}

func (r messageRow) toDomain() (domain.Message, error) {
	mode, err := parseStored("key mode", r.Mode, domain.ParseKeyMode)
	if err != nil {
		return domain.Message{}, err
	}
	header, err := parseStored("header format", r.HeaderFormat, domain.ParseHeaderFormat)
	if err != nil {
		return domain.Message{}, err
	}
	status, err := parseStored("message status", r.Status, domain.ParseMessageStatus)
	if err != nil {
		return domain.Message{}, err
	}
	var vars []string
	if err := r.Variables.decode(&vars); err != nil {
		return domain.Message{}, corrupt("variables of message "+r.ID, string(r.Variables))
	}
	var hist []statusChangeJSON
	if err := r.History.decode(&hist); err != nil {
		return domain.Message{}, corrupt("history of message "+r.ID, string(r.History))
	}
	var history []domain.StatusChange
	if hist != nil {
		history = make([]domain.StatusChange, 0, len(hist))
		for _, h := range hist {
			st, err := parseStored("message status", h.Status, domain.ParseMessageStatus)
			if err != nil {
				return domain.Message{}, err
			}
			history = append(history, domain.StatusChange{Status: st, At: h.At.UTC()})
		}
	}
	pricing, err := fromPricingJSON(r.Pricing, "message "+r.ID)
	if err != nil {
		return domain.Message{}, err
	}
	values, err := fromValuesJSON(r.Parameters, "message "+r.ID)
	if err != nil {
		return domain.Message{}, err
	}
	m := domain.Message{
		ID: domain.MessageID(r.ID), Workspace: domain.WorkspaceID(r.WorkspaceID),
		CampaignID: domain.CampaignID(r.CampaignID), ContactID: domain.ContactID(r.ContactID),
		KeyID: domain.KeyID(r.KeyID), Mode: mode, Phone: domain.UnmarshalPhoneNumberFromStore(r.PhoneNumber),
		TemplateName: r.TemplateName, Language: r.Language, HeaderFormat: header, Variables: vars,
		MediaHeaderURL: r.MediaHeaderURL, MediaFilename: r.MediaFilename, Values: values, RenderedBody: r.RenderedBody, Status: status, History: history,
		ProviderID: string(r.ProviderID), WaID: r.WaID, Pricing: pricing, CreatedAt: r.CreatedAt.time(), UpdatedAt: r.UpdatedAt.time(),
		TraceParent: r.TraceParent,
		Kind:        r.Kind, ReplyTo: r.ReplyTo, Number: domain.BusinessNumberID(r.NumberID),
	}
	var session domain.SessionContent
	if ok, err := r.Session.decode(&session); err != nil {
		return domain.Message{}, corrupt("session content of message "+r.ID, string(r.Session))
	} else if ok {
		m.Session = &session
	}
	if r.FailureCode.Valid {
		m.Failure = &domain.Failure{Code: int(r.FailureCode.Int64), Title: string(r.FailureTitle),
			HeraldCode: domain.Code(r.FailureHerald)}
	}
	return m, nil
}

// CreateMessages stores new messages in one statement, each due for sending
// at its creation time.
func (s *Store) CreateMessages(ctx context.Context, ms ...domain.Message) error {
	const q = `INSERT INTO messages (` + messageColumns + `, ` + messageTimelineColumns + `, due_at, attempts)
VALUES (:id, :workspace_id, :campaign_id, :contact_id, :key_id, :mode, :phone_number, :template_name,
:language, :header_format, :variables, :media_header_url, :media_filename, :parameters, :rendered_body, :status, :history,
:provider_id, :wa_id, :failure_code, :failure_title, :failure_herald_code, :pricing, :created_at, :updated_at, :trace_parent, :kind, :session, :reply_to,
:business_number_id, :sent_at, :delivered_at, :read_at, :failed_at,
:created_at, 0)`
	if len(ms) == 0 {
		return nil
	}
	rows := make([]messageRow, len(ms))
	for i, m := range ms {
		var err error
		if rows[i], err = toMessageRow(m); err != nil {
			return s.fail("create messages", err, nil)
		}
	}
	_, err := execRows(ctx, s, q, rows)
	return s.fail("create messages", err, nil)
}

// GetMessage returns one of a workspace's messages.
func (s *Store) GetMessage(ctx context.Context, ws domain.WorkspaceID, id domain.MessageID) (domain.Message, error) {
	const q = `SELECT ` + messageColumns + ` FROM messages WHERE workspace_id = :workspace_id AND id = :id`
	return s.getMessage(ctx, "get message", q, map[string]any{"workspace_id": string(ws), "id": string(id)})
}

// ListCampaignMessages returns one page of a campaign's messages, newest
// first (ids descending), and the cursor of the next page (empty on the
// last). The first page and the next ones are two texts, so that the cursor
// bounds the scan of messages_campaign; a single text that tests for an
// empty cursor in SQL leaves "id < :cursor" a mere filter on SQLite and in
// PostgreSQL's generic plans, and a deep page would then read every newer
// message of the campaign.
func (s *Store) ListCampaignMessages(ctx context.Context, ws domain.WorkspaceID, id domain.CampaignID, p ports.Page) ([]domain.Message, string, error) {
	const qFirst = `SELECT ` + messageColumns + ` FROM messages
WHERE workspace_id = :workspace_id AND campaign_id = :campaign_id
ORDER BY id DESC
LIMIT :limit`
	const qAfter = `SELECT ` + messageColumns + ` FROM messages
WHERE workspace_id = :workspace_id AND campaign_id = :campaign_id AND id < :cursor
ORDER BY id DESC
LIMIT :limit`
	q, limit := qFirst, pageLimit(p)
	if p.Cursor != "" {
		q = qAfter
	}
	var rows []messageRow
	arg := map[string]any{"workspace_id": string(ws), "campaign_id": string(id), "cursor": p.Cursor, "limit": limit + 1}
	if err := s.selectAll(ctx, &rows, q, arg); err != nil {
		return nil, "", s.fail("list campaign messages", err, nil)
	}
	next := ""
	if len(rows) > limit {
		rows = rows[:limit]
		next = rows[limit-1].ID
	}
	out := make([]domain.Message, 0, len(rows))
	for _, r := range rows {
		m, err := r.toDomain()
		if err != nil {
			return nil, "", s.fail("list campaign messages", err, nil)
		}
		out = append(out, m)
	}
	return out, next, nil
}

// ListMessages returns one page of the workspace's messages matching f,
// newest first (ids descending), and the cursor of the next page (empty on
// the last). Only the filters given are in the text, each a condition on
// an indexed walk: by mode (messages_mode, migration 0014) or by campaign
// (messages_campaign), newest first, stopping after a page of matches.
func (s *Store) ListMessages(ctx context.Context, ws domain.WorkspaceID, f ports.MessageFilter, p ports.Page) ([]domain.Message, string, error) {
	limit := pageLimit(p)
	var q strings.Builder
	q.WriteString(`SELECT ` + messageColumns + ` FROM messages WHERE workspace_id = :workspace_id`)
	arg := map[string]any{"workspace_id": string(ws), "limit": limit + 1}
	cond := func(sql, name string, v any) {
		q.WriteString(" AND " + sql)
		arg[name] = v
	}
	if !f.Mode.IsZero() {
		cond("mode = :mode", "mode", f.Mode.String())
	}
	if f.Campaign != "" {
		cond("campaign_id = :campaign_id", "campaign_id", string(f.Campaign))
	}
	if !f.Status.IsZero() {
		cond("status = :status", "status", f.Status.String())
	}
	if !f.Phone.IsZero() {
		cond("phone_number = :phone_number", "phone_number", f.Phone.String())
	}
	if !f.Since.IsZero() {
		cond("created_at >= :since", "since", newDBTime(f.Since))
	}
	if !f.Until.IsZero() {
		cond("created_at < :until", "until", newDBTime(f.Until))
	}
	if p.Cursor != "" {
		cond("id < :cursor", "cursor", p.Cursor)
	}
	q.WriteString(" ORDER BY id DESC LIMIT :limit")
	var rows []messageRow
	if err := s.selectAll(ctx, &rows, q.String(), arg); err != nil {
		return nil, "", s.fail("list messages", err, nil)
	}
	next := ""
	if len(rows) > limit {
		rows = rows[:limit]
		next = rows[limit-1].ID
	}
	out := make([]domain.Message, 0, len(rows))
	for _, r := range rows {
		m, err := r.toDomain()
		if err != nil {
			return nil, "", s.fail("list messages", err, nil)
		}
		out = append(out, m)
	}
	return out, next, nil
}

// LocateMessage finds the message a provider event is about, in any
// workspace: by id when id is given, otherwise by the provider's id.
func (s *Store) LocateMessage(ctx context.Context, id domain.MessageID, providerID string) (domain.Message, error) {
	const qByID = `SELECT ` + messageColumns + ` FROM messages WHERE id = :id`
	const qByProviderID = `SELECT ` + messageColumns + ` FROM messages WHERE provider_id = :provider_id
ORDER BY id LIMIT 1`
	switch {
	case id != "":
		return s.getMessage(ctx, "locate message", qByID, map[string]any{"id": string(id)})
	case providerID != "":
		return s.getMessage(ctx, "locate message", qByProviderID, map[string]any{"provider_id": providerID})
	}
	return domain.Message{}, domain.NotFound(domain.ErrMessageNotFound)
}

func (s *Store) getMessage(ctx context.Context, op, q string, arg any) (domain.Message, error) {
	var row messageRow
	if err := s.get(ctx, &row, q, arg); err != nil {
		return domain.Message{}, s.fail(op, err, domain.ErrMessageNotFound)
	}
	m, err := row.toDomain()
	return m, s.fail(op, err, nil)
}

// UpdateMessage runs fn on the stored message and stores the result,
// atomically. The id, workspace, campaign and contact do not change, nor
// does the message's place in the queue.
func (s *Store) UpdateMessage(ctx context.Context, ws domain.WorkspaceID, id domain.MessageID, fn func(*domain.Message) error) (domain.Message, error) {
	const qGet = `SELECT ` + messageColumns + ` FROM messages WHERE workspace_id = :workspace_id AND id = :id`
	var m domain.Message
	err := s.inTx(ctx, func(ctx context.Context, ts *Store) error {
		var err error
		arg := map[string]any{"workspace_id": string(ws), "id": string(id)}
		if m, err = ts.getMessage(ctx, "update message", qGet+ts.d.lockRows(), arg); err != nil {
			return err
		}
		stored := m
		if err := fn(&m); err != nil {
			return err
		}
		m.ID, m.Workspace, m.CampaignID, m.ContactID = stored.ID, stored.Workspace, stored.CampaignID, stored.ContactID
		return ts.fail("update message", ts.writeMessage(ctx, m), nil)
	})
	if err != nil {
		return domain.Message{}, err
	}
	return m, nil
}

// UpdateLocatedMessage locates the message as LocateMessage does, locking
// its row, runs fn on it and stores what fn may change of it, its delivery
// (writeMessageDelivery): one read where LocateMessage and UpdateMessage take two.
func (s *Store) UpdateLocatedMessage(ctx context.Context, id domain.MessageID, providerID string, fn func(*domain.Message) error) (domain.Message, error) {
	const qByID = `SELECT ` + messageColumns + ` FROM messages WHERE id = :id`
	const qByProviderID = `SELECT ` + messageColumns + ` FROM messages WHERE provider_id = :provider_id
ORDER BY id LIMIT 1`
	var q string
	var arg map[string]any
	switch {
	case id != "":
		q, arg = qByID, map[string]any{"id": string(id)}
	case providerID != "":
		q, arg = qByProviderID, map[string]any{"provider_id": providerID}
	default:
		return domain.Message{}, domain.NotFound(domain.ErrMessageNotFound)
	}
	var m domain.Message
	err := s.inTx(ctx, func(ctx context.Context, ts *Store) error {
		stored, err := ts.getMessage(ctx, "update located message", q+ts.d.lockRows(), arg)
		if err != nil {
			return err
		}
		m = stored
		if err := fn(&m); err != nil {
			return err
		}
		m = stored.WithDelivery(m)
		return ts.fail("update located message", ts.writeMessageDelivery(ctx, m), nil)
	})
	if err != nil {
		return domain.Message{}, err
	}
	return m, nil
}

// writeMessageDelivery stores what a provider's reports change of m
// (domain.Message.WithDelivery): its status, history and timeline, Meta's
// ids, failure and pricing. Each message is written this way three times or
// more (sent, delivered, read); on PostgreSQL, in the pipeline at 250
// msg/s, a write of every column took 0.576 ms and 61.8 buffers a call and
// this one 0.138 ms and 23.8 (docs/benchmarks.md).
func (s *Store) writeMessageDelivery(ctx context.Context, m domain.Message) error {
	ok, err := s.updateMessageDelivery(ctx, m)
	if err == nil && !ok {
		err = fmt.Errorf("message %s vanished during its update", m.ID)
	}
	return err
}

// updateMessageDelivery writes m's delivery and reports whether m is stored.
func (s *Store) updateMessageDelivery(ctx context.Context, m domain.Message) (bool, error) {
	const q = `UPDATE messages
SET status = :status, history = :history, provider_id = :provider_id, wa_id = :wa_id, failure_code = :failure_code,
    failure_title = :failure_title, failure_herald_code = :failure_herald_code, pricing = :pricing, updated_at = :updated_at,
    sent_at = :sent_at, delivered_at = :delivered_at, read_at = :read_at, failed_at = :failed_at
WHERE id = :id`
	row, err := toMessageDeliveryRow(m)
	if err != nil {
		return false, err
	}
	return s.execOne(ctx, q, struct {
		ID string `db:"id"`
		messageDeliveryRow
	}{string(m.ID), row})
}

// writeMessage stores m's mutable fields.
func (s *Store) writeMessage(ctx context.Context, m domain.Message) error {
	const q = `UPDATE messages
SET key_id = :key_id, mode = :mode, phone_number = :phone_number, template_name = :template_name,
    language = :language, header_format = :header_format, variables = :variables,
    media_header_url = :media_header_url, media_filename = :media_filename, parameters = :parameters, rendered_body = :rendered_body, status = :status,
    history = :history, provider_id = :provider_id, wa_id = :wa_id, failure_code = :failure_code,
    failure_title = :failure_title, failure_herald_code = :failure_herald_code, pricing = :pricing, created_at = :created_at, updated_at = :updated_at,
    sent_at = :sent_at, delivered_at = :delivered_at, read_at = :read_at, failed_at = :failed_at
WHERE workspace_id = :workspace_id AND id = :id`
	row, err := toMessageRow(m)
	if err != nil {
		return err
	}
	ok, err := s.execOne(ctx, q, row)
	if err == nil && !ok {
		err = fmt.Errorf("message %s vanished during its update", m.ID)
	}
	return err
}
