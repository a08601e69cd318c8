package memstore

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/heraldhq/herald/domain"
	"github.com/heraldhq/herald/ports"
)

// defaultLimit is the page size when a Page asks for none.
const defaultLimit = 50

// Store is the in-memory implementation of every repository port. Its zero
// value is not ready; use New.
//
// A transaction holds the store's lock until it ends, so fn in WithinTx must
// use the repositories it is given: calling the Store itself from fn with
// fn's context panics instead of deadlocking. Update functions run under the
// lock too and must not call the store.
type Store struct {
	repos
}

var (
	_ ports.WorkspaceRepository    = (*Store)(nil)
	_ ports.KeyRepository          = (*Store)(nil)
	_ ports.CampaignRepository     = (*Store)(nil)
	_ ports.TemplateRepository     = (*Store)(nil)
	_ ports.ContactRepository      = (*Store)(nil)
	_ ports.MessageRepository      = (*Store)(nil)
	_ ports.MessageQueue           = (*Store)(nil)
	_ ports.ConversationRepository = (*Store)(nil)
	_ ports.WebhookEventRepository = (*Store)(nil)
	_ ports.IdempotencyRepository  = (*Store)(nil)
	_ ports.SendCountRepository    = (*Store)(nil)
	_ ports.OperatorRepository     = (*Store)(nil)
	_ ports.Transactor             = (*Store)(nil)
	_ ports.Pinger                 = (*Store)(nil)
)

// New returns an empty store.
func New() *Store {
	st := &state{
		workspaces:  map[domain.WorkspaceID]domain.Workspace{},
		keys:        map[domain.KeyID]domain.APIKey{},
		keyIDs:      map[string]domain.KeyID{},
		campaigns:   map[domain.CampaignID]domain.Campaign{},
		templates:   map[templateKey]domain.SyncedTemplate{},
		contacts:    map[domain.ContactID]domain.Contact{},
		contactIDs:  map[phoneKey]domain.ContactID{},
		messages:    map[domain.MessageID]domain.Message{},
		providerIDs: map[string]domain.MessageID{},
		queue:       map[domain.MessageID]queueItem{},
		entries:     map[domain.EntryID]domain.Entry{},
		entryIDs:    map[providerKey]domain.EntryID{},
		parked:      map[parkKey]parkedStatus{},
		events:      map[domain.WebhookEventID]domain.WebhookEvent{},
		eventIDs:    map[string]domain.WebhookEventID{},
		idempotency: map[idemKey]domain.IdempotencyRecord{},
		sendCounts:  map[countKey]int{},
		operators:   map[domain.OperatorID]domain.Operator{},
		operatorIDs: map[string]domain.OperatorID{},
		sessions:    map[string]domain.Session{},
	}
	return &Store{repos{st: st, enter: st.lock}}
}

// Ping always succeeds: memory is always reachable.
func (s *Store) Ping(context.Context) error { return nil }

// state is everything the store holds. Stored values are never changed in
// place, only replaced, so an undo entry can keep the old value as it was.
type state struct {
	mu   sync.Mutex
	undo *[]func() // while a transaction runs: how to undo each of its writes

	workspaces  map[domain.WorkspaceID]domain.Workspace // IsDefault is never stored; defaultWS says
	defaultWS   domain.WorkspaceID
	keys        map[domain.KeyID]domain.APIKey
	keyIDs      map[string]domain.KeyID // by identifier
	campaigns   map[domain.CampaignID]domain.Campaign
	templates   map[templateKey]domain.SyncedTemplate
	contacts    map[domain.ContactID]domain.Contact
	contactIDs  map[phoneKey]domain.ContactID
	messages    map[domain.MessageID]domain.Message
	providerIDs map[string]domain.MessageID
	queue       map[domain.MessageID]queueItem // messages not yet released for good
	entries     map[domain.EntryID]domain.Entry
	entryIDs    map[providerKey]domain.EntryID // entries with a provider id
	parked      map[parkKey]parkedStatus
	events      map[domain.WebhookEventID]domain.WebhookEvent
	eventIDs    map[string]domain.WebhookEventID // by SHA-256
	idempotency map[idemKey]domain.IdempotencyRecord
	sendCounts  map[countKey]int
	operators   map[domain.OperatorID]domain.Operator
	operatorIDs map[string]domain.OperatorID // by email
	sessions    map[string]domain.Session    // by token hash
}

type templateKey struct{ account, name, language string }

// tkey is the key of a template, its language in canonical form: Meta
// writes pt_BR and pt-BR for one language.
func tkey(account, name, language string) templateKey {
	return templateKey{account, name, domain.CanonicalLanguage(language)}
}

// canonicalLanguage stores the campaign's template language in canonical
// form, as sqlstore does.
func canonicalLanguage(c domain.Campaign) domain.Campaign {
	c.Template.Language = domain.CanonicalLanguage(c.Template.Language)
	return c
}

// phoneKey is a value unique among a workspace's contacts of a mode: a
// number key ("n:" and domain.Contact.NumberKey, the number in any form) or
// a BSUID ("u:" and the id).
type phoneKey struct {
	ws   domain.WorkspaceID
	mode domain.KeyMode
	key  string
}

// numberKey is the key a phone number is found by.
func numberKey(ws domain.WorkspaceID, mode domain.KeyMode, p domain.PhoneNumber) phoneKey {
	return phoneKey{ws, mode, "n:" + p.Key()}
}

// contactKeys are the unique keys c holds.
func contactKeys(c domain.Contact) []phoneKey {
	var ks []phoneKey
	if k := c.NumberKey(); k != "" {
		ks = append(ks, phoneKey{c.Workspace, c.Mode, "n:" + k})
	}
	if c.UserID != "" {
		ks = append(ks, phoneKey{c.Workspace, c.Mode, "u:" + c.UserID})
	}
	return ks
}

