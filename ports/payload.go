package ports

import (
	"slices"
	"strconv"
	"strings"

	"github.com/heraldhq/herald/domain"
)

// TemplatePayload is the body of Meta's Cloud API send call for a template
// message (POST /{phone-number-id}/messages). It is the one wire shape every
// sender honours: the Cloud API adapter sends it, the sandbox answers as if it
// had, and a dry run shows it to the integrator.
type TemplatePayload struct {
	MessagingProduct      string          `json:"messaging_product"`
	RecipientType         string          `json:"recipient_type"`
	To                    string          `json:"to"`
	Type                  string          `json:"type"`
	BizOpaqueCallbackData string          `json:"biz_opaque_callback_data,omitempty"`
	Template              PayloadTemplate `json:"template"`
}

// PayloadTemplate names the template and carries its parameters.
type PayloadTemplate struct {
	Name       string             `json:"name"`
	Language   PayloadLanguage    `json:"language"`
	Components []PayloadComponent `json:"components,omitempty"`
}

// PayloadLanguage is the approved translation's code. Meta's specification
// requires the policy, whose only value is "deterministic".
type PayloadLanguage struct {
	Policy string `json:"policy"`
	Code   string `json:"code"`
}

// PayloadComponent is one component with its parameters: the header, the
// body, a button (with its sub_type and index), a limited-time offer, or
// a carousel with its cards.
type PayloadComponent struct {
	Type       string             `json:"type"`
	SubType    string             `json:"sub_type,omitempty"`
	Index      *string            `json:"index,omitempty"`
	Parameters []PayloadParameter `json:"parameters,omitempty"`
	Cards      []PayloadCard      `json:"cards,omitempty"`
}

// PayloadCard is one carousel card: its index and its components.
type PayloadCard struct {
	CardIndex  int                `json:"card_index"`
	Components []PayloadComponent `json:"components"`
}

// PayloadParameter is one parameter: text (named with ParameterName),
// media, a location, a quick reply's payload, a coupon code or an offer's
// expiry.
type PayloadParameter struct {
	Type             string              `json:"type"`
	ParameterName    string              `json:"parameter_name,omitempty"`
	Text             string              `json:"text,omitempty"`
	Payload          string              `json:"payload,omitempty"`
	CouponCode       string              `json:"coupon_code,omitempty"`
	Image            *PayloadMedia       `json:"image,omitempty"`
	Video            *PayloadMedia       `json:"video,omitempty"`
	Document         *PayloadMedia       `json:"document,omitempty"`
	Location         *PayloadLocation    `json:"location,omitempty"`
	LimitedTimeOffer *PayloadOfferExpiry `json:"limited_time_offer,omitempty"`
}

// PayloadLocation is a location header's place.
type PayloadLocation struct {
	Latitude  float64 `json:"latitude"`
	Longitude float64 `json:"longitude"`
	Name      string  `json:"name,omitempty"`
	Address   string  `json:"address,omitempty"`
}

// PayloadOfferExpiry is when a limited-time offer ends, in Unix
// milliseconds.
type PayloadOfferExpiry struct {
	ExpirationTimeMS int64 `json:"expiration_time_ms"`
}

// PayloadMedia is a media header parameter given by link.
type PayloadMedia struct {
	ID       string `json:"id,omitempty"` // Meta's id of an upload; Link is empty then
	Link     string `json:"link,omitempty"`
	Filename string `json:"filename,omitempty"`
}

// Payload builds the Cloud API body for m: body parameters in placeholder
// order, the media header by link (a document with its file name), and our
// message id in biz_opaque_callback_data so status events can be matched
// to it.
func (m OutboundMessage) Payload() TemplatePayload {
	p := TemplatePayload{
		MessagingProduct:      "whatsapp",
		RecipientType:         "individual",
		To:                    m.To.String(),
		Type:                  "template",
		BizOpaqueCallbackData: string(m.ID),
		Template: PayloadTemplate{
			Name:     m.TemplateName,
			Language: PayloadLanguage{Policy: "deterministic", Code: m.Language},
		},
	}
	if m.Values != nil {
		p.Template.Components = components(m.Values, m.MediaFilename)
		uploadedMedia(p.Template.Components, m.MediaIDs)
		return p
	}
	if m.MediaHeaderURL != "" {
		media := &PayloadMedia{Link: m.MediaHeaderURL}
		param := PayloadParameter{Type: m.HeaderFormat.String()}
		switch m.HeaderFormat {
		case domain.HeaderImage:
			param.Image = media
		case domain.HeaderVideo:
			param.Video = media
		case domain.HeaderDocument:
			media.Filename = m.MediaFilename
			param.Document = media
		}
		p.Template.Components = append(p.Template.Components,
			PayloadComponent{Type: "header", Parameters: []PayloadParameter{param}})
	}
	if len(m.Variables) > 0 {
		params := make([]PayloadParameter, len(m.Variables))
		for i, v := range m.Variables {
			params[i] = PayloadParameter{Type: "text", Text: v}
		}
		p.Template.Components = append(p.Template.Components,
			PayloadComponent{Type: "body", Parameters: params})
	}
	uploadedMedia(p.Template.Components, m.MediaIDs)
	return p
}

// uploadedMedia sends by Meta's id the header media whose link Herald
// uploaded (ids maps the link to the id), so Meta does not fetch the link.
func uploadedMedia(cs []PayloadComponent, ids map[string]string) {
	if len(ids) == 0 {
		return
	}
	for i := range cs {
		for j := range cs[i].Parameters {
			prm := &cs[i].Parameters[j]
			for _, m := range []*PayloadMedia{prm.Image, prm.Video, prm.Document} {
				if m == nil {
					continue
				}
				if id, ok := ids[m.Link]; ok && id != "" {
					m.ID, m.Link = id, ""
				}
			}
		}
		for k := range cs[i].Cards {
			uploadedMedia(cs[i].Cards[k].Components, ids)
		}
	}
}

