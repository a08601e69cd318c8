package sqlstore

import (
	"context"
	"slices"
	"strings"

	"github.com/jmoiron/sqlx"

	"github.com/heraldhq/herald/domain"
	"github.com/heraldhq/herald/ports"
)

type contactRow struct {
	ID              string     `db:"id"`
	WorkspaceID     string     `db:"workspace_id"`
	Mode            string     `db:"mode"`
	ConversationID  string     `db:"conversation_id"`
	PhoneNumber     string     `db:"phone_number"`
	Name            string     `db:"name"`
	Email           string     `db:"email"`
	Attributes      jsonText   `db:"attributes"`
	Tags            jsonText   `db:"tags"`
	OptedOut        bool       `db:"opted_out"`
	OptOutChangedAt nullTime   `db:"opt_out_changed_at"`
	MarketingStop   bool       `db:"marketing_stopped"`
	MarketingAt     nullTime   `db:"marketing_changed_at"`
	WaID            string     `db:"wa_id"`
	ProfileName     string     `db:"profile_name"`
	NumberKey       nullString `db:"number_key"`
	UserID          nullString `db:"user_id"`
	ParentUserID    string     `db:"parent_user_id"`
	Username        string     `db:"username"`
	CreatedAt       dbTime     `db:"created_at"`
	UpdatedAt       dbTime     `db:"updated_at"`
	LastMessageAt   nullTime   `db:"last_message_at"`
	LastInboundAt   nullTime   `db:"last_inbound_at"`
	LastNumber      string     `db:"last_number_id"`
}

const contactColumns = `id, workspace_id, mode, conversation_id, phone_number, name, email, attributes, tags, opted_out,
opt_out_changed_at, marketing_stopped, marketing_changed_at, wa_id, profile_name, number_key, user_id, parent_user_id,
username, created_at, updated_at, last_message_at, last_inbound_at, last_number_id`

// contactValues are the named parameters of contactColumns, in order.
const contactValues = `:id, :workspace_id, :mode, :conversation_id, :phone_number, :name, :email, :attributes, :tags,
:opted_out, :opt_out_changed_at, :marketing_stopped, :marketing_changed_at, :wa_id, :profile_name, :number_key, :user_id,
:parent_user_id, :username, :created_at, :updated_at, :last_message_at, :last_inbound_at, :last_number_id`

func toContactRow(c domain.Contact) (contactRow, error) {
	attrs, err := toJSON(c.Attributes)
	if err != nil {
		return contactRow{}, err
	}
	tags, err := toJSON(c.Tags)
	if err != nil {
		return contactRow{}, err
	}
	return contactRow{
		ID: string(c.ID), WorkspaceID: string(c.Workspace), Mode: c.Mode.String(), ConversationID: string(c.ConversationID),
		PhoneNumber: c.Phone.String(), Name: c.Name, Email: c.Email, Attributes: attrs, Tags: tags,
		OptedOut: c.OptedOut, OptOutChangedAt: newNullTime(c.OptOutChangedAt),
		MarketingStop: c.Marketing.Stopped, MarketingAt: newNullTime(c.Marketing.ChangedAt), WaID: c.WaID,
		ProfileName: c.ProfileName, NumberKey: nullString(c.NumberKey()), UserID: nullString(c.UserID),
		ParentUserID: c.ParentUserID, Username: c.Username,
		CreatedAt: newDBTime(c.CreatedAt), UpdatedAt: newDBTime(c.UpdatedAt), LastMessageAt: newNullTime(c.LastMessageAt),
		LastInboundAt: newNullTime(c.LastInboundAt), LastNumber: string(c.LastNumber),
	}, nil
}

func (r contactRow) toDomain() (domain.Contact, error) {
	var attrs map[string]string
	if err := r.Attributes.decode(&attrs); err != nil {
		return domain.Contact{}, corrupt("attributes of contact "+r.ID, string(r.Attributes))
	}
	var tags []string
	if err := r.Tags.decode(&tags); err != nil {
		return domain.Contact{}, corrupt("tags of contact "+r.ID, string(r.Tags))
	}
	mode, err := parseStored("mode of contact "+r.ID, r.Mode, domain.ParseKeyMode)
	if err != nil {
		return domain.Contact{}, err
	}
	return domain.Contact{
		ID: domain.ContactID(r.ID), Workspace: domain.WorkspaceID(r.WorkspaceID), Mode: mode,
		ConversationID: domain.ConversationID(r.ConversationID),
		Phone:          domain.UnmarshalPhoneNumberFromStore(r.PhoneNumber),
		Name:           r.Name, Email: r.Email, Attributes: attrs, Tags: tags, OptedOut: r.OptedOut,
		OptOutChangedAt: r.OptOutChangedAt.ptr(), WaID: r.WaID, ProfileName: r.ProfileName,
		UserID: string(r.UserID), ParentUserID: r.ParentUserID, Username: r.Username,
		Marketing: domain.MarketingPreference{Stopped: r.MarketingStop, ChangedAt: r.MarketingAt.ptr()},
		CreatedAt: r.CreatedAt.time(), UpdatedAt: r.UpdatedAt.time(), LastMessageAt: r.LastMessageAt.ptr(),
		LastInboundAt: r.LastInboundAt.ptr(), LastNumber: domain.BusinessNumberID(r.LastNumber),
	}, nil
}

