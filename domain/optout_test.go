package domain_test

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/heraldhq/herald/domain"
)

func TestNewOptKeywords(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name    string
		out, in []string
		wantOut []string
		wantIn  []string
	}{
		{"upper-cased, trimmed, trailing punctuation dropped", []string{"stop", " Baja! "}, []string{"alta."},
			[]string{"STOP", "BAJA"}, []string{"ALTA"}},
		{"non-ASCII keywords", []string{"arrêt"}, []string{"Démarrer"}, []string{"ARRÊT"}, []string{"DÉMARRER"}},
		{"64 characters, multi-byte", []string{strings.Repeat("é", 64)}, nil, []string{strings.Repeat("É", 64)}, nil},
		{"a trailing punctuation mark does not count towards 64", []string{strings.Repeat("A", 64) + "!"}, nil,
			[]string{strings.Repeat("A", 64)}, nil},
		{"opt-out keywords only", []string{"STOP"}, nil, []string{"STOP"}, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			k, err := domain.NewOptKeywords(c.out, c.in)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(c.wantOut, k.Out()); diff != "" {
				t.Errorf("opt-out keywords (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(c.wantIn, k.In()); diff != "" {
				t.Errorf("opt-in keywords (-want +got):\n%s", diff)
			}
			if k.IsZero() {
				t.Errorf("keywords %v and %v are zero", c.out, c.in)
			}
		})
	}
}

func TestNewOptKeywordsRefuses(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, param, detail string
		out, in             []string
	}{
		{"empty opt-out keyword", "optOutKeywords", "1 to 64 characters", []string{"STOP", ""}, nil},
		{"empty opt-in keyword", "optInKeywords", "1 to 64 characters", []string{"STOP"}, []string{""}},
		{"a keyword of spaces", "optOutKeywords", "1 to 64 characters", []string{"   "}, nil},
		{"a keyword of punctuation only", "optInKeywords", "1 to 64 characters", nil, []string{"?!"}},
		{"65 characters", "optOutKeywords", "1 to 64 characters", []string{strings.Repeat("A", 65)}, nil},
		{"65 multi-byte characters", "optInKeywords", "1 to 64 characters", nil, []string{strings.Repeat("é", 65)}},
		{"a word in both lists", "optInKeywords", "STOP is listed twice", []string{"STOP"}, []string{"stop"}},
		{"the same word twice, in another case", "optOutKeywords", "STOP is listed twice", []string{"STOP", "Stop!"}, nil},
		{"the same non-ASCII word twice", "optInKeywords", "ÉTÉ is listed twice", nil, []string{"été", "ÉTÉ"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			k, err := domain.NewOptKeywords(c.out, c.in)
			wantInvalid(t, err, c.param, c.detail)
			if !k.IsZero() {
				t.Errorf("refused keywords came with a value: out %v, in %v", k.Out(), k.In())
			}
		})
	}
}

