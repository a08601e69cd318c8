package app

import (
	"cmp"
	"context"
	"errors"
	"slices"
	"time"

	"github.com/heraldhq/herald/app/delivery"
	"github.com/heraldhq/herald/app/usecase"
	"github.com/heraldhq/herald/domain"
	"github.com/heraldhq/herald/ports"
)

// ErrTemplateSyncOff is returned when no template source is configured.
var ErrTemplateSyncOff = errors.New("template sync needs the Cloud API: set HERALD_WHATSAPP_ACCESS_TOKEN and HERALD_WHATSAPP_WABA_ID")

// SyncTemplatesResult is what one sync read and changed.
type SyncTemplatesResult struct {
	Account   string
	Templates []domain.SyncedTemplate
	Changes   []delivery.TemplateStatusChange // campaigns whose template status moved
	// CategoryChanges are campaigns whose template category moved.
	CategoryChanges []delivery.TemplateCategoryChange
}

// SyncTemplatesHandler reads the business account's templates from Meta,
// stores them, and brings every campaign's template status up to date:
// campaigns whose template is no longer APPROVED stop sending, and resume
// when it is approved again. A template that has vanished from the account
// is DELETED for its campaigns.
type SyncTemplatesHandler struct {
	source ports.TemplateSource // nil when the Cloud API is not configured
	tx     ports.Transactor
	clock  ports.Clock
	events *usecase.Events
	obs    *usecase.Observer
	log    *usecase.Logger
}

// NewSyncTemplatesHandler builds the handler; source may be nil, and then
// Handle returns ErrTemplateSyncOff. A status change writes its
// template.status_changed events in the sync's transaction.
func NewSyncTemplatesHandler(source ports.TemplateSource, tx ports.Transactor, clock ports.Clock, events *usecase.Events, obs *usecase.Observer) *SyncTemplatesHandler {
	return &SyncTemplatesHandler{source: source, tx: tx, clock: clock, events: events, obs: obs, log: obs.Logger("templates")}
}

// Handle runs one sync. Reading from Meta happens before the transaction;
// storing the templates and the campaigns' statuses commits as one.
func (h *SyncTemplatesHandler) Handle(ctx context.Context) (SyncTemplatesResult, error) {
	return usecase.Observe(ctx, h.obs, "sync_templates", func(ctx context.Context) (SyncTemplatesResult, error) {
		if h.source == nil {
			return SyncTemplatesResult{}, ErrTemplateSyncOff
		}
		account := h.source.Account()
		ts, err := h.source.ListTemplates(ctx)
		if err != nil {
			return SyncTemplatesResult{}, err
		}
		now := h.clock.Now().UTC().Truncate(time.Microsecond)
		for i := range ts {
			ts[i] = ts[i].Scrubbed()
			ts[i].Account, ts[i].SyncedAt = account, now
			// One language has one form, so a template Meta lists as pt-BR
			// is the stored pt_BR one and its campaigns', not a new one.
			ts[i].Language = domain.CanonicalLanguage(ts[i].Language)
		}
		res := SyncTemplatesResult{Account: account, Templates: ts}
		err = h.tx.WithinTx(ctx, func(ctx context.Context, r ports.Repos) error {
			res.Changes, res.CategoryChanges = nil, nil
			before, err := r.Templates.ListTemplates(ctx, account)
			if err != nil {
				return err
			}
			if err := r.Templates.ReplaceTemplates(ctx, account, ts); err != nil {
				return err
			}
			status := map[[2]string]domain.TemplateStatus{}
			for _, t := range before {
				status[[2]string{t.Name, t.Language}] = domain.TemplateDeleted
			}
			for _, t := range ts {
				if t.Status.IsZero() { // a status Herald could not read: campaigns keep theirs
					delete(status, [2]string{t.Name, t.Language})
					continue
				}
				status[[2]string{t.Name, t.Language}] = t.Status
			}
			for key, st := range status {
				changes, err := delivery.ApplyTemplateStatus(ctx, r, h.events, key[0], key[1], st, "", now)
				if err != nil {
					return err
				}
				res.Changes = append(res.Changes, changes...)
			}
			for _, t := range ts {
				// A category Herald cannot read leaves the campaigns' own.
				cat, _ := domain.ParseTemplateCategory(t.Category)
				changes, err := delivery.ApplyTemplateCategory(ctx, r.Campaigns, t.Name, t.Language, cat, now)
				if err != nil {
					return err
				}
				res.CategoryChanges = append(res.CategoryChanges, changes...)
			}
			return nil
		})
		if err != nil {
			return SyncTemplatesResult{}, err
		}
		slices.SortFunc(res.Changes, func(a, b delivery.TemplateStatusChange) int {
			return cmp.Or(cmp.Compare(a.Template, b.Template), cmp.Compare(a.Campaign, b.Campaign))
		})
		for _, c := range res.Changes {
			h.log.Info("campaign template status changed", "campaign_id", string(c.Campaign),
				"template", c.Template, "from", c.From.String(), "to", c.To.String())
		}
		for _, c := range res.CategoryChanges {
			h.log.Info("campaign template category changed", "campaign_id", string(c.Campaign),
				"template", c.Template, "from", c.From.String(), "to", c.To.String())
		}
		return res, nil
	})
}

// Refresh syncs at once and then every interval until ctx ends, so
// campaigns follow Meta's verdicts (a paused template stops its campaigns'
// sends) even when a webhook was lost. Without a source it returns at once.
func (h *SyncTemplatesHandler) Refresh(ctx context.Context, every time.Duration) {
	if h.source == nil {
		return
	}
	t := time.NewTimer(0)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		res, err := h.Handle(ctx)
		switch {
		case err == nil:
			h.log.Info("templates synced", "templates", len(res.Templates), "campaigns_changed", len(res.Changes))
		case ctx.Err() == nil:
			h.log.Warn("template sync failed; campaigns keep their last known template status", "error", err)
		}
		t.Reset(every)
	}
}