// CreateContact stores a new contact; a second contact with the same
// number (in any form, number_key) or BSUID in the workspace and mode is a
// conflict.
func (s *Store) CreateContact(ctx context.Context, c domain.Contact) error {
	const q = `INSERT INTO contacts (` + contactColumns + `) VALUES (` + contactValues + `)`
	row, err := toContactRow(c)
	if err == nil {
		_, err = s.exec(ctx, q, row)
	}
	return s.fail("create contact", err, nil)
}

// SaveContacts stores the contacts in one statement, creating new ids and
// replacing the workspace's own of the same mode. The upsert leaves a row
// of another workspace or mode alone, which the count of changed rows
// reveals; the statement runs in a transaction of its own when the store
// has none, so that the conflict stores nothing.
func (s *Store) SaveContacts(ctx context.Context, cs ...domain.Contact) error {
	const q = `INSERT INTO contacts (` + contactColumns + `) VALUES (` + contactValues + `)
ON CONFLICT (id) DO UPDATE
SET phone_number = excluded.phone_number, name = excluded.name, email = excluded.email,
    attributes = excluded.attributes, tags = excluded.tags, opted_out = excluded.opted_out,
    opt_out_changed_at = excluded.opt_out_changed_at, marketing_stopped = excluded.marketing_stopped,
    marketing_changed_at = excluded.marketing_changed_at, wa_id = excluded.wa_id, profile_name = excluded.profile_name,
    number_key = excluded.number_key, user_id = excluded.user_id, parent_user_id = excluded.parent_user_id,
    username = excluded.username, created_at = excluded.created_at, updated_at = excluded.updated_at, last_message_at = excluded.last_message_at,
    last_inbound_at = excluded.last_inbound_at, last_number_id = excluded.last_number_id
WHERE contacts.workspace_id = excluded.workspace_id AND contacts.mode = excluded.mode`
	if len(cs) == 0 {
		return nil
	}
	rows := make([]contactRow, len(cs))
	for i, c := range cs {
		var err error
		if rows[i], err = toContactRow(c); err != nil {
			return s.fail("save contacts", err, nil)
		}
	}
	return s.inTx(ctx, func(ctx context.Context, ts *Store) error {
		n, err := execRows(ctx, ts, q, rows)
		if err == nil && n < int64(len(rows)) {
			err = &domain.Error{Code: domain.CodeConflict, Detail: "save contacts: a contact id belongs to another workspace or mode"}
		}
		return ts.fail("save contacts", err, nil)
	})
}

// FindContactsByPhone returns the workspace's contacts of mode with the
// phone numbers, in any form, in the order of their number keys, locking
// their rows (PostgreSQL) in that order. Each key is looked up on its own
// in contacts_number (dialect.contactsByNumber): given the whole list,
// PostgreSQL's planner may scan the workspace's contacts and filter them
// when its statistics are missing or stale (measured on a fresh table:
// every contact of the workspace read for each batch of sends).
func (s *Store) FindContactsByPhone(ctx context.Context, ws domain.WorkspaceID, mode domain.KeyMode, phones []domain.PhoneNumber) ([]domain.Contact, error) {
	if len(phones) == 0 {
		return nil, nil
	}
	keys := make([]string, len(phones))
	for i, p := range phones {
		keys[i] = p.Key()
	}
	slices.Sort(keys)
	keys = slices.Compact(keys)
	q, args, err := s.d.contactsByNumber(contactColumns, string(ws), mode.String(), keys)
	if err != nil {
		return nil, s.fail("find contacts by phone", err, nil)
	}
	var rows []contactRow
	if err := sqlx.SelectContext(ctx, s.ext, &rows, s.ext.Rebind(q), args...); err != nil {
		return nil, s.fail("find contacts by phone", err, nil)
	}
	out := make([]domain.Contact, 0, len(rows))
	for _, r := range rows {
		c, err := r.toDomain()
		if err != nil {
			return nil, s.fail("find contacts by phone", err, nil)
		}
		out = append(out, c)
	}
	return out, nil
}

