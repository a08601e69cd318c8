package whatsapp_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/heraldhq/herald/adapters/whatsapp"
	"github.com/heraldhq/herald/domain"
	"github.com/heraldhq/herald/ports"
	"github.com/heraldhq/herald/test/fakemeta"
)

const (
	waba    = "102290129340398"
	phoneID = "106540352242922"
	user    = "16505551234"
	msgID   = domain.MessageID("msg_01m80000000000000000000001")
)

var (
	at      = time.Date(2025, 6, 16, 0, 27, 53, 0, time.UTC)
	later   = at.Add(time.Minute)
	batchOp = cmp.AllowUnexported(domain.MessageStatus{}, domain.TemplateStatus{})
)

// status builds one status update of wamid.S at the test's time.
func status(s string, u fakemeta.StatusUpdate) fakemeta.StatusUpdate {
	u.Status, u.RecipientID, u.At = s, user, at
	if u.WAMID == "" {
		u.WAMID = "wamid.S"
	}
	return u
}

// inbound builds one message from user at the test's time.
func inbound(typ string, m fakemeta.Inbound) fakemeta.Inbound {
	m.Type, m.At = typ, at
	if m.From == "" {
		m.From, m.ProfileName = user, "Sheena Nelson"
	}
	return m
}

// in is the event inbound(…) decodes to.
func in(m domain.InboundMessage) ports.InboundEvent {
	m.At = at
	return ports.InboundEvent{From: user, WaID: user, ProfileName: "Sheena Nelson", Message: m}
}

func templateStatus(t *testing.T, s string) domain.TemplateStatus {
	t.Helper()
	st, err := domain.ParseTemplateStatus(s)
	if err != nil {
		t.Fatal(err)
	}
	return st
}

var marketing = &domain.Pricing{Model: "PMP", Type: "regular", Category: "marketing", Billable: true}

