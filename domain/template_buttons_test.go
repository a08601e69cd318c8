package domain_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/heraldhq/herald/domain"
)

var cmpButtons = cmp.AllowUnexported(domain.ButtonKind{})

// TestTemplateKeepsEveryButton: a defined template keeps all its buttons
// in order, the static ones that take no value with their URL or number,
// while its slots hold only the ones that take a value.
func TestTemplateKeepsEveryButton(t *testing.T) {
	tmpl := define(t, domain.TemplateDefinition{Body: "Hi {{1}}.", Buttons: []domain.ButtonDef{
		{Kind: domain.ButtonURL, Text: "Hours", URL: "https://shop.example/hours", PhoneNumber: "+1555"},
		{Kind: domain.ButtonPhone, Text: "Call us", PhoneNumber: "+15550100"},
		{Kind: domain.ButtonVoiceCall, Text: "Call on WhatsApp"},
		{Kind: domain.ButtonQuickReply, Text: "Stop", URL: "https://ignored.example/"}}})
	want := []domain.ButtonDef{{Kind: domain.ButtonURL, Text: "Hours", URL: "https://shop.example/hours"},
		{Kind: domain.ButtonPhone, Text: "Call us", PhoneNumber: "+15550100"},
		{Kind: domain.ButtonVoiceCall, Text: "Call on WhatsApp"}, {Kind: domain.ButtonQuickReply, Text: "Stop"}}
	if d := cmp.Diff(want, tmpl.AllButtons(), cmpButtons); d != "" {
		t.Errorf("buttons (-want +got):\n%s", d)
	}
	if n := len(tmpl.AllSlots()); n != 2 {
		t.Errorf("%d slots, want the body's and the quick reply's", n)
	}
	if none := define(t, domain.TemplateDefinition{Body: "Hi."}); none.Buttons == nil || len(none.Buttons) != 0 {
		t.Errorf("a template without buttons has %#v, want none known", none.Buttons)
	}
}

// TestTemplateButtonsUnknown: a template stored before buttons were kept
// shows the buttons its slots know of, in order.
func TestTemplateButtonsUnknown(t *testing.T) {
	tmpl := define(t, domain.TemplateDefinition{Body: "Hi {{1}}.", Buttons: []domain.ButtonDef{
		{Kind: domain.ButtonPhone, Text: "Call us", PhoneNumber: "+15550100"},
		{Kind: domain.ButtonURL, Text: "Track", URL: "https://shop.example/t/{{1}}"}, {Kind: domain.ButtonCopyCode}}})
	tmpl.Buttons = nil
	want := []domain.ButtonDef{{Kind: domain.ButtonURL, Text: "Track"}, {Kind: domain.ButtonCopyCode}}
	if d := cmp.Diff(want, tmpl.AllButtons(), cmpButtons); d != "" {
		t.Errorf("buttons (-want +got):\n%s", d)
	}
}

// TestSyncedTemplateScrubsButtons: a button's text, URL and number from
// Meta are made storable like the template's other texts.
func TestSyncedTemplateScrubsButtons(t *testing.T) {
	s := domain.SyncedTemplate{Definition: domain.Template{Buttons: []domain.ButtonDef{
		{Kind: domain.ButtonPhone, Text: "Call\x00", PhoneNumber: "+1\xff"}}}}
	got := s.Scrubbed().Definition.Buttons[0]
	if err := domain.CheckText("text", "text", got.Text+got.PhoneNumber); err != nil {
		t.Errorf("scrubbed button %+v: %v", got, err)
	}
	none := domain.SyncedTemplate{Definition: domain.Template{Buttons: []domain.ButtonDef{}}}
	if b := none.Scrubbed().Definition.Buttons; b == nil {
		t.Error("a template known to have no buttons reads as buttons unknown once scrubbed")
	}
	if s.Definition.Buttons[0].Text != "Call\x00" {
		t.Error("Scrubbed changed the original's buttons")
	}
}

// TestPhoneButtonNumberChecked: a phone button's number with a character
// Meta refuses is a clear error naming it.
func TestPhoneButtonNumberChecked(t *testing.T) {
	_, err := domain.DefineTemplate(domain.TemplateDefinition{Name: "t", Language: "en_US", Body: "Hi.",
		Buttons: []domain.ButtonDef{{Kind: domain.ButtonPhone, Text: "Call", PhoneNumber: "+1\x00"}}})
	de, ok := err.(*domain.Error)
	if !ok || de.Param != "buttons[0].phoneNumber" {
		t.Fatalf("got %v, want an error on buttons[0].phoneNumber", err)
	}
}
