package porttest

import (
	"cmp"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/heraldhq/herald/domain"
	"github.com/heraldhq/herald/ports"
)

var campaignTests = []storeTest{
	{"RoundTrip", testCampaignRoundTrip},
	{"SlotsRoundTrip", testCampaignSlotsRoundTrip},
	{"NotFound", testCampaignNotFound},
	{"OtherWorkspace", testCampaignOtherWorkspace},
	{"GetMany", testCampaignGetMany},
	{"Update", testCampaignUpdate},
	{"UpdateError", testCampaignUpdateError},
	{"List", testCampaignList},
	{"TemplateStatus", testCampaignTemplateStatus},
	{"ListByTemplate", testCampaignListByTemplate},
	{"ListByTemplateNone", testCampaignListByTemplateNone},
	{"ListByTemplateAnyLanguageForm", testCampaignListByTemplateAnyLanguageForm},
}

func testCampaignRoundTrip(t *testing.T, s Store) {
	f := newFixture(t, s)
	for _, header := range []domain.HeaderFormat{domain.HeaderNone, domain.HeaderText, domain.HeaderImage} {
		c := NewCampaign(t, f.ws)
		if header != domain.HeaderText {
			c.Template.HeaderFormat, c.Template.HeaderText = header, ""
		}
		if header == domain.HeaderNone {
			c.Status = domain.CampaignDraft
			c.Template.Footer = ""
			c.Template.Placeholders[1].Label = ""
		}
		if err := s.CreateCampaign(f.ctx, c); err != nil {
			t.Fatalf("CreateCampaign: %v", err)
		}
		got, err := s.GetCampaign(f.ctx, f.ws, c.ID)
		if err != nil {
			t.Fatalf("GetCampaign: %v", err)
		}
		mustEqual(t, "campaign with "+header.String()+" header", c, got)
	}
}

// A campaign keeps every slot of its template and its mapping; one made
// before slots existed (nil Slots) reads back without them, and has the
// default ones.
func testCampaignSlotsRoundTrip(t *testing.T, s Store) {
	f := newFixture(t, s)
	rich := NewCampaign(t, f.ws)
	rich.Template = NewSlotsTemplate(t)
	old := NewCampaign(t, f.ws)
	old.Template.Slots = nil
	for name, c := range map[string]domain.Campaign{"slots": rich, "no slots": old} {
		if err := s.CreateCampaign(f.ctx, c); err != nil {
			t.Fatalf("CreateCampaign: %v", err)
		}
		got, err := s.GetCampaign(f.ctx, f.ws, c.ID)
		if err != nil {
			t.Fatalf("GetCampaign: %v", err)
		}
		mustEqual(t, "campaign with "+name, c, got)
		if name == "no slots" && got.Template.Slots != nil {
			t.Fatalf("a campaign without slots reads back with %+v", got.Template.Slots)
		}
	}
}

func testCampaignNotFound(t *testing.T, s Store) {
	f := newFixture(t, s)
	id := domain.CampaignID(NewID(domain.PrefixCampaign))
	_, err := s.GetCampaign(f.ctx, f.ws, id)
	mustBe(t, "GetCampaign of an unknown id", err, domain.ErrCampaignNotFound)
	called := false
	_, err = s.UpdateCampaign(f.ctx, f.ws, id, func(*domain.Campaign) error {
		called = true
		return nil
	})
	mustBe(t, "UpdateCampaign of an unknown id", err, domain.ErrCampaignNotFound)
	if called {
		t.Fatal("UpdateCampaign called fn for an unknown campaign")
	}
}

// testCampaignGetMany: campaigns of two workspaces read by id in one call
// come back whole, by id, each once; an unknown id is skipped.
func testCampaignGetMany(t *testing.T, s Store) {
	f := newFixture(t, s)
	a, b := f.campaign(), f.campaign()
	c := NewCampaign(t, f.otherWorkspace())
	if err := s.CreateCampaign(f.ctx, c); err != nil {
		t.Fatal(err)
	}
	got, err := s.GetCampaigns(f.ctx, []domain.CampaignID{c.ID, a.ID, NewCampaign(t, f.ws).ID, b.ID, a.ID})
	if err != nil {
		t.Fatalf("GetCampaigns: %v", err)
	}
	want := []domain.Campaign{a, b, cloneCampaign(c)}
	slices.SortFunc(want, func(x, y domain.Campaign) int { return cmp.Compare(x.ID, y.ID) })
	mustEqual(t, "GetCampaigns", want, got)
	if none, err := s.GetCampaigns(f.ctx, nil); err != nil || len(none) != 0 {
		t.Fatalf("GetCampaigns of no ids: %v %v", none, err)
	}
}

