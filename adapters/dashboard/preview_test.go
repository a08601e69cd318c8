package dashboard_test

import (
	"context"
	"strings"
	"testing"

	"github.com/heraldhq/herald/adapters/dashboard"
	"github.com/heraldhq/herald/adapters/system"
	"github.com/heraldhq/herald/app"
	"github.com/heraldhq/herald/domain"
	"github.com/heraldhq/herald/ports/porttest"
)

// TestPreviewShowsButtonsAndCards: the template preview shows every button
// under the bubble as WhatsApp does, in order, those that take no value
// (a static link, a phone number, a voice call) too, with what a tap does, and a
// carousel's cards with their headers and buttons.
func TestPreviewShowsButtonsAndCards(t *testing.T) {
	t.Parallel()
	e := newEnv(t, dashboard.Config{})
	ctx := context.Background()
	deals, err := e.createCampaign.Handle(ctx, app.CreateCampaign{Name: "Deals", TemplateName: "deals", Language: "en_US",
		Body: "Hi {{1}}, here is your deal.", Buttons: []domain.ButtonDef{
			{Kind: domain.ButtonQuickReply, Text: "Stop"}, {Kind: domain.ButtonURL, Text: "Shop", URL: "https://shop.example/d/{{1}}"},
			{Kind: domain.ButtonCopyCode}, {Kind: domain.ButtonURL, Text: "Our hours", URL: "https://shop.example/hours"},
			{Kind: domain.ButtonPhone, Text: "Call us", PhoneNumber: "+15550100"}, {Kind: domain.ButtonVoiceCall, Text: "Call on WhatsApp"}}})
	if err != nil {
		t.Fatal(err)
	}
	card := domain.CardDef{HeaderFormat: domain.HeaderImage, Body: "Only {{1}} left.",
		Buttons: []domain.ButtonDef{{Kind: domain.ButtonQuickReply, Text: "Want it"}}}
	carousel, err := e.createCampaign.Handle(ctx, app.CreateCampaign{Name: "Carousel", TemplateName: "carousel", Language: "en_US",
		Category: domain.CategoryMarketing, Body: "Hi {{1}}, pick one.", Cards: []domain.CardDef{card, card}})
	if err != nil {
		t.Fatal(err)
	}
	b := e.browser(t)
	b.login()
	_, page := b.get("/dashboard/campaigns/" + string(deals.ID))
	for _, want := range []string{`<ul class="bubble-buttons" aria-label="Buttons">`,
		`<li><span dir="auto">Stop</span> <small class="muted">quick reply</small></li>`,
		`<li><span dir="auto">Shop</span> <small class="muted">opens a link</small></li>`,
		`<li><span dir="auto">Copy offer code</span> <small class="muted">copies the code</small></li>`,
		`<li><span dir="auto">Our hours</span> <small class="muted">opens https://shop.example/hours</small></li>`,
		`<li><span dir="auto">Call us</span> <small class="muted">calls +15550100</small></li>`,
		`<li><span dir="auto">Call on WhatsApp</span> <small class="muted">calls on WhatsApp</small></li>`} {
		if !strings.Contains(page, want) {
			t.Errorf("the preview lacks %q", want)
		}
	}
	// In the template's order, as WhatsApp shows them.
	last := -1
	for _, text := range []string{">Stop<", ">Shop<", ">Copy offer code<", ">Our hours<", ">Call us<", ">Call on WhatsApp<"} {
		i := strings.Index(page, text)
		if i < last {
			t.Errorf("button %s is out of the template's order", text)
		}
		last = i
	}
	_, page = b.get("/dashboard/campaigns/" + string(carousel.ID))
	for _, want := range []string{`<ol class="carousel" aria-label="Carousel cards">`, `card 1: image header`, `card 2: image header`,
		`<span dir="auto">Want it</span>`} {
		if !strings.Contains(page, want) {
			t.Errorf("the carousel preview lacks %q", want)
		}
	}
	if strings.Count(page, `<span dir="auto">Want it</span>`) != 2 {
		t.Errorf("want one button per card:\n%s", page)
	}
}

// TestThreadShowsSentButtons: a message sent in the sandbox shows in the
// contact's thread with its buttons.
func TestThreadShowsSentButtons(t *testing.T) {
	t.Parallel()
	e := newEnv(t, dashboard.Config{})
	ctx := context.Background()
	ws, err := app.NewEnsureDefaultWorkspaceHandler(e.store, system.Clock{}, system.NewIDs()).Handle(ctx)
	if err != nil {
		t.Fatal(err)
	}
	c, err := e.createCampaign.Handle(ctx, app.CreateCampaign{Name: "Orders", TemplateName: "orders", Language: "en_US",
		Body: "Hi {{1}}, your order ships today.", Activate: true, Buttons: []domain.ButtonDef{
			{Kind: domain.ButtonQuickReply, Text: "Thanks"}, {Kind: domain.ButtonURL, Text: "Track", URL: "https://shop.example/t/{{1}}"}}})
	if err != nil {
		t.Fatal(err)
	}
	r, err := e.syncContact.Handle(ctx, app.SyncContact{Principal: domain.Principal{Workspace: ws.ID}, PhoneNumber: "+14155550123"})
	if err != nil {
		t.Fatal(err)
	}
	m := porttest.NewMessage(t, c, r.Contact)
	m.Mode = domain.ModeTest
	m.Values = nil
	for _, s := range c.Template.AllSlots() {
		m.Values = append(m.Values, domain.SlotValue{Slot: s, Value: "A-1"})
	}
	if err := e.store.CreateMessages(ctx, m); err != nil {
		t.Fatal(err)
	}
	if err := e.store.AppendEntries(ctx, porttest.NewOutboundEntry(m, r.Contact)); err != nil {
		t.Fatal(err)
	}
	b := e.browser(t)
	b.login()
	_, page := b.get("/dashboard/contacts/" + string(r.Contact.ID))
	for _, want := range []string{`<li><span dir="auto">Thanks</span> <small class="muted">quick reply</small></li>`,
		`<li><span dir="auto">Track</span> <small class="muted">opens a link</small></li>`} {
		if !strings.Contains(page, want) {
			t.Errorf("the thread lacks %q:\n%s", want, page)
		}
	}
}
