package porttest

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/heraldhq/herald/domain"
	"github.com/heraldhq/herald/ports"
)

// SenderMessage is the message RunSender sends: template "welcome" in
// "en_US" with two body placeholders and no header. newSender must return a
// sender that accepts it.
func SenderMessage() ports.OutboundMessage {
	return ports.OutboundMessage{
		ID: "msg_01m80000000000000000000001", To: domain.MustPhoneNumber("+14155552671"),
		TemplateName: "welcome", Language: "en_US", HeaderFormat: domain.HeaderNone,
		Variables: []string{"Ana", "1234"},
	}
}

// SenderFailure is a failure a send may meet, named as Meta reports it.
type SenderFailure string

// The failures RunSender checks, beside a send whose context is done.
const (
	// FailUndeliverable: the recipient cannot be reached (Meta's 131026;
	// the sandbox's numbers ending 0001).
	FailUndeliverable SenderFailure = "Undeliverable"
	// FailThrottled: the sender number is over its throughput (130429).
	FailThrottled SenderFailure = "Throttled"
	// FailPairLimited: too many messages to this recipient (131056).
	FailPairLimited SenderFailure = "PairLimited"
)

// SenderUnderTest is one sender for RunSender, with what the suite needs to
// make it fail in the ways it can.
type SenderUnderTest struct {
	Sender ports.WhatsAppSender
	// Provoke arranges for the send of m to meet f and returns the
	// message to send (the sandbox changes the number, the Cloud API's
	// fake answers with Meta's error); false when this sender cannot meet
	// f, and the case is skipped for it.
	Provoke func(t *testing.T, f SenderFailure, m ports.OutboundMessage) (ports.OutboundMessage, bool)
	// Reported, for a sender that reports the statuses of what it accepted
	// itself (the sandbox), waits for message id's final status and
	// returns it; nil for a sender whose statuses come from Meta's
	// webhooks.
	Reported func(t *testing.T, id domain.MessageID) ports.StatusEvent
}

// sendOutcome is what becomes of a send, as the dispatcher acts on it: the
// class of its error and Meta's code. A send that was accepted and then
// reported failed ends like one refused with a permanent error: the message
// fails with Meta's code.
type sendOutcome struct {
	Class ports.SendErrorClass
	Code  int
}

// failureOutcomes is the outcome every sender gives each failure, whatever
// way it has to express it.
var failureOutcomes = []struct {
	failure SenderFailure
	want    sendOutcome
}{
	{FailUndeliverable, sendOutcome{ports.ClassPermanent, 131026}},
	{FailThrottled, sendOutcome{ports.ClassThrottled, 130429}},
	{FailPairLimited, sendOutcome{ports.ClassPairLimited, 131056}},
}

// RunSender holds the promises every WhatsAppSender keeps: an accepted send
// returns Meta's wamid and the recipient's wa_id, every send gets its own
// wamid, a send whose context is already done fails as retryable without
// being accepted, and each failure of failureOutcomes that a sender can
// meet ends in the same class and code on every sender (the sandbox's 0001
// and Meta's 131026 alike).
func RunSender(t *testing.T, newSender func(t *testing.T) SenderUnderTest) {
	t.Run("Accepted", func(t *testing.T) {
		t.Parallel()
		s := newSender(t).Sender
		res, err := s.Send(context.Background(), SenderMessage())
		if err != nil {
			t.Fatalf("Send: %v", err)
		}
		if !strings.HasPrefix(res.ProviderID, "wamid.") || res.WaID != "14155552671" {
			t.Fatalf("result %+v: want a wamid and the recipient's digits as wa_id", res)
		}
	})
	t.Run("DistinctIDs", func(t *testing.T) {
		t.Parallel()
		s := newSender(t).Sender
		seen := map[string]bool{}
		for range 20 {
			res, err := s.Send(context.Background(), SenderMessage())
			if err != nil {
				t.Fatalf("Send: %v", err)
			}
			if seen[res.ProviderID] {
				t.Fatalf("wamid %s returned twice", res.ProviderID)
			}
			seen[res.ProviderID] = true
		}
	})
	t.Run("CanceledContext", func(t *testing.T) {
		t.Parallel()
		s := newSender(t).Sender
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		_, err := s.Send(ctx, SenderMessage())
		var se *ports.SendError
		if !errors.As(err, &se) || se.Class != ports.ClassRetryable {
			t.Fatalf("Send with a done context: %v, want a retryable *ports.SendError", err)
		}
	})
	for _, fc := range failureOutcomes {
		t.Run(string(fc.failure), func(t *testing.T) {
			t.Parallel()
			s := newSender(t)
			m, ok := s.Provoke(t, fc.failure, SenderMessage())
			if !ok {
				t.Skipf("this sender cannot meet %s", fc.failure)
			}
			if got := outcomeOf(t, s, m); got != fc.want {
				t.Fatalf("%s: class %s, code %d; want class %s, code %d, as every sender gives it",
					fc.failure, got.Class, got.Code, fc.want.Class, fc.want.Code)
			}
		})
	}
}

