package app

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/heraldhq/herald/app/delivery"
	"github.com/heraldhq/herald/app/usecase"
	"github.com/heraldhq/herald/domain"
	"github.com/heraldhq/herald/ports"
)

// ErrTemplateSyncOff is returned when no template source is configured.
var ErrTemplateSyncOff = errors.New("template sync needs the Cloud API: set HERALD_WHATSAPP_ACCESS_TOKEN and HERALD_WHATSAPP_WABA_ID, or add a number with its access token")

// TemplateSources lists the template sources of the stored numbers'
// business accounts (delivery.Numbers), each read with one of its
// numbers' access token.
type TemplateSources interface {
	TemplateSources(ctx context.Context) []ports.TemplateSource
}

// SyncTemplatesResult is what one sync read and changed.
type SyncTemplatesResult struct {
	Accounts  []string                        // the business accounts read, the configured one first
	Templates []domain.SyncedTemplate         // each account's, in the order of Accounts
	Changes   []delivery.TemplateStatusChange // campaigns whose template status moved
	// CategoryChanges are campaigns whose template category moved.
	CategoryChanges []delivery.TemplateCategoryChange
}

// SyncTemplatesHandler reads each business account's templates from Meta
// (the configured account's, and those of the stored numbers' accounts),
// stores them, and brings the campaigns' template statuses up to date:
// campaigns whose template is no longer APPROVED stop sending, and resume
// when it is approved again. A template that has vanished from the account
// is DELETED for its campaigns. An account's templates reach only the
// campaigns that use that account's: those whose number belongs to it, and
// for the configured account those without a number's account.
type SyncTemplatesHandler struct {
	source  ports.TemplateSource // nil when the Cloud API is not configured
	sources TemplateSources      // nil when no number is stored
	tx      ports.Transactor
	clock   ports.Clock
	events  *usecase.Events
	obs     *usecase.Observer
	log     *usecase.Logger
}

// NewSyncTemplatesHandler builds the handler; source and sources may be
// nil, and when neither gives an account Handle returns
// ErrTemplateSyncOff. A status change writes its template.status_changed
// events in the sync's transaction.
func NewSyncTemplatesHandler(source ports.TemplateSource, sources TemplateSources, tx ports.Transactor, clock ports.Clock, events *usecase.Events, obs *usecase.Observer) *SyncTemplatesHandler {
	return &SyncTemplatesHandler{source: source, sources: sources, tx: tx, clock: clock, events: events, obs: obs, log: obs.Logger("templates")}
}

// accounts returns the template source of each account to read: the
// configured one first, then the stored numbers' other accounts.
func (h *SyncTemplatesHandler) accounts(ctx context.Context) []ports.TemplateSource {
	var out []ports.TemplateSource
	seen := map[string]bool{}
	if h.source != nil {
		out, seen[h.source.Account()] = append(out, h.source), true
	}
	if h.sources != nil {
		for _, s := range h.sources.TemplateSources(ctx) {
			if a := s.Account(); a != "" && !seen[a] {
				out, seen[a] = append(out, s), true
			}
		}
	}
	return out
}

// Handle runs one sync of every account. One account's failure does not
// keep the others from syncing: their results are returned with the
// failures joined.
func (h *SyncTemplatesHandler) Handle(ctx context.Context) (SyncTemplatesResult, error) {
	return usecase.Observe(ctx, h.obs, "sync_templates", func(ctx context.Context) (SyncTemplatesResult, error) {
		sources := h.accounts(ctx)
		if len(sources) == 0 {
			return SyncTemplatesResult{}, ErrTemplateSyncOff
		}
		var (
			res  SyncTemplatesResult
			errs []error
		)
		for _, src := range sources {
			one, err := h.syncAccount(ctx, src)
			if err != nil {
				errs = append(errs, fmt.Errorf("business account %s: %w", src.Account(), err))
				continue
			}
			res.Accounts = append(res.Accounts, src.Account())
			res.Templates = append(res.Templates, one.Templates...)
			res.Changes = append(res.Changes, one.Changes...)
			res.CategoryChanges = append(res.CategoryChanges, one.CategoryChanges...)
		}
		return res, errors.Join(errs...)
	})
}

// syncAccount syncs one account. Reading from Meta happens before the
// transaction; storing the templates and the campaigns' statuses commits
// as one.
func (h *SyncTemplatesHandler) syncAccount(ctx context.Context, src ports.TemplateSource) (SyncTemplatesResult, error) {
	account := src.Account()
	ts, err := src.ListTemplates(ctx)
	if err != nil {
		return SyncTemplatesResult{}, err
	}
	scope := delivery.TemplateScope{Account: account}
	if h.source != nil {
		scope.Default = h.source.Account()
	}
	now := h.clock.Now().UTC().Truncate(time.Microsecond)
	for i := range ts {
		ts[i] = ts[i].Scrubbed()
		ts[i].Account, ts[i].SyncedAt = account, now
		// One language has one form, so a template Meta lists as pt-BR
		// is the stored pt_BR one and its campaigns', not a new one.
		ts[i].Language = domain.CanonicalLanguage(ts[i].Language)
	}
	res := SyncTemplatesResult{Accounts: []string{account}, Templates: ts}
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
			changes, err := delivery.ApplyTemplateStatus(ctx, r, h.events, scope, key[0], key[1], st, "", now)
			if err != nil {
				return err
			}
			res.Changes = append(res.Changes, changes...)
		}
		for _, t := range ts {
			// A category Herald cannot read leaves the campaigns' own.
			cat, _ := domain.ParseTemplateCategory(t.Category)
			changes, err := delivery.ApplyTemplateCategory(ctx, r, scope, t.Name, t.Language, cat, now)
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
		h.log.Info("campaign template status changed", "campaign_id", string(c.Campaign), "waba_id", account,
			"template", c.Template, "from", c.From.String(), "to", c.To.String())
	}
	for _, c := range res.CategoryChanges {
		h.log.Info("campaign template category changed", "campaign_id", string(c.Campaign), "waba_id", account,
			"template", c.Template, "from", c.From.String(), "to", c.To.String())
	}
	return res, nil
}

// Refresh syncs at once and then every interval until ctx ends, so
// campaigns follow Meta's verdicts (a paused template stops its campaigns'
// sends) even when a webhook was lost. Without a source it returns at once.
func (h *SyncTemplatesHandler) Refresh(ctx context.Context, every time.Duration) {
	if h.source == nil && h.sources == nil {
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
			h.log.Info("templates synced", "accounts", len(res.Accounts), "templates", len(res.Templates), "campaigns_changed", len(res.Changes))
		case errors.Is(err, ErrTemplateSyncOff): // no account yet: a number may be added later
		case ctx.Err() == nil:
			h.log.Warn("template sync failed; campaigns keep their last known template status", "error", err)
		}
		t.Reset(every)
	}
}
