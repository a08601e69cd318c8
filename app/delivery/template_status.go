package delivery

import (
	"cmp"
	"context"
	"errors"
	"slices"
	"time"

	"github.com/heraldhq/herald/app/usecase"
	"github.com/heraldhq/herald/domain"
	"github.com/heraldhq/herald/ports"
)

// What Meta says of a template applies to every campaign that sends it and
// uses the template's business account, in every workspace: a status from
// a send's refusal (the dispatcher), a webhook (ApplyWebhookEventHandler)
// or a template sync (app's SyncTemplatesHandler); a category from a
// webhook or a sync.

// TemplateScope says whose templates a change is about: the business
// account (WABA id) the template belongs to, and the configured account,
// whose templates the campaigns without a number's account use. An empty
// Account is every account's: what Meta said of a template name reaches
// every campaign that sends it.
type TemplateScope struct {
	Account string
	Default string
}

// covers reports whether c uses the scope's account's templates: its
// number's account, else the configured one. A campaign whose account
// Herald does not know (no configured account, or its number removed)
// follows every account's verdicts, as it did before numbers had
// accounts.
func (s TemplateScope) covers(ctx context.Context, numbers ports.NumberRepository, c domain.Campaign) (bool, error) {
	if s.Account == "" {
		return true, nil
	}
	account, err := CampaignAccount(ctx, numbers, c.Number, s.Default)
	return account == s.Account || account == "", err
}

// CampaignAccount returns the business account whose templates a campaign
// (or message) from number uses: the number's, else def, the configured
// account; "" when the number is no longer stored.
func CampaignAccount(ctx context.Context, numbers ports.NumberRepository, number domain.BusinessNumberID, def string) (string, error) {
	if number == "" || numbers == nil {
		return def, nil
	}
	n, err := numbers.GetNumber(ctx, number)
	switch {
	case errors.Is(err, domain.ErrPhoneNumberNotFound):
		return "", nil
	case err != nil:
		return "", err
	}
	return cmp.Or(n.WABAID, def), nil
}

// TemplateStatusChange is one campaign whose template Meta moved to another
// status.
type TemplateStatusChange struct {
	Workspace domain.WorkspaceID
	Campaign  domain.CampaignID
	Template  string // name (language)
	From, To  domain.TemplateStatus
}

// ApplyTemplateStatus records Meta's status of one template of scope's
// account on every campaign that uses it, in r's transaction, and returns
// the campaigns that changed. Each workspace whose campaigns changed gets its
// template.status_changed event (once per mode), naming them, with Meta's
// reason when it gave one.
func ApplyTemplateStatus(ctx context.Context, r ports.Repos, ev *usecase.Events, scope TemplateScope, name, language string, st domain.TemplateStatus, reason string, now time.Time) ([]TemplateStatusChange, error) {
	camps := r.Campaigns
	list, err := camps.ListCampaignsByTemplate(ctx, name, language)
	if err != nil {
		return nil, err
	}
	var out []TemplateStatusChange
	for _, c := range list {
		if c.TemplateStatus == st {
			continue
		}
		if ok, err := scope.covers(ctx, r.Numbers, c); err != nil || !ok {
			if err != nil {
				return nil, err
			}
			continue
		}
		from := c.TemplateStatus
		if _, err := camps.UpdateCampaign(ctx, c.Workspace, c.ID, func(c *domain.Campaign) error {
			c.SetTemplateStatus(st, now)
			return nil
		}); err != nil {
			return nil, err
		}
		out = append(out, TemplateStatusChange{Workspace: c.Workspace, Campaign: c.ID,
			Template: name + " (" + language + ")", From: from, To: st})
	}
	return out, templateEvents(ctx, r.Events, ev, out, name, language, st, reason, now)
}

// templateEvents writes the template.status_changed events of changes, one
// template's: for each workspace, in the order its campaigns first appear,
// the campaigns that changed there and the status the first of them had.
func templateEvents(ctx context.Context, w ports.EventWriter, ev *usecase.Events, changes []TemplateStatusChange, name, language string, st domain.TemplateStatus, reason string, now time.Time) error {
	var order []domain.WorkspaceID
	byWS := map[domain.WorkspaceID]*ports.TemplateStatusChange{}
	for _, c := range changes {
		ch, ok := byWS[c.Workspace]
		if !ok {
			ch = &ports.TemplateStatusChange{Name: name, Language: language, Previous: c.From, Status: st,
				Reason: reason, At: now}
			byWS[c.Workspace] = ch
			order = append(order, c.Workspace)
		}
		if !slices.Contains(ch.Campaigns, c.Campaign) {
			ch.Campaigns = append(ch.Campaigns, c.Campaign)
		}
	}
	for _, ws := range order {
		if err := ev.TemplateStatus(ctx, w, ws, *byWS[ws], now); err != nil {
			return err
		}
	}
	return nil
}

// ApplyTemplateCategory records Meta's category of one template of
// scope's account on every campaign that uses it, in every workspace, and
// returns the campaigns that changed.
func ApplyTemplateCategory(ctx context.Context, r ports.Repos, scope TemplateScope, name, language string, cat domain.TemplateCategory, now time.Time) ([]TemplateCategoryChange, error) {
	if cat.IsZero() {
		return nil, nil
	}
	camps := r.Campaigns
	list, err := camps.ListCampaignsByTemplate(ctx, name, language)
	if err != nil {
		return nil, err
	}
	var out []TemplateCategoryChange
	for _, c := range list {
		if c.Category == cat {
			continue
		}
		if ok, err := scope.covers(ctx, r.Numbers, c); err != nil || !ok {
			if err != nil {
				return nil, err
			}
			continue
		}
		from := c.Category
		if _, err := camps.UpdateCampaign(ctx, c.Workspace, c.ID, func(c *domain.Campaign) error {
			c.SetCategory(cat, now)
			return nil
		}); err != nil {
			return nil, err
		}
		out = append(out, TemplateCategoryChange{Workspace: c.Workspace, Campaign: c.ID,
			Template: name + " (" + language + ")", From: from, To: cat})
	}
	return out, nil
}

// TemplateCategoryChange is one campaign whose template Meta moved to
// another category.
type TemplateCategoryChange struct {
	Workspace domain.WorkspaceID
	Campaign  domain.CampaignID
	Template  string // name (language)
	From, To  domain.TemplateCategory
}