// takeKeys moves the keys from those of old (nil for a new contact) to
// those of c, after checking that none of c's is held by another contact.
func (r *repos) takeKeys(old *domain.Contact, c domain.Contact) error {
	for _, k := range contactKeys(c) {
		if id, ok := r.st.contactIDs[k]; ok && id != c.ID {
			return conflict("a contact with this number or BSUID exists")
		}
	}
	if old != nil {
		for _, k := range contactKeys(*old) {
			del(r.st, r.st.contactIDs, k)
		}
	}
	for _, k := range contactKeys(c) {
		put(r.st, r.st.contactIDs, k, c.ID)
	}
	return nil
}

// providerKey is an entry's provider id, unique in its workspace.
type providerKey struct {
	ws         domain.WorkspaceID
	providerID string
}

// parkKey is a parked status event's identity: one per status and wamid.
type parkKey struct {
	providerID string
	status     domain.MessageStatus
}

// parkedStatus is a parked status event and when it was parked.
type parkedStatus struct {
	event    ports.StatusEvent
	parkedAt time.Time
}

// queueItem is a message's place in the queue.
type queueItem struct {
	due        time.Time
	leased     bool
	owner      string
	leaseUntil time.Time
	attempts   int
}

// lock takes the store's lock for one call outside a transaction.
func (st *state) lock(ctx context.Context) (unlock func()) {
	if tx, ok := ctx.Value(txKey{}).(*txn); ok && tx.st == st && tx.open.Load() {
		panic("memstore: store called inside its own WithinTx; use the ports.Repos given to fn")
	}
	st.mu.Lock()
	return st.mu.Unlock
}

// put sets m[k] and, inside a transaction, records how to undo it.
func put[K comparable, V any](st *state, m map[K]V, k K, v V) {
	if st.undo != nil {
		old, had := m[k]
		*st.undo = append(*st.undo, func() {
			if had {
				m[k] = old
			} else {
				delete(m, k)
			}
		})
	}
	m[k] = v
}

// del deletes m[k] and, inside a transaction, records how to undo it.
// deleteWhere deletes (undoably) the entries of m that match and says how
// many went.
func deleteWhere[K comparable, V any](st *state, m map[K]V, match func(K, V) bool) int {
	n := 0
	for k, v := range m {
		if match(k, v) {
			del(st, m, k)
			n++
		}
	}
	return n
}

func del[K comparable, V any](st *state, m map[K]V, k K) {
	old, had := m[k]
	if !had {
		return
	}
	if st.undo != nil {
		*st.undo = append(*st.undo, func() { m[k] = old })
	}
	delete(m, k)
}

// repos implements the repository ports over a state. The Store's repos take
// the lock for each call; a transaction's repos run under the lock the
// transaction holds.
type repos struct {
	st    *state
	enter func(ctx context.Context) (leave func())
}

func conflict(detail string) error {
	return &domain.Error{Code: domain.CodeConflict, Detail: detail}
}

// CreateWorkspace stores a new workspace.
func (r *repos) CreateWorkspace(ctx context.Context, w domain.Workspace) error {
	defer r.enter(ctx)()
	if _, ok := r.st.workspaces[w.ID]; ok {
		return conflict("a workspace with this id exists")
	}
	w.IsDefault = false
	w.CreatedAt = utc(w.CreatedAt)
	put(r.st, r.st.workspaces, w.ID, w)
	return nil
}

// GetWorkspace returns a workspace.
func (r *repos) GetWorkspace(ctx context.Context, id domain.WorkspaceID) (domain.Workspace, error) {
	defer r.enter(ctx)()
	return r.st.workspace(id)
}

func (st *state) workspace(id domain.WorkspaceID) (domain.Workspace, error) {
	w, ok := st.workspaces[id]
	if !ok {
		return domain.Workspace{}, domain.NotFound(domain.ErrWorkspaceNotFound)
	}
	w.IsDefault = id == st.defaultWS
	return w, nil
}

// EnsureDefaultWorkspace returns the default workspace, storing candidate as
// the default if there is none yet.
func (r *repos) EnsureDefaultWorkspace(ctx context.Context, candidate domain.Workspace) (domain.Workspace, error) {
	defer r.enter(ctx)()
	st := r.st
	if st.defaultWS == "" {
		if _, ok := st.workspaces[candidate.ID]; !ok {
			candidate.IsDefault = false
			candidate.CreatedAt = utc(candidate.CreatedAt)
			put(st, st.workspaces, candidate.ID, candidate)
		}
		if st.undo != nil {
			*st.undo = append(*st.undo, func() { st.defaultWS = "" })
		}
		st.defaultWS = candidate.ID
	}
	return st.workspace(st.defaultWS)
}

// CreateKey stores a key; its identifier must be unused.
func (r *repos) CreateKey(ctx context.Context, k domain.APIKey) error {
	defer r.enter(ctx)()
	if _, ok := r.st.keys[k.ID]; ok {
		return conflict("a key with this id exists")
	}
	if _, ok := r.st.keyIDs[k.Identifier]; ok {
		return conflict("a key with this identifier exists")
	}
	put(r.st, r.st.keys, k.ID, copyKey(k))
	put(r.st, r.st.keyIDs, k.Identifier, k.ID)
	return nil
}

// GetKeyByIdentifier finds a key by its identifier, in any workspace.
func (r *repos) GetKeyByIdentifier(ctx context.Context, identifier string) (domain.APIKey, error) {
	defer r.enter(ctx)()
	id, ok := r.st.keyIDs[identifier]
	if !ok {
		return domain.APIKey{}, domain.NotFound(domain.ErrKeyNotFound)
	}
	return copyKey(r.st.keys[id]), nil
}

// GetKey returns one of the workspace's keys.
func (r *repos) GetKey(ctx context.Context, ws domain.WorkspaceID, id domain.KeyID) (domain.APIKey, error) {
	defer r.enter(ctx)()
	k, ok := r.st.keys[id]
	if !ok || k.Workspace != ws {
		return domain.APIKey{}, domain.NotFound(domain.ErrKeyNotFound)
	}
	return copyKey(k), nil
}

