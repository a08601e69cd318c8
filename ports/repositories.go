package ports

import (
	"context"
	"time"

	"github.com/heraldhq/herald/domain"
)

// Mocks are generated for the ports a test fakes (failure injection);
// repositories are otherwise tested on memstore, which keeps the contract.
//go:generate go tool moq -rm -pkg portsmock -out portsmock/key_repository.go . KeyRepository
//go:generate go tool moq -rm -pkg portsmock -out portsmock/campaign_repository.go . CampaignRepository
//go:generate go tool moq -rm -pkg portsmock -out portsmock/contact_repository.go . ContactRepository
//go:generate go tool moq -rm -pkg portsmock -out portsmock/message_queue.go . MessageQueue
//go:generate go tool moq -rm -pkg portsmock -out portsmock/pinger.go . Pinger

// Conventions for every repository:
//   - The workspace id follows ctx, and an object of another workspace is
//     reported exactly like a missing one: the entity's not-found error
//     (domain.ErrCampaignNotFound, …).
//   - A mode argument (domain.KeyMode) keeps one mode's traffic; the zero
//     mode keeps every mode's, for the dashboard.
//   - Update methods run fn on the current value inside one atomic
//     read-modify-write and store the result only if fn returns nil.
//   - Times are stored in UTC with microsecond precision.
//   - Template language codes are stored in canonical form
//     (domain.CanonicalLanguage) and looked up in any form Meta writes:
//     pt-BR, pt_br and pt_BR are one language.
//   - ports.ErrUnavailable (wrapped) means the store could not be reached.

// Page asks for one page of a list, newest first. Cursor is the opaque value
// a previous page returned; empty asks for the first page.
type Page struct {
	Cursor string
	Limit  int
}

// WorkspaceRepository stores workspaces.
type WorkspaceRepository interface {
	CreateWorkspace(ctx context.Context, w domain.Workspace) error
	GetWorkspace(ctx context.Context, id domain.WorkspaceID) (domain.Workspace, error)
	// EnsureDefaultWorkspace returns the default workspace, storing
	// candidate as the default first if there is none yet. Concurrent calls
	// agree on one default.
	EnsureDefaultWorkspace(ctx context.Context, candidate domain.Workspace) (domain.Workspace, error)
}

// KeyRepository stores API keys (never their tokens).
type KeyRepository interface {
	// CreateKey stores a key; identifiers are unique.
	CreateKey(ctx context.Context, k domain.APIKey) error
	// GetKeyByIdentifier is the authentication lookup, one index hit, across
	// workspaces: the identifier is globally unique.
	GetKeyByIdentifier(ctx context.Context, identifier string) (domain.APIKey, error)
	// ListKeys lists a workspace's keys, newest first.
	ListKeys(ctx context.Context, ws domain.WorkspaceID) ([]domain.APIKey, error)
	UpdateKey(ctx context.Context, ws domain.WorkspaceID, id domain.KeyID, fn func(*domain.APIKey) error) (domain.APIKey, error)
	// TouchKeys records last use times in one batch; a time earlier than the
	// stored one is ignored, and unknown ids are skipped.
	TouchKeys(ctx context.Context, lastUsed map[domain.KeyID]time.Time) error
}

// CampaignRepository stores campaigns.
type CampaignRepository interface {
	CreateCampaign(ctx context.Context, c domain.Campaign) error
	GetCampaign(ctx context.Context, ws domain.WorkspaceID, id domain.CampaignID) (domain.Campaign, error)
	// GetCampaigns returns the campaigns with the ids, of every workspace,
	// by id; ids of no campaign are skipped.
	GetCampaigns(ctx context.Context, ids []domain.CampaignID) ([]domain.Campaign, error)
	// ListCampaigns returns one page newest first and the cursor of the next
	// page, empty on the last.
	ListCampaigns(ctx context.Context, ws domain.WorkspaceID, p Page) ([]domain.Campaign, string, error)
	UpdateCampaign(ctx context.Context, ws domain.WorkspaceID, id domain.CampaignID, fn func(*domain.Campaign) error) (domain.Campaign, error)
	// ListCampaignsByTemplate returns, across workspaces, every campaign
	// that sends the template name in language, oldest first: template
	// status changes apply to them all.
	ListCampaignsByTemplate(ctx context.Context, name, language string) ([]domain.Campaign, error)
}