func testCampaignOtherWorkspace(t *testing.T, s Store) {
	f := newFixture(t, s)
	c := f.campaign()
	other := f.otherWorkspace()
	_, err := s.GetCampaign(f.ctx, other, c.ID)
	mustBe(t, "GetCampaign from another workspace", err, domain.ErrCampaignNotFound)
	called := false
	_, err = s.UpdateCampaign(f.ctx, other, c.ID, func(c *domain.Campaign) error {
		called = true
		return c.Pause(Now())
	})
	mustBe(t, "UpdateCampaign from another workspace", err, domain.ErrCampaignNotFound)
	if called {
		t.Fatal("UpdateCampaign called fn for another workspace's campaign")
	}
	page, cursor, err := s.ListCampaigns(f.ctx, other, ports.Page{Limit: 10})
	if err != nil {
		t.Fatalf("ListCampaigns: %v", err)
	}
	if len(page) != 0 || cursor != "" {
		t.Fatalf("ListCampaigns of another workspace = %d campaigns, cursor %q; want none", len(page), cursor)
	}
	got, err := s.GetCampaign(f.ctx, f.ws, c.ID)
	if err != nil {
		t.Fatalf("GetCampaign: %v", err)
	}
	mustEqual(t, "campaign after a foreign update", c, got)
}

func testCampaignUpdate(t *testing.T, s Store) {
	f := newFixture(t, s)
	c := f.campaign()
	at := Now()
	want := c
	want.Template.Placeholders = append([]domain.Placeholder(nil), c.Template.Placeholders...)
	if err := want.Pause(at); err != nil {
		t.Fatal(err)
	}
	if err := want.Template.Relabel([]string{"given name", "order id"}); err != nil {
		t.Fatal(err)
	}
	got, err := s.UpdateCampaign(f.ctx, f.ws, c.ID, func(c *domain.Campaign) error {
		if err := c.Pause(at); err != nil {
			return err
		}
		return c.Template.Relabel([]string{"given name", "order id"})
	})
	if err != nil {
		t.Fatalf("UpdateCampaign: %v", err)
	}
	mustEqual(t, "UpdateCampaign result", want, got)
	read, err := s.GetCampaign(f.ctx, f.ws, c.ID)
	if err != nil {
		t.Fatalf("GetCampaign: %v", err)
	}
	mustEqual(t, "updated campaign read back", want, read)
}

func testCampaignUpdateError(t *testing.T, s Store) {
	f := newFixture(t, s)
	c := f.campaign()
	boom := errors.New("boom")
	_, err := s.UpdateCampaign(f.ctx, f.ws, c.ID, func(c *domain.Campaign) error {
		_ = c.Pause(Now())
		c.Name = "changed"
		c.Template.Placeholders[0].Label = "changed"
		return boom
	})
	mustBe(t, "UpdateCampaign with a failing fn", err, boom)
	got, err := s.GetCampaign(f.ctx, f.ws, c.ID)
	if err != nil {
		t.Fatalf("GetCampaign: %v", err)
	}
	mustEqual(t, "campaign after a failed update", c, got)
}

// testCampaignList pins cursor pagination: newest first (identifiers
// descending), pages of exactly Limit items but the last, every campaign
// once, and an empty cursor exactly on the last page.
func testCampaignList(t *testing.T, s Store) {
	f := newFixture(t, s)
	const n = 7
	byID := map[domain.CampaignID]domain.Campaign{}
	var ids []domain.CampaignID
	for range n {
		c := f.campaign()
		byID[c.ID] = c
		ids = append(ids, c.ID)
	}
	newFixture(t, s).campaign() // another workspace's campaign is never listed
	var want []domain.Campaign
	for _, id := range sortedDesc(ids) {
		want = append(want, byID[id])
	}
	for _, limit := range []int{1, 2, 3, 7, 10} {
		got := collectPages(t, n, limit, func(p ports.Page) ([]domain.Campaign, string, error) {
			return s.ListCampaigns(f.ctx, f.ws, p)
		})
		mustEqual(t, "campaigns listed in pages", want, got)
	}
}

// collectPages follows cursors from the first page to the last and checks
// the page sizes and that only the last page has an empty cursor.
func collectPages[T any](t *testing.T, total, limit int, list func(ports.Page) ([]T, string, error)) []T {
	t.Helper()
	var all []T
	cursor := ""
	for page := 1; ; page++ {
		items, next, err := list(ports.Page{Cursor: cursor, Limit: limit})
		if err != nil {
			t.Fatalf("limit %d, page %d: %v", limit, page, err)
		}
		all = append(all, items...)
		left := total - (page-1)*limit
		wantLen := min(limit, left)
		if len(items) != wantLen {
			t.Fatalf("limit %d, page %d has %d items, want %d", limit, page, len(items), wantLen)
		}
		last := left <= limit
		if last != (next == "") {
			t.Fatalf("limit %d, page %d: cursor %q, but the last page is %v (a cursor is empty exactly on the last page)",
				limit, page, next, last)
		}
		if last {
			return all
		}
		cursor = next
	}
}

