package dashboard

import (
	"cmp"
	"slices"

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
// footer that the preview shows: buttons that take a value (Herald keeps
// no others), a limited-time offer, carousel cards.
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
	for _, s := range slots {
		var b *previewButton
		switch s.Kind {
		case domain.SlotQuickReply:
			b = &previewButton{Text: s.Context, Does: "quick reply"}
		case domain.SlotURLSuffix:
			b = &previewButton{Text: s.Context, Does: "opens a link"}
		case domain.SlotCouponCode:
			b = &previewButton{Text: cmp.Or(s.Context, "Copy offer code"), Does: "copies the code"}
		case domain.SlotOTP:
			b = &previewButton{Text: cmp.Or(s.Context, "Copy code"), Does: "copies the code"}
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
		if b == nil {
			continue
		}
		if s.Card >= 0 {
			card(s.Card).Buttons = append(card(s.Card).Buttons, *b)
		} else {
			p.Buttons = append(p.Buttons, *b)
		}
	}
	for i := range domain.MaxCards {
		if c := cards[i]; c != nil {
			p.Cards = append(p.Cards, *c)
		}
	}
	return p
}