// TemplateRepository stores the message templates read from WhatsApp
// Business Accounts by template sync. Templates belong to an account, not a
// workspace: the account's campaigns in every workspace use them.
type TemplateRepository interface {
	// ReplaceTemplates makes ts the account's templates: each is stored by
	// name and language, replacing what was stored, and the account's
	// templates missing from ts are removed.
	ReplaceTemplates(ctx context.Context, account string, ts []domain.SyncedTemplate) error
	// ListTemplates returns the account's templates ordered by name, then
	// language.
	ListTemplates(ctx context.Context, account string) ([]domain.SyncedTemplate, error)
	// GetTemplate returns one template, or domain.ErrTemplateNotFound.
	GetTemplate(ctx context.Context, account, name, language string) (domain.SyncedTemplate, error)
	// SetTemplateStatus records Meta's new status of one template (from a
	// status webhook); an unknown template is left unknown, without error.
	SetTemplateStatus(ctx context.Context, account, name, language string, status domain.TemplateStatus) error
	// SetTemplateCategory records Meta's new category of one template
	// (from a category webhook); an unknown template is left unknown,
	// without error.
	SetTemplateCategory(ctx context.Context, account, name, language string, category domain.TemplateCategory) error
}

// ContactRepository stores contacts, unique per workspace and mode by
// number and by BSUID. A number is one however WhatsApp writes it: its key
// (domain.Contact.NumberKey: the phone number's domain.NumberKey, or the
// wa_id's for a contact without one) is what is unique and what lookups by
// number compare, so +5582999448232 and +558299448232 find one contact.
// A contact known only by its BSUID has no key.
type ContactRepository interface {
	// CreateContact stores a new contact; a second contact with the same
	// number key or BSUID in the workspace and mode is domain.ErrConflict.
	CreateContact(ctx context.Context, c domain.Contact) error
	// GetContact returns one of the workspace's contacts, of any mode.
	GetContact(ctx context.Context, ws domain.WorkspaceID, id domain.ContactID) (domain.Contact, error)
	// GetContactByPhone returns the workspace's contact of mode with the
	// phone number, in any form.
	GetContactByPhone(ctx context.Context, ws domain.WorkspaceID, mode domain.KeyMode, phone domain.PhoneNumber) (domain.Contact, error)
	// ListContactsByPhone returns, across workspaces, every contact of
	// mode with the phone number, in any form, the most recently active
	// first (by last message time, contacts without one last, then by id).
	ListContactsByPhone(ctx context.Context, mode domain.KeyMode, phone domain.PhoneNumber) ([]domain.Contact, error)
	// ListContactsOfUser returns, across workspaces, every contact of mode
	// that may be the WhatsApp user an event names: whose BSUID is userID,
	// whose wa_id is one of waIDs, or whose number key is the key of one of
	// waIDs; ordered as ListContactsByPhone. Empty values match nothing:
	// an inbound message finds its contacts in every workspace this way
	// (domain.Contact.Matches ranks them).
	ListContactsOfUser(ctx context.Context, mode domain.KeyMode, userID string, waIDs []string) ([]domain.Contact, error)
	// UpdateContact runs fn on the contact; its id, workspace, mode and
	// conversation do not change.
	UpdateContact(ctx context.Context, ws domain.WorkspaceID, id domain.ContactID, fn func(*domain.Contact) error) (domain.Contact, error)
	// FindContactsByPhone returns the workspace's contacts of mode with
	// these phone numbers, in any form, in number key order; numbers
	// without a contact are left out. Within a transaction the contacts found stay locked until it
	// ends, taken in that order, so that two transactions locking
	// overlapping sets wait for each other instead of deadlocking. Sends
	// read their contacts this way, a batch at a time.
	FindContactsByPhone(ctx context.Context, ws domain.WorkspaceID, mode domain.KeyMode, phones []domain.PhoneNumber) ([]domain.Contact, error)
	// SaveContacts stores each contact in one statement: a new id is
	// created, an id of the same workspace and mode is replaced. An id
	// held by another workspace or mode, or a number key or BSUID held by
	// another contact of the workspace and mode, is domain.ErrConflict, and the
	// call stores nothing (within a transaction, the caller rolls it
	// back). Each id appears at most once.
	SaveContacts(ctx context.Context, cs ...domain.Contact) error
	// ListContacts returns one page of the workspace's contacts, newest
	// first, and the cursor of the next page (empty on the last). With a
	// PhonePrefix only numbers starting with it are listed.
	ListContacts(ctx context.Context, ws domain.WorkspaceID, f ContactFilter, p Page) ([]domain.Contact, string, error)
}