// GetContact returns one of a workspace's contacts, of any mode.
func (s *Store) GetContact(ctx context.Context, ws domain.WorkspaceID, id domain.ContactID) (domain.Contact, error) {
	const q = `SELECT ` + contactColumns + ` FROM contacts WHERE workspace_id = :workspace_id AND id = :id`
	return s.getContact(ctx, "get contact", q, map[string]any{"workspace_id": string(ws), "id": string(id)})
}

// GetContactByPhone finds a workspace's contact of mode by phone number,
// in any form (its number key). The query names the key alone, which
// contacts_number answers with a row per workspace and mode that has the
// number, and the row is picked from those. Told the workspace too,
// PostgreSQL could answer from contacts_workspace, reading every contact of
// the workspace, and did so for every lookup with the generic plan of a
// prepared statement made while contacts was nearly empty (3,000 index
// entries per lookup in a workspace of 3,000 contacts, until the next
// ANALYZE).
func (s *Store) GetContactByPhone(ctx context.Context, ws domain.WorkspaceID, mode domain.KeyMode, phone domain.PhoneNumber) (domain.Contact, error) {
	const q = `SELECT ` + contactColumns + ` FROM contacts WHERE number_key = :number_key`
	var rows []contactRow
	if err := s.selectAll(ctx, &rows, q, map[string]any{"number_key": phone.Key()}); err != nil {
		return domain.Contact{}, s.fail("get contact by phone", err, nil)
	}
	for _, r := range rows {
		if r.WorkspaceID == string(ws) && r.Mode == mode.String() {
			c, err := r.toDomain()
			return c, s.fail("get contact by phone", err, nil)
		}
	}
	return domain.Contact{}, domain.NotFound(domain.ErrContactNotFound)
}

// ListContactsByPhone returns the contacts of mode with this phone number,
// in any form, in every workspace, the most recently active first: by last
// message time descending, contacts without one last, then by id.
func (s *Store) ListContactsByPhone(ctx context.Context, mode domain.KeyMode, phone domain.PhoneNumber) ([]domain.Contact, error) {
	const q = `SELECT ` + contactColumns + ` FROM contacts WHERE number_key = :number_key AND mode = :mode
ORDER BY last_message_at DESC NULLS LAST, id`
	var rows []contactRow
	if err := s.selectAll(ctx, &rows, q, map[string]any{"number_key": phone.Key(), "mode": mode.String()}); err != nil {
		return nil, s.fail("list contacts by phone", err, nil)
	}
	out := make([]domain.Contact, 0, len(rows))
	for _, r := range rows {
		c, err := r.toDomain()
		if err != nil {
			return nil, s.fail("list contacts by phone", err, nil)
		}
		out = append(out, c)
	}
	return out, nil
}

// ListContactsOfUser returns the contacts of mode, in every workspace, that
// may be the WhatsApp user: by BSUID, by wa_id, or by number in any form
// (the key of each wa_id), the most recently active first. Each term is
// answered by its own index (contacts_user, contacts_wa_id, whose
// predicate the query repeats, and contacts_number).
func (s *Store) ListContactsOfUser(ctx context.Context, mode domain.KeyMode, userID string, waIDs []string) ([]domain.Contact, error) {
	var terms []string
	args := []any{mode.String()}
	if userID != "" {
		terms = append(terms, "user_id = ?")
		args = append(args, userID)
	}
	var ids, keys []string
	for _, w := range waIDs {
		if w != "" {
			ids, keys = append(ids, w), append(keys, domain.NumberKey(w))
		}
	}
	if len(ids) > 0 {
		terms = append(terms, "(wa_id IN (?) AND wa_id <> '')", "number_key IN (?)")
		args = append(args, ids, keys)
	}
	if len(terms) == 0 {
		return []domain.Contact{}, nil
	}
	q, args, err := sqlx.In(`SELECT `+contactColumns+` FROM contacts WHERE mode = ? AND (`+strings.Join(terms, " OR ")+`)
ORDER BY last_message_at DESC NULLS LAST, id`, args...)
	if err != nil {
		return nil, s.fail("list contacts of user", err, nil)
	}
	var rows []contactRow
	if err := sqlx.SelectContext(ctx, s.ext, &rows, s.ext.Rebind(q), args...); err != nil {
		return nil, s.fail("list contacts of user", err, nil)
	}
	out := make([]domain.Contact, 0, len(rows))
	for _, r := range rows {
		c, err := r.toDomain()
		if err != nil {
			return nil, s.fail("list contacts of user", err, nil)
		}
		out = append(out, c)
	}
	return out, nil
}

