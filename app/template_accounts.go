package app

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/heraldhq/herald/domain"
	"github.com/heraldhq/herald/ports"
)

// configuredAccount is author's business account; "" without one.
func configuredAccount(author ports.TemplateAuthor) string {
	if author == nil {
		return ""
	}
	return author.Account()
}

// templateAccounts are the business accounts templates are authored in:
// the configured one, acting with the environment's token, and the stored
// numbers', each acting with one of its numbers' tokens.
type templateAccounts struct {
	author  ports.TemplateAuthor // the configured account's; may be nil
	numbers ports.NumberRepository
	authors NumberAuthors
}

// accountSet is the business accounts a workspace may use, in order: the
// configured one, then its numbers' (oldest number first); each with the
// active numbers that may act for it.
type accountSet struct {
	accounts []string
	members  map[string][]domain.BusinessNumber
	active   []domain.BusinessNumber // the workspace's active numbers
}

// load reads the accounts of configured (when not "") and of the active
// numbers workspace may use (every number's when workspace is empty).
func (a templateAccounts) load(ctx context.Context, workspace domain.WorkspaceID, configured string) (accountSet, error) {
	set := accountSet{members: map[string][]domain.BusinessNumber{}}
	add := func(waba string, n *domain.BusinessNumber) {
		if _, ok := set.members[waba]; !ok {
			set.accounts = append(set.accounts, waba)
			set.members[waba] = nil
		}
		if n != nil {
			set.members[waba] = append(set.members[waba], *n)
		}
	}
	if configured != "" {
		add(configured, nil)
	}
	if a.numbers == nil {
		return set, nil
	}
	all, err := a.numbers.ListNumbers(ctx)
	if err != nil {
		return accountSet{}, err
	}
	for i, n := range all {
		if n.Status != domain.NumberActive || (workspace != "" && !n.UsableBy(workspace)) {
			continue
		}
		set.active = append(set.active, n)
		if n.WABAID != "" {
			add(n.WABAID, &all[i])
		}
	}
	return set, nil
}

// has reports whether account is one of the set's.
func (s accountSet) has(account string) bool {
	_, ok := s.members[account]
	return ok
}

// choose is the account phoneNumberID's number belongs to, or the one
// wabaID names, else the set's only account: 404 phone_number_not_found
// for a number not the set's, 422 invalid_parameter for an account not
// the set's, 422 phone_number_required (param wabaId) when the set has
// several and neither is named.
func (s accountSet) choose(phoneNumberID, wabaID, configured string) (string, error) {
	switch {
	case phoneNumberID != "":
		i := slices.IndexFunc(s.active, func(n domain.BusinessNumber) bool { return string(n.ID) == phoneNumberID })
		if i < 0 {
			return "", &domain.Error{Code: domain.CodePhoneNumberNotFound, Param: "phoneNumberId", Detail: domain.ErrPhoneNumberNotFound.Detail}
		}
		if s.active[i].WABAID != "" {
			return s.active[i].WABAID, nil
		}
		return configured, nil
	case wabaID != "":
		if !s.has(wabaID) {
			return "", domain.InvalidParameter("wabaId", fmt.Sprintf("no phone number this workspace may use belongs to business account %s", wabaID))
		}
		return wabaID, nil
	case len(s.accounts) == 0:
		return "", domain.ErrWhatsAppNotConfigured
	case len(s.accounts) > 1:
		return "", &domain.Error{Code: domain.CodePhoneNumberRequired, Param: "wabaId",
			Detail: fmt.Sprintf("this workspace's phone numbers belong to %d business accounts (%s): name one with wabaId or phoneNumberId",
				len(s.accounts), strings.Join(s.accounts, ", "))}
	default:
		return s.accounts[0], nil
	}
}

// authorOf is the template author of account: the configured author for
// its account, else one of the account's numbers'.
func (a templateAccounts) authorOf(ctx context.Context, set accountSet, account string) (ports.TemplateAuthor, error) {
	if a.author != nil && account == a.author.Account() {
		return a.author, nil
	}
	for _, n := range set.members[account] {
		if a.authors == nil {
			break
		}
		if au := a.authors.TemplateAuthor(ctx, n.ID); au != nil {
			return au, nil
		}
	}
	return nil, domain.ErrWhatsAppNotConfigured
}
