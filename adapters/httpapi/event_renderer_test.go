package httpapi_test

import (
	"bytes"
	"crypto/rand"
	"encoding/json"
	"testing"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/heraldhq/herald/adapters/httpapi"
	"github.com/heraldhq/herald/domain"
	"github.com/heraldhq/herald/ports"
	"github.com/heraldhq/herald/ports/porttest"
)

// TestEventDataMatchesTheDocument renders each event type's data from
// domain values, makes the event's body as the app does, and validates the
// body against components/schemas/EventBody and the data against its type's
// schema; text is written as it is, without HTML escaping.
func TestEventDataMatchesTheDocument(t *testing.T) {
	t.Parallel()
	o, err := spec()
	if err != nil {
		t.Fatal(err)
	}
	r := httpapi.NewEventRenderer()
	ws := domain.WorkspaceID(porttest.NewID(domain.PrefixWorkspace))
	camp := porttest.NewCampaign(t, ws)
	contact := porttest.NewContact(t, ws)
	contact.Name = "Ana & Bea <ops>"
	m := porttest.NewMessage(t, camp, contact)
	at := porttest.Now()
	m.Advance(domain.StatusSent, at, nil)
	m.Advance(domain.StatusFailed, at.Add(time.Second), &domain.Failure{Code: 131026, Title: "Message undeliverable"})
	m.ProviderID = "wamid.X"
	entry := domain.InboundEntry(domain.EntryID(porttest.NewID(domain.PrefixEntry)), contact,
		domain.InboundMessage{ProviderID: "wamid.IN", Kind: domain.KindText, Text: "STOP", At: at}, "")
	key, err := domain.NewWebhookSecretKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	ep, err := domain.NewWebhookEndpoint(domain.WebhookEndpointID(porttest.NewID(domain.PrefixWebhookEndpoint)), ws, domain.ModeTest,
		domain.EndpointSpec{URL: "https://hooks.example.com/herald", Events: domain.AllEvents(), Description: "orders"}, key,
		domain.WebhookPolicy{}, at)
	if err != nil {
		t.Fatal(err)
	}
	paused := camp
	if err := paused.Pause(at); err != nil {
		t.Fatal(err)
	}
	redPaused := camp
	if err := redPaused.Activate(at); err != nil {
		t.Fatal(err)
	}
	redPaused.PauseFor(domain.PausedQualityRed, at)
	number := porttest.NewNumber(t, ws)
	render := func(b []byte, err error) []byte {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	cases := []struct {
		typ    domain.EventType
		schema string
		data   []byte
	}{
		{domain.EventMessageFailed, "MessageEventData", render(r.RenderMessage(m))},
		{domain.EventMessageReceived, "MessageReceivedEventData", render(r.RenderInbound(entry, contact))},
		{domain.EventContactOptedOut, "ContactEventData", render(r.RenderContact(contact))},
		{domain.EventTemplateStatusChanged, "TemplateStatusEventData", render(r.RenderTemplateStatus(ports.TemplateStatusChange{
			Name: "welcome", Language: "en_US", Previous: domain.TemplateApproved, Status: domain.TemplatePaused,
			Reason: "LOW_QUALITY", Campaigns: []domain.CampaignID{camp.ID}, At: at}))},
		{domain.EventTemplateStatusChanged, "TemplateStatusEventData", render(r.RenderTemplateStatus(ports.TemplateStatusChange{
			Name: "welcome", Language: "en_US", Status: domain.TemplateApproved, At: at}))},
		{domain.EventCampaignStatusChanged, "CampaignStatusEventData", render(r.RenderCampaignStatus(paused, domain.CampaignActive))},
		{domain.EventCampaignStatusChanged, "CampaignStatusEventData", render(r.RenderCampaignStatus(redPaused, domain.CampaignActive))},
		{domain.EventPhoneNumberQualityChanged, "PhoneNumberQualityEventData", render(r.RenderNumberQuality(number,
			domain.HealthChange{Number: number.MetaID, Quality: domain.QualityRed, PreviousQuality: domain.QualityGreen,
				Tier: domain.Tier2K, Source: domain.HealthFromWebhook, Event: "FLAGGED", At: at}))},
		{domain.EventPhoneNumberQualityChanged, "PhoneNumberQualityEventData", render(r.RenderNumberQuality(number,
			domain.HealthChange{Number: number.MetaID, Quality: domain.QualityUnknown, Source: domain.HealthFromRead, At: at}))},
		{domain.EventWebhookTest, "WebhookTestEventData", render(r.RenderTest(ep))},
	}
	for _, c := range cases {
		t.Run(c.schema, func(t *testing.T) {
			ev, err := domain.NewEvent(domain.EventID(porttest.NewID(domain.PrefixEvent)), ws, domain.ModeTest, c.typ,
				"msg_subject", c.data, at)
			if err != nil {
				t.Fatal(err)
			}
			validate(t, o, ev.Body, "components", "schemas", "EventBody")
			validate(t, o, c.data, "components", "schemas", c.schema)
			if bytes.Contains(ev.Body, []byte(`\u0026`)) || bytes.Contains(ev.Body, []byte(`\u003c`)) {
				t.Errorf("body %s is HTML-escaped", ev.Body)
			}
		})
	}
	var msg struct {
		Mode, Status string
		Error        struct{ Code int }
	}
	if err := json.Unmarshal(cases[0].data, &msg); err != nil || msg.Mode != m.Mode.String() || msg.Status != "failed" ||
		msg.Error.Code != 131026 {
		t.Errorf("message data %s: want the failed message with its mode and Meta's code", cases[0].data)
	}
}

func validate(t *testing.T, o *openAPI, raw []byte, tokens ...string) {
	t.Helper()
	sch, err := o.compile(tokens...)
	if err != nil {
		t.Fatal(err)
	}
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	if err := sch.Validate(v); err != nil {
		t.Errorf("%s against %v: %v", raw, tokens, err)
	}
}