func TestDefaultOptKeywords(t *testing.T) {
	t.Parallel()
	k := domain.DefaultOptKeywords()
	if diff := cmp.Diff([]string{"STOP", "UNSUBSCRIBE"}, k.Out()); diff != "" {
		t.Errorf("default opt-out keywords (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"START"}, k.In()); diff != "" {
		t.Errorf("default opt-in keywords (-want +got):\n%s", diff)
	}
	if k.IsZero() {
		t.Error("the default keywords are zero")
	}
	if !(domain.OptKeywords{}).IsZero() {
		t.Error("the zero value is not zero")
	}
	if none, err := domain.NewOptKeywords(nil, nil); err != nil || !none.IsZero() {
		t.Errorf("no keywords: IsZero %v, err %v; want zero and no error", none.IsZero(), err)
	}
}

// TestOptKeywordsListsAreCopies: changing a returned list changes neither
// the keywords nor what they match.
func TestOptKeywordsListsAreCopies(t *testing.T) {
	t.Parallel()
	k := domain.DefaultOptKeywords()
	out, in := k.Out(), k.In()
	out[0], in[0] = "HELLO", "BYE"
	if diff := cmp.Diff([]string{"STOP", "UNSUBSCRIBE"}, k.Out()); diff != "" {
		t.Errorf("opt-out keywords after changing a copy (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"START"}, k.In()); diff != "" {
		t.Errorf("opt-in keywords after changing a copy (-want +got):\n%s", diff)
	}
	if got := k.Action(domain.InboundMessage{Kind: domain.KindText, Text: "HELLO"}); got != domain.OptNone {
		t.Errorf("HELLO: %s, want none", optName[got])
	}
	if got := k.Action(domain.InboundMessage{Kind: domain.KindText, Text: "STOP"}); got != domain.OptOut {
		t.Errorf("STOP: %s, want out", optName[got])
	}
}

var optName = map[domain.OptAction]string{domain.OptNone: "none", domain.OptOut: "out", domain.OptIn: "in"}

func TestOptKeywordsAction(t *testing.T) {
	t.Parallel()
	none, out, in := domain.OptNone, domain.OptOut, domain.OptIn
	text := func(s string) domain.InboundMessage { return domain.InboundMessage{Kind: domain.KindText, Text: s} }
	button := func(payload, text string) domain.InboundMessage {
		return domain.InboundMessage{Kind: domain.KindButton, Payload: payload, Text: text}
	}
	reply := func(id, title string) domain.InboundMessage {
		return domain.InboundMessage{Kind: domain.KindInteractive, Payload: id, Text: title}
	}
	media := func(kind, caption string) domain.InboundMessage {
		return domain.InboundMessage{Kind: kind, Text: caption, Media: &domain.Attachment{ID: "media-1", MimeType: "image/jpeg"}}
	}
	custom, err := domain.NewOptKeywords([]string{"BAJA", "ARRÊT"}, []string{"ALTA"})
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name     string
		keywords domain.OptKeywords
		msg      domain.InboundMessage
		want     domain.OptAction
	}{
		{"STOP", domain.DefaultOptKeywords(), text("STOP"), out},
		{"lower case", domain.DefaultOptKeywords(), text("stop"), out},
		{"spaces and an exclamation mark", domain.DefaultOptKeywords(), text(" Stop! "), out},
		{"a full stop", domain.DefaultOptKeywords(), text("STOP."), out},
		{"several marks and a newline", domain.DefaultOptKeywords(), text("stop!!?\n"), out},
		{"unsubscribe", domain.DefaultOptKeywords(), text("unsubscribe"), out},
		{"START", domain.DefaultOptKeywords(), text("START"), in},
		{"start in mixed case", domain.DefaultOptKeywords(), text("  sTaRt "), in},
		{"a keyword inside a sentence", domain.DefaultOptKeywords(), text("please stop"), none},
		{"a keyword followed by more words", domain.DefaultOptKeywords(), text("stop sending"), none},
		{"a longer word", domain.DefaultOptKeywords(), text("STOPP"), none},
		{"leading punctuation", domain.DefaultOptKeywords(), text("¡STOP"), domain.OptOut},
		{"WhatsApp bold", domain.DefaultOptKeywords(), text("*STOP*"), domain.OptOut},
		{"WhatsApp italic", domain.DefaultOptKeywords(), text("_stop_"), domain.OptOut},
		{"quoted", domain.DefaultOptKeywords(), text("\"Stop\""), domain.OptOut},
		{"a decomposed accent", custom, text("arre\u0302t"), domain.OptOut},
		{"Spanish exclamation", custom, text("¡Baja!"), domain.OptOut},
		{"empty text", domain.DefaultOptKeywords(), text(""), none},
		{"only punctuation", domain.DefaultOptKeywords(), text("!"), none},
		{"an ordinary text", domain.DefaultOptKeywords(), text("Hello, is my order on its way?"), none},
		{"a text's payload is not read", domain.DefaultOptKeywords(),
			domain.InboundMessage{Kind: domain.KindText, Text: "hi", Payload: "STOP"}, none},

		{"button payload", domain.DefaultOptKeywords(), button("STOP", "No more, thanks"), out},
		{"button text", domain.DefaultOptKeywords(), button("PROMO_42", "Stop"), out},
		{"button text START", domain.DefaultOptKeywords(), button("PROMO_42", "start"), in},
		{"button whose payload and text only contain a keyword", domain.DefaultOptKeywords(),
			button("STOP_PROMO", "Stop promotions"), none},
		{"button with neither", domain.DefaultOptKeywords(), button("YES", "Yes"), none},

		{"reply id", domain.DefaultOptKeywords(), reply("unsubscribe", "Leave the list"), out},
		{"reply title", domain.DefaultOptKeywords(), reply("row-2", "START"), in},
		{"reply with neither", domain.DefaultOptKeywords(), reply("row-1", "Tell me more"), none},

		{"an image captioned STOP", domain.DefaultOptKeywords(), media(domain.KindImage, "STOP"), none},
		{"a video captioned STOP", domain.DefaultOptKeywords(), media(domain.KindVideo, "STOP"), none},
		{"a document captioned START", domain.DefaultOptKeywords(), media(domain.KindDocument, "START"), none},
		{"an unsupported message", domain.DefaultOptKeywords(),
			domain.InboundMessage{Kind: domain.KindUnsupported, Text: "STOP"}, none},
		{"a type Herald does not know", domain.DefaultOptKeywords(),
			domain.InboundMessage{Kind: "reaction", Text: "STOP", Payload: "STOP"}, none},

		{"custom opt-out", custom, text("baja"), out},
		{"custom opt-in", custom, text("Alta!"), in},
		{"non-ASCII keyword", custom, text("ARRÊT"), out},
		{"non-ASCII keyword in lower case", custom, text("arrêt"), out},
		{"non-ASCII keyword with punctuation", custom, text(" Arrêt ! "), out},
		{"without its accent", custom, text("ARRET"), none},
		{"a default keyword is not one when keywords are configured", custom, text("STOP"), none},
		{"a custom keyword on a button", custom, button("BAJA", "Darme de baja"), out},
		{"the zero value matches nothing", domain.OptKeywords{}, text("STOP"), none},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			if got := c.keywords.Action(c.msg); got != c.want {
				t.Fatalf("Action(%+v) = %s, want %s", c.msg, optName[got], optName[c.want])
			}
		})
	}
}
