package app

import (
	"context"
	"time"

	"github.com/heraldhq/herald/app/usecase"
	"github.com/heraldhq/herald/domain"
	"github.com/heraldhq/herald/ports"
)

// ListMessages lists the messages a caller sees (its workspace's, of its
// key's mode; both modes for the dashboard), newest first, narrowed by the
// filters given.
type ListMessages struct {
	Principal domain.Principal
	// CampaignID, Status and PhoneNumber, when not empty, keep the
	// messages of one campaign, in one current status, to one number.
	CampaignID  string
	Status      string
	PhoneNumber string
	// Since and Until, when not zero, keep messages created at or after
	// Since and before Until.
	Since, Until time.Time
	Page         ports.Page
}

// ListMessagesHandler answers ListMessages.
type ListMessagesHandler struct {
	messages ports.MessageRepository
	obs      *usecase.Observer
}

// NewListMessagesHandler builds the handler.
func NewListMessagesHandler(messages ports.MessageRepository, obs *usecase.Observer) *ListMessagesHandler {
	return &ListMessagesHandler{messages: messages, obs: obs}
}

// Handle returns one page. A filter that cannot match anything it could
// name is refused: a malformed campaign id or phone number, an unknown
// status, until not after since (invalid_parameter or
// invalid_phone_number, naming the parameter). A well-formed campaign id
// that is not the workspace's lists nothing.
func (h *ListMessagesHandler) Handle(ctx context.Context, q ListMessages) (MessagePage, error) {
	return usecase.Observe(ctx, h.obs, "list_messages", func(ctx context.Context) (MessagePage, error) {
		page, err := checkPage(q.Page)
		if err != nil {
			return MessagePage{}, err
		}
		f := ports.MessageFilter{Mode: q.Principal.Mode, Since: q.Since, Until: q.Until}
		if q.CampaignID != "" {
			id, err := domain.ParseCampaignID(q.CampaignID)
			if err != nil {
				return MessagePage{}, domain.InvalidParameter("campaignId", "campaignId is not a campaign id (cmp_…)")
			}
			f.Campaign = id
		}
		if q.Status != "" {
			if f.Status, err = domain.ParseMessageStatus(q.Status); err != nil {
				return MessagePage{}, domain.InvalidParameter("status", "status must be one of queued, sending, sent, delivered, read, failed")
			}
		}
		if q.PhoneNumber != "" {
			if f.Phone, err = domain.ParsePhoneNumber(q.PhoneNumber); err != nil {
				return MessagePage{}, err
			}
		}
		if !q.Since.IsZero() && !q.Until.IsZero() && !q.Until.After(q.Since) {
			return MessagePage{}, domain.InvalidParameter("until", "until must be after since")
		}
		ms, next, err := h.messages.ListMessages(ctx, q.Principal.Workspace, f, page)
		return MessagePage{Messages: ms, NextCursor: next}, err
	})
}