// outcomeOf sends m and says how it ended: refused with a *ports.SendError,
// or accepted and then reported failed.
func outcomeOf(t *testing.T, s SenderUnderTest, m ports.OutboundMessage) sendOutcome {
	t.Helper()
	res, err := s.Sender.Send(context.Background(), m)
	var se *ports.SendError
	switch {
	case errors.As(err, &se):
		return sendOutcome{se.Class, se.Code}
	case err != nil:
		t.Fatalf("Send: %v, want a *ports.SendError", err)
	case s.Reported == nil:
		t.Fatalf("Send accepted the message (%+v), and this sender reports no statuses itself", res)
	}
	e := s.Reported(t, m.ID)
	if e.Status != domain.StatusFailed || e.Failure == nil {
		t.Fatalf("Send accepted the message and its final status is %s (failure %v), want failed", e.Status, e.Failure)
	}
	return sendOutcome{ports.ClassPermanent, e.Failure.Code}
}

// SessionContents is one valid session message content of every type and
// interactive kind, media by link.
func SessionContents() map[string]domain.SessionContent {
	link := domain.MediaRef{Link: "https://cdn.example.com/a.jpg"}
	return map[string]domain.SessionContent{
		"text":     {Type: domain.KindText, Text: &domain.SessionText{Body: "Your order shipped", PreviewURL: true}},
		"image":    {Type: domain.KindImage, Media: &domain.SessionMedia{MediaRef: link, Caption: "Look"}},
		"video":    {Type: domain.KindVideo, Media: &domain.SessionMedia{MediaRef: link, Caption: "Watch"}},
		"audio":    {Type: domain.KindAudio, Media: &domain.SessionMedia{MediaRef: link, Voice: true}},
		"document": {Type: domain.KindDocument, Media: &domain.SessionMedia{MediaRef: link, Caption: "Invoice", Filename: "inv.pdf"}},
		"sticker":  {Type: domain.KindSticker, Media: &domain.SessionMedia{MediaRef: link}},
		"location": {Type: domain.KindLocation, Location: &domain.SessionLocation{Latitude: 37.4847, Longitude: -122.1486, Name: "Store", Address: "1 Main St"}},
		"contacts": {Type: domain.KindContacts, Contacts: []domain.ContactCard{{FormattedName: "Ana Lima", FirstName: "Ana", Company: "Acme",
			Birthday: "1990-02-03", Phones: []domain.CardPhone{{Phone: "+5511988887777", Type: "WORK", WaID: "5511988887777"}},
			Emails: []domain.CardEmail{{Email: "ana@example.com", Type: "WORK"}}, URLs: []domain.CardURL{{URL: "https://example.com", Type: "WORK"}}}}},
		"buttons": {Type: domain.KindInteractive, Interactive: &domain.Interactive{Type: domain.InteractiveButton, Body: "Reschedule?", Footer: "Acme",
			Header:  &domain.InteractiveHeader{Type: domain.KindImage, Media: &link},
			Buttons: []domain.ReplyButton{{ID: "yes", Title: "Yes"}, {ID: "no", Title: "No"}}}},
		"list": {Type: domain.KindInteractive, Interactive: &domain.Interactive{Type: domain.InteractiveList, Body: "Pick a speed",
			Header: &domain.InteractiveHeader{Type: "text", Text: "Delivery"},
			List: &domain.ListAction{Button: "Options", Sections: []domain.ListSection{
				{Title: "Fast", Rows: []domain.ListRow{{ID: "x", Title: "Express", Description: "Next day"}}},
				{Title: "Slow", Rows: []domain.ListRow{{ID: "s", Title: "Standard"}}}}}}},
		"cta_url": {Type: domain.KindInteractive, Interactive: &domain.Interactive{Type: domain.InteractiveCTAURL, Body: "See the dates",
			CTA: &domain.CTAURL{DisplayText: "See dates", URL: "https://example.com/dates"}}},
		"reaction": {Type: domain.KindReaction, Reaction: &domain.SessionReaction{MessageID: "wamid.HBgNNTUxMTk4", Emoji: "👍"}},
	}
}
