package delivery

import (
	"context"
	"slices"

	"github.com/heraldhq/herald/domain"
	"github.com/heraldhq/herald/ports"
)

// What a webhook group writes, it holds until its end and then writes in
// one go: the messages its statuses change (two statements for the group
// where each status took two on its own) and the events those changes
// report (two statements where each took two). Both stay inside the
// group's transaction, which holds the messages' locks from the first
// read to the COMMIT.

// heldMessages are the messages of a group's statuses, read and locked
// together (LockMessages), changed in memory by each status in turn, and
// written together (WriteMessageDeliveries) when the group's statuses are
// applied. Only a status's read-and-change (UpdateLocatedMessage) and
// reads of a held message are served from memory. A message the group
// did not read is read and written at once, as without a group. Any other
// call writes what is held and stops holding, so it never sees a message
// older than the group's changes, and never has them written over it.
type heldMessages struct {
	ports.MessageRepository
	byID    map[domain.MessageID]domain.Message
	byWamid map[string]domain.MessageID
	changed []domain.MessageID // in the order of their first change
}

// holdMessages reads and locks the messages the statuses name, by our id
// or Meta's wamid.
func holdMessages(ctx context.Context, repo ports.MessageRepository, statuses []ports.StatusEvent) (*heldMessages, error) {
	h := &heldMessages{MessageRepository: repo, byID: map[domain.MessageID]domain.Message{}, byWamid: map[string]domain.MessageID{}}
	var ids []domain.MessageID
	var wamids []string
	for _, e := range statuses {
		if e.MessageID != "" {
			ids = append(ids, e.MessageID)
		}
		if e.ProviderID != "" {
			wamids = append(wamids, e.ProviderID)
		}
	}
	ms, err := repo.LockMessages(ctx, ids, wamids)
	if err != nil {
		return nil, err
	}
	for _, m := range ms { // in id order: a wamid names its lowest id, as LocateMessage's
		h.keep(m)
	}
	return h, nil
}

func (h *heldMessages) keep(m domain.Message) {
	h.byID[m.ID] = m
	if _, ok := h.byWamid[m.ProviderID]; m.ProviderID != "" && !ok {
		h.byWamid[m.ProviderID] = m.ID
	}
}

// held finds a held message as LocateMessage finds a stored one: by id
// when id is given, otherwise by wamid.
func (h *heldMessages) held(id domain.MessageID, wamid string) (domain.Message, bool) {
	if id == "" {
		if id = h.byWamid[wamid]; id == "" {
			return domain.Message{}, false
		}
	}
	m, ok := h.byID[id]
	return cloneHistory(m), ok
}

// cloneHistory copies what a change of m's delivery may change in place.
func cloneHistory(m domain.Message) domain.Message {
	m.History = slices.Clone(m.History)
	return m
}

func (h *heldMessages) UpdateLocatedMessage(ctx context.Context, id domain.MessageID, wamid string, fn func(*domain.Message) error) (domain.Message, error) {
	m, ok := h.held(id, wamid)
	if !ok {
		return h.MessageRepository.UpdateLocatedMessage(ctx, id, wamid, fn)
	}
	work := cloneHistory(m)
	if err := fn(&work); err != nil {
		return domain.Message{}, err
	}
	m = m.WithDelivery(work)
	if !slices.Contains(h.changed, m.ID) {
		h.changed = append(h.changed, m.ID)
	}
	h.keep(m)
	return cloneHistory(m), nil
}

func (h *heldMessages) LocateMessage(ctx context.Context, id domain.MessageID, wamid string) (domain.Message, error) {
	if m, ok := h.held(id, wamid); ok {
		return m, nil
	}
	return h.MessageRepository.LocateMessage(ctx, id, wamid)
}

func (h *heldMessages) GetMessage(ctx context.Context, ws domain.WorkspaceID, id domain.MessageID) (domain.Message, error) {
	if m, ok := h.held(id, ""); ok && m.Workspace == ws {
		return m, nil
	}
	return h.MessageRepository.GetMessage(ctx, ws, id)
}

func (h *heldMessages) CreateMessages(ctx context.Context, ms ...domain.Message) error {
	if err := h.release(ctx); err != nil {
		return err
	}
	return h.MessageRepository.CreateMessages(ctx, ms...)
}

func (h *heldMessages) ListCampaignMessages(ctx context.Context, ws domain.WorkspaceID, id domain.CampaignID, p ports.Page) ([]domain.Message, string, error) {
	if err := h.release(ctx); err != nil {
		return nil, "", err
	}
	return h.MessageRepository.ListCampaignMessages(ctx, ws, id, p)
}

func (h *heldMessages) ListMessages(ctx context.Context, ws domain.WorkspaceID, f ports.MessageFilter, p ports.Page) ([]domain.Message, string, error) {
	if err := h.release(ctx); err != nil {
		return nil, "", err
	}
	return h.MessageRepository.ListMessages(ctx, ws, f, p)
}

func (h *heldMessages) UpdateMessage(ctx context.Context, ws domain.WorkspaceID, id domain.MessageID, fn func(*domain.Message) error) (domain.Message, error) {
	if err := h.release(ctx); err != nil {
		return domain.Message{}, err
	}
	return h.MessageRepository.UpdateMessage(ctx, ws, id, fn)
}

func (h *heldMessages) LockMessages(ctx context.Context, ids []domain.MessageID, wamids []string) ([]domain.Message, error) {
	if err := h.release(ctx); err != nil {
		return nil, err
	}
	return h.MessageRepository.LockMessages(ctx, ids, wamids)
}

func (h *heldMessages) WriteMessageDeliveries(ctx context.Context, ms []domain.Message) error {
	if err := h.release(ctx); err != nil {
		return err
	}
	return h.MessageRepository.WriteMessageDeliveries(ctx, ms)
}

// release writes the held messages' changes and stops holding them: from
// then on every call goes to the store.
func (h *heldMessages) release(ctx context.Context) error {
	ms := make([]domain.Message, 0, len(h.changed))
	for _, id := range h.changed {
		ms = append(ms, h.byID[id])
	}
	h.byID, h.byWamid, h.changed = map[domain.MessageID]domain.Message{}, map[string]domain.MessageID{}, nil
	return h.MessageRepository.WriteMessageDeliveries(ctx, ms)
}

// heldEvents keeps the events a group's items append and stores them in
// one AppendEvents at the group's end, in the order they were appended:
// on PostgreSQL that is two statements for the group where each status
// took two (sqlstore's appendEventsTogether). The group still holds its
// messages' locks when it stores them, so two events of one message are
// appended in the order of their changes, as when each was appended at
// once. Nothing in a group reads the events it appends.
type heldEvents struct {
	ports.EventWriter
	held []domain.Event
}

func (h *heldEvents) AppendEvents(_ context.Context, es ...domain.Event) error {
	h.held = append(h.held, es...)
	return nil
}

// AppendEventTo stores what is held first, to keep the order.
func (h *heldEvents) AppendEventTo(ctx context.Context, e domain.Event, endpoint domain.WebhookEndpointID) error {
	if err := h.flush(ctx); err != nil {
		return err
	}
	return h.EventWriter.AppendEventTo(ctx, e, endpoint)
}

func (h *heldEvents) flush(ctx context.Context) error {
	es := h.held
	h.held = nil
	return h.EventWriter.AppendEvents(ctx, es...)
}