// Meta's template status round-trips through every campaign method: zero,
// a status Herald acts on, and one it only keeps.
func testCampaignTemplateStatus(t *testing.T, s Store) {
	f := newFixture(t, s)
	inAppeal, err := domain.ParseTemplateStatus("IN_APPEAL")
	if err != nil {
		t.Fatal(err)
	}
	var want []domain.Campaign
	for _, st := range []domain.TemplateStatus{{}, domain.TemplateApproved, inAppeal} {
		c := NewCampaign(t, f.ws)
		c.TemplateStatus = st
		if err := s.CreateCampaign(f.ctx, c); err != nil {
			t.Fatalf("CreateCampaign: %v", err)
		}
		got, err := s.GetCampaign(f.ctx, f.ws, c.ID)
		if err != nil {
			t.Fatalf("GetCampaign: %v", err)
		}
		mustEqual(t, "campaign with template status "+st.String(), c, got)
		want = append(want, cloneCampaign(c))
	}
	at := Now().Add(time.Second)
	updated := cloneCampaign(want[1])
	updated.SetTemplateStatus(domain.TemplatePaused, at)
	got, err := s.UpdateCampaign(f.ctx, f.ws, updated.ID, func(c *domain.Campaign) error {
		if !c.SetTemplateStatus(domain.TemplatePaused, at) {
			t.Error("the stored campaign already had the new template status")
		}
		return nil
	})
	if err != nil {
		t.Fatalf("UpdateCampaign: %v", err)
	}
	mustEqual(t, "UpdateCampaign result", updated, got)
	read, err := s.GetCampaign(f.ctx, f.ws, updated.ID)
	if err != nil {
		t.Fatalf("GetCampaign: %v", err)
	}
	mustEqual(t, "campaign read back after its template status changed", updated, read)
	want[1] = updated
	slices.SortFunc(want, func(a, b domain.Campaign) int { return cmp.Compare(b.ID, a.ID) })
	list, _, err := s.ListCampaigns(f.ctx, f.ws, ports.Page{Limit: 10})
	if err != nil {
		t.Fatalf("ListCampaigns: %v", err)
	}
	mustEqual(t, "campaigns listed", want, list)
}

// ListCampaignsByTemplate finds the template's campaigns in every
// workspace, oldest first (identifiers ascending), and only those in the
// template's language, each with its number: what Meta says of a template
// reaches only the campaigns of its business account.
func testCampaignListByTemplate(t *testing.T, s Store) {
	f := newFixture(t, s)
	other := f.otherWorkspace()
	name := NewTemplateName()
	create := func(ws domain.WorkspaceID, name, language string) domain.Campaign {
		t.Helper()
		c := NewCampaign(t, ws)
		c.Template.Name, c.Template.Language = name, language
		if err := s.CreateCampaign(f.ctx, c); err != nil {
			t.Fatalf("CreateCampaign: %v", err)
		}
		return cloneCampaign(c)
	}
	var want []domain.Campaign
	for _, ws := range []domain.WorkspaceID{f.ws, other, f.ws, other} {
		want = append(want, create(ws, name, "en_US"))
	}
	number := NewNumber(t).ID
	want[1].TemplateStatus, want[1].Number = domain.TemplatePaused, number
	if _, err := s.UpdateCampaign(f.ctx, other, want[1].ID, func(c *domain.Campaign) error {
		c.TemplateStatus, c.Number = domain.TemplatePaused, number
		return nil
	}); err != nil {
		t.Fatalf("UpdateCampaign: %v", err)
	}
	create(f.ws, name, "en")                  // another language
	create(other, NewTemplateName(), "en_US") // another template
	slices.SortFunc(want, func(a, b domain.Campaign) int { return cmp.Compare(a.ID, b.ID) })

	got, err := s.ListCampaignsByTemplate(f.ctx, name, "en_US")
	if err != nil {
		t.Fatalf("ListCampaignsByTemplate: %v", err)
	}
	mustEqual(t, "campaigns using the template", want, got)
}

func testCampaignListByTemplateNone(t *testing.T, s Store) {
	got, err := s.ListCampaignsByTemplate(t.Context(), NewTemplateName(), "en_US")
	if err != nil {
		t.Fatalf("ListCampaignsByTemplate: %v", err)
	}
	if len(got) != 0 {
		t.Fatalf("ListCampaignsByTemplate of an unused template = %d campaigns, want none", len(got))
	}
}
