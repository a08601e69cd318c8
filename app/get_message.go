package app

import (
	"context"

	"github.com/heraldhq/herald/app/usecase"
	"github.com/heraldhq/herald/domain"
	"github.com/heraldhq/herald/ports"
)

// GetMessage reads one message with its status history.
type GetMessage struct {
	Principal domain.Principal
	MessageID string
}

// GetMessageHandler answers GetMessage.
type GetMessageHandler struct {
	messages ports.MessageRepository
	obs      *usecase.Observer
}

// NewGetMessageHandler builds the handler.
func NewGetMessageHandler(messages ports.MessageRepository, obs *usecase.Observer) *GetMessageHandler {
	return &GetMessageHandler{messages: messages, obs: obs}
}

// Handle returns the message or message_not_found: for a message of
// another mode than the key's too.
func (h *GetMessageHandler) Handle(ctx context.Context, q GetMessage) (domain.Message, error) {
	return usecase.Observe(ctx, h.obs, "get_message", func(ctx context.Context) (domain.Message, error) {
		id, err := domain.ParseMessageID(q.MessageID)
		if err != nil {
			return domain.Message{}, err
		}
		m, err := h.messages.GetMessage(ctx, q.Principal.Workspace, id)
		if err == nil && !q.Principal.Sees(m.Mode) {
			return domain.Message{}, domain.NotFound(domain.ErrMessageNotFound)
		}
		return m, err
	})
}