// TestDecode decodes bodies built as Meta sends them. Each body is also
// checked against Meta's OpenAPI document, except where spec is false:
// the document has no "played" status and no status outside its enum of
// sent, delivered, read and failed; no schema for an errors-only value
// (system-level errors); no message_template_status_update field; no
// change fields beyond messages and groups; no type for a message it has
// no schema for; error codes only as integers; and it allows context on a
// text only for product enquiries. Inbound messages are checked with
// CheckWebhook, which works around the document's inbound schemas (see
// its comment).
func TestDecode(t *testing.T) {
	t.Parallel()
	spec := fakemeta.LoadSpec(t)
	statuses := func(u ...fakemeta.StatusUpdate) []byte { return fakemeta.StatusPayload(waba, phoneID, u...) }
	messages := func(m ...fakemeta.Inbound) []byte { return fakemeta.InboundPayload(waba, phoneID, m...) }
	template := func(event, reason string) []byte {
		return fakemeta.TemplateStatusPayload(waba, "order_confirmation", "en_US", event, reason, later)
	}
	doc := func(s string) ports.InboundEvent {
		return in(domain.InboundMessage{ProviderID: "wamid.D", Kind: domain.KindDocument, Text: s,
			Media: &domain.Attachment{ID: "42", MimeType: "application/pdf", SHA256: fakemeta.MediaSHA256("42"), Filename: "receipt.pdf"}})
	}

	bsuid, parent := "BR.1502576394655843", "BR.ENT.11815799212886844830"
	for _, c := range []struct {
		name string
		body []byte
		spec bool
		raw  bool // want names its business number and recipients itself
		want ports.WebhookBatch
	}{
		{
			name: "sent with pricing and our message id",
			body: statuses(status("sent", fakemeta.StatusUpdate{BizOpaque: string(msgID), Pricing: true})),
			spec: true,
			want: ports.WebhookBatch{Statuses: []ports.StatusEvent{
				{MessageID: msgID, ProviderID: "wamid.S", Status: domain.StatusSent, At: at, Pricing: marketing},
			}},
		},
		{
			name: "delivered and read; callback data that is not our id is ignored",
			body: statuses(
				status("delivered", fakemeta.StatusUpdate{BizOpaque: "cmp_42:rcp_9001"}),
				status("read", fakemeta.StatusUpdate{BizOpaque: string(msgID), Pricing: true, PricingCategory: "utility"})),
			spec: true,
			want: ports.WebhookBatch{Statuses: []ports.StatusEvent{
				{ProviderID: "wamid.S", Status: domain.StatusDelivered, At: at},
				{MessageID: msgID, ProviderID: "wamid.S", Status: domain.StatusRead, At: at,
					Pricing: &domain.Pricing{Model: "PMP", Type: "regular", Category: "utility", Billable: true}},
			}},
		},
		{
			name: "failed with errors and pricing",
			body: statuses(status("failed", fakemeta.StatusUpdate{BizOpaque: string(msgID), Pricing: true, ErrorCode: 131049})),
			spec: true,
			want: ports.WebhookBatch{Statuses: []ports.StatusEvent{
				{MessageID: msgID, ProviderID: "wamid.S", Status: domain.StatusFailed, At: at, Pricing: marketing,
					Failure: &domain.Failure{Code: 131049, Title: "This message was not delivered to maintain healthy ecosystem engagement."}},
			}},
		},
		{
			name: "failed with a string code and no title",
			body: []byte(`{"object":"whatsapp_business_account","entry":[{"id":"` + waba + `","changes":[{"field":"messages","value":{` +
				`"messaging_product":"whatsapp","metadata":{"display_phone_number":"15550783881","phone_number_id":"` + phoneID + `"},` +
				`"statuses":[{"id":"wamid.S","status":"failed","timestamp":"1750033673","recipient_id":"` + user + `",` +
				`"errors":[{"code":"131056","message":"(Business Account, Consumer Account) pair rate limit hit"}]}]}}]}]}`),
			want: ports.WebhookBatch{Statuses: []ports.StatusEvent{
				{ProviderID: "wamid.S", Status: domain.StatusFailed, At: at,
					Failure: &domain.Failure{Code: 131056, Title: "(Business Account, Consumer Account) pair rate limit hit"}},
			}},
		},
		{
			name: "played is read; an unknown status is skipped",
			body: statuses(status("played", fakemeta.StatusUpdate{}), status("deleted", fakemeta.StatusUpdate{WAMID: "wamid.T"})),
			want: ports.WebhookBatch{
				Statuses: []ports.StatusEvent{{ProviderID: "wamid.S", Status: domain.StatusRead, At: at}},
				Skipped:  []string{`entry 0 change 0 status 1: status "deleted" is not tracked`},
			},
		},
		{
			name: "batched entries and changes, in payload order",
			body: fakemeta.Batch(
				fakemeta.BatchChanges(
					statuses(status("sent", fakemeta.StatusUpdate{WAMID: "wamid.1"}), status("sent", fakemeta.StatusUpdate{WAMID: "wamid.2"})),
					messages(inbound("text", fakemeta.Inbound{WAMID: "wamid.M", Text: "hi"}))),
				statuses(status("delivered", fakemeta.StatusUpdate{WAMID: "wamid.1"}))),
			spec: true,
			want: ports.WebhookBatch{
				Statuses: []ports.StatusEvent{
					{ProviderID: "wamid.1", Status: domain.StatusSent, At: at},
					{ProviderID: "wamid.2", Status: domain.StatusSent, At: at},
					{ProviderID: "wamid.1", Status: domain.StatusDelivered, At: at},
				},
				Inbound: []ports.InboundEvent{in(domain.InboundMessage{ProviderID: "wamid.M", Kind: domain.KindText, Text: "hi"})},
			},
		},
		{
			name: "text, with non-ASCII escaped as Meta does",
			body: messages(inbound("text", fakemeta.Inbound{WAMID: "wamid.T", Text: "Tem em azul? é😀"})),
			spec: true,
			want: ports.WebhookBatch{Inbound: []ports.InboundEvent{
				in(domain.InboundMessage{ProviderID: "wamid.T", Kind: domain.KindText, Text: "Tem em azul? é😀"}),
			}},
		},
		{
			name: "text quoting our message",
			body: messages(inbound("text", fakemeta.Inbound{WAMID: "wamid.T", Text: "this one", ReplyTo: "wamid.OURS"})),
			want: ports.WebhookBatch{Inbound: []ports.InboundEvent{
				in(domain.InboundMessage{ProviderID: "wamid.T", Kind: domain.KindText, Text: "this one", ReplyTo: "wamid.OURS"}),
			}},
		},
		{
			name: "image, video, audio, sticker and document",
			body: messages(
				inbound("image", fakemeta.Inbound{WAMID: "wamid.I", MediaID: "1003383421387256", Caption: "Taj Mahal"}),
				inbound("video", fakemeta.Inbound{WAMID: "wamid.V", MediaID: "7", MimeType: "video/3gpp"}),
				inbound("audio", fakemeta.Inbound{WAMID: "wamid.A", MediaID: "8"}),
				inbound("sticker", fakemeta.Inbound{WAMID: "wamid.K", MediaID: "9"}),
				inbound("document", fakemeta.Inbound{WAMID: "wamid.D", MediaID: "42", Caption: "my receipt", Filename: "receipt.pdf"})),
			spec: true,
			want: ports.WebhookBatch{Inbound: []ports.InboundEvent{
				in(domain.InboundMessage{ProviderID: "wamid.I", Kind: domain.KindImage, Text: "Taj Mahal",
					Media: &domain.Attachment{ID: "1003383421387256", MimeType: "image/jpeg", SHA256: fakemeta.MediaSHA256("1003383421387256")}}),
				in(domain.InboundMessage{ProviderID: "wamid.V", Kind: domain.KindVideo,
					Media: &domain.Attachment{ID: "7", MimeType: "video/3gpp", SHA256: fakemeta.MediaSHA256("7")}}),
				in(domain.InboundMessage{ProviderID: "wamid.A", Kind: domain.KindAudio,
					Media: &domain.Attachment{ID: "8", MimeType: "audio/ogg; codecs=opus", SHA256: fakemeta.MediaSHA256("8")}}),
				in(domain.InboundMessage{ProviderID: "wamid.K", Kind: domain.KindSticker,
					Media: &domain.Attachment{ID: "9", MimeType: "image/webp", SHA256: fakemeta.MediaSHA256("9")}}),
				doc("my receipt"),
			}},
		},
		{
			name: "template quick reply with context",
			body: messages(inbound("button", fakemeta.Inbound{WAMID: "wamid.B", Text: "Stop promotions", Payload: "STOP_PROMO", ReplyTo: "wamid.TEMPLATE"})),
			spec: true,
			want: ports.WebhookBatch{Inbound: []ports.InboundEvent{
				in(domain.InboundMessage{ProviderID: "wamid.B", Kind: domain.KindButton, Text: "Stop promotions", Payload: "STOP_PROMO", ReplyTo: "wamid.TEMPLATE"}),
			}},
		},
		{
			name: "interactive button and list replies",
			body: messages(
				inbound("button_reply", fakemeta.Inbound{WAMID: "wamid.E", Text: "Yes", Payload: "opt_yes", ReplyTo: "wamid.Q"}),
				inbound("list_reply", fakemeta.Inbound{WAMID: "wamid.L", Text: "Priority Mail Express", Payload: "priority_express",
					Description: "Next Day to 2 Days", ReplyTo: "wamid.Q"})),
			spec: true,
			want: ports.WebhookBatch{Inbound: []ports.InboundEvent{
				in(domain.InboundMessage{ProviderID: "wamid.E", Kind: domain.KindInteractive, Text: "Yes", Payload: "opt_yes", ReplyTo: "wamid.Q"}),
				in(domain.InboundMessage{ProviderID: "wamid.L", Kind: domain.KindInteractive, Text: "Priority Mail Express",
					Payload: "priority_express", ReplyTo: "wamid.Q"}),
			}},
		},
		{
			name: "reaction, location and shared contacts",
			body: messages(
				inbound("reaction", fakemeta.Inbound{WAMID: "wamid.R", Text: "👍", ReplyTo: "wamid.OURS"}),
				inbound("location", fakemeta.Inbound{WAMID: "wamid.P", Text: "Philz Coffee", Caption: "101 Forest Ave, Palo Alto, CA 94301"}),
				inbound("contacts", fakemeta.Inbound{WAMID: "wamid.C", Text: "Lucía Gómez"})),
			spec: true,
			want: ports.WebhookBatch{Inbound: []ports.InboundEvent{
				in(domain.InboundMessage{ProviderID: "wamid.R", Kind: "reaction", Text: "👍", ReplyTo: "wamid.OURS"}),
				in(domain.InboundMessage{ProviderID: "wamid.P", Kind: "location", Text: "Philz Coffee\n101 Forest Ave, Palo Alto, CA 94301"}),
				in(domain.InboundMessage{ProviderID: "wamid.C", Kind: "contacts", Text: "Lucía Gómez"}),
			}},
		},
		{
			name: "unsupported",
			body: messages(inbound("unsupported", fakemeta.Inbound{WAMID: "wamid.U"})),
			spec: true,
			want: ports.WebhookBatch{Inbound: []ports.InboundEvent{
				in(domain.InboundMessage{ProviderID: "wamid.U", Kind: domain.KindUnsupported,
					Failure: &domain.Failure{Code: 131051, Title: "Message type unknown"}}),
			}},
		},
		{
			name: "a change of number without the new number is skipped",
			body: messages(inbound("system", fakemeta.Inbound{WAMID: "wamid.Y"})),
			spec: true,
			want: ports.WebhookBatch{Skipped: []string{
				"entry 0 change 0 message 0: system notice user_changed_number gives no new wa_id or user_id",
			}},
		},
		{
			name: "a user changed their number",
			body: messages(inbound("system", fakemeta.Inbound{WAMID: "wamid.Y", NewWaID: "12195555358"})),
			spec: true,
			want: ports.WebhookBatch{IdentityChanges: []ports.IdentityChangeEvent{{Kind: ports.UserChangedNumber,
				Old: domain.WhatsAppUser{WaID: user}, New: domain.WhatsAppUser{WaID: "12195555358"}, ProviderID: "wamid.Y", At: at}}},
		},
		{
			name: "a user changed their number and user id",
			body: messages(fakemeta.Inbound{Type: "system", From: "5511988887777", UserID: bsuid, WAMID: "wamid.Y",
				NewWaID: "5511977776666", NewUserID: "BR.99", At: at}),
			want: ports.WebhookBatch{IdentityChanges: []ports.IdentityChangeEvent{{Kind: ports.UserChangedNumber,
				Old: domain.WhatsAppUser{WaID: "5511988887777", UserID: bsuid},
				New: domain.WhatsAppUser{WaID: "5511977776666", UserID: "BR.99"}, ProviderID: "wamid.Y", At: at}}},
		},
		{
			name: "a user known only by user id changed it",
			body: messages(fakemeta.Inbound{Type: "system", SystemType: "user_changed_user_id", UserID: bsuid,
				WAMID: "wamid.Y", NewUserID: "BR.99", At: at}),
			want: ports.WebhookBatch{IdentityChanges: []ports.IdentityChangeEvent{{Kind: ports.UserChangedUserID,
				Old: domain.WhatsAppUser{UserID: bsuid}, New: domain.WhatsAppUser{UserID: "BR.99"}, ProviderID: "wamid.Y", At: at}}},
		},
		{
			name: "another system notice is skipped",
			body: []byte(`{"object":"whatsapp_business_account","entry":[{"id":"` + waba + `","changes":[{"field":"messages","value":{` +
				`"messaging_product":"whatsapp","metadata":{"display_phone_number":"15550783881","phone_number_id":"` + phoneID + `"},` +
				`"messages":[{"from":"` + user + `","id":"wamid.Y","timestamp":"1750033673","type":"system",` +
				`"system":{"body":"Security code changed","type":"customer_identity_changed"}}]}}]}]}`),
			want: ports.WebhookBatch{Skipped: []string{
				"entry 0 change 0 message 0: system notice customer_identity_changed is not acted on",
			}},
		},
		{
			name: "a sender with a user id, its parent and a username",
			body: messages(fakemeta.Inbound{From: "5511988887777", UserID: bsuid, ParentUserID: parent, Username: "ana.silva",
				ProfileName: "Ana", WAMID: "wamid.1", Type: "text", Text: "oi", At: at}),
			want: ports.WebhookBatch{Inbound: []ports.InboundEvent{{From: "5511988887777", WaID: "5511988887777",
				ProfileName: "Ana", UserID: bsuid, ParentUserID: parent, Username: "ana.silva",
				Message: domain.InboundMessage{ProviderID: "wamid.1", Kind: domain.KindText, Text: "oi", At: at}}}},
		},
		{
			name: "a username user without a number is kept",
			body: messages(fakemeta.Inbound{UserID: bsuid, Username: "ana.silva", ProfileName: "Ana", WAMID: "wamid.1",
				Type: "text", Text: "STOP", At: at}),
			want: ports.WebhookBatch{Inbound: []ports.InboundEvent{{ProfileName: "Ana", UserID: bsuid, Username: "ana.silva",
				Message: domain.InboundMessage{ProviderID: "wamid.1", Kind: domain.KindText, Text: "STOP", At: at}}}},
		},
		{
			name: "statuses with the recipient's user id, and a username once delivered",
			body: statuses(
				status("sent", fakemeta.StatusUpdate{RecipientUserID: bsuid, Username: "ana.silva"}),
				status("delivered", fakemeta.StatusUpdate{RecipientUserID: bsuid, Username: "ana.silva"})),
			want: ports.WebhookBatch{Statuses: []ports.StatusEvent{
				{ProviderID: "wamid.S", Status: domain.StatusSent, At: at, Recipient: domain.WhatsAppUser{WaID: user, UserID: bsuid}},
				{ProviderID: "wamid.S", Status: domain.StatusDelivered, At: at,
					Recipient: domain.WhatsAppUser{WaID: user, UserID: bsuid}},
			}},
		},
		{
			name: "a status of a send to a user id, with the parent under either name",
			body: []byte(`{"object":"whatsapp_business_account","entry":[{"id":"` + waba + `","changes":[{"field":"messages","value":{` +
				`"messaging_product":"whatsapp","metadata":{"display_phone_number":"15550783881","phone_number_id":"` + phoneID + `"},` +
				`"contacts":[{"profile":{"name":"Ana","username":"ana.silva"},"user_id":"` + bsuid + `"}],` +
				`"statuses":[{"id":"wamid.S","status":"read","timestamp":"1750033673","recipient_user_id":"` + bsuid + `",` +
				`"recipient_parent_user_id":"` + parent + `"},` +
				`{"id":"wamid.T","status":"read","timestamp":"1750033673","recipient_user_id":"` + bsuid + `",` +
				`"parent_recipient_user_id":"` + parent + `"}]}}]}]}`),
			raw: true,
			want: ports.WebhookBatch{Statuses: []ports.StatusEvent{
				{ProviderID: "wamid.S", Status: domain.StatusRead, At: at, Number: phoneID,
					Recipient: domain.WhatsAppUser{UserID: bsuid, ParentUserID: parent, Username: "ana.silva"}},
				{ProviderID: "wamid.T", Status: domain.StatusRead, At: at, Number: phoneID,
					Recipient: domain.WhatsAppUser{UserID: bsuid, ParentUserID: parent, Username: "ana.silva"}},
			}},
		},
		{
			name: "a Mexican sender is decoded as Meta writes them",
			body: messages(fakemeta.Inbound{From: "5215512345678", ProfileName: "Lu", WAMID: "wamid.1", Type: "text", Text: "STOP", At: at}),
			spec: true,
			want: ports.WebhookBatch{Inbound: []ports.InboundEvent{{From: "5215512345678", WaID: "5215512345678", ProfileName: "Lu",
				Message: domain.InboundMessage{ProviderID: "wamid.1", Kind: domain.KindText, Text: "STOP", At: at}}}},
		},
		{
			name: "a type Herald does not know is kept under its name",
			body: messages(inbound("poll", fakemeta.Inbound{WAMID: "wamid.N"})),
			want: ports.WebhookBatch{Inbound: []ports.InboundEvent{
				in(domain.InboundMessage{ProviderID: "wamid.N", Kind: "poll"}),
			}},
		},
		{
			name: "contacts matched by wa_id, or the only one when wa_id is not from",
			body: fakemeta.BatchChanges(
				messages(
					fakemeta.Inbound{From: "5511988887777", ProfileName: "Ana", WAMID: "wamid.1", Type: "text", Text: "oi", At: at},
					fakemeta.Inbound{From: "5511977776666", ProfileName: "Bia", WAMID: "wamid.2", Type: "text", Text: "olá", At: at}),
				messages(fakemeta.Inbound{From: "551188887777", WaID: "5511988887777", ProfileName: "Ana", WAMID: "wamid.3", Type: "text", Text: "9", At: at})),
			spec: true,
			want: ports.WebhookBatch{Inbound: []ports.InboundEvent{
				{From: "5511988887777", WaID: "5511988887777", ProfileName: "Ana",
					Message: domain.InboundMessage{ProviderID: "wamid.1", Kind: domain.KindText, Text: "oi", At: at}},
				{From: "5511977776666", WaID: "5511977776666", ProfileName: "Bia",
					Message: domain.InboundMessage{ProviderID: "wamid.2", Kind: domain.KindText, Text: "olá", At: at}},
				{From: "551188887777", WaID: "5511988887777", ProfileName: "Ana",
					Message: domain.InboundMessage{ProviderID: "wamid.3", Kind: domain.KindText, Text: "9", At: at}},
			}},
		},
		{
			name: "system-level errors",
			body: fakemeta.ErrorsPayload(waba, phoneID, 130429, "Rate limit hit"),
			want: ports.WebhookBatch{Errors: []domain.Failure{{Code: 130429, Title: "Rate limit hit"}}},
		},
		{
			name: "template paused, reinstated, flagged, pending deletion",
			body: fakemeta.Batch(template("PAUSED", "NONE"), template("REINSTATED", "NONE"), template("FLAGGED", "NONE"),
				template("PENDING_DELETION", "")),
			want: ports.WebhookBatch{
				Templates: []ports.TemplateStatusEvent{
					{Account: waba, Name: "order_confirmation", Language: "en_US", Status: domain.TemplatePaused, Event: "PAUSED", Reason: "NONE", At: later},
					{Account: waba, Name: "order_confirmation", Language: "en_US", Status: domain.TemplateApproved, Event: "REINSTATED", Reason: "NONE", At: later},
					{Account: waba, Name: "order_confirmation", Language: "en_US", Status: templateStatus(t, "PENDING_DELETION"), Event: "PENDING_DELETION", At: later},
				},
				Skipped: []string{"entry 2 change 0: template event FLAGGED leaves the template sendable"},
			},
		},
		{
			name: "unknown field",
			body: []byte(`{"object":"whatsapp_business_account","entry":[{"id":"` + waba + `","time":1750033673,"changes":[` +
				`{"field":"security","value":{"event":"VERIFIED_ACCOUNT"}}]}]}`),
			want: ports.WebhookBatch{Skipped: []string{`entry 0 change 0: field "security" is not handled`}},
		},
		{
			name: "unreadable parts are skipped, the rest kept",
			raw:  true,
			body: []byte(`{"object":"whatsapp_business_account","entry":["x",{"id":"1","changes":[7,` +
				`{"field":"messages","value":[]},` +
				`{"field":"messages","value":{"statuses":[{"id":5},{"status":"sent","timestamp":"x"},{"id":"wamid.S","status":"sent"}],` +
				`"messages":[{"from":"1","type":"text","text":{"body":"no id"}},{"id":"wamid.Z","type":"text"},` +
				`{"from":"1","id":"wamid.W","timestamp":"1750033673","type":"image","image":"not an object"}],` +
				`"errors":[{"code":1.5,"title":"odd"},"not an error"]}}]}]}`),
			want: ports.WebhookBatch{
				Statuses: []ports.StatusEvent{{ProviderID: "wamid.S", Status: domain.StatusSent}},
				Inbound: []ports.InboundEvent{{From: "1",
					Message: domain.InboundMessage{ProviderID: "wamid.W", Kind: domain.KindImage, At: at}}},
				Errors: []domain.Failure{{Title: "odd"}},
				Skipped: []string{
					"entry 0: unreadable entry: json: cannot unmarshal string into Go value of type whatsapp.webhookEntry",
					"entry 1 change 0: unreadable change: json: cannot unmarshal number into Go value of type whatsapp.webhookChange",
					"entry 1 change 1: unreadable value: json: cannot unmarshal array into Go value of type whatsapp.messagesValue",
					"entry 1 change 2 status 0: unreadable status: json: cannot unmarshal number into Go struct field statusItem.id of type string",
					"entry 1 change 2 status 1: status sent has neither a wamid nor our message id",
					`entry 1 change 2 message 0: message of type "text" has no id`,
					`entry 1 change 2 message 1: message of type "text" has no sender`,
					"entry 1 change 2 message 2: unreadable image content, message kept without it: " +
						"json: cannot unmarshal string into Go struct field messageBody.image of type whatsapp.media",
					"entry 1 change 2 error 1: unreadable error",
				},
			},
		},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			if c.spec {
				if err := spec.CheckWebhook(c.body); err != nil {
					t.Errorf("not what Meta sends: %v", err)
				}
			}
			got, err := whatsapp.NewWebhooks(whatsapp.WebhookConfig{}).Decode(c.body)
			if err != nil {
				t.Fatal(err)
			}
			want := c.want
			if !c.raw {
				want = fromTheBuilders(want)
			}
			if d := cmp.Diff(want, got, batchOp, ignoreJSONErrorText); d != "" {
				t.Errorf("decoded (-want +got):\n%s", d)
			}
		})
	}
}

