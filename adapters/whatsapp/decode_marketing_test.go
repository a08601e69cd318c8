package whatsapp_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/heraldhq/herald/adapters/whatsapp"
	"github.com/heraldhq/herald/domain"
	"github.com/heraldhq/herald/ports"
	"github.com/heraldhq/herald/ports/porttest"
	"github.com/heraldhq/herald/test/fakemeta"
)

var categoryOp = cmp.AllowUnexported(domain.TemplateCategory{})

// TestUserPreferencesDecode reads Meta's user_preferences webhook: each
// user's stop or resume of marketing messages for the business number, by
// wa_id, or by the change's only contact when the item has none, with what
// the contact says of the user (a business-scoped user id, the profile
// name); other values and categories are left out with a line each.
func TestUserPreferencesDecode(t *testing.T) {
	t.Parallel()
	d := whatsapp.NewWebhooks(whatsapp.WebhookConfig{})
	batch, err := d.Decode(fakemeta.BatchChanges(
		fakemeta.UserPreferencesPayload(waba, phoneID,
			fakemeta.UserPreference{WaID: "5511988887777", ProfileName: "Ana", Value: "stop", At: at},
			fakemeta.UserPreference{WaID: user, Value: "resume", At: later}),
		fakemeta.UserPreferencesPayload(waba, phoneID, fakemeta.UserPreference{WaID: user, Value: "stop", At: later, NoWaID: true}),
		fakemeta.UserPreferencesPayload(waba, phoneID, fakemeta.UserPreference{WaID: user, Value: "signup", At: later}),
		[]byte(`{"object":"whatsapp_business_account","entry":[{"id":"`+waba+`","changes":[{"field":"user_preferences","value":{
"messaging_product":"whatsapp","user_preferences":[
 {"wa_id":"`+user+`","category":"something_else","value":"stop","timestamp":1767225599},
 {"category":"marketing_messages","value":"stop","timestamp":1767225599},
 {"wa_id":"`+user+`","category":"marketing_messages","value":"stop","timestamp":"1767225599"}]}}]}]}`),
		fakemeta.UserPreferencesPayload(waba, phoneID,
			fakemeta.UserPreference{WaID: "5215512345678", UserID: "MX.1502576394655843", Value: "stop", At: at}),
	))
	if err != nil {
		t.Fatal(err)
	}
	want := []ports.MarketingPreferenceEvent{
		{Number: phoneID, User: domain.WhatsAppUser{WaID: "5511988887777", ProfileName: "Ana"}, Stopped: true, At: at},
		{Number: phoneID, User: domain.WhatsAppUser{WaID: user}, Stopped: false, At: later},
		{Number: phoneID, User: domain.WhatsAppUser{WaID: user}, Stopped: true, At: later}, // from the contacts
		{User: domain.WhatsAppUser{WaID: user}, Stopped: true, At: mustUnix(1767225599)},   // no metadata
		{Number: phoneID, User: domain.WhatsAppUser{WaID: "5215512345678", UserID: "MX.1502576394655843"}, Stopped: true, At: at},
	}
	if d := cmp.Diff(want, batch.Preferences); d != "" {
		t.Errorf("preferences (-want +got):\n%s", d)
	}
	wantSkipped := []string{
		`entry 0 change 2 preference 0: marketing preference "signup" is not stop or resume`,
		`entry 0 change 3 preference 0: preference category "something_else" is not handled`,
		`entry 0 change 3 preference 1: marketing preference stop names no wa_id or user id`,
	}
	if d := cmp.Diff(wantSkipped, batch.Skipped); d != "" {
		t.Errorf("skipped (-want +got):\n%s", d)
	}
}

// TestTemplateCategoryDecode reads both forms of Meta's
// template_category_update: a change made (previous, new) and a change
// announced (new is the category now, correct the one to come).
func TestTemplateCategoryDecode(t *testing.T) {
	t.Parallel()
	d := whatsapp.NewWebhooks(whatsapp.WebhookConfig{})
	batch, err := d.Decode(fakemeta.Batch(
		fakemeta.TemplateCategoryPayload(waba, "order_update", "pt-BR", "MARKETING", "UTILITY", "", at, at),
		fakemeta.TemplateCategoryPayload(waba, "seasonal_offer", "en_US", "", "UTILITY", "MARKETING", later, at),
		fakemeta.TemplateCategoryPayload(waba, "odd", "en_US", "", "not a category", "", at, at),
	))
	if err != nil {
		t.Fatal(err)
	}
	want := []ports.TemplateCategoryEvent{
		{Account: waba, Name: "order_update", Language: "pt_BR", Category: domain.CategoryUtility, Previous: domain.CategoryMarketing, At: at},
		{Account: waba, Name: "seasonal_offer", Language: "en_US", Category: domain.CategoryUtility, Upcoming: domain.CategoryMarketing,
			UpcomingAt: later, At: at},
	}
	if d := cmp.Diff(want, batch.Categories, categoryOp); d != "" {
		t.Errorf("categories (-want +got):\n%s", d)
	}
	if d := cmp.Diff([]string{`entry 2 change 0: template category "not a category" is not a category`}, batch.Skipped); d != "" {
		t.Errorf("skipped (-want +got):\n%s", d)
	}
}

func mustUnix(s int64) time.Time { return time.Unix(s, 0).UTC() }

// TestMarketingStoppedSendSaysSo: a send Meta refuses with 131050 (the user
// stopped marketing messages) is a permanent failure that says so; other
// refusals do not.
func TestMarketingStoppedSendSaysSo(t *testing.T) {
	t.Parallel()
	for code, want := range map[int]bool{131050: true, 131049: false, 131026: false} {
		fake, client := newFake(t)
		fake.Inject(fakemeta.Fault{HTTP: 400, Code: code, Title: "refused"})
		_, err := client.Send(context.Background(), porttest.SenderMessage())
		var se *ports.SendError
		if !errors.As(err, &se) || se.Class != ports.ClassPermanent || se.Code != code || se.MarketingStopped != want {
			t.Errorf("%d: %v (marketing stopped %v), want permanent with marketing stopped %v", code, err, se, want)
		}
	}
}