// ListKeys lists the workspace's keys, newest first.
func (r *repos) ListKeys(ctx context.Context, ws domain.WorkspaceID) ([]domain.APIKey, error) {
	defer r.enter(ctx)()
	var out []domain.APIKey
	for _, k := range r.st.keys {
		if k.Workspace == ws {
			out = append(out, copyKey(k))
		}
	}
	slices.SortFunc(out, func(a, b domain.APIKey) int { return cmp.Compare(b.ID, a.ID) })
	return out, nil
}

// UpdateKey runs fn on the key and stores the result if fn succeeds.
func (r *repos) UpdateKey(ctx context.Context, ws domain.WorkspaceID, id domain.KeyID, fn func(*domain.APIKey) error) (domain.APIKey, error) {
	defer r.enter(ctx)()
	old, ok := r.st.keys[id]
	if !ok || old.Workspace != ws {
		return domain.APIKey{}, domain.NotFound(domain.ErrKeyNotFound)
	}
	k := copyKey(old)
	if err := fn(&k); err != nil {
		return domain.APIKey{}, err
	}
	k.ID, k.Workspace, k.Identifier = old.ID, old.Workspace, old.Identifier
	k = copyKey(k)
	put(r.st, r.st.keys, id, k)
	return copyKey(k), nil
}

// TouchKeys moves each known key's last use forward to the given time.
func (r *repos) TouchKeys(ctx context.Context, lastUsed map[domain.KeyID]time.Time) error {
	defer r.enter(ctx)()
	for id, at := range lastUsed {
		k, ok := r.st.keys[id]
		if !ok {
			continue
		}
		at = utc(at)
		if k.LastUsedAt != nil && !at.After(*k.LastUsedAt) {
			continue
		}
		k.LastUsedAt = &at
		put(r.st, r.st.keys, id, k)
	}
	return nil
}

// CreateCampaign stores a new campaign.
func (r *repos) CreateCampaign(ctx context.Context, c domain.Campaign) error {
	defer r.enter(ctx)()
	if _, ok := r.st.campaigns[c.ID]; ok {
		return conflict("a campaign with this id exists")
	}
	put(r.st, r.st.campaigns, c.ID, canonicalLanguage(copyCampaign(c)))
	return nil
}

// GetCampaign returns one of the workspace's campaigns.
func (r *repos) GetCampaign(ctx context.Context, ws domain.WorkspaceID, id domain.CampaignID) (domain.Campaign, error) {
	defer r.enter(ctx)()
	c, ok := r.st.campaigns[id]
	if !ok || c.Workspace != ws {
		return domain.Campaign{}, domain.NotFound(domain.ErrCampaignNotFound)
	}
	return copyCampaign(c), nil
}

// ListCampaigns returns one page of the workspace's campaigns, newest first.
func (r *repos) ListCampaigns(ctx context.Context, ws domain.WorkspaceID, p ports.Page) ([]domain.Campaign, string, error) {
	defer r.enter(ctx)()
	var all []domain.Campaign
	for _, c := range r.st.campaigns {
		if c.Workspace == ws {
			all = append(all, c)
		}
	}
	out, next := page(all, func(c domain.Campaign) string { return string(c.ID) }, p)
	for i := range out {
		out[i] = copyCampaign(out[i])
	}
	return out, next, nil
}

// UpdateCampaign runs fn on the campaign and stores the result if fn
// succeeds.
func (r *repos) UpdateCampaign(ctx context.Context, ws domain.WorkspaceID, id domain.CampaignID, fn func(*domain.Campaign) error) (domain.Campaign, error) {
	defer r.enter(ctx)()
	old, ok := r.st.campaigns[id]
	if !ok || old.Workspace != ws {
		return domain.Campaign{}, domain.NotFound(domain.ErrCampaignNotFound)
	}
	c := copyCampaign(old)
	if err := fn(&c); err != nil {
		return domain.Campaign{}, err
	}
	c.ID, c.Workspace = old.ID, old.Workspace
	c = canonicalLanguage(copyCampaign(c))
	put(r.st, r.st.campaigns, id, c)
	return copyCampaign(c), nil
}

// ListCampaignsByTemplate returns, across workspaces, the campaigns that
// send the template name in language (in any of the forms Meta writes),
// oldest first.
func (r *repos) ListCampaignsByTemplate(ctx context.Context, name, language string) ([]domain.Campaign, error) {
	defer r.enter(ctx)()
	language = domain.CanonicalLanguage(language)
	out := []domain.Campaign{}
	for _, c := range r.st.campaigns {
		if c.Template.Name == name && c.Template.Language == language {
			out = append(out, copyCampaign(c))
		}
	}
	slices.SortFunc(out, func(a, b domain.Campaign) int { return cmp.Compare(a.ID, b.ID) })
	return out, nil
}

// ReplaceTemplates makes ts the account's templates: the account's stored
// templates missing from ts are deleted and the others stored, under
// account whatever their Account field says.
func (r *repos) ReplaceTemplates(ctx context.Context, account string, ts []domain.SyncedTemplate) error {
	defer r.enter(ctx)()
	keep := make(map[templateKey]bool, len(ts))
	for _, t := range ts {
		keep[tkey(account, t.Name, t.Language)] = true
	}
	for k := range r.st.templates {
		if k.account == account && !keep[k] {
			del(r.st, r.st.templates, k)
		}
	}
	for _, t := range ts {
		k := tkey(account, t.Name, t.Language)
		t.Account, t.Language = account, k.language
		put(r.st, r.st.templates, k, copyTemplate(t))
	}
	return nil
}

