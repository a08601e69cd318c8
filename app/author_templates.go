package app

import (
	"context"
	"errors"
	"slices"
	"time"

	"github.com/heraldhq/herald/app/delivery"
	"github.com/heraldhq/herald/app/usecase"
	"github.com/heraldhq/herald/domain"
	"github.com/heraldhq/herald/ports"
)

// SandboxAccount is the account a test key's templates are reviewed in:
// the sandbox reviews and approves them locally, keeps none, and nothing
// reaches Meta.
const SandboxAccount = "sandbox"

// SubmitTemplate is a new template to submit for review.
type SubmitTemplate struct {
	Draft domain.TemplateDraft
	// Mode is the key's: a test key's template is reviewed by the sandbox
	// and never reaches Meta.
	Mode domain.KeyMode
	// Workspace is the key's; its numbers' business accounts are those
	// the template may go to. Empty (the operator's CLI) is every
	// number's.
	Workspace domain.WorkspaceID
	// PhoneNumberID (pn_…) or WABAID names the business account: a
	// number's the workspace may use, or one of their accounts. Needed
	// when the workspace's numbers belong to several accounts.
	PhoneNumberID string
	WABAID        string
}

// NumberAuthors gives the template author of a stored number's business
// account, acting with that number's token (delivery.Numbers).
type NumberAuthors interface {
	TemplateAuthor(ctx context.Context, id domain.BusinessNumberID) ports.TemplateAuthor
}

// SubmitTemplateHandler lints a new template as Meta reviews it and, when
// nothing is wrong, submits it to the business account and stores it as
// Meta answered (PENDING until the review's status webhook or a sync).
type SubmitTemplateHandler struct {
	author  ports.TemplateAuthor // the configured account's; nil when the Cloud API is not configured
	tx      ports.Transactor
	clock   ports.Clock
	obs     *usecase.Observer
	numbers ports.NumberRepository // nil: templates go to the configured account
	authors NumberAuthors
}

// WithNumbers returns h submitting to the business account of the
// workspace's numbers, each through one of its numbers' tokens.
func (h *SubmitTemplateHandler) WithNumbers(numbers ports.NumberRepository, authors NumberAuthors) *SubmitTemplateHandler {
	c := *h
	c.numbers, c.authors = numbers, authors
	return &c
}

// NewSubmitTemplateHandler builds the handler; author may be nil, and then
// a live submission is refused with domain.ErrWhatsAppNotConfigured.
func NewSubmitTemplateHandler(author ports.TemplateAuthor, tx ports.Transactor, clock ports.Clock, obs *usecase.Observer) *SubmitTemplateHandler {
	return &SubmitTemplateHandler{author: author, tx: tx, clock: clock, obs: obs}
}

// Handle lints cmd's draft: every finding comes back in one
// domain.TemplateInvalid error and nothing is submitted. A test key's
// template is approved by the sandbox at once and not stored. A live one
// goes to Meta; Meta's refusal is template_invalid too, with Meta's title
// as the one finding.
func (h *SubmitTemplateHandler) Handle(ctx context.Context, cmd SubmitTemplate) (domain.SyncedTemplate, error) {
	return usecase.Observe(ctx, h.obs, "submit_template", func(ctx context.Context) (domain.SyncedTemplate, error) {
		d := cmd.Draft
		tmpl, findings := domain.LintTemplate(d)
		if len(findings) > 0 {
			return domain.SyncedTemplate{}, domain.TemplateInvalid(findings)
		}
		now := h.clock.Now().UTC().Truncate(time.Microsecond)
		out := domain.SyncedTemplate{Name: d.Name, Language: domain.CanonicalLanguage(d.Language),
			Category: upper(d.Category), Definition: tmpl, SyncedAt: now}
		if cmd.Mode == domain.ModeTest {
			out.Account, out.Status = SandboxAccount, domain.TemplateApproved
			return out, nil
		}
		author, err := h.authorFor(ctx, cmd)
		if err != nil {
			return domain.SyncedTemplate{}, err
		}
		sub, err := author.SubmitTemplate(ctx, d)
		if err != nil {
			if se, ok := errors.AsType[*ports.SendError](err); ok && se.Class == ports.ClassPermanent && se.Title != "" {
				return domain.SyncedTemplate{}, domain.TemplateInvalid([]domain.LintFinding{
					{Path: "", Code: "meta_refused", Message: "Meta refused the template: " + se.Title}})
			}
			return domain.SyncedTemplate{}, err
		}
		out.Account, out.ProviderID, out.Status = author.Account(), sub.ID, sub.Status
		if out.Status.IsZero() {
			out.Status = domain.TemplatePending
		}
		if sub.Category != "" {
			out.Category = upper(sub.Category)
		}
		err = h.tx.WithinTx(ctx, func(ctx context.Context, r ports.Repos) error {
			ts, err := r.Templates.ListTemplates(ctx, out.Account)
			if err != nil {
				return err
			}
			ts = slices.DeleteFunc(ts, func(t domain.SyncedTemplate) bool { return t.Name == out.Name && t.Language == out.Language })
			return r.Templates.ReplaceTemplates(ctx, out.Account, append(ts, out))
		})
		if err != nil {
			return domain.SyncedTemplate{}, err
		}
		return out, nil
	})
}