// fromTheBuilders completes what a body the fake's builders wrote decodes
// to: every item is for the business number phoneID, and a status's
// recipient is user unless the case says otherwise.
func fromTheBuilders(b ports.WebhookBatch) ports.WebhookBatch {
	b.Statuses, b.Inbound = slices.Clone(b.Statuses), slices.Clone(b.Inbound)
	b.IdentityChanges = slices.Clone(b.IdentityChanges)
	for i := range b.Statuses {
		b.Statuses[i].Number = phoneID
		if b.Statuses[i].Recipient.IsZero() {
			b.Statuses[i].Recipient.WaID = user
		}
	}
	for i := range b.Inbound {
		b.Inbound[i].Number = phoneID
	}
	for i := range b.IdentityChanges {
		b.IdentityChanges[i].Number = phoneID
	}
	return b
}

// ignoreJSONErrorText compares Skipped lines up to the encoding/json error
// they quote, whose wording changes between Go versions.
var ignoreJSONErrorText = cmp.Transformer("cutJSONError", func(s string) string {
	before, _, _ := strings.Cut(s, ": json: ")
	return before
})

func TestDecodeRejectsWhatIsNotAWebhook(t *testing.T) {
	t.Parallel()
	w := whatsapp.NewWebhooks(whatsapp.WebhookConfig{})
	for _, body := range []string{``, `not json`, `[]`, `null`, `{"object":"page","entry":[]}`, `{"entry":[]}`, `{"object":"whatsapp_business_account","entry":{}}`} {
		if _, err := w.Decode([]byte(body)); !errors.Is(err, whatsapp.ErrNotWebhookPayload) {
			t.Errorf("%q: err = %v", body, err)
		}
	}
	if got, err := w.Decode([]byte(`{"object":"whatsapp_business_account","entry":[]}`)); err != nil || !cmp.Equal(got, ports.WebhookBatch{}, batchOp) {
		t.Errorf("empty payload: %+v, %v", got, err)
	}
}