// ListTemplates returns the account's templates ordered by name, then
// language.
func (r *repos) ListTemplates(ctx context.Context, account string) ([]domain.SyncedTemplate, error) {
	defer r.enter(ctx)()
	out := []domain.SyncedTemplate{}
	for k, t := range r.st.templates {
		if k.account == account {
			out = append(out, copyTemplate(t))
		}
	}
	slices.SortFunc(out, func(a, b domain.SyncedTemplate) int {
		return cmp.Or(cmp.Compare(a.Name, b.Name), cmp.Compare(a.Language, b.Language))
	})
	return out, nil
}

// GetTemplate returns one of the account's templates.
func (r *repos) GetTemplate(ctx context.Context, account, name, language string) (domain.SyncedTemplate, error) {
	defer r.enter(ctx)()
	t, ok := r.st.templates[tkey(account, name, language)]
	if !ok {
		return domain.SyncedTemplate{}, domain.NotFound(domain.ErrTemplateNotFound)
	}
	return copyTemplate(t), nil
}

// SetTemplateStatus records Meta's new status of one of the account's
// templates; an unknown template stays unknown.
func (r *repos) SetTemplateStatus(ctx context.Context, account, name, language string, status domain.TemplateStatus) error {
	defer r.enter(ctx)()
	k := tkey(account, name, language)
	t, ok := r.st.templates[k]
	if !ok {
		return nil
	}
	t = copyTemplate(t)
	t.Status = status
	put(r.st, r.st.templates, k, t)
	return nil
}

// CreateContact stores a new contact; its number, in any form, and its
// BSUID must be unused in the workspace and mode.
func (r *repos) CreateContact(ctx context.Context, c domain.Contact) error {
	defer r.enter(ctx)()
	if _, ok := r.st.contacts[c.ID]; ok {
		return conflict("a contact with this id exists")
	}
	if err := r.takeKeys(nil, c); err != nil {
		return err
	}
	put(r.st, r.st.contacts, c.ID, copyContact(c))
	return nil
}

// GetContact returns one of the workspace's contacts.
func (r *repos) GetContact(ctx context.Context, ws domain.WorkspaceID, id domain.ContactID) (domain.Contact, error) {
	defer r.enter(ctx)()
	c, ok := r.st.contacts[id]
	if !ok || c.Workspace != ws {
		return domain.Contact{}, domain.NotFound(domain.ErrContactNotFound)
	}
	return copyContact(c), nil
}

// GetContactByPhone returns the workspace's contact of mode with this phone
// number, in any form.
func (r *repos) GetContactByPhone(ctx context.Context, ws domain.WorkspaceID, mode domain.KeyMode, phone domain.PhoneNumber) (domain.Contact, error) {
	defer r.enter(ctx)()
	id, ok := r.st.contactIDs[numberKey(ws, mode, phone)]
	if !ok {
		return domain.Contact{}, domain.NotFound(domain.ErrContactNotFound)
	}
	return copyContact(r.st.contacts[id]), nil
}

// ListContactsByPhone returns the contacts of mode with this phone number,
// in any form, in every workspace, the most recently active first
// (contacts without a last message last), then by id.
func (r *repos) ListContactsByPhone(ctx context.Context, mode domain.KeyMode, phone domain.PhoneNumber) ([]domain.Contact, error) {
	defer r.enter(ctx)()
	return r.listContacts(func(c domain.Contact) bool { return c.Mode == mode && c.NumberKey() == phone.Key() }), nil
}

// ListContactsOfUser returns the contacts of mode, in every workspace, whose
// BSUID is userID, whose wa_id is one of waIDs or whose number key is the
// key of one of them, ordered as ListContactsByPhone.
func (r *repos) ListContactsOfUser(ctx context.Context, mode domain.KeyMode, userID string, waIDs []string) ([]domain.Contact, error) {
	defer r.enter(ctx)()
	return r.listContacts(func(c domain.Contact) bool {
		if c.Mode != mode {
			return false
		}
		if userID != "" && c.UserID == userID {
			return true
		}
		for _, w := range waIDs {
			if w != "" && (c.WaID == w || c.NumberKey() == domain.NumberKey(w)) {
				return true
			}
		}
		return false
	}), nil
}

// listContacts returns the contacts keep keeps, the most recently active
// first (contacts without a last message last), then by id.
func (r *repos) listContacts(keep func(domain.Contact) bool) []domain.Contact {
	out := []domain.Contact{}
	for _, c := range r.st.contacts {
		if keep(c) {
			out = append(out, copyContact(c))
		}
	}
	slices.SortFunc(out, func(a, b domain.Contact) int {
		switch {
		case a.LastMessageAt == nil && b.LastMessageAt != nil:
			return 1
		case a.LastMessageAt != nil && b.LastMessageAt == nil:
			return -1
		case a.LastMessageAt != nil:
			if c := b.LastMessageAt.Compare(*a.LastMessageAt); c != 0 {
				return c
			}
		}
		return cmp.Compare(a.ID, b.ID)
	})
	return out
}

// ListContacts returns one page of the workspace's contacts, newest first,
// keeping only numbers that start with f.PhonePrefix when it is set, and
// only f.Mode's contacts when it is set.
func (r *repos) ListContacts(ctx context.Context, ws domain.WorkspaceID, f ports.ContactFilter, p ports.Page) ([]domain.Contact, string, error) {
	defer r.enter(ctx)()
	var all []domain.Contact
	for _, c := range r.st.contacts {
		if c.Workspace == ws && strings.HasPrefix(c.Phone.String(), f.PhonePrefix) && (f.Mode.IsZero() || c.Mode == f.Mode) {
			all = append(all, c)
		}
	}
	out, next := page(all, func(c domain.Contact) string { return string(c.ID) }, p)
	for i := range out {
		out[i] = copyContact(out[i])
	}
	return out, next, nil
}