// ListContacts returns one page of a workspace's contacts, newest first
// (ids descending), and the cursor of the next page (empty on the last).
// The prefix is compared character for character: substr leaves "%" and "_"
// their plain meaning, which LIKE would not, and unlike a range it does not
// depend on the PostgreSQL database's collation. The first page and the
// next ones are two texts, so that the cursor bounds the index scan; a
// single text that tests for an empty cursor in SQL leaves "id < :cursor" a
// mere filter on SQLite and in PostgreSQL's generic plans, and a deep page
// would then read every newer row.
func (s *Store) ListContacts(ctx context.Context, ws domain.WorkspaceID, f ports.ContactFilter, p ports.Page) ([]domain.Contact, string, error) {
	const qFirst = `SELECT ` + contactColumns + ` FROM contacts
WHERE workspace_id = :workspace_id
  AND (:prefix = '' OR substr(phone_number, 1, length(CAST(:prefix AS TEXT))) = :prefix)
  AND (:mode = '' OR mode = :mode)
ORDER BY id DESC
LIMIT :limit`
	const qAfter = `SELECT ` + contactColumns + ` FROM contacts
WHERE workspace_id = :workspace_id AND id < :cursor
  AND (:prefix = '' OR substr(phone_number, 1, length(CAST(:prefix AS TEXT))) = :prefix)
  AND (:mode = '' OR mode = :mode)
ORDER BY id DESC
LIMIT :limit`
	q, limit := qFirst, pageLimit(p)
	if p.Cursor != "" {
		q = qAfter
	}
	var rows []contactRow
	arg := map[string]any{"workspace_id": string(ws), "cursor": p.Cursor, "prefix": f.PhonePrefix, "mode": f.Mode.String(),
		"limit": limit + 1}
	if err := s.selectAll(ctx, &rows, q, arg); err != nil {
		return nil, "", s.fail("list contacts", err, nil)
	}
	next := ""
	if len(rows) > limit {
		rows = rows[:limit]
		next = rows[limit-1].ID
	}
	out := make([]domain.Contact, 0, len(rows))
	for _, r := range rows {
		c, err := r.toDomain()
		if err != nil {
			return nil, "", s.fail("list contacts", err, nil)
		}
		out = append(out, c)
	}
	return out, next, nil
}

func (s *Store) getContact(ctx context.Context, op, q string, arg any) (domain.Contact, error) {
	var row contactRow
	if err := s.get(ctx, &row, q, arg); err != nil {
		return domain.Contact{}, s.fail(op, err, domain.ErrContactNotFound)
	}
	c, err := row.toDomain()
	return c, s.fail(op, err, nil)
}

// UpdateContact runs fn on the stored contact and stores the result,
// atomically. The id, workspace, mode and conversation do not change; a
// number (in any form) or BSUID taken by another contact of the workspace
// and mode is a conflict.
func (s *Store) UpdateContact(ctx context.Context, ws domain.WorkspaceID, id domain.ContactID, fn func(*domain.Contact) error) (domain.Contact, error) {
	const q = `SELECT ` + contactColumns + ` FROM contacts WHERE workspace_id = :workspace_id AND id = :id`
	return s.updateContact(ctx, q, map[string]any{"workspace_id": string(ws), "id": string(id)}, fn)
}

// updateContact reads one contact with qGet, locking its row, runs fn on it
// and stores the result.
func (s *Store) updateContact(ctx context.Context, qGet string, arg map[string]any, fn func(*domain.Contact) error) (domain.Contact, error) {
	const qUpdate = `UPDATE contacts
SET phone_number = :phone_number, name = :name, email = :email, attributes = :attributes, tags = :tags,
    opted_out = :opted_out, opt_out_changed_at = :opt_out_changed_at, marketing_stopped = :marketing_stopped,
    marketing_changed_at = :marketing_changed_at, wa_id = :wa_id,
    profile_name = :profile_name, number_key = :number_key, user_id = :user_id, parent_user_id = :parent_user_id,
    username = :username, created_at = :created_at, updated_at = :updated_at, last_message_at = :last_message_at,
    last_inbound_at = :last_inbound_at, last_number_id = :last_number_id
WHERE workspace_id = :workspace_id AND id = :id`
	var c domain.Contact
	err := s.inTx(ctx, func(ctx context.Context, ts *Store) error {
		var err error
		if c, err = ts.getContact(ctx, "update contact", qGet+ts.d.lockRows(), arg); err != nil {
			return err
		}
		id, ws, mode, conv := c.ID, c.Workspace, c.Mode, c.ConversationID
		if err := fn(&c); err != nil {
			return err
		}
		c.ID, c.Workspace, c.Mode, c.ConversationID = id, ws, mode, conv
		row, err := toContactRow(c)
		if err == nil {
			_, err = ts.exec(ctx, qUpdate, row)
		}
		return ts.fail("update contact", err, nil)
	})
	if err != nil {
		return domain.Contact{}, err
	}
	return c, nil
}
