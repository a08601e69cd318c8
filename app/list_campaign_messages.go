package app

import (
	"context"

	"github.com/heraldhq/herald/app/usecase"
	"github.com/heraldhq/herald/domain"
	"github.com/heraldhq/herald/ports"
)

// ListCampaignMessages lists a campaign's messages, newest first.
type ListCampaignMessages struct {
	Workspace  domain.WorkspaceID
	CampaignID string
	Page       ports.Page
}

// MessagePage is one page of messages and the cursor of the next.
type MessagePage struct {
	Messages   []domain.Message
	NextCursor string
}

// ListCampaignMessagesHandler answers ListCampaignMessages.
type ListCampaignMessagesHandler struct {
	camps    ports.CampaignRepository
	messages ports.MessageRepository
	obs      *usecase.Observer
}

// NewListCampaignMessagesHandler builds the handler.
func NewListCampaignMessagesHandler(camps ports.CampaignRepository, messages ports.MessageRepository, obs *usecase.Observer) *ListCampaignMessagesHandler {
	return &ListCampaignMessagesHandler{camps: camps, messages: messages, obs: obs}
}

// Handle returns one page, or campaign_not_found.
func (h *ListCampaignMessagesHandler) Handle(ctx context.Context, q ListCampaignMessages) (MessagePage, error) {
	return usecase.Observe(ctx, h.obs, "list_campaign_messages", func(ctx context.Context) (MessagePage, error) {
		id, err := domain.ParseCampaignID(q.CampaignID)
		if err != nil {
			return MessagePage{}, err
		}
		page, err := checkPage(q.Page)
		if err != nil {
			return MessagePage{}, err
		}
		if _, err := h.camps.GetCampaign(ctx, q.Workspace, id); err != nil {
			return MessagePage{}, err
		}
		ms, next, err := h.messages.ListCampaignMessages(ctx, q.Workspace, id, page)
		return MessagePage{Messages: ms, NextCursor: next}, err
	})
}