// UpdateContact runs fn on the contact and stores the result if fn succeeds.
// A new number, in any form, or BSUID must be unused in the workspace and
// mode.
func (r *repos) UpdateContact(ctx context.Context, ws domain.WorkspaceID, id domain.ContactID, fn func(*domain.Contact) error) (domain.Contact, error) {
	defer r.enter(ctx)()
	old, ok := r.st.contacts[id]
	if !ok || old.Workspace != ws {
		return domain.Contact{}, domain.NotFound(domain.ErrContactNotFound)
	}
	c := copyContact(old)
	if err := fn(&c); err != nil {
		return domain.Contact{}, err
	}
	c.ID, c.Workspace, c.Mode, c.ConversationID = old.ID, old.Workspace, old.Mode, old.ConversationID
	if err := r.takeKeys(&old, c); err != nil {
		return domain.Contact{}, err
	}
	c = copyContact(c)
	put(r.st, r.st.contacts, id, c)
	return copyContact(c), nil
}

// FindContactsByPhone returns the workspace's contacts of mode with these
// phone numbers, in any form, ordered by number key; unknown numbers, and
// numbers asked for twice, add nothing. The store's lock is the only lock: inside
// a transaction nothing else runs until it ends.
func (r *repos) FindContactsByPhone(ctx context.Context, ws domain.WorkspaceID, mode domain.KeyMode, phones []domain.PhoneNumber) ([]domain.Contact, error) {
	defer r.enter(ctx)()
	out := []domain.Contact{}
	seen := make(map[domain.ContactID]bool, len(phones))
	for _, p := range phones {
		id, ok := r.st.contactIDs[numberKey(ws, mode, p)]
		if !ok || seen[id] {
			continue
		}
		seen[id] = true
		out = append(out, copyContact(r.st.contacts[id]))
	}
	slices.SortFunc(out, func(a, b domain.Contact) int { return cmp.Compare(a.NumberKey(), b.NumberKey()) })
	return out, nil
}

// SaveContacts creates the contacts with new ids and replaces those of the
// same workspace and mode, all or nothing. A number key or BSUID must be
// free before the call, or held by the contact that keeps it, and carried
// by one contact of the call: so two contacts cannot swap numbers in one
// call, as a row at a time unique check would refuse too.
func (r *repos) SaveContacts(ctx context.Context, cs ...domain.Contact) error {
	defer r.enter(ctx)()
	ids := make(map[domain.ContactID]bool, len(cs))
	phones := make(map[phoneKey]bool, len(cs))
	for _, c := range cs {
		if ids[c.ID] {
			return fmt.Errorf("memstore: save contacts: contact %s appears twice", c.ID)
		}
		ids[c.ID] = true
		if old, ok := r.st.contacts[c.ID]; ok && (old.Workspace != c.Workspace || old.Mode != c.Mode) {
			return conflict("another workspace or mode holds a contact with this id")
		}
		for _, pk := range contactKeys(c) {
			if id, ok := r.st.contactIDs[pk]; (ok && id != c.ID) || phones[pk] {
				return conflict("a contact with this number or BSUID exists")
			}
			phones[pk] = true
		}
	}
	for _, c := range cs {
		if old, ok := r.st.contacts[c.ID]; ok {
			for _, k := range contactKeys(old) {
				del(r.st, r.st.contactIDs, k)
			}
		}
	}
	for _, c := range cs {
		for _, k := range contactKeys(c) {
			put(r.st, r.st.contactIDs, k, c.ID)
		}
		put(r.st, r.st.contacts, c.ID, copyContact(c))
	}
	return nil
}

// CreateMessages stores new messages, each due for sending from its
// creation time. An id already stored, or given twice, is a conflict and
// nothing is stored.
func (r *repos) CreateMessages(ctx context.Context, ms ...domain.Message) error {
	defer r.enter(ctx)()
	ids := make(map[domain.MessageID]bool, len(ms))
	for _, m := range ms {
		if _, ok := r.st.messages[m.ID]; ok || ids[m.ID] {
			return conflict("a message with this id exists")
		}
		ids[m.ID] = true
	}
	for _, m := range ms {
		m = copyMessage(m)
		put(r.st, r.st.messages, m.ID, m)
		if m.ProviderID != "" {
			put(r.st, r.st.providerIDs, m.ProviderID, m.ID)
		}
		put(r.st, r.st.queue, m.ID, queueItem{due: m.CreatedAt})
	}
	return nil
}

// GetMessage returns one of the workspace's messages.
func (r *repos) GetMessage(ctx context.Context, ws domain.WorkspaceID, id domain.MessageID) (domain.Message, error) {
	defer r.enter(ctx)()
	m, ok := r.st.messages[id]
	if !ok || m.Workspace != ws {
		return domain.Message{}, domain.NotFound(domain.ErrMessageNotFound)
	}
	return copyMessage(m), nil
}

// ListCampaignMessages returns one page of the campaign's messages, newest
// first.
func (r *repos) ListCampaignMessages(ctx context.Context, ws domain.WorkspaceID, id domain.CampaignID, p ports.Page) ([]domain.Message, string, error) {
	defer r.enter(ctx)()
	var all []domain.Message
	for _, m := range r.st.messages {
		if m.Workspace == ws && m.CampaignID == id {
			all = append(all, m)
		}
	}
	out, next := page(all, func(m domain.Message) string { return string(m.ID) }, p)
	for i := range out {
		out[i] = copyMessage(out[i])
	}
	return out, next, nil
}

// LocateMessage finds a message in any workspace, by id when id is given,
// otherwise by the provider's id.
func (r *repos) LocateMessage(ctx context.Context, id domain.MessageID, providerID string) (domain.Message, error) {
	defer r.enter(ctx)()
	if id == "" && providerID != "" {
		id = r.st.providerIDs[providerID]
	}
	m, ok := r.st.messages[id]
	if !ok || id == "" {
		return domain.Message{}, domain.NotFound(domain.ErrMessageNotFound)
	}
	return copyMessage(m), nil
}

