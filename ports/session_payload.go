package ports

import (
	"strconv"

	"github.com/heraldhq/herald/domain"
)

// SessionPayload is the body of Meta's send call for a session message:
// the common fields and the one object of its type, in Meta's names.
type SessionPayload struct {
	MessagingProduct      string                 `json:"messaging_product"`
	RecipientType         string                 `json:"recipient_type"`
	To                    string                 `json:"to"`
	Type                  string                 `json:"type"`
	BizOpaqueCallbackData string                 `json:"biz_opaque_callback_data,omitempty"`
	Context               *PayloadContext        `json:"context,omitempty"`
	Text                  *PayloadText           `json:"text,omitempty"`
	Image                 *PayloadMediaObject    `json:"image,omitempty"`
	Video                 *PayloadMediaObject    `json:"video,omitempty"`
	Audio                 *PayloadMediaObject    `json:"audio,omitempty"`
	Document              *PayloadMediaObject    `json:"document,omitempty"`
	Sticker               *PayloadMediaObject    `json:"sticker,omitempty"`
	Location              *PayloadSharedLocation `json:"location,omitempty"`
	Contacts              []PayloadContactCard   `json:"contacts,omitempty"`
	Interactive           *PayloadInteractive    `json:"interactive,omitempty"`
	Reaction              *PayloadReaction       `json:"reaction,omitempty"`
}

// PayloadContext quotes an earlier message.
type PayloadContext struct {
	MessageID string `json:"message_id"`
}

// PayloadText is a text message's object.
type PayloadText struct {
	Body       string `json:"body"`
	PreviewURL bool   `json:"preview_url,omitempty"`
}

// PayloadMediaObject is media by Meta's id or by link.
type PayloadMediaObject struct {
	ID       string `json:"id,omitempty"`
	Link     string `json:"link,omitempty"`
	Caption  string `json:"caption,omitempty"`
	Filename string `json:"filename,omitempty"`
	Voice    bool   `json:"voice,omitempty"`
}

// PayloadSharedLocation is a shared place. Meta's specification types the
// coordinates as strings.
type PayloadSharedLocation struct {
	Latitude  string `json:"latitude"`
	Longitude string `json:"longitude"`
	Name      string `json:"name,omitempty"`
	Address   string `json:"address,omitempty"`
}

// PayloadContactCard is one contact card.
type PayloadContactCard struct {
	Name     PayloadCardName    `json:"name"`
	Birthday string             `json:"birthday,omitempty"`
	Org      *PayloadCardOrg    `json:"org,omitempty"`
	Phones   []PayloadCardPhone `json:"phones,omitempty"`
	Emails   []PayloadCardEmail `json:"emails,omitempty"`
	URLs     []PayloadCardURL   `json:"urls,omitempty"`
}

// PayloadCardName is a card's name.
type PayloadCardName struct {
	FormattedName string `json:"formatted_name"`
	FirstName     string `json:"first_name,omitempty"`
	LastName      string `json:"last_name,omitempty"`
}

// PayloadCardOrg is a card's company.
type PayloadCardOrg struct {
	Company string `json:"company,omitempty"`
}

// PayloadCardPhone is a card's phone number.
type PayloadCardPhone struct {
	Phone string `json:"phone,omitempty"`
	Type  string `json:"type,omitempty"`
	WaID  string `json:"wa_id,omitempty"`
}

// PayloadCardEmail is a card's email address.
type PayloadCardEmail struct {
	Email string `json:"email,omitempty"`
	Type  string `json:"type,omitempty"`
}

// PayloadCardURL is a card's web address.
type PayloadCardURL struct {
	URL  string `json:"url,omitempty"`
	Type string `json:"type,omitempty"`
}

// PayloadInteractive is an interactive message's object.
type PayloadInteractive struct {
	Type   string                   `json:"type"`
	Header *PayloadInteractiveHdr   `json:"header,omitempty"`
	Body   PayloadInteractiveText   `json:"body"`
	Footer *PayloadInteractiveText  `json:"footer,omitempty"`
	Action PayloadInteractiveAction `json:"action"`
}

// PayloadInteractiveHdr is a text or media header.
type PayloadInteractiveHdr struct {
	Type     string              `json:"type"`
	Text     string              `json:"text,omitempty"`
	Image    *PayloadMediaObject `json:"image,omitempty"`
	Video    *PayloadMediaObject `json:"video,omitempty"`
	Document *PayloadMediaObject `json:"document,omitempty"`
}

// PayloadInteractiveText is a body or footer.
type PayloadInteractiveText struct {
	Text string `json:"text"`
}

// PayloadInteractiveAction is the buttons, the list, or the link button.
type PayloadInteractiveAction struct {
	Buttons    []PayloadReplyButton `json:"buttons,omitempty"`
	Button     string               `json:"button,omitempty"`
	Sections   []PayloadSection     `json:"sections,omitempty"`
	Name       string               `json:"name,omitempty"`
	Parameters *PayloadCTAParams    `json:"parameters,omitempty"`
}

// PayloadReplyButton is one quick-reply button.
type PayloadReplyButton struct {
	Type  string       `json:"type"`
	Reply PayloadReply `json:"reply"`
}

// PayloadReply is a button's id and title.
type PayloadReply struct {
	ID    string `json:"id"`
	Title string `json:"title"`
}

