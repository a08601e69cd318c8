package domain_test

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/heraldhq/herald/domain"
)

var cmpEntry = cmp.Options{cmpStatus, cmp.AllowUnexported(domain.Direction{}, domain.KeyMode{})}

func TestInboundEntry(t *testing.T) {
	t.Parallel()
	contact := domain.NewContact("ctc_x", "cnv_x", "wsp_x", domain.ModeTest, domain.MustPhoneNumber("+14155552671"), t0)
	// written is 10:00:05.123456789 UTC, given in CET.
	written := time.Date(2026, 11, 22, 11, 0, 5, 123456789, time.FixedZone("CET", 3600))
	stored := time.Date(2026, 11, 22, 10, 0, 5, 123456000, time.UTC)
	photo := domain.Attachment{ID: "1234567890", MimeType: "image/jpeg", SHA256: "n2Zl3Q=="}
	pdf := domain.Attachment{ID: "987", MimeType: "application/pdf", SHA256: "AAAA", Filename: "invoice.pdf"}
	// inbound is the entry of a message from contact, with what changes:
	// live traffic, whatever the contact's mode.
	inbound := func(change func(e *domain.Entry)) domain.Entry {
		e := domain.Entry{ID: "ent_x", Workspace: "wsp_x", ContactID: "ctc_x", ConversationID: "cnv_x", Mode: domain.ModeLive,
			Direction: domain.Inbound, ProviderID: "wamid.IN1", CreatedAt: stored}
		change(&e)
		return e
	}
	cases := []struct {
		name    string
		msg     domain.InboundMessage
		replyTo domain.MessageID
		want    domain.Entry
	}{
		{
			name: "a text",
			msg:  domain.InboundMessage{ProviderID: "wamid.IN1", Kind: domain.KindText, Text: "Hola, ¿qué tal?", At: written},
			want: inbound(func(e *domain.Entry) { e.Kind, e.Body = domain.KindText, "Hola, ¿qué tal?" }),
		},
		{
			name: "a tapped template button answers our message",
			msg: domain.InboundMessage{ProviderID: "wamid.IN1", Kind: domain.KindButton, Text: "Stop promotions",
				Payload: "STOP_PROMO", ReplyTo: "wamid.OUT1", At: written},
			replyTo: "msg_x",
			want: inbound(func(e *domain.Entry) {
				e.Kind, e.Body, e.Payload, e.ReplyTo = domain.KindButton, "Stop promotions", "STOP_PROMO", "msg_x"
			}),
		},
		{
			name: "a reply to a message Herald did not send has no reply-to",
			msg: domain.InboundMessage{ProviderID: "wamid.IN1", Kind: domain.KindInteractive, Text: "Tell me more",
				Payload: "row-1", ReplyTo: "wamid.NOT-OURS", At: written},
			want: inbound(func(e *domain.Entry) { e.Kind, e.Body, e.Payload = domain.KindInteractive, "Tell me more", "row-1" }),
		},
		{
			name: "an image with a caption",
			msg:  domain.InboundMessage{ProviderID: "wamid.IN1", Kind: domain.KindImage, Text: "my receipt", Media: &photo, At: written},
			want: inbound(func(e *domain.Entry) { e.Kind, e.Body, e.Media = domain.KindImage, "my receipt", &photo }),
		},
		{
			name: "a document without a caption",
			msg:  domain.InboundMessage{ProviderID: "wamid.IN1", Kind: domain.KindDocument, Media: &pdf, At: written},
			want: inbound(func(e *domain.Entry) { e.Kind, e.Media = domain.KindDocument, &pdf }),
		},
		{
			name: "an unsupported message with no text shows why",
			msg: domain.InboundMessage{ProviderID: "wamid.IN1", Kind: domain.KindUnsupported, At: written,
				Failure: &domain.Failure{Code: 131051, Title: "Message type unknown"}},
			want: inbound(func(e *domain.Entry) { e.Kind, e.Body = domain.KindUnsupported, "Message type unknown" }),
		},
		{
			name: "a message with text and a failure keeps its text",
			msg: domain.InboundMessage{ProviderID: "wamid.IN1", Kind: domain.KindUnsupported, Text: "hi", At: written,
				Failure: &domain.Failure{Code: 131051, Title: "Message type unknown"}},
			want: inbound(func(e *domain.Entry) { e.Kind, e.Body = domain.KindUnsupported, "hi" }),
		},
		{
			name: "a type Herald does not know keeps its name",
			msg:  domain.InboundMessage{ProviderID: "wamid.IN1", Kind: "reaction", At: written},
			want: inbound(func(e *domain.Entry) { e.Kind = "reaction" }),
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			got := domain.InboundEntry("ent_x", contact, c.msg, c.replyTo)
			if diff := cmp.Diff(c.want, got, cmpEntry); diff != "" {
				t.Fatalf("inbound entry (-want +got):\n%s", diff)
			}
			if got.CreatedAt.Location() != time.UTC {
				t.Fatalf("created at %v, want UTC", got.CreatedAt)
			}
		})
	}
}

// TestInboundEntryCopiesTheMedia: the entry keeps its own copy of the
// attachment, so the message's can be reused.
func TestInboundEntryCopiesTheMedia(t *testing.T) {
	t.Parallel()
	contact := domain.NewContact("ctc_x", "cnv_x", "wsp_x", domain.ModeTest, domain.MustPhoneNumber("+14155552671"), t0)
	media := &domain.Attachment{ID: "1234567890", MimeType: "image/jpeg", SHA256: "n2Zl3Q=="}
	e := domain.InboundEntry("ent_x", contact, domain.InboundMessage{ProviderID: "wamid.IN1", Kind: domain.KindImage, Media: media, At: t0}, "")
	if e.Media == media {
		t.Fatal("the entry shares the message's attachment")
	}
	media.ID, media.MimeType = "other", "image/png"
	want := &domain.Attachment{ID: "1234567890", MimeType: "image/jpeg", SHA256: "n2Zl3Q=="}
	if diff := cmp.Diff(want, e.Media); diff != "" {
		t.Fatalf("the entry's attachment follows the message's changes (-want +got):\n%s", diff)
	}
}