// ContactFilter narrows ListContacts.
type ContactFilter struct {
	// PhonePrefix, when not empty, keeps numbers that start with it
	// ("+4915" keeps +491512345678); it is compared as written.
	PhonePrefix string
	// Mode, when not zero, keeps that mode's contacts.
	Mode domain.KeyMode
}

// MessageRepository stores messages and their status history.
type MessageRepository interface {
	// CreateMessages stores new messages, in one statement, and makes each
	// due for sending from its creation time.
	CreateMessages(ctx context.Context, ms ...domain.Message) error
	GetMessage(ctx context.Context, ws domain.WorkspaceID, id domain.MessageID) (domain.Message, error)
	// ListCampaignMessages returns one page of a campaign's messages, newest
	// first, and the cursor of the next page (empty on the last).
	ListCampaignMessages(ctx context.Context, ws domain.WorkspaceID, id domain.CampaignID, p Page) ([]domain.Message, string, error)
	// ListMessages returns one page of the workspace's messages matching
	// f, newest first (ids descending), and the cursor of the next page
	// (empty on the last).
	ListMessages(ctx context.Context, ws domain.WorkspaceID, f MessageFilter, p Page) ([]domain.Message, string, error)
	// LocateMessage finds a message for a provider event, across workspaces:
	// by id when id is not empty, otherwise by the provider's message id.
	LocateMessage(ctx context.Context, id domain.MessageID, providerID string) (domain.Message, error)
	UpdateMessage(ctx context.Context, ws domain.WorkspaceID, id domain.MessageID, fn func(*domain.Message) error) (domain.Message, error)
	// UpdateLocatedMessage is LocateMessage and UpdateMessage in one
	// locking read, for what Meta reports of a message: it finds the
	// message as LocateMessage does, runs fn on it and stores its delivery
	// (domain.Message.WithDelivery), atomically, and returns the message
	// stored. Nothing else fn changes is stored. fn must not use the
	// repositories.
	UpdateLocatedMessage(ctx context.Context, id domain.MessageID, providerID string, fn func(*domain.Message) error) (domain.Message, error)
	// LockMessages reads, in one statement, the messages with the ids or
	// the provider ids given, across workspaces, locking them as
	// UpdateLocatedMessage's read does, in id order; ids no message has
	// are left out. A webhook group reads its statuses' messages so, then
	// writes them with WriteMessageDeliveries.
	LockMessages(ctx context.Context, ids []domain.MessageID, providerIDs []string) ([]domain.Message, error)
	// WriteMessageDeliveries stores the delivery of each of ms
	// (domain.Message.WithDelivery) over the stored message with its id,
	// in one statement where the engine allows, atomically; nothing else
	// of them is stored. ms holds each message once. A message not stored
	// is domain.ErrMessageNotFound, and then none is written.
	WriteMessageDeliveries(ctx context.Context, ms []domain.Message) error
}

// MessageFilter narrows ListMessages; zero fields keep everything.
type MessageFilter struct {
	// Mode, when not zero, keeps that mode's messages.
	Mode     domain.KeyMode
	Campaign domain.CampaignID
	Status   domain.MessageStatus // the current status
	Phone    domain.PhoneNumber
	// Since and Until, when not zero, keep messages created at or after
	// Since and before Until.
	Since, Until time.Time
}