// authorFor chooses the business account cmd's template goes to: the one
// cmd names, else the only account of the configured one and the
// workspace's numbers' (422 phone_number_required when they are several).
func (h *SubmitTemplateHandler) authorFor(ctx context.Context, cmd SubmitTemplate) (ports.TemplateAuthor, error) {
	if h.numbers == nil {
		if h.author == nil {
			return nil, domain.ErrWhatsAppNotConfigured
		}
		return h.author, nil
	}
	accts := templateAccounts{author: h.author, numbers: h.numbers, authors: h.authors}
	set, err := accts.load(ctx, cmd.Workspace, configuredAccount(h.author))
	if err != nil {
		return nil, err
	}
	account, err := set.choose(cmd.PhoneNumberID, cmd.WABAID, configuredAccount(h.author))
	if err != nil {
		return nil, err
	}
	return accts.authorOf(ctx, set, account)
}

// DeleteTemplate names a template to delete, every language of it.
type DeleteTemplate struct {
	Name string
	// Mode is the key's: the sandbox keeps no template to delete.
	Mode domain.KeyMode
	// Workspace is the key's; its numbers' business accounts are those
	// the template may be deleted from. Empty (the operator's) is every
	// number's.
	Workspace domain.WorkspaceID
	// WABAID names the business account; needed when the workspace's
	// numbers belong to several accounts.
	WABAID string
}

// DeleteTemplateHandler deletes a template, every language of it, from a
// business account; its campaigns stop as for a template Meta deleted.
type DeleteTemplateHandler struct {
	author  ports.TemplateAuthor // the configured account's; may be nil
	tx      ports.Transactor
	clock   ports.Clock
	events  *usecase.Events
	obs     *usecase.Observer
	numbers ports.NumberRepository // nil: templates are the configured account's
	authors NumberAuthors
}

// NewDeleteTemplateHandler builds the handler; author may be nil.
func NewDeleteTemplateHandler(author ports.TemplateAuthor, tx ports.Transactor, clock ports.Clock, events *usecase.Events, obs *usecase.Observer) *DeleteTemplateHandler {
	return &DeleteTemplateHandler{author: author, tx: tx, clock: clock, events: events, obs: obs}
}

// WithNumbers returns h deleting from the business accounts of the
// workspace's numbers, each through one of its numbers' tokens.
func (h *DeleteTemplateHandler) WithNumbers(numbers ports.NumberRepository, authors NumberAuthors) *DeleteTemplateHandler {
	c := *h
	c.numbers, c.authors = numbers, authors
	return &c
}

// Handle deletes the template cmd names from its business account: the
// one cmd.WABAID names, else the only one of the configured account and
// the workspace's numbers' (422 phone_number_required with param wabaId
// when they are several; 422 invalid_parameter for an account not
// theirs). A template Herald has not synced in that account, and any with
// a test key (the sandbox keeps none), is domain.ErrTemplateNotFound, and
// nothing is asked of Meta.
func (h *DeleteTemplateHandler) Handle(ctx context.Context, cmd DeleteTemplate) error {
	_, err := usecase.Observe(ctx, h.obs, "delete_template", func(ctx context.Context) (struct{}, error) {
		if cmd.Mode == domain.ModeTest || (h.author == nil && h.numbers == nil) {
			return struct{}{}, domain.NotFound(domain.ErrTemplateNotFound)
		}
		accts := templateAccounts{author: h.author, numbers: h.numbers, authors: h.authors}
		set, err := accts.load(ctx, cmd.Workspace, configuredAccount(h.author))
		if err != nil {
			return struct{}{}, err
		}
		if len(set.accounts) == 0 {
			return struct{}{}, domain.NotFound(domain.ErrTemplateNotFound)
		}
		account, err := set.choose("", cmd.WABAID, configuredAccount(h.author))
		if err != nil {
			return struct{}{}, err
		}
		name := cmd.Name
		var found bool
		err = h.tx.WithinTx(ctx, func(ctx context.Context, r ports.Repos) error {
			ts, err := r.Templates.ListTemplates(ctx, account)
			found = slices.ContainsFunc(ts, func(t domain.SyncedTemplate) bool { return t.Name == name })
			return err
		})
		if err != nil {
			return struct{}{}, err
		}
		if !found {
			return struct{}{}, domain.NotFound(domain.ErrTemplateNotFound)
		}
		author, err := accts.authorOf(ctx, set, account)
		if err != nil {
			return struct{}{}, err
		}
		if err := author.DeleteTemplate(ctx, name); err != nil {
			return struct{}{}, err
		}
		now := h.clock.Now().UTC().Truncate(time.Microsecond)
		return struct{}{}, h.tx.WithinTx(ctx, func(ctx context.Context, r ports.Repos) error {
			ts, err := r.Templates.ListTemplates(ctx, account)
			if err != nil {
				return err
			}
			var gone []string
			ts = slices.DeleteFunc(ts, func(t domain.SyncedTemplate) bool {
				if t.Name == name {
					gone = append(gone, t.Language)
				}
				return t.Name == name
			})
			if err := r.Templates.ReplaceTemplates(ctx, account, ts); err != nil {
				return err
			}
			scope := delivery.TemplateScope{Account: account, Default: configuredAccount(h.author)}
			for _, lang := range gone {
				if _, err := delivery.ApplyTemplateStatus(ctx, r, h.events, scope, name, lang, domain.TemplateDeleted, "", now); err != nil {
					return err
				}
			}
			return nil
		})
	})
	return err
}

func upper(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c >= 'a' && c <= 'z' {
			b[i] = c - 'a' + 'A'
		}
	}
	return string(b)
}
