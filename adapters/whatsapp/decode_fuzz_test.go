package whatsapp_test

import (
	"testing"
	"time"

	"github.com/heraldhq/herald/adapters/whatsapp"
	"github.com/heraldhq/herald/domain"
	"github.com/heraldhq/herald/test/fakemeta"
)

// FuzzDecodeWebhook feeds Decode arbitrary bodies: it must never panic,
// and whatever it returns must be usable as is.
func FuzzDecodeWebhook(f *testing.F) {
	at := time.Date(2025, 6, 16, 0, 27, 53, 0, time.UTC)
	for _, seed := range [][]byte{
		fakemeta.StatusPayload(waba, phoneID,
			fakemeta.StatusUpdate{WAMID: "wamid.A", Status: "sent", RecipientID: user, BizOpaque: string(msgID), At: at, Pricing: true},
			fakemeta.StatusUpdate{WAMID: "wamid.A", Status: "failed", RecipientID: user, At: at, ErrorCode: 131049}),
		fakemeta.InboundPayload(waba, phoneID,
			fakemeta.Inbound{From: user, ProfileName: "Zoë", WAMID: "wamid.B", Type: "button", Text: "Stop 😀", Payload: "STOP", ReplyTo: "wamid.T", At: at},
			fakemeta.Inbound{From: user, WAMID: "wamid.C", Type: "document", MediaID: "1", Caption: "c", Filename: "f.pdf", At: at},
			fakemeta.Inbound{From: user, WAMID: "wamid.D", Type: "list_reply", Text: "t", Payload: "p", ReplyTo: "wamid.T", At: at},
			fakemeta.Inbound{From: user, WAMID: "wamid.E", Type: "unsupported", At: at}),
		fakemeta.InboundPayload(waba, phoneID, fakemeta.Inbound{From: user, Type: "location", Text: "n", At: at}),
		fakemeta.TemplateStatusPayload(waba, "order_confirmation", "en_US", "PAUSED", "", at),
		fakemeta.ErrorsPayload(waba, phoneID, 130429, ""),
		[]byte(`{"object":"whatsapp_business_account","entry":[{"changes":[{"field":"messages","value":{"statuses":[{"id":"w","status":"read","timestamp":1e400,"errors":[{"code":"9999999999999"}]}]}}]}]}`),
		[]byte(`{"object":"whatsapp_business_account","entry":[null,{"changes":[null,{"field":"messages","value":null}]}]}`),
	} {
		f.Add(seed)
	}
	w := whatsapp.NewWebhooks(whatsapp.WebhookConfig{AppSecrets: []string{"s"}})
	f.Fuzz(func(t *testing.T, body []byte) {
		b, err := w.Decode(body)
		if err != nil {
			return
		}
		for _, s := range b.Statuses {
			if s.Status.IsZero() || (s.ProviderID == "" && s.MessageID == "") {
				t.Errorf("status event %+v", s)
			}
			if !s.At.IsZero() && (s.At.Location() != time.UTC || s.At.Year() > 9999) {
				t.Errorf("status time %v", s.At)
			}
		}
		for _, e := range b.Inbound {
			if e.From == "" || e.Message.ProviderID == "" || e.Message.Kind == "" || len(e.Message.Kind) > 32 {
				t.Errorf("inbound event %+v", e)
			}
		}
		for _, e := range b.Templates {
			if e.Status.IsZero() || e.Name == "" || e.Language == "" {
				t.Errorf("template event %+v", e)
			}
			if _, err := domain.ParseTemplateStatus(e.Status.String()); err != nil {
				t.Errorf("template status %q", e.Status)
			}
		}
		w.VerifySignature(body, string(body)) // must not panic either
	})
}