// UpdateMessage runs fn on the message and stores the result if fn
// succeeds.
func (r *repos) UpdateMessage(ctx context.Context, ws domain.WorkspaceID, id domain.MessageID, fn func(*domain.Message) error) (domain.Message, error) {
	defer r.enter(ctx)()
	old, ok := r.st.messages[id]
	if !ok || old.Workspace != ws {
		return domain.Message{}, domain.NotFound(domain.ErrMessageNotFound)
	}
	m := copyMessage(old)
	if err := fn(&m); err != nil {
		return domain.Message{}, err
	}
	m.ID, m.Workspace = old.ID, old.Workspace
	r.st.saveMessage(old, copyMessage(m))
	return copyMessage(m), nil
}

// saveMessage replaces old with m and keeps the provider id index.
func (st *state) saveMessage(old, m domain.Message) {
	if m.ProviderID != old.ProviderID {
		if old.ProviderID != "" && st.providerIDs[old.ProviderID] == m.ID {
			del(st, st.providerIDs, old.ProviderID)
		}
		if m.ProviderID != "" {
			put(st, st.providerIDs, m.ProviderID, m.ID)
		}
	}
	put(st, st.messages, m.ID, m)
}

// CountMessagesByStatus counts the campaign's messages of mode (every mode
// when zero) per current status; statuses without messages are absent.
func (r *repos) CountMessagesByStatus(ctx context.Context, ws domain.WorkspaceID, id domain.CampaignID, mode domain.KeyMode) (map[domain.MessageStatus]int, error) {
	defer r.enter(ctx)()
	out := map[domain.MessageStatus]int{}
	for _, m := range r.st.messages {
		if m.Workspace == ws && m.CampaignID == id && ofMode(m.Mode, mode) {
			out[m.Status]++
		}
	}
	return out, nil
}

// CountFailuresByCode counts the campaign's failed messages of mode per
// provider code and Herald's own code.
func (r *repos) CountFailuresByCode(ctx context.Context, ws domain.WorkspaceID, id domain.CampaignID, mode domain.KeyMode) (map[domain.FailureKey]int, error) {
	defer r.enter(ctx)()
	out := map[domain.FailureKey]int{}
	for _, m := range r.st.messages {
		if m.Workspace == ws && m.CampaignID == id && ofMode(m.Mode, mode) && m.Status == domain.StatusFailed {
			out[m.Failure.Key()]++
		}
	}
	return out, nil
}

// CountStatusTimeline counts the campaign's messages of mode by the
// interval in which they first reached each timeline status: accepted
// (queued) at their creation, the others at domain.Message.ReachedAt. The
// window runs from the interval holding from to the one holding to; only
// non-zero counts come back.
func (r *repos) CountStatusTimeline(ctx context.Context, ws domain.WorkspaceID, id domain.CampaignID, mode domain.KeyMode, from, to time.Time, interval time.Duration) ([]domain.StatusCount, error) {
	defer r.enter(ctx)()
	if interval < time.Microsecond || interval%time.Microsecond != 0 {
		return nil, domain.InvalidParameter("interval", "interval must be a positive whole number of microseconds")
	}
	lo, hi := domain.IntervalStart(from, interval), domain.IntervalStart(to, interval).Add(interval)
	type key struct {
		status domain.MessageStatus
		start  time.Time
	}
	counts := map[key]int{}
	for _, m := range r.st.messages {
		if m.Workspace != ws || m.CampaignID != id || !ofMode(m.Mode, mode) {
			continue
		}
		for _, st := range domain.TimelineStatuses() {
			at, ok := m.CreatedAt, true
			if st != domain.StatusQueued {
				at, ok = m.ReachedAt(st)
			}
			if ok && !at.Before(lo) && at.Before(hi) {
				counts[key{st, domain.IntervalStart(at, interval)}]++
			}
		}
	}
	out := make([]domain.StatusCount, 0, len(counts))
	for k, n := range counts {
		out = append(out, domain.StatusCount{Status: k.status, Start: k.start, Count: n})
	}
	return out, nil
}

// ParkStatus keeps a status event for a wamid no message holds yet; the
// first event parked for a status and wamid stays, repeats are ignored.
func (r *repos) ParkStatus(ctx context.Context, e ports.StatusEvent, parkedAt time.Time) error {
	defer r.enter(ctx)()
	if e.ProviderID == "" {
		return errors.New("memstore: park status: the event has no provider id")
	}
	k := parkKey{e.ProviderID, e.Status}
	if _, ok := r.st.parked[k]; ok {
		return nil
	}
	put(r.st, r.st.parked, k, parkedStatus{event: copyStatusEvent(e), parkedAt: utc(parkedAt)})
	return nil
}

// TakeParkedStatuses removes and returns the events parked for the wamid,
// oldest event first (ties in lifecycle order).
func (r *repos) TakeParkedStatuses(ctx context.Context, providerID string) ([]ports.StatusEvent, error) {
	defer r.enter(ctx)()
	out := []ports.StatusEvent{}
	for k, p := range r.st.parked {
		if k.providerID == providerID {
			out = append(out, copyStatusEvent(p.event))
			del(r.st, r.st.parked, k)
		}
	}
	rank := func(st domain.MessageStatus) int { return slices.Index(domain.MessageStatuses(), st) }
	slices.SortFunc(out, func(a, b ports.StatusEvent) int {
		return cmp.Or(a.At.Compare(b.At), cmp.Compare(rank(a.Status), rank(b.Status)))
	})
	return out, nil
}

// PurgeParkedStatuses removes the events parked before the time and says
// how many went.
func (r *repos) PurgeParkedStatuses(ctx context.Context, before time.Time) (int, error) {
	defer r.enter(ctx)()
	before = utc(before)
	return deleteWhere(r.st, r.st.parked, func(_ parkKey, p parkedStatus) bool { return p.parkedAt.Before(before) }), nil
}