// MessageStatsReader counts a campaign's messages for its statistics.
type MessageStatsReader interface {
	// CountMessagesByStatus counts a campaign's messages of mode per
	// current status.
	CountMessagesByStatus(ctx context.Context, ws domain.WorkspaceID, id domain.CampaignID, mode domain.KeyMode) (map[domain.MessageStatus]int, error)
	// CountFailuresByCode counts a campaign's failed messages of mode per
	// provider error code (0 for failures without one) and Herald's own
	// code (empty for the provider's failures).
	CountFailuresByCode(ctx context.Context, ws domain.WorkspaceID, id domain.CampaignID, mode domain.KeyMode) (map[domain.FailureKey]int, error)
	// CountStatusTimeline counts a campaign's messages of mode by the
	// interval in which they first reached each of domain.TimelineStatuses
	// (domain.Message.ReachedAt), for intervals (domain.IntervalStart)
	// starting from from's up to to's. Only non-zero counts are returned,
	// in no particular order.
	CountStatusTimeline(ctx context.Context, ws domain.WorkspaceID, id domain.CampaignID, mode domain.KeyMode, from, to time.Time, interval time.Duration) ([]domain.StatusCount, error)
}

// ParkedStatusRepository keeps status events that arrived before their
// message was known by its wamid (they raced ahead of the send's answer,
// or came without our id), until a message gets that wamid.
type ParkedStatusRepository interface {
	// ParkStatus keeps a status event for a message not known yet (its
	// wamid is not recorded on any message), until TakeParkedStatuses
	// claims it. e.ProviderID is required; the same status for the same
	// wamid is kept once.
	ParkStatus(ctx context.Context, e StatusEvent, parkedAt time.Time) error
	// TakeParkedStatuses removes and returns the events parked for a
	// wamid, oldest event first.
	TakeParkedStatuses(ctx context.Context, providerID string) ([]StatusEvent, error)
	// PurgeParkedStatuses removes events parked before a time (statuses of
	// messages that are not Herald's) and says how many went.
	PurgeParkedStatuses(ctx context.Context, before time.Time) (int, error)
}

// Claim asks for due messages on behalf of one dispatcher.
type Claim struct {
	Owner      string    // who holds the lease
	Now        time.Time // messages due at or before now are claimed
	LeaseUntil time.Time // the lease ends then unless released
	Limit      int
}

// Claimed is a message leased to a dispatcher, with the number of this
// attempt (1 for the first).
type Claimed struct {
	Message domain.Message
	Attempt int
}

// MessageQueue hands due messages to dispatchers under a lease.
type MessageQueue interface {
	// ClaimMessages leases up to Limit due messages, oldest first, that no
	// live lease holds: those due at or before Now whose lease is absent or
	// expired. Claimed messages move to sending (recorded once in their
	// history). Two concurrent claims never return the same message.
	ClaimMessages(ctx context.Context, c Claim) ([]Claimed, error)
	// ReleaseMessage ends the lease that owner took for this attempt. With
	// retryAt nil the message is no longer due; otherwise it is due again at
	// retryAt. The release is fenced: if the message is no longer leased to
	// owner for this attempt (its lease expired and it was claimed again),
	// nothing changes and the error is ErrLeaseLost.
	ReleaseMessage(ctx context.Context, id domain.MessageID, owner string, attempt int, retryAt *time.Time) error
	// RenewLeases extends until the given time owner's leases on ids; ids
	// that owner no longer holds are left alone.
	RenewLeases(ctx context.Context, owner string, ids []domain.MessageID, until time.Time) error
	// FailQueuedMessages fails at once the messages to contact c (of c's
	// workspace and mode) that are still waiting to be sent and that c no
	// longer takes: each gets c.OptOutFailure for its campaign's category,
	// at now, and leaves the queue for good; those it gives no failure
	// stay. Waiting means queued or released for a retry: a message under
	// a live lease is a send in flight and is left to its dispatcher, which
	// checks the contact again; one whose lease expired is waiting. c's
	// messages are found through c's thread: those with an outbound entry
	// in it (send-campaign writes one with every message). It returns the
	// ids of the messages failed, in id order. In a transaction the
	// opt-out and this commit together.
	FailQueuedMessages(ctx context.Context, c domain.Contact, now time.Time) ([]domain.MessageID, error)
}