// PayloadSection is one section of a list.
type PayloadSection struct {
	Title string       `json:"title,omitempty"`
	Rows  []PayloadRow `json:"rows"`
}

// PayloadRow is one choice of a list.
type PayloadRow struct {
	ID          string `json:"id"`
	Title       string `json:"title"`
	Description string `json:"description,omitempty"`
}

// PayloadCTAParams is a call-to-action button's text and link.
type PayloadCTAParams struct {
	DisplayText string `json:"display_text"`
	URL         string `json:"url"`
}

// PayloadReaction is an emoji on a message.
type PayloadReaction struct {
	MessageID string `json:"message_id"`
	Emoji     string `json:"emoji"`
}

// MediaResolver turns Herald's media id into Meta's, for the sending
// number; nil when media goes by link only.
type MediaResolver func(heraldID string) string

// SessionBody builds the Cloud API body of a session message. Media named
// by Herald's id goes by the id Meta gave its upload (MediaIDs).
func (m OutboundMessage) SessionBody() SessionPayload {
	s := m.Session
	p := SessionPayload{MessagingProduct: "whatsapp", RecipientType: "individual", To: m.To.String(),
		Type: s.Type, BizOpaqueCallbackData: string(m.ID)}
	if m.ReplyTo != "" {
		p.Context = &PayloadContext{MessageID: m.ReplyTo}
	}
	media := func(r domain.MediaRef) *PayloadMediaObject {
		if r.MediaID != "" {
			return &PayloadMediaObject{ID: m.MediaIDs[r.MediaID]}
		}
		return &PayloadMediaObject{Link: r.Link}
	}
	switch {
	case s.Text != nil:
		p.Text = &PayloadText{Body: s.Text.Body, PreviewURL: s.Text.PreviewURL}
	case s.Media != nil:
		o := media(s.Media.MediaRef)
		o.Caption, o.Filename, o.Voice = s.Media.Caption, s.Media.Filename, s.Media.Voice
		switch s.Type {
		case domain.KindImage:
			p.Image = o
		case domain.KindVideo:
			p.Video = o
		case domain.KindAudio:
			p.Audio = o
		case domain.KindDocument:
			p.Document = o
		case domain.KindSticker:
			p.Sticker = o
		}
	case s.Location != nil:
		p.Location = &PayloadSharedLocation{Latitude: strconv.FormatFloat(s.Location.Latitude, 'f', -1, 64),
			Longitude: strconv.FormatFloat(s.Location.Longitude, 'f', -1, 64), Name: s.Location.Name, Address: s.Location.Address}
	case s.Contacts != nil:
		for _, c := range s.Contacts {
			card := PayloadContactCard{Name: PayloadCardName{FormattedName: c.FormattedName, FirstName: c.FirstName, LastName: c.LastName},
				Birthday: c.Birthday}
			if c.Company != "" {
				card.Org = &PayloadCardOrg{Company: c.Company}
			}
			for _, ph := range c.Phones {
				card.Phones = append(card.Phones, PayloadCardPhone(ph))
			}
			for _, e := range c.Emails {
				card.Emails = append(card.Emails, PayloadCardEmail(e))
			}
			for _, u := range c.URLs {
				card.URLs = append(card.URLs, PayloadCardURL(u))
			}
			p.Contacts = append(p.Contacts, card)
		}
	case s.Interactive != nil:
		p.Interactive = interactivePayload(*s.Interactive, media)
	case s.Reaction != nil:
		p.Reaction = &PayloadReaction{MessageID: s.Reaction.MessageID, Emoji: s.Reaction.Emoji}
	}
	return p
}

func interactivePayload(in domain.Interactive, media func(domain.MediaRef) *PayloadMediaObject) *PayloadInteractive {
	out := &PayloadInteractive{Type: in.Type, Body: PayloadInteractiveText{Text: in.Body}}
	if in.Footer != "" {
		out.Footer = &PayloadInteractiveText{Text: in.Footer}
	}
	if h := in.Header; h != nil {
		hdr := &PayloadInteractiveHdr{Type: h.Type, Text: h.Text}
		if h.Media != nil {
			switch h.Type {
			case domain.KindImage:
				hdr.Image = media(*h.Media)
			case domain.KindVideo:
				hdr.Video = media(*h.Media)
			case domain.KindDocument:
				hdr.Document = media(*h.Media)
			}
		}
		out.Header = hdr
	}
	switch in.Type {
	case domain.InteractiveButton:
		for _, b := range in.Buttons {
			out.Action.Buttons = append(out.Action.Buttons, PayloadReplyButton{Type: "reply", Reply: PayloadReply(b)})
		}
	case domain.InteractiveList:
		out.Action.Button = in.List.Button
		for _, s := range in.List.Sections {
			sec := PayloadSection{Title: s.Title}
			for _, r := range s.Rows {
				sec.Rows = append(sec.Rows, PayloadRow(r))
			}
			out.Action.Sections = append(out.Action.Sections, sec)
		}
	case domain.InteractiveCTAURL:
		out.Action.Name = "cta_url"
		out.Action.Parameters = &PayloadCTAParams{DisplayText: in.CTA.DisplayText, URL: in.CTA.URL}
	}
	return out
}

// Body is the Cloud API body of m, whatever its kind: what a sender
// posts.
func (m OutboundMessage) Body() any {
	if m.Session != nil {
		return m.SessionBody()
	}
	return m.Payload()
}
