package app

import (
	"context"
	"reflect"
	"sync"

	"github.com/heraldhq/herald/domain"
	"github.com/heraldhq/herald/ports"
)

// Sends check their campaign against a copy held in memory, so that a send
// costs no read of the campaign. The copy is only a guess: each batch reads
// its campaigns again in its transaction (verifyCampaigns), and a send that
// was checked against a campaign which has changed since (paused, its
// mapping edited, its template rejected, on this instance or another) is
// stored by no batch: it runs its checks again on the campaign as it now is.
// Likewise a send refused against the remembered campaign is checked again
// against the stored one when the two differ.

// maxCachedCampaigns bounds the copies held; when full, the cache starts
// over.
const maxCachedCampaigns = 4096

type campaignKey struct {
	ws domain.WorkspaceID
	id domain.CampaignID
}

type campaignCache struct {
	mu sync.Mutex
	m  map[campaignKey]domain.Campaign
}

func (c *campaignCache) get(k campaignKey) (domain.Campaign, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	v, ok := c.m[k]
	return v, ok
}

func (c *campaignCache) put(k campaignKey, v domain.Campaign) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil || len(c.m) >= maxCachedCampaigns {
		c.m = make(map[campaignKey]domain.Campaign)
	}
	c.m[k] = v
}

func (c *campaignCache) forget(k campaignKey) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.m, k)
}

// errCampaignChanged refuses a send whose campaign changed between its
// checks and its batch; the send is checked again, and after a few such
// rounds gives up as a retryable 503.
var errCampaignChanged = &campaignChangedError{}

type campaignChangedError struct{}

func (*campaignChangedError) Error() string {
	return "app: the campaign changed while the send was being stored"
}
func (*campaignChangedError) Unwrap() error { return ports.ErrUnavailable }

// campaign returns the campaign a send names: the copy in memory when there
// is one, unless fresh is set (cached then says so); otherwise the stored
// one, which is then remembered.
func (h *SendCampaignMessageHandler) campaign(ctx context.Context, ws domain.WorkspaceID, id domain.CampaignID, fresh bool) (c domain.Campaign, cached bool, err error) {
	k := campaignKey{ws, id}
	if c, ok := h.campaigns.get(k); ok && !fresh {
		return c, true, nil
	}
	if c, err = h.d.Campaigns.GetCampaign(ctx, ws, id); err != nil {
		h.campaigns.forget(k)
		return domain.Campaign{}, false, err
	}
	h.campaigns.put(k, c)
	return c, false, nil
}

// verifyCampaigns reads the batch's campaigns in its transaction, in one
// read, and refuses the sends checked against a campaign that has
// changed or gone since.
func (h *SendCampaignMessageHandler) verifyCampaigns(ctx context.Context, r ports.Repos, batch []*pendingSend) error {
	ids := make([]domain.CampaignID, len(batch))
	for i, p := range batch {
		ids[i] = p.campaign.ID
	}
	found, err := r.Campaigns.GetCampaigns(ctx, ids)
	if err != nil {
		return err
	}
	current := make(map[campaignKey]domain.Campaign, len(found))
	for _, c := range found {
		current[campaignKey{c.Workspace, c.ID}] = c
	}
	seen := map[campaignKey]bool{}
	for _, p := range batch {
		k := campaignKey{p.cmd.Principal.Workspace, p.campaign.ID}
		c, ok := current[k]
		if !seen[k] {
			seen[k] = true
			if ok {
				h.campaigns.put(k, c)
			} else {
				h.campaigns.forget(k) // deleted, or never this workspace's
			}
		}
		if !reflect.DeepEqual(c, p.campaign) {
			p.refused = errCampaignChanged
		}
	}
	return nil
}
