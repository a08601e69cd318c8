package app

import (
	"cmp"
	"context"
	"slices"

	"github.com/heraldhq/herald/domain"
	"github.com/heraldhq/herald/ports"
)

// limitSends counts the batch's live sends against their accounts'
// messaging limits (Meta's limit on the unique recipients a business's
// templates reach in a moving 24 hours, shared by its numbers: Herald
// counts per WhatsApp Business Account), reporting in counted which sends
// wrote a count. Every template counts; a marketing template to a
// recipient not reached in the window is refused (messaging_limit_reached,
// with when a place frees up) once the number's tier is reached. Test
// sends, and campaigns bound to no stored number or to one whose tier
// Herald has not read, are not limited. The count is in the batch's
// transaction, and the store's, so every instance sees it.
//
// The transaction holds an account's count from its first send until it
// ends, so the sends are counted account by account, in account order, one
// call per account with its sends in arrival order: two batches that
// reach the same accounts take them in the same order, and one waits for
// the other rather than deadlocking. A send refused after its daily count
// was written returns errRerun.
func (h *SendCampaignMessageHandler) limitSends(ctx context.Context, r ports.Repos, batch []*pendingSend, counted map[*pendingSend]bool) error {
	type reach struct {
		p *pendingSend
		n domain.BusinessNumber
	}
	var numbers map[domain.BusinessNumberID]domain.BusinessNumber // read once, when a send needs them
	var reaches []reach
	for _, p := range batch {
		if p.refused != nil || p.cmd.Principal.Mode != domain.ModeLive || p.campaign.Number == "" {
			continue
		}
		if numbers == nil {
			all, err := r.Numbers.ListNumbers(ctx)
			if err != nil {
				return err
			}
			numbers = make(map[domain.BusinessNumberID]domain.BusinessNumber, len(all))
			for _, n := range all {
				numbers[n.ID] = n
			}
		}
		if n, ok := numbers[p.campaign.Number]; ok {
			reaches = append(reaches, reach{p, n})
		}
	}
	slices.SortStableFunc(reaches, func(a, b reach) int { return cmp.Compare(portfolio(a.n), portfolio(b.n)) })
	for len(reaches) > 0 {
		n := 1
		for n < len(reaches) && portfolio(reaches[n].n) == portfolio(reaches[0].n) {
			n++
		}
		acct := reaches[:n]
		reaches = reaches[n:]
		asked := make([]ports.Reach, len(acct))
		for i, x := range acct {
			asked[i] = ports.Reach{Recipient: x.p.phone.String(), At: x.p.now, Limit: reachLimit(x.p, x.n)}
		}
		got, err := r.Reach.ReachRecipients(ctx, portfolio(acct[0].n), asked)
		if err != nil {
			return err
		}
		for i, x := range acct {
			if !got[i].Reached {
				x.p.refused = domain.MessagingLimitReached(x.n.Tier, got[i].FreesAt, x.p.now)
				if counted[x.p] {
					return errRerun // its daily count was written
				}
				continue
			}
			counted[x.p] = true
		}
	}
	return nil
}

// portfolio is the account whose messaging limit the number's sends count
// against: Herald counts per WhatsApp Business Account.
func portfolio(n domain.BusinessNumber) string { return cmp.Or(n.WABAID, n.MetaID) }

// reachLimit is the recipients a send's account may have reached for it
// to go to a new one: its number's tier for a marketing template, none
// (0) for other templates or a tier Herald has not read.
func reachLimit(p *pendingSend, n domain.BusinessNumber) int {
	if l, ok := domain.TierLimit(n.Tier); ok && p.campaign.Category.IsMarketing() {
		return l
	}
	return 0
}
