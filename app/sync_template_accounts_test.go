package app_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/heraldhq/herald/app"
	"github.com/heraldhq/herald/app/usecase"
	"github.com/heraldhq/herald/domain"
	"github.com/heraldhq/herald/ports"
	"github.com/heraldhq/herald/ports/porttest"
)

// numberAccounts are the stored numbers' accounts' template sources.
type numberAccounts []ports.TemplateSource

func (n numberAccounts) TemplateSources(context.Context) []ports.TemplateSource { return n }

// Each business account is synced on its own: its templates are stored
// under it, a change at Meta reaches only the campaigns that use that
// account's templates (a number's campaigns its account's, the others the
// configured account's), and one account failing to sync leaves the
// others' and its own stored templates as they were.
func TestSyncKeepsEachAccountsTemplates(t *testing.T) {
	t.Parallel()
	f := newTemplatesFixture(t)
	ctx := context.Background()
	number := porttest.NewNumber(t, f.principal.Workspace)
	if err := f.st.CreateNumber(ctx, number); err != nil {
		t.Fatal(err)
	}
	other := newMetaTemplates(t,
		synced(t, "order_update", domain.TemplatePaused, domain.HeaderNone, "Your order {{1}} is on its way"),
		synced(t, "brand_b_only", domain.TemplateApproved, domain.HeaderNone, "Hello {{1}}"))
	other.AccountFunc = func() string { return number.WABAID }
	sync := app.NewSyncTemplatesHandler(f.meta, numberAccounts{other}, f.st, f.clock, nil, usecase.NewObserver(nil))
	res, err := sync.Handle(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Accounts) != 2 || res.Accounts[0] != account || res.Accounts[1] != number.WABAID || len(res.Templates) != 5 {
		t.Fatalf("synced accounts %v with %d templates, want %s then %s with 5", res.Accounts, len(res.Templates), account, number.WABAID)
	}
	names := func(acc string) string {
		t.Helper()
		ts, err := f.st.ListTemplates(ctx, acc)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, tm := range ts {
			out = append(out, tm.Name+":"+tm.Status.String())
		}
		return strings.Join(out, ",")
	}
	if got, want := names(account), "named_params:APPROVED,order_update:APPROVED,promo:PAUSED"; got != want {
		t.Errorf("configured account's templates %s, want %s", got, want)
	}
	if got, want := names(number.WABAID), "brand_b_only:APPROVED,order_update:PAUSED"; got != want {
		t.Errorf("the number's account's templates %s, want %s", got, want)
	}

	// A campaign takes its number's account's template; one without a
	// number the configured account's.
	mine, err := f.create.Handle(ctx, app.CreateCampaign{Name: "Orders", TemplateName: "order_update", Language: "en_US", Activate: true})
	if err != nil {
		t.Fatal(err)
	}
	theirs, err := f.create.WithNumbers(f.st).Handle(ctx, app.CreateCampaign{Name: "Orders B", TemplateName: "order_update",
		Language: "en_US", PhoneNumberID: string(number.ID)})
	if err != nil {
		t.Fatal(err)
	}
	if mine.Number != "" || mine.TemplateStatus != domain.TemplateApproved || theirs.Number != number.ID ||
		theirs.TemplateStatus != domain.TemplatePaused || theirs.Template.Body != "Your order {{1}} is on its way" {
		t.Fatalf("campaigns: without a number %q %s; on the number %q %s %q", mine.Number, mine.TemplateStatus,
			theirs.Number, theirs.TemplateStatus, theirs.Template.Body)
	}
	if _, err := f.create.WithNumbers(f.st).Handle(ctx, app.CreateCampaign{Name: "Promo B", TemplateName: "promo",
		Language: "en_US", PhoneNumberID: string(number.ID)}); !errors.Is(err, domain.ErrTemplateNotFound) {
		t.Errorf("a campaign on the number with the configured account's template: %v, want template_not_found", err)
	}

	// The number's account approves its order_update: its campaign
	// follows, the other stays as it was.
	other.set("order_update", domain.TemplateApproved)
	res, err = sync.Handle(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Changes) != 1 || res.Changes[0].Campaign != theirs.ID || res.Changes[0].To != domain.TemplateApproved {
		t.Errorf("changes after the number's account approved: %+v, want only %s to APPROVED", res.Changes, theirs.ID)
	}
	// The configured account pauses its order_update: only the campaign
	// without a number stops.
	f.meta.set("order_update", domain.TemplatePaused)
	res, err = sync.Handle(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Changes) != 1 || res.Changes[0].Campaign != mine.ID || res.Changes[0].To != domain.TemplatePaused {
		t.Errorf("changes after the configured account paused: %+v, want only %s to PAUSED", res.Changes, mine.ID)
	}
	if got := f.campaign(t, theirs.ID).TemplateStatus; got != domain.TemplateApproved {
		t.Errorf("the number's campaign after the configured account paused: %s, want APPROVED", got)
	}

	// The number's account cannot be read: the configured one still
	// syncs, and the number's account keeps its stored templates.
	other.mu.Lock()
	other.err = errors.New("meta is down")
	other.mu.Unlock()
	f.meta.remove("promo")
	res, err = sync.Handle(ctx)
	if err == nil || !strings.Contains(err.Error(), number.WABAID) || len(res.Accounts) != 1 {
		t.Fatalf("sync with one account failing: %v, accounts %v; want an error naming %s and the other synced", err, res.Accounts, number.WABAID)
	}
	if got, want := names(account), "named_params:APPROVED,order_update:PAUSED"; got != want {
		t.Errorf("configured account's templates %s, want %s", got, want)
	}
	if got, want := names(number.WABAID), "brand_b_only:APPROVED,order_update:APPROVED"; got != want {
		t.Errorf("the number's account's templates %s, want %s", got, want)
	}
}
