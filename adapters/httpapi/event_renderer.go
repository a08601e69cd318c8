package httpapi

import (
	"bytes"
	"encoding/json"

	"github.com/heraldhq/herald/app"
	"github.com/heraldhq/herald/domain"
	"github.com/heraldhq/herald/ports"
)

// EventRenderer renders the data of events in the API's own
// representations (decision 0020): a message event's data is the message
// exactly as GET /v1/messages/{id} shows it, a contact event's the contact
// as the contacts API shows it, and so on. The OpenAPI document describes
// each under components/schemas (Event, and one *EventData per type).
type EventRenderer struct{}

// NewEventRenderer returns the renderer.
func NewEventRenderer() *EventRenderer { return &EventRenderer{} }

// inboundEventDTO is the data of message.received.
type inboundEventDTO struct {
	Message entryDTO   `json:"message"`
	Contact contactDTO `json:"contact"`
}

// templateStatusEventDTO is the data of template.status_changed.
type templateStatusEventDTO struct {
	Name           string   `json:"name"`
	Language       string   `json:"language"`
	PreviousStatus *string  `json:"previousStatus"`
	Status         string   `json:"status"`
	Reason         *string  `json:"reason"`
	Campaigns      []string `json:"campaigns"`
	ChangedAt      string   `json:"changedAt"`
}

// campaignEventDTO is the data of campaign.status_changed: the campaign as
// GET /v1/campaigns/{id} shows it, without its statistics (they are not a
// status change's, and are read from the campaign), and its status before.
type campaignEventDTO struct {
	ID             string           `json:"id"`
	Name           string           `json:"name"`
	Status         string           `json:"status"`
	PreviousStatus string           `json:"previousStatus"`
	Template       templateDTO      `json:"template"`
	Placeholders   []placeholderDTO `json:"placeholders"`
	Slots          []slotDTO        `json:"slots"`
	VariableCount  int              `json:"variableCount"`
	HeaderFormat   string           `json:"headerFormat"`
	CreatedAt      string           `json:"createdAt"`
	UpdatedAt      string           `json:"updatedAt"`
	PausedReason   *string          `json:"pausedReason,omitempty"`
}

// testEventDTO is the data of webhook.test: the endpoint it was sent to.
type testEventDTO struct {
	Endpoint testEndpointDTO `json:"endpoint"`
}

type testEndpointDTO struct {
	ID          string   `json:"id"`
	URL         string   `json:"url"`
	Events      []string `json:"events"`
	Description string   `json:"description"`
}

// RenderMessage renders m as GET /v1/messages/{id} shows it (mode
// included).
func (EventRenderer) RenderMessage(m domain.Message) ([]byte, error) {
	return marshalEventData(toMessageDTO(m))
}

// RenderInbound renders an inbound thread entry and the contact who wrote
// it.
func (EventRenderer) RenderInbound(e domain.Entry, c domain.Contact) ([]byte, error) {
	return marshalEventData(inboundEventDTO{Message: toEntryDTO(e), Contact: toContactDTO(c)})
}

// RenderContact renders c as the contacts API shows it.
func (EventRenderer) RenderContact(c domain.Contact) ([]byte, error) {
	return marshalEventData(toContactDTO(c))
}

// RenderTemplateStatus renders a template's status change.
func (EventRenderer) RenderTemplateStatus(ch ports.TemplateStatusChange) ([]byte, error) {
	out := templateStatusEventDTO{Name: ch.Name, Language: ch.Language, Status: ch.Status.String(),
		Reason: nonEmpty(ch.Reason), Campaigns: make([]string, len(ch.Campaigns)), ChangedAt: rfc3339(ch.At)}
	if !ch.Previous.IsZero() {
		out.PreviousStatus = nonEmpty(ch.Previous.String())
	}
	for i, id := range ch.Campaigns {
		out.Campaigns[i] = string(id)
	}
	return marshalEventData(out)
}

// RenderCampaignStatus renders c and the status it had before.
func (EventRenderer) RenderCampaignStatus(c domain.Campaign, previous domain.CampaignStatus) ([]byte, error) {
	v := toCampaignDTO(app.CampaignView{Campaign: c})
	return marshalEventData(campaignEventDTO{ID: v.ID, Name: v.Name, Status: v.Status, PreviousStatus: previous.String(),
		Template: v.Template, Placeholders: v.Placeholders, Slots: v.Slots, VariableCount: v.VariableCount, HeaderFormat: v.HeaderFormat,
		CreatedAt: v.CreatedAt, UpdatedAt: v.UpdatedAt, PausedReason: v.PausedReason})
}

// RenderTest renders the endpoint a webhook.test event is sent to.
func (EventRenderer) RenderTest(e domain.WebhookEndpoint) ([]byte, error) {
	return marshalEventData(testEventDTO{Endpoint: testEndpointDTO{ID: string(e.ID), URL: e.URL,
		Events: e.Events.Names(), Description: e.Description}})
}

// marshalEventData encodes v compactly, without HTML escaping: receivers
// parse JSON, and the body is signed as written.
func marshalEventData(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

var _ ports.EventRenderer = (*EventRenderer)(nil)

// numberQualityEventDTO is the data of phone_number.quality_changed: the
// number, its quality and tier now and before, and where Herald learnt it.
type numberQualityEventDTO struct {
	ID                 string  `json:"id"`
	DisplayPhoneNumber string  `json:"displayPhoneNumber"`
	VerifiedName       string  `json:"verifiedName"`
	Quality            string  `json:"quality"`
	PreviousQuality    *string `json:"previousQuality"`
	Tier               *string `json:"tier"`
	PreviousTier       *string `json:"previousTier"`
	Source             string  `json:"source"`
	MetaEvent          *string `json:"metaEvent"`
	ChangedAt          string  `json:"changedAt"`
}

// RenderNumberQuality renders a number's change of quality.
func (EventRenderer) RenderNumberQuality(n domain.BusinessNumber, ch domain.HealthChange) ([]byte, error) {
	return marshalEventData(numberQualityEventDTO{ID: string(n.ID), DisplayPhoneNumber: n.DisplayNumber,
		VerifiedName: n.VerifiedName, Quality: string(ch.Quality), PreviousQuality: nonEmpty(string(ch.PreviousQuality)),
		Tier: nonEmpty(string(ch.Tier)), PreviousTier: nonEmpty(string(ch.PreviousTier)), Source: ch.Source.String(),
		MetaEvent: nonEmpty(ch.Event), ChangedAt: rfc3339(ch.At)})
}
