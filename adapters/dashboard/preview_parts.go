package dashboard

import (
	"cmp"
	"slices"
	"strings"

	"github.com/heraldhq/herald/domain"
)

// previewButton is one button as WhatsApp shows it under the bubble: its
// text and what a tap does.
type previewButton struct {
	Text, Does string
}

// previewCard is one carousel card: its media header and buttons.
type previewCard struct {
	Index   int
	Media   string
	Body    []string // the card body's placeholders, as slots
	Buttons []previewButton
}

// previewParts are the components of a template beyond header, body and
// footer that the preview shows: its buttons (every one Herald keeps, static
// ones too), a limited-time offer, carousel cards.
type previewParts struct {
	Buttons []previewButton
	Offer   string
	Cards   []previewCard
}

func partsOf(t domain.Template) previewParts {
	var p previewParts
	cards := map[int]*previewCard{}
	card := func(i int) *previewCard {
		if cards[i] == nil {
			cards[i] = &previewCard{Index: i + 1}
		}
		return cards[i]
	}
	slots := slices.Clone(t.AllSlots())
	slices.SortStableFunc(slots, func(a, b domain.Slot) int {
		return cmp.Or(cmp.Compare(a.Card, b.Card), cmp.Compare(a.Button, b.Button))
	})
	for _, b := range t.AllButtons() {
		p.Buttons = append(p.Buttons, buttonOf(b))
	}
	for _, s := range slots {
		var b *previewButton
		switch s.Kind {
		case domain.SlotQuickReply:
			b = &previewButton{Text: s.Context, Does: "quick reply"}
		case domain.SlotURLSuffix:
			b = &previewButton{Text: s.Context, Does: "opens a link"}
		case domain.SlotOfferExpiry:
			p.Offer = s.Context
		case domain.SlotHeaderMedia:
			if s.Card >= 0 {
				card(s.Card).Media = s.Media.String()
			}
		case domain.SlotBody:
			if s.Card >= 0 {
				card(s.Card).Body = append(card(s.Card).Body, "{{"+s.Param+"}}")
			}
		}
		if b != nil && s.Card >= 0 { // the template's own buttons are AllButtons
			card(s.Card).Buttons = append(card(s.Card).Buttons, *b)
		}
	}
	for i := range domain.MaxCards {
		if c := cards[i]; c != nil {
			p.Cards = append(p.Cards, *c)
		}
	}
	return p
}

// buttonOf is one of the template's own buttons as WhatsApp shows it: a
// static link or number is shown with what a tap does.
func buttonOf(b domain.ButtonDef) previewButton {
	switch b.Kind {
	case domain.ButtonQuickReply:
		return previewButton{Text: b.Text, Does: "quick reply"}
	case domain.ButtonURL:
		if b.URL != "" && !strings.Contains(b.URL, "{{") {
			return previewButton{Text: b.Text, Does: "opens " + b.URL}
		}
		return previewButton{Text: b.Text, Does: "opens a link"}
	case domain.ButtonPhone:
		if b.PhoneNumber != "" {
			return previewButton{Text: b.Text, Does: "calls " + b.PhoneNumber}
		}
		return previewButton{Text: b.Text, Does: "calls a number"}
	case domain.ButtonVoiceCall:
		return previewButton{Text: b.Text, Does: "calls on WhatsApp"}
	case domain.ButtonCopyCode:
		return previewButton{Text: cmp.Or(b.Text, "Copy offer code"), Does: "copies the code"}
	case domain.ButtonOTP:
		return previewButton{Text: cmp.Or(b.Text, "Copy code"), Does: "copies the code"}
	}
	return previewButton{Text: b.Text}
}
