package app

import (
	"context"

	"github.com/heraldhq/herald/domain"
	"github.com/heraldhq/herald/ports"
)

// RecordStatusEventHandler applies a provider's status event to its message:
// forward-only and idempotent (domain.Message.Advance). Meta's webhooks and
// the sandbox both report through it, so test mode exercises the same path as
// production. It implements ports.StatusSink.
type RecordStatusEventHandler struct {
	messages ports.MessageRepository
	obs      *Observer
}

// NewRecordStatusEventHandler builds the handler.
func NewRecordStatusEventHandler(messages ports.MessageRepository, obs *Observer) *RecordStatusEventHandler {
	return &RecordStatusEventHandler{messages: messages, obs: obs}
}

// RecordStatus finds the message by our id (echoed back by the provider) or
// by the provider's id, and advances it.
func (h *RecordStatusEventHandler) RecordStatus(ctx context.Context, e ports.StatusEvent) error {
	_, err := observe(ctx, h.obs, "record_status_event", func(ctx context.Context) (struct{}, error) {
		m, err := h.messages.LocateMessage(ctx, e.MessageID, e.ProviderID)
		if err != nil {
			return struct{}{}, err
		}
		_, err = h.messages.UpdateMessage(ctx, m.Workspace, m.ID, func(m *domain.Message) error {
			if m.ProviderID == "" && e.ProviderID != "" {
				m.ProviderID = e.ProviderID
			}
			m.Advance(e.Status, e.At, e.Failure)
			return nil
		})
		return struct{}{}, err
	})
	return err
}

var _ ports.StatusSink = (*RecordStatusEventHandler)(nil)
