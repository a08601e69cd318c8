package memstore

import (
	"cmp"
	"context"
	"slices"
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

// Store is every store port (ports.Store lists them).
var _ ports.Store = (*Store)(nil)

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
		readThrough: map[domain.ContactID]domain.EntryID{},
		parked:      map[parkKey]parkedStatus{},
		events:      map[domain.WebhookEventID]domain.WebhookEvent{},
		eventIDs:    map[string]domain.WebhookEventID{},
		idempotency: map[idemKey]domain.IdempotencyRecord{},
		sendCounts:  map[countKey]int{},
		health:      map[string]domain.PhoneHealth{},
		healthLog:   map[int64]domain.HealthChange{},
		reach:       map[reachKey]time.Time{},
		operators:   map[domain.OperatorID]domain.Operator{},
		operatorIDs: map[string]domain.OperatorID{},
		sessions:    map[string]domain.Session{},
		outbox:      map[domain.EventID]outboxEvent{},
		counters:    map[string]int64{},
		endpoints:   map[domain.WebhookEndpointID]domain.WebhookEndpoint{},
		deliveries:  map[deliveryKey]delivery{},
		attempts:    map[int64]storedAttempt{},
		numbers:     map[domain.BusinessNumberID]domain.BusinessNumber{},
		apps:        map[string]domain.MetaApp{},
		media:       map[domain.MediaID]storedMedia{},
		uploads:     map[uploadKey]domain.MediaUpload{},
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
	entryIDs    map[providerKey]domain.EntryID      // entries with a provider id
	readThrough map[domain.ContactID]domain.EntryID // how far each thread was read (the inbox)
	parked      map[parkKey]parkedStatus
	events      map[domain.WebhookEventID]domain.WebhookEvent
	eventIDs    map[string]domain.WebhookEventID // by SHA-256
	idempotency map[idemKey]domain.IdempotencyRecord
	sendCounts  map[countKey]int
	health      map[string]domain.PhoneHealth // by Meta's phone number id
	healthLog   map[int64]domain.HealthChange // by the order recorded (counterHealth)
	reach       map[reachKey]time.Time        // when each recipient was last reached
	operators   map[domain.OperatorID]domain.Operator
	operatorIDs map[string]domain.OperatorID   // by email
	sessions    map[string]domain.Session      // by token hash
	outbox      map[domain.EventID]outboxEvent // events to the customer's systems
	counters    map[string]int64               // the outbox's: counterAppended, …
	endpoints   map[domain.WebhookEndpointID]domain.WebhookEndpoint
	deliveries  map[deliveryKey]delivery
	attempts    map[int64]storedAttempt // by the order recorded
	numbers     map[domain.BusinessNumberID]domain.BusinessNumber
	apps        map[string]domain.MetaApp // by Meta's app id
	media       map[domain.MediaID]storedMedia
	uploads     map[uploadKey]domain.MediaUpload
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

// ofMode reports whether an object of mode m is kept by a filter of mode
// want: the zero mode keeps every mode.
func ofMode(m, want domain.KeyMode) bool { return want.IsZero() || m == want }

// utc is how the store keeps times: UTC, microseconds.
func utc(t time.Time) time.Time { return t.UTC().Truncate(time.Microsecond) }

func utcPtr(t *time.Time) *time.Time {
	if t == nil {
		return nil
	}
	u := utc(*t)
	return &u
}

func clonePtr[T any](p *T) *T {
	if p == nil {
		return nil
	}
	v := *p
	return &v
}