// components builds Meta's components from the slots' values, in the order
// header, body, offer, buttons by index, carousel. A document header
// carries filename, or the file name its inspection found.
func components(values []domain.SlotValue, filename string) []PayloadComponent {
	var header, body []PayloadParameter
	var offer *PayloadComponent
	var buttons []PayloadComponent
	cards := map[int]*cardParts{}
	var cardOrder []int
	for _, v := range values {
		s := v.Slot
		param := parameter(v, filename)
		if s.Card >= 0 {
			c := cards[s.Card]
			if c == nil {
				c = &cardParts{}
				cards[s.Card] = c
				cardOrder = append(cardOrder, s.Card)
			}
			switch {
			case s.Kind.IsHeader():
				c.header = append(c.header, param)
			case s.Kind == domain.SlotBody:
				c.body = append(c.body, param)
			default:
				c.buttons = append(c.buttons, button(s, param))
			}
			continue
		}
		switch {
		case s.Kind.IsHeader():
			header = append(header, param)
		case s.Kind == domain.SlotBody:
			body = append(body, param)
		case s.Kind == domain.SlotOfferExpiry:
			offer = &PayloadComponent{Type: "limited_time_offer", Parameters: []PayloadParameter{param}}
		default:
			buttons = append(buttons, button(s, param))
		}
	}
	var out []PayloadComponent
	if header != nil {
		out = append(out, PayloadComponent{Type: "header", Parameters: header})
	}
	if body != nil {
		out = append(out, PayloadComponent{Type: "body", Parameters: body})
	}
	if offer != nil {
		out = append(out, *offer)
	}
	slices.SortStableFunc(buttons, func(a, b PayloadComponent) int { return strings.Compare(*a.Index, *b.Index) })
	out = append(out, buttons...)
	if len(cardOrder) > 0 {
		slices.Sort(cardOrder)
		carousel := PayloadComponent{Type: "carousel"}
		for _, i := range cardOrder {
			c := cards[i]
			card := PayloadCard{CardIndex: i}
			if c.header != nil {
				card.Components = append(card.Components, PayloadComponent{Type: "header", Parameters: c.header})
			}
			if c.body != nil {
				card.Components = append(card.Components, PayloadComponent{Type: "body", Parameters: c.body})
			}
			card.Components = append(card.Components, c.buttons...)
			carousel.Cards = append(carousel.Cards, card)
		}
		out = append(out, carousel)
	}
	return out
}

type cardParts struct {
	header, body []PayloadParameter
	buttons      []PayloadComponent
}

// button is the component of a button slot: sub_type by kind (an OTP
// button is sent as a URL button), and its index among the buttons as a
// string, as Meta documents it.
func button(s domain.Slot, param PayloadParameter) PayloadComponent {
	sub := "url"
	switch s.Kind {
	case domain.SlotQuickReply:
		sub = "quick_reply"
	case domain.SlotCouponCode:
		sub = "copy_code"
	}
	idx := strconv.Itoa(s.Button)
	return PayloadComponent{Type: "button", SubType: sub, Index: &idx, Parameters: []PayloadParameter{param}}
}

// parameter is one slot's value as Meta's parameter object.
func parameter(v domain.SlotValue, filename string) PayloadParameter {
	s := v.Slot
	switch s.Kind {
	case domain.SlotHeaderMedia:
		media := &PayloadMedia{Link: v.Value}
		p := PayloadParameter{Type: s.Media.String()}
		switch s.Media {
		case domain.HeaderImage:
			p.Image = media
		case domain.HeaderVideo:
			p.Video = media
		case domain.HeaderDocument:
			media.Filename = v.Filename
			if media.Filename == "" && s.Source.MediaHeaderURL {
				media.Filename = filename
			}
			p.Document = media
		}
		return p
	case domain.SlotHeaderLocation:
		l, _ := domain.ParseLocation(v.Value)
		return PayloadParameter{Type: "location", Location: &PayloadLocation{Latitude: l.Latitude, Longitude: l.Longitude,
			Name: l.Name, Address: l.Address}}
	case domain.SlotQuickReply:
		return PayloadParameter{Type: "payload", Payload: v.Value}
	case domain.SlotCouponCode:
		return PayloadParameter{Type: "coupon_code", CouponCode: v.Value}
	case domain.SlotOfferExpiry:
		ms, _ := strconv.ParseInt(v.Value, 10, 64)
		return PayloadParameter{Type: "limited_time_offer", LimitedTimeOffer: &PayloadOfferExpiry{ExpirationTimeMS: ms}}
	}
	p := PayloadParameter{Type: "text", Text: v.Value}
	if s.Named {
		p.ParameterName = s.Param
	}
	return p
}

// OutboundFor builds the sender's view of a stored message.
func OutboundFor(m domain.Message) OutboundMessage {
	return OutboundMessage{
		ID: m.ID, Workspace: m.Workspace, Mode: m.Mode, To: m.Phone, TemplateName: m.TemplateName, Language: m.Language,
		HeaderFormat: m.HeaderFormat, MediaHeaderURL: m.MediaHeaderURL, MediaFilename: m.MediaFilename, Variables: m.Variables,
		Session: m.Session, ReplyTo: m.ReplyTo, Values: m.Values,
	}
}