// ClaimMessages leases up to c.Limit due messages, oldest due first (then by
// id), and moves them to sending.
func (r *repos) ClaimMessages(ctx context.Context, c ports.Claim) ([]ports.Claimed, error) {
	defer r.enter(ctx)()
	now := utc(c.Now)
	var due []domain.MessageID
	for id, q := range r.st.queue {
		if !q.due.After(now) && (!q.leased || !q.leaseUntil.After(now)) {
			due = append(due, id)
		}
	}
	slices.SortFunc(due, func(a, b domain.MessageID) int {
		if c := r.st.queue[a].due.Compare(r.st.queue[b].due); c != 0 {
			return c
		}
		return cmp.Compare(a, b)
	})
	var out []ports.Claimed
	for _, id := range due[:min(len(due), max(c.Limit, 0))] {
		q := r.st.queue[id]
		q.attempts++
		q.leased, q.owner, q.leaseUntil = true, c.Owner, utc(c.LeaseUntil)
		put(r.st, r.st.queue, id, q)
		old := r.st.messages[id]
		m := copyMessage(old)
		m.Advance(domain.StatusSending, now, nil)
		r.st.saveMessage(old, m)
		out = append(out, ports.Claimed{Message: copyMessage(m), Attempt: q.attempts})
	}
	return out, nil
}

// ReleaseMessage ends the lease owner took for attempt: for good when
// retryAt is nil, otherwise until retryAt. A lease that owner no longer holds
// for that attempt is ports.ErrLeaseLost, and nothing changes.
func (r *repos) ReleaseMessage(ctx context.Context, id domain.MessageID, owner string, attempt int, retryAt *time.Time) error {
	defer r.enter(ctx)()
	q, ok := r.st.queue[id]
	if !ok || !q.leased || q.owner != owner || q.attempts != attempt {
		return ports.ErrLeaseLost
	}
	if retryAt == nil {
		del(r.st, r.st.queue, id)
		return nil
	}
	q.leased, q.owner, q.leaseUntil = false, "", time.Time{}
	q.due = utc(*retryAt)
	put(r.st, r.st.queue, id, q)
	return nil
}

// RenewLeases moves owner's leases on ids to until.
func (r *repos) RenewLeases(ctx context.Context, owner string, ids []domain.MessageID, until time.Time) error {
	defer r.enter(ctx)()
	for _, id := range ids {
		if q, ok := r.st.queue[id]; ok && q.leased && q.owner == owner {
			q.leaseUntil = utc(until)
			put(r.st, r.st.queue, id, q)
		}
	}
	return nil
}

// AppendEntries adds entries to contacts' threads. An entry whose id or
// provider id is stored already, or taken by an earlier entry of the call,
// is skipped, and the call is then a conflict; the others are stored.
func (r *repos) AppendEntries(ctx context.Context, es ...domain.Entry) error {
	defer r.enter(ctx)()
	var err error
	for _, e := range es {
		if _, ok := r.st.entries[e.ID]; ok {
			err = conflict("an entry with this id exists")
			continue
		}
		pk := providerKey{e.Workspace, e.ProviderID}
		if e.ProviderID != "" {
			if _, ok := r.st.entryIDs[pk]; ok {
				err = conflict("the workspace already holds an entry with this provider id")
				continue
			}
			put(r.st, r.st.entryIDs, pk, e.ID)
		}
		put(r.st, r.st.entries, e.ID, copyEntry(e))
	}
	return err
}

// ListEntries returns one page of the contact's thread of mode, newest
// first, with each outbound entry's message status. An unknown contact, or
// another workspace's, has an empty thread.
func (r *repos) ListEntries(ctx context.Context, ws domain.WorkspaceID, contact domain.ContactID, mode domain.KeyMode, p ports.Page) ([]domain.Entry, string, error) {
	defer r.enter(ctx)()
	var all []domain.Entry
	for _, e := range r.st.entries {
		if e.Workspace == ws && e.ContactID == contact && ofMode(e.Mode, mode) {
			all = append(all, e)
		}
	}
	out, next := page(all, func(e domain.Entry) string { return string(e.ID) }, p)
	for i, e := range out {
		out[i] = copyEntry(e)
		if m, ok := r.st.messages[e.MessageID]; ok && e.Direction == domain.Outbound && m.Workspace == ws {
			out[i].Status = m.Status
		}
	}
	return out, next, nil
}

// defaultEventLimit is how many webhook events a filter without a limit
// lists.
const defaultEventLimit = 100

// SaveWebhookEvent stores e unless an event with the same SHA-256 is
// stored: then it returns that one and created false.
func (r *repos) SaveWebhookEvent(ctx context.Context, e domain.WebhookEvent) (domain.WebhookEvent, bool, error) {
	defer r.enter(ctx)()
	if id, ok := r.st.eventIDs[e.SHA256]; ok {
		return copyEvent(r.st.events[id]), false, nil
	}
	if _, ok := r.st.events[e.ID]; ok {
		return domain.WebhookEvent{}, false, conflict("a webhook event with this id exists")
	}
	e = copyEvent(e)
	put(r.st, r.st.events, e.ID, e)
	put(r.st, r.st.eventIDs, e.SHA256, e.ID)
	return copyEvent(e), true, nil
}

// GetWebhookEvent returns one stored event.
func (r *repos) GetWebhookEvent(ctx context.Context, id domain.WebhookEventID) (domain.WebhookEvent, error) {
	defer r.enter(ctx)()
	e, ok := r.st.events[id]
	if !ok {
		return domain.WebhookEvent{}, domain.NotFound(domain.ErrWebhookEventNotFound)
	}
	return copyEvent(e), nil
}

