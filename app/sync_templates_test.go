package app_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/heraldhq/herald/app"
	"github.com/heraldhq/herald/app/delivery"
	"github.com/heraldhq/herald/app/usecase"
	"github.com/heraldhq/herald/domain"
	"github.com/heraldhq/herald/ports"
	"github.com/heraldhq/herald/ports/portsmock"
)

const account = "102290129340398"

// metaTemplates is a template source whose list a test can change between
// syncs, like templates reviewed at Meta.
type metaTemplates struct {
	*portsmock.TemplateSourceMock
	mu   sync.Mutex
	list []domain.SyncedTemplate
	err  error
}

func newMetaTemplates(t *testing.T, list ...domain.SyncedTemplate) *metaTemplates {
	m := &metaTemplates{list: list}
	m.TemplateSourceMock = &portsmock.TemplateSourceMock{
		AccountFunc: func() string { return account },
		ListTemplatesFunc: func(ctx context.Context) ([]domain.SyncedTemplate, error) {
			m.mu.Lock()
			defer m.mu.Unlock()
			return append([]domain.SyncedTemplate(nil), m.list...), m.err
		},
	}
	return m
}

// set changes the status of a template at Meta.
func (m *metaTemplates) set(name string, st domain.TemplateStatus) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for i := range m.list {
		if m.list[i].Name == name {
			m.list[i].Status = st
		}
	}
}

// remove deletes a template at Meta.
func (m *metaTemplates) remove(name string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for i := range m.list {
		if m.list[i].Name == name {
			m.list = append(m.list[:i], m.list[i+1:]...)
			return
		}
	}
}

func synced(t *testing.T, name string, st domain.TemplateStatus, header domain.HeaderFormat, body string) domain.SyncedTemplate {
	t.Helper()
	def, err := domain.NewTemplate(name, "en_US", header, "", body, "Reply STOP to opt out", nil)
	if err != nil {
		t.Fatal(err)
	}
	return domain.SyncedTemplate{ProviderID: "1304694804498707", Name: name, Language: "en_US", Status: st,
		Category: "UTILITY", Definition: def}
}

// templatesFixture has a Meta account with three templates: order_update
// (approved, two placeholders), promo (paused, image header) and
// named_params (approved, but with named parameters Herald cannot send).
type templatesFixture struct {
	*fixture
	meta   *metaTemplates
	sync   *app.SyncTemplatesHandler
	create *app.CreateCampaignHandler
}

func newTemplatesFixture(t *testing.T) templatesFixture {
	f := newFixture(t)
	meta := newMetaTemplates(t,
		synced(t, "order_update", domain.TemplateApproved, domain.HeaderNone, "Order {{1}} ships {{2}}"),
		synced(t, "promo", domain.TemplatePaused, domain.HeaderImage, "Hi {{1}}, a gift for you"),
		domain.SyncedTemplate{ProviderID: "99", Name: "named_params", Language: "en_US", Status: domain.TemplateApproved,
			Category: "MARKETING", Unsupported: "named parameters are not supported"},
	)
	return templatesFixture{fixture: f, meta: meta,
		sync:   app.NewSyncTemplatesHandler(meta, nil, f.st, f.clock, nil, usecase.NewObserver(nil)),
		create: app.NewCreateCampaignHandler(f.st, f.st, f.st, meta, f.def, f.clock, f.ids)}
}