// TestStatusesFromTheFakeDecode sends with the Cloud API client and decodes
// the status webhooks the fake emits for the send: our message id comes
// back from biz_opaque_callback_data, signed with the current one of two
// secrets.
func TestStatusesFromTheFakeDecode(t *testing.T) {
	t.Parallel()
	hooks := whatsapp.NewWebhooks(whatsapp.WebhookConfig{AppSecrets: []string{"old", "new"}})
	var mu sync.Mutex
	var got []ports.StatusEvent
	receiver := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		if err := hooks.VerifySignature(body, r.Header.Get("X-Hub-Signature-256")); err != nil {
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		b, err := hooks.Decode(body)
		if err != nil {
			w.WriteHeader(http.StatusBadRequest)
			return
		}
		mu.Lock()
		got = append(got, b.Statuses...)
		mu.Unlock()
	}))
	defer receiver.Close()
	fake := fakemeta.New(t)
	fake.AddTemplate(fakemeta.Template{Name: "welcome", Language: "en_US", Status: "APPROVED", BodyParams: 1, Category: "MARKETING"})
	fake.WebhookURL, fake.AppSecret = receiver.URL, "new"
	fake.WebhookStatuses = []string{"delivered", "sent", "failed:131050"}
	c := whatsapp.New(whatsapp.Config{APIURL: fake.URL, AccessToken: fake.Token, PhoneNumberID: fake.PhoneNumberID, Timeout: 5 * time.Second})
	res, err := c.Send(context.Background(), ports.OutboundMessage{ID: msgID, To: domain.MustPhoneNumber("+5511988887777"),
		TemplateName: "welcome", Language: "en_US", Variables: []string{"Ana"}})
	if err != nil {
		t.Fatal(err)
	}
	fake.WaitWebhooks()
	mu.Lock()
	defer mu.Unlock()
	if len(got) != 3 {
		t.Fatalf("decoded %d statuses, want 3: %+v", len(got), got)
	}
	sent := got[1].At
	recipient := domain.WhatsAppUser{WaID: "5511988887777"}
	want := []ports.StatusEvent{
		{MessageID: msgID, ProviderID: res.ProviderID, Status: domain.StatusDelivered, At: sent.Add(time.Second),
			Number: fake.PhoneNumberID, Recipient: recipient},
		{MessageID: msgID, ProviderID: res.ProviderID, Status: domain.StatusSent, At: sent,
			Pricing: &domain.Pricing{Model: "PMP", Type: "regular", Category: "marketing", Billable: true},
			Number:  fake.PhoneNumberID, Recipient: recipient},
		{MessageID: msgID, ProviderID: res.ProviderID, Status: domain.StatusFailed, At: sent.Add(time.Second),
			Failure:          &domain.Failure{Code: 131050, Title: "Unable to deliver the message. This recipient has chosen to stop receiving marketing messages on WhatsApp from your business."},
			MarketingStopped: true, Number: fake.PhoneNumberID, Recipient: recipient},
	}
	if d := cmp.Diff(want, got, batchOp); d != "" {
		t.Errorf("statuses (-want +got):\n%s", d)
	}
}

// Only the configured business numbers are Herald's; with none configured,
// none is.
func TestIsOurs(t *testing.T) {
	t.Parallel()
	w := whatsapp.NewWebhooks(whatsapp.WebhookConfig{PhoneNumberIDs: []string{phoneID, ""}})
	for id, want := range map[string]bool{phoneID: true, "106540352242923": false, "": false} {
		if got := w.IsOurs(id); got != want {
			t.Errorf("IsOurs(%q) = %v, want %v", id, got, want)
		}
	}
	if none := whatsapp.NewWebhooks(whatsapp.WebhookConfig{}); none.IsOurs(phoneID) || none.IsOurs("") {
		t.Error("a server without a configured number calls a number its own")
	}
}