// ListWebhookEvents returns up to f.Limit events matching f (100 when f
// sets no limit), smallest id first.
func (r *repos) ListWebhookEvents(ctx context.Context, f ports.WebhookEventFilter) ([]domain.WebhookEvent, error) {
	defer r.enter(ctx)()
	out := []domain.WebhookEvent{}
	for _, e := range r.st.events {
		switch {
		case f.Unapplied && e.AppliedAt != nil,
			!f.ReceivedBefore.IsZero() && !e.ReceivedAt.Before(utc(f.ReceivedBefore)),
			!f.ReceivedSince.IsZero() && e.ReceivedAt.Before(utc(f.ReceivedSince)),
			f.After != "" && e.ID <= f.After,
			f.BelowAttempts > 0 && e.Attempts >= f.BelowAttempts:
			continue
		}
		out = append(out, e)
	}
	slices.SortFunc(out, func(a, b domain.WebhookEvent) int { return cmp.Compare(a.ID, b.ID) })
	limit := f.Limit
	if limit <= 0 {
		limit = defaultEventLimit
	}
	out = out[:min(len(out), limit)]
	for i := range out {
		out[i] = copyEvent(out[i])
	}
	return out, nil
}

// UpdateWebhookEvent runs fn on the event and stores its outcome fields
// (AppliedAt, Attempts, LastError) if fn succeeds.
func (r *repos) UpdateWebhookEvent(ctx context.Context, id domain.WebhookEventID, fn func(*domain.WebhookEvent) error) (domain.WebhookEvent, error) {
	defer r.enter(ctx)()
	old, ok := r.st.events[id]
	if !ok {
		return domain.WebhookEvent{}, domain.NotFound(domain.ErrWebhookEventNotFound)
	}
	e := copyEvent(old)
	if err := fn(&e); err != nil {
		return domain.WebhookEvent{}, err
	}
	stored := old
	stored.AppliedAt, stored.Attempts, stored.LastError = utcPtr(e.AppliedAt), e.Attempts, e.LastError
	put(r.st, r.st.events, id, stored)
	return copyEvent(stored), nil
}

// page sorts items newest first (identifiers descending) and returns those
// after the cursor, up to the limit, with the cursor of the next page: the
// last identifier returned, or empty when nothing follows.
func page[T any](items []T, id func(T) string, p ports.Page) ([]T, string) {
	slices.SortFunc(items, func(a, b T) int { return cmp.Compare(id(b), id(a)) })
	if p.Cursor != "" {
		i, _ := slices.BinarySearchFunc(items, p.Cursor, func(item T, cursor string) int {
			return cmp.Compare(cursor, id(item)) // items are descending
		})
		for i < len(items) && id(items[i]) >= p.Cursor {
			i++
		}
		items = items[i:]
	}
	limit := p.Limit
	if limit <= 0 {
		limit = defaultLimit
	}
	if len(items) <= limit {
		return items, ""
	}
	items = items[:limit]
	return items, id(items[limit-1])
}

// utc is how the store keeps times: UTC, microseconds.
// ofMode reports whether an object of mode m is kept by a filter of mode
// want: the zero mode keeps every mode.
func ofMode(m, want domain.KeyMode) bool { return want.IsZero() || m == want }

func utc(t time.Time) time.Time { return t.UTC().Truncate(time.Microsecond) }

func utcPtr(t *time.Time) *time.Time {
	if t == nil {
		return nil
	}
	u := utc(*t)
	return &u
}

// The copy functions deep-copy a value on its way in or out of the store and
// normalise its times.

func copyKey(k domain.APIKey) domain.APIKey {
	k.CreatedAt = utc(k.CreatedAt)
	k.LastUsedAt, k.RevokedAt, k.ExpiresAt = utcPtr(k.LastUsedAt), utcPtr(k.RevokedAt), utcPtr(k.ExpiresAt)
	return k
}

func copyCampaign(c domain.Campaign) domain.Campaign {
	c.Template.Placeholders = slices.Clone(c.Template.Placeholders)
	c.CreatedAt, c.UpdatedAt = utc(c.CreatedAt), utc(c.UpdatedAt)
	return c
}

func copyTemplate(t domain.SyncedTemplate) domain.SyncedTemplate {
	t.Definition.Placeholders = slices.Clone(t.Definition.Placeholders)
	t.SyncedAt = utc(t.SyncedAt)
	return t
}

func copyContact(c domain.Contact) domain.Contact {
	c.Attributes = maps.Clone(c.Attributes)
	c.Tags = slices.Clone(c.Tags)
	c.CreatedAt, c.UpdatedAt = utc(c.CreatedAt), utc(c.UpdatedAt)
	c.LastMessageAt = utcPtr(c.LastMessageAt)
	c.OptOutChangedAt = utcPtr(c.OptOutChangedAt)
	c.Marketing.ChangedAt = utcPtr(c.Marketing.ChangedAt)
	return c
}

func copyMessage(m domain.Message) domain.Message {
	m.Variables = slices.Clone(m.Variables)
	m.History = slices.Clone(m.History)
	for i := range m.History {
		m.History[i].At = utc(m.History[i].At)
	}
	m.Failure = clonePtr(m.Failure)
	m.Pricing = clonePtr(m.Pricing)
	m.CreatedAt, m.UpdatedAt = utc(m.CreatedAt), utc(m.UpdatedAt)
	return m
}

func copyEntry(e domain.Entry) domain.Entry {
	e.Media = clonePtr(e.Media)
	e.CreatedAt = utc(e.CreatedAt)
	return e
}

func copyStatusEvent(e ports.StatusEvent) ports.StatusEvent {
	e.At = utc(e.At)
	e.Failure = clonePtr(e.Failure)
	e.Pricing = clonePtr(e.Pricing)
	return e
}

func copyEvent(e domain.WebhookEvent) domain.WebhookEvent {
	e.Body = slices.Clone(e.Body)
	e.ReceivedAt = utc(e.ReceivedAt)
	e.AppliedAt = utcPtr(e.AppliedAt)
	return e
}

func clonePtr[T any](p *T) *T {
	if p == nil {
		return nil
	}
	v := *p
	return &v
}