func (f templatesFixture) mustSync(t *testing.T) app.SyncTemplatesResult {
	t.Helper()
	res, err := f.sync.Handle(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func (f templatesFixture) campaign(t *testing.T, id domain.CampaignID) domain.Campaign {
	t.Helper()
	c, err := f.st.GetCampaign(context.Background(), f.principal.Workspace, id)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func wantCode(t *testing.T, err error, code domain.Code, detail string) {
	t.Helper()
	var de *domain.Error
	if !errors.As(err, &de) || de.Code != code || !strings.Contains(de.Detail, detail) {
		t.Fatalf("error %v, want %s saying %q", err, code, detail)
	}
}

func TestSyncStoresTheAccountsTemplates(t *testing.T) {
	t.Parallel()
	f := newTemplatesFixture(t)
	res := f.mustSync(t)
	if !slices.Equal(res.Accounts, []string{account}) || len(res.Templates) != 3 || len(res.Changes) != 0 {
		t.Fatalf("sync result %+v, want 3 templates of %s and no campaign changes", res, account)
	}
	stored, err := f.st.ListTemplates(context.Background(), account)
	if err != nil {
		t.Fatal(err)
	}
	want, _ := f.meta.ListTemplates(context.Background())
	for i := range want {
		want[i].Account, want[i].SyncedAt = account, t0
	}
	got := map[string]domain.SyncedTemplate{}
	for _, s := range stored {
		got[s.Name] = s
	}
	for _, w := range want {
		if diff := cmp.Diff(w, got[w.Name], cmpDomain); diff != "" {
			t.Errorf("stored template %s (-want +got):\n%s", w.Name, diff)
		}
	}
	if len(stored) != len(want) {
		t.Errorf("%d templates stored, want %d", len(stored), len(want))
	}
}

func TestCampaignFromASyncedTemplate(t *testing.T) {
	t.Parallel()
	f := newTemplatesFixture(t)
	f.mustSync(t)
	ctx := context.Background()

	c, err := f.create.Handle(ctx, app.CreateCampaign{Name: "Orders", TemplateName: "order_update", Language: "en_US",
		VariableLabels: []string{"Order number", "Date"}, Activate: true})
	if err != nil {
		t.Fatal(err)
	}
	tmpl, _ := domain.NewTemplate("order_update", "en_US", domain.HeaderNone, "", "Order {{1}} ships {{2}}",
		"Reply STOP to opt out", []string{"Order number", "Date"})
	want := domain.Campaign{ID: c.ID, Workspace: f.principal.Workspace, Name: "Orders", Template: tmpl,
		TemplateStatus: domain.TemplateApproved, Category: domain.CategoryUtility, Status: domain.CampaignActive, CreatedAt: t0, UpdatedAt: t0}
	if diff := cmp.Diff(want, c, cmpDomain); diff != "" {
		t.Fatalf("campaign from the synced template (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(want, f.campaign(t, c.ID), cmpDomain); diff != "" {
		t.Fatalf("stored campaign (-want +got):\n%s", diff)
	}

	_, err = f.create.Handle(ctx, app.CreateCampaign{Name: "Promo", TemplateName: "promo", Language: "en_US", Activate: true})
	wantCode(t, err, domain.CodeInvalidTransition, "template promo (en_US) is PAUSED at Meta; a campaign can be activated only while its template is APPROVED")

	draft, err := f.create.Handle(ctx, app.CreateCampaign{Name: "Promo", TemplateName: "promo", Language: "en_US"})
	if err != nil {
		t.Fatal(err)
	}
	if draft.Status != domain.CampaignDraft || draft.TemplateStatus != domain.TemplatePaused || draft.Template.HeaderFormat != domain.HeaderImage {
		t.Fatalf("draft on a paused template: %s, template %s, header %s", draft.Status, draft.TemplateStatus, draft.Template.HeaderFormat)
	}
	_, err = app.NewChangeCampaignStatusHandler(f.st, f.st, f.def, f.clock, nil).Handle(ctx, app.ChangeCampaignStatus{
		Workspace: string(f.principal.Workspace), CampaignID: string(draft.ID), To: domain.CampaignActive})
	wantCode(t, err, domain.CodeInvalidTransition, "is PAUSED at Meta")

	_, err = f.create.Handle(ctx, app.CreateCampaign{Name: "Named", TemplateName: "named_params", Language: "en_US"})
	wantCode(t, err, domain.CodeInvalidParameter, "cannot be sent by Herald: named parameters are not supported")

	_, err = f.create.Handle(ctx, app.CreateCampaign{Name: "Missing", TemplateName: "order_update", Language: "pt_BR"})
	wantCode(t, err, domain.CodeTemplateNotFound, "no synced template order_update in language pt_BR")

	_, err = f.create.Handle(ctx, app.CreateCampaign{Name: "Orders", TemplateName: "order_update", Language: "en_US", Footer: "Bye"})
	wantCode(t, err, domain.CodeInvalidParameter, "come from Meta")

	_, err = f.create.Handle(ctx, app.CreateCampaign{Name: "Orders", TemplateName: "order_update", Language: "en_US",
		VariableLabels: []string{"a", "b", "c"}})
	wantCode(t, err, domain.CodeInvalidParameter, "3 labels but the body has 2 placeholders")

	// A body given here defines the template locally; Meta's verdict on
	// that name and language still applies.
	local, err := f.create.Handle(ctx, app.CreateCampaign{Name: "Local", TemplateName: "promo", Language: "en_US",
		HeaderFormat: domain.HeaderImage, Body: "Hello {{1}}"})
	if err != nil {
		t.Fatal(err)
	}
	if local.TemplateStatus != domain.TemplatePaused || local.Template.Body != "Hello {{1}}" {
		t.Fatalf("local campaign on a synced name: template status %s, body %q", local.TemplateStatus, local.Template.Body)
	}
	unknown, err := f.create.Handle(ctx, app.CreateCampaign{Name: "Sandbox", TemplateName: "sandbox_only", Language: "en_US", Body: "Hi"})
	if err != nil || !unknown.TemplateStatus.IsZero() {
		t.Fatalf("local template unknown to Meta: status %q, err %v; want no status", unknown.TemplateStatus, err)
	}
}

func TestWithoutTemplateSync(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	_, err := app.NewSyncTemplatesHandler(nil, nil, f.st, f.clock, nil, usecase.NewObserver(nil)).Handle(context.Background())
	if !errors.Is(err, app.ErrTemplateSyncOff) {
		t.Fatalf("sync without a source: %v, want ErrTemplateSyncOff", err)
	}
	_, err = app.NewCreateCampaignHandler(f.st, f.st, f.st, nil, f.def, f.clock, f.ids).Handle(context.Background(),
		app.CreateCampaign{Name: "Orders", TemplateName: "order_update", Language: "en_US"})
	wantCode(t, err, domain.CodeTemplateNotFound, "template sync is not configured")
}

// TestTemplateStatusChangesStopAndResumeSends: Meta pauses a template, the
// next sync stops its campaigns in every workspace with a clear detail, and
// approval resumes them; a template deleted at Meta stops them for good.
func TestTemplateStatusChangesStopAndResumeSends(t *testing.T) {
	t.Parallel()
	f := newTemplatesFixture(t)
	f.mustSync(t)
	ctx := context.Background()
	mine, err := f.create.Handle(ctx, app.CreateCampaign{Name: "Orders", TemplateName: "order_update", Language: "en_US", Activate: true})
	if err != nil {
		t.Fatal(err)
	}
	other, _ := f.otherWorkspace(t)
	theirs, err := f.create.Handle(ctx, app.CreateCampaign{Workspace: string(other), Name: "Theirs", TemplateName: "order_update",
		Language: "en_US", Activate: true})
	if err != nil {
		t.Fatal(err)
	}
	send := func() error {
		_, err := f.sender(f.st, nil).Handle(ctx, app.SendCampaignMessage{Principal: f.principal, PhoneNumber: phone,
			CampaignID: string(mine.ID), Variables: []string{"A-1", "today"}})
		return err
	}
	if err := send(); err != nil {
		t.Fatalf("send on an approved template: %v", err)
	}

	f.meta.set("order_update", domain.TemplatePaused)
	f.clock.Advance(time.Minute)
	res := f.mustSync(t)
	wantChanges := []delivery.TemplateStatusChange{
		{Workspace: f.principal.Workspace, Campaign: mine.ID, Template: "order_update (en_US)", From: domain.TemplateApproved, To: domain.TemplatePaused},
		{Workspace: other, Campaign: theirs.ID, Template: "order_update (en_US)", From: domain.TemplateApproved, To: domain.TemplatePaused},
	}
	if mine.ID > theirs.ID {
		wantChanges[0], wantChanges[1] = wantChanges[1], wantChanges[0]
	}
	if diff := cmp.Diff(wantChanges, res.Changes, cmpDomain); diff != "" {
		t.Fatalf("changes reported (-want +got):\n%s", diff)
	}
	c := f.campaign(t, mine.ID)
	if c.Status != domain.CampaignActive || c.TemplateStatus != domain.TemplatePaused || !c.UpdatedAt.Equal(t0.Add(time.Minute)) {
		t.Fatalf("after the pause: campaign %s, template %s, updated %v", c.Status, c.TemplateStatus, c.UpdatedAt)
	}
	wantCode(t, send(), domain.CodeCampaignNotActive,
		"the campaign's template order_update (en_US) is PAUSED at Meta; sends resume when Meta approves it again")

	if res := f.mustSync(t); len(res.Changes) != 0 {
		t.Fatalf("a sync with nothing new changed %+v", res.Changes)
	}

	f.meta.set("order_update", domain.TemplateApproved)
	f.mustSync(t)
	if err := send(); err != nil {
		t.Fatalf("send after Meta approved the template again: %v", err)
	}

	f.meta.remove("order_update")
	res = f.mustSync(t)
	if len(res.Changes) != 2 || res.Changes[0].To != domain.TemplateDeleted {
		t.Fatalf("changes after the template was deleted: %+v", res.Changes)
	}
	if _, err := f.st.GetTemplate(ctx, account, "order_update", "en_US"); !errors.Is(err, domain.ErrTemplateNotFound) {
		t.Fatalf("the deleted template is still stored: %v", err)
	}
	wantCode(t, send(), domain.CodeCampaignNotActive, "is DELETED at Meta")
}

func TestFailedReadChangesNothing(t *testing.T) {
	t.Parallel()
	f := newTemplatesFixture(t)
	f.mustSync(t)
	c, err := f.create.Handle(context.Background(), app.CreateCampaign{Name: "Orders", TemplateName: "order_update", Language: "en_US", Activate: true})
	if err != nil {
		t.Fatal(err)
	}
	f.meta.set("order_update", domain.TemplatePaused)
	f.meta.mu.Lock()
	f.meta.err = &ports.SendError{Class: ports.ClassRetryable, Code: 131000, Title: "Something went wrong"}
	f.meta.mu.Unlock()
	if _, err := f.sync.Handle(context.Background()); err == nil {
		t.Fatal("a failed read of Meta's templates reported success")
	}
	if got := f.campaign(t, c.ID).TemplateStatus; got != domain.TemplateApproved {
		t.Fatalf("template status %s after a failed sync, want APPROVED kept", got)
	}
}

// TestSyncRollsBackWhenACampaignCannotBeUpdated: templates and campaign
// statuses commit together or not at all.
func TestSyncRollsBackWhenACampaignCannotBeUpdated(t *testing.T) {
	t.Parallel()
	f := newTemplatesFixture(t)
	f.mustSync(t)
	if _, err := f.create.Handle(context.Background(), app.CreateCampaign{Name: "Orders", TemplateName: "order_update", Language: "en_US", Activate: true}); err != nil {
		t.Fatal(err)
	}
	f.meta.set("order_update", domain.TemplatePaused)
	failing := &portsmock.TransactorMock{WithinTxFunc: func(ctx context.Context, fn func(context.Context, ports.Repos) error) error {
		return f.st.WithinTx(ctx, func(ctx context.Context, r ports.Repos) error {
			camps := &portsmock.CampaignRepositoryMock{
				ListCampaignsByTemplateFunc: r.Campaigns.ListCampaignsByTemplate,
				UpdateCampaignFunc: func(context.Context, domain.WorkspaceID, domain.CampaignID, func(*domain.Campaign) error) (domain.Campaign, error) {
					return domain.Campaign{}, ports.ErrUnavailable
				},
			}
			r.Campaigns = camps
			return fn(ctx, r)
		})
	}}
	_, err := app.NewSyncTemplatesHandler(f.meta, nil, failing, f.clock, nil, usecase.NewObserver(nil)).Handle(context.Background())
	if !errors.Is(err, ports.ErrUnavailable) {
		t.Fatalf("sync error %v, want unavailable", err)
	}
	st, err := f.st.GetTemplate(context.Background(), account, "order_update", "en_US")
	if err != nil || st.Status != domain.TemplateApproved {
		t.Fatalf("stored template %s (%v) after a rolled-back sync, want APPROVED", st.Status, err)
	}
}

// TestRefreshSyncsAtOnceAndAgain: the server's refresh loop syncs at start,
// syncs again after the interval, and stops when told to.
func TestRefreshSyncsAtOnceAndAgain(t *testing.T) {
	t.Parallel()
	f := newTemplatesFixture(t)
	list := f.meta.ListTemplatesFunc
	calls := make(chan int, 8)
	n := 0
	f.meta.ListTemplatesFunc = func(ctx context.Context) ([]domain.SyncedTemplate, error) {
		n++
		calls <- n
		return list(ctx)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { f.sync.Refresh(ctx, time.Millisecond); close(done) }()
	for got := range calls {
		if got == 2 { // the first sync has been stored by now
			break
		}
	}
	cancel()
	<-done
	stored, err := f.st.ListTemplates(context.Background(), account)
	if err != nil || len(stored) != 3 {
		t.Fatalf("after the refresh loop: %d templates stored (%v), want 3", len(stored), err)
	}
	// Without a source the loop has nothing to do and returns.
	app.NewSyncTemplatesHandler(nil, nil, f.st, f.clock, nil, usecase.NewObserver(nil)).Refresh(context.Background(), time.Millisecond)
}

// TestUnreadableStatusLeavesCampaignsAlone: a template whose status Herald
// could not read neither makes its campaigns sendable nor stops them.
func TestUnreadableStatusLeavesCampaignsAlone(t *testing.T) {
	t.Parallel()
	f := newTemplatesFixture(t)
	f.mustSync(t)
	c, err := f.create.Handle(context.Background(), app.CreateCampaign{Name: "Orders", TemplateName: "order_update", Language: "en_US", Activate: true})
	if err != nil {
		t.Fatal(err)
	}
	f.meta.set("order_update", domain.TemplateStatus{})
	if res := f.mustSync(t); len(res.Changes) != 0 {
		t.Fatalf("changes %+v, want none", res.Changes)
	}
	if got := f.campaign(t, c.ID).TemplateStatus; got != domain.TemplateApproved {
		t.Fatalf("template status %q, want APPROVED kept", got)
	}
}

// TestSyncBringsCategories: template sync writes each template's category
// on its campaigns, and a campaign made from a synced template takes Meta's
// category over the one given.
func TestSyncBringsCategories(t *testing.T) {
	t.Parallel()
	f := newTemplatesFixture(t)
	ctx := context.Background()
	local, err := f.create.Handle(ctx, app.CreateCampaign{Name: "Local", TemplateName: "order_update", Language: "en_US",
		Body: "Order {{1}} ships {{2}}", Category: domain.CategoryMarketing})
	if err != nil {
		t.Fatal(err)
	}
	if local.Category != domain.CategoryMarketing {
		t.Fatalf("a campaign defined here before any sync has category %v, want the one given", local.Category)
	}
	res := f.mustSync(t)
	if len(res.CategoryChanges) != 1 || res.CategoryChanges[0].Campaign != local.ID || res.CategoryChanges[0].To != domain.CategoryUtility {
		t.Errorf("category changes %+v, want the local campaign moved to UTILITY", res.CategoryChanges)
	}
	if got := f.campaign(t, local.ID); got.Category != domain.CategoryUtility {
		t.Errorf("after the sync: %v, want Meta's UTILITY", got.Category)
	}
	again, err := f.create.Handle(ctx, app.CreateCampaign{Name: "Again", TemplateName: "order_update", Language: "en_US",
		Body: "Order {{1}} ships {{2}}", Category: domain.CategoryMarketing})
	if err != nil || again.Category != domain.CategoryUtility {
		t.Errorf("a campaign of a synced template: %v (%v), want Meta's UTILITY", again.Category, err)
	}
}
