package app

import (
	"cmp"
	"context"
	"errors"

	"github.com/heraldhq/herald/domain"
	"github.com/heraldhq/herald/ports"
)

// reachRecipient counts a live send's recipient among the unique
// recipients its number's business reached in the moving 24 hours (Meta's
// messaging limit, shared by the business's numbers: Herald counts per
// WhatsApp Business Account), reporting whether it wrote the count. Every
// template counts; a marketing template to a recipient not reached in the
// window is refused (messaging_limit_reached, with when a place frees up)
// once the number's tier is reached. Test sends, and campaigns bound to no
// stored number or to one whose tier Herald has not read, are not limited.
// The count is in the send's transaction, and the store's, so every
// instance sees it.
func (h *SendCampaignMessageHandler) reachRecipient(ctx context.Context, r ports.Repos, p *pendingSend) (bool, error) {
	if p.cmd.Principal.Mode != domain.ModeLive || p.campaign.Number == "" {
		return false, nil
	}
	n, err := r.Numbers.GetNumber(ctx, p.campaign.Number)
	switch {
	case errors.Is(err, domain.ErrPhoneNumberNotFound):
		return false, nil
	case err != nil:
		return false, err
	}
	limit := 0
	if l, ok := domain.TierLimit(n.Tier); ok && p.campaign.Category.IsMarketing() {
		limit = l
	}
	reached, freesAt, err := r.Reach.ReachRecipient(ctx, cmp.Or(n.WABAID, n.MetaID), p.phone.String(), p.now, limit)
	if err != nil {
		return false, err
	}
	if !reached {
		p.refused = domain.MessagingLimitReached(n.Tier, freesAt, p.now)
	}
	return reached, nil
}
