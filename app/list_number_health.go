package app

import (
	"context"

	"github.com/heraldhq/herald/domain"
	"github.com/heraldhq/herald/ports"
)

// NumberHealthView is one business number's health as operators see it:
// the number (with its quality and tier), its latest changes, and how many
// unique recipients its business's templates reached in the moving 24
// hours, against the tier's limit.
type NumberHealthView struct {
	Number  domain.BusinessNumber
	Changes []domain.HealthChange // newest first
	Reached int
	Limit   int // 0: no limit known
}

// ListNumberHealthHandler lists the business numbers a workspace may use
// with their health (the dashboard's number health page).
type ListNumberHealthHandler struct {
	numbers ports.NumberRepository
	health  ports.PhoneHealthRepository
	reach   ports.MessagingReachRepository
	clock   ports.Clock
}

// NewListNumberHealthHandler builds the handler.
func NewListNumberHealthHandler(numbers ports.NumberRepository, health ports.PhoneHealthRepository, reach ports.MessagingReachRepository, clock ports.Clock) *ListNumberHealthHandler {
	return &ListNumberHealthHandler{numbers: numbers, health: health, reach: reach, clock: clock}
}

// healthChangesShown is how many of a number's changes the view holds.
const healthChangesShown = 20

// Handle lists the numbers ws may use, oldest first, with their health.
func (h *ListNumberHealthHandler) Handle(ctx context.Context, ws domain.WorkspaceID) ([]NumberHealthView, error) {
	all, err := h.numbers.ListNumbers(ctx)
	if err != nil {
		return nil, err
	}
	now := h.clock.Now()
	var out []NumberHealthView
	for _, n := range all {
		if !n.UsableBy(ws) {
			continue
		}
		v := NumberHealthView{Number: n}
		if v.Changes, err = h.health.ListPhoneHealthChanges(ctx, n.MetaID, healthChangesShown); err != nil {
			return nil, err
		}
		if v.Reached, err = h.reach.CountReached(ctx, portfolio(n), now); err != nil {
			return nil, err
		}
		v.Limit, _ = domain.TierLimit(n.Tier)
		out = append(out, v)
	}
	return out, nil
}