// ConversationRepository stores contacts' conversation threads.
type ConversationRepository interface {
	// AppendEntries stores entries, in one statement. An inbound entry whose
	// ProviderID the workspace already holds (or which an earlier entry of
	// the call carries) is not stored and makes the call domain.ErrConflict,
	// the others being stored; the transaction stays usable: a redelivered
	// message is recorded once.
	AppendEntries(ctx context.Context, es ...domain.Entry) error
	// ListEntries returns one page of a contact's thread of mode newest
	// first, and the cursor of the next page (empty on the last). Outbound
	// entries carry the current status of their message.
	ListEntries(ctx context.Context, ws domain.WorkspaceID, contact domain.ContactID, mode domain.KeyMode, p Page) ([]domain.Entry, string, error)
	// GetInboundEntry returns the workspace's inbound entry of mode whose
	// ProviderID (Meta's wamid) is providerID, or domain.ErrMessageNotFound.
	GetInboundEntry(ctx context.Context, ws domain.WorkspaceID, mode domain.KeyMode, providerID string) (domain.Entry, error)
}

// WebhookEventFilter selects stored webhook events, oldest first.
type WebhookEventFilter struct {
	// Unapplied keeps only events not applied yet (waiting or failed).
	Unapplied bool
	// ReceivedBefore, when not zero, keeps events received before it
	// (exclusive).
	ReceivedBefore time.Time
	// ReceivedSince, when not zero, keeps events received at or after it.
	ReceivedSince time.Time
	// BelowAttempts, when positive, keeps events tried fewer times.
	BelowAttempts int
	// After, when not empty, starts after this event (paging).
	After domain.WebhookEventID
	// Limit caps the page; zero or less means 100.
	Limit int
}

// SavedWebhookEvent is what SaveWebhookEvents did with one event: the
// event as stored, and whether this call created it.
type SavedWebhookEvent struct {
	Stored  domain.WebhookEvent
	Created bool
}

// WebhookEventRepository is the durable inbox of Meta's webhook calls.
// Events are not workspace objects: one call may concern many workspaces.
type WebhookEventRepository interface {
	// SaveWebhookEvent stores e, unless an event with the same SHA256 is
	// stored already: then it returns that one and created false.
	SaveWebhookEvent(ctx context.Context, e domain.WebhookEvent) (stored domain.WebhookEvent, created bool, err error)
	// SaveWebhookEvents saves each of es as SaveWebhookEvent does, in es's
	// order, in one statement where the engine allows, atomically, and
	// returns what each got, in es's order: of two with one SHA256, the
	// first is stored and the second gets it, not created.
	SaveWebhookEvents(ctx context.Context, es []domain.WebhookEvent) ([]SavedWebhookEvent, error)
	// GetWebhookEvent returns one event or domain.ErrWebhookEventNotFound.
	GetWebhookEvent(ctx context.Context, id domain.WebhookEventID) (domain.WebhookEvent, error)
	// ListWebhookEvents returns up to f.Limit events matching f, oldest
	// (smallest id) first.
	ListWebhookEvents(ctx context.Context, f WebhookEventFilter) ([]domain.WebhookEvent, error)
	// UpdateWebhookEvent changes an event's outcome fields (AppliedAt,
	// Attempts, LastError); its body is never changed.
	UpdateWebhookEvent(ctx context.Context, id domain.WebhookEventID, fn func(*domain.WebhookEvent) error) (domain.WebhookEvent, error)
}

// OperatorRepository stores dashboard operators and their sign-ins.
// Operators are found by email across workspaces: an address is unique.
type OperatorRepository interface {
	// CreateOperator stores an operator; an email address already taken is
	// domain.ErrConflict.
	CreateOperator(ctx context.Context, o domain.Operator) error
	// GetOperatorByEmail finds an operator by its normalised email address,
	// or returns domain.ErrOperatorNotFound.
	GetOperatorByEmail(ctx context.Context, email string) (domain.Operator, error)
	// CreateSession stores a sign-in.
	CreateSession(ctx context.Context, s domain.Session) error
	// GetSession finds a sign-in by its token's hash, expired or not, or
	// returns domain.ErrSessionNotFound.
	GetSession(ctx context.Context, tokenHash string) (domain.Session, error)
	// DeleteSession ends a sign-in; an unknown hash is not an error.
	DeleteSession(ctx context.Context, tokenHash string) error
	// DeleteExpiredSessions removes sign-ins that ended before a time and
	// says how many went.
	DeleteExpiredSessions(ctx context.Context, before time.Time) (int, error)
}

// Pinger reports whether the store can be reached, for readiness checks.
type Pinger interface {
	Ping(ctx context.Context) error
}
