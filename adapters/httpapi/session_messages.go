package httpapi

import (
	"bytes"
	"encoding/json"
	"net/http"
	"slices"
	"strings"

	"github.com/heraldhq/herald/app"
	"github.com/heraldhq/herald/domain"
)

// The body of POST /v1/messages: Meta's session message fields in
// Herald's camelCase naming (decision 0024).
type sessionRequest struct {
	To          string              `json:"to"`
	ContactID   string              `json:"contactId"`
	Type        string              `json:"type"`
	ReplyTo     string              `json:"replyTo"`
	From        string              `json:"from"`
	Text        *sessionTextIn      `json:"text"`
	Image       *sessionMediaIn     `json:"image"`
	Video       *sessionMediaIn     `json:"video"`
	Audio       *sessionMediaIn     `json:"audio"`
	Document    *sessionMediaIn     `json:"document"`
	Sticker     *sessionMediaIn     `json:"sticker"`
	Location    *sessionLocationIn  `json:"location"`
	Contacts    []sessionCardIn     `json:"contacts"`
	Interactive *sessionInteractive `json:"interactive"`
	Reaction    *sessionReactionIn  `json:"reaction"`
}

var sessionSpec = bodySpec{
	fields: []string{"to", "contactId", "type", "replyTo", "from", "text", "image", "video", "audio", "document", "sticker",
		"location", "contacts", "interactive", "reaction"},
	required: []string{"type"},
}

type sessionTextIn struct {
	Body       string `json:"body"`
	PreviewURL bool   `json:"previewUrl"`
}

type sessionMediaIn struct {
	MediaID  string `json:"mediaId"`
	Link     string `json:"link"`
	Caption  string `json:"caption"`
	Filename string `json:"filename"`
	Voice    bool   `json:"voice"`
}

type sessionLocationIn struct {
	Latitude  float64 `json:"latitude"`
	Longitude float64 `json:"longitude"`
	Name      string  `json:"name"`
	Address   string  `json:"address"`
}

type sessionCardIn struct {
	Name struct {
		FormattedName string `json:"formattedName"`
		FirstName     string `json:"firstName"`
		LastName      string `json:"lastName"`
	} `json:"name"`
	Org *struct {
		Company string `json:"company"`
	} `json:"org"`
	Birthday string `json:"birthday"`
	Phones   []struct {
		Phone string `json:"phone"`
		Type  string `json:"type"`
		WaID  string `json:"waId"`
	} `json:"phones"`
	Emails []struct {
		Email string `json:"email"`
		Type  string `json:"type"`
	} `json:"emails"`
	URLs []struct {
		URL  string `json:"url"`
		Type string `json:"type"`
	} `json:"urls"`
}

type sessionMediaRefIn struct {
	MediaID string `json:"mediaId"`
	Link    string `json:"link"`
}

type sessionInteractive struct {
	Type   string `json:"type"`
	Header *struct {
		Type     string             `json:"type"`
		Text     string             `json:"text"`
		Image    *sessionMediaRefIn `json:"image"`
		Video    *sessionMediaRefIn `json:"video"`
		Document *sessionMediaRefIn `json:"document"`
	} `json:"header"`
	Body *struct {
		Text string `json:"text"`
	} `json:"body"`
	Footer *struct {
		Text string `json:"text"`
	} `json:"footer"`
	Action *struct {
		Buttons []struct {
			ID    string `json:"id"`
			Title string `json:"title"`
		} `json:"buttons"`
		Button   string `json:"button"`
		Sections []struct {
			Title string `json:"title"`
			Rows  []struct {
				ID          string `json:"id"`
				Title       string `json:"title"`
				Description string `json:"description"`
			} `json:"rows"`
		} `json:"sections"`
		DisplayText string `json:"displayText"`
		URL         string `json:"url"`
	} `json:"action"`
}

type sessionReactionIn struct {
	MessageID string `json:"messageId"`
	Emoji     string `json:"emoji"`
}

// strayObject names an object of another type than the message's, which
// a message may not carry.
func (in sessionRequest) strayObject() string {
	for _, o := range []struct {
		name    string
		present bool
	}{{"text", in.Text != nil}, {"image", in.Image != nil}, {"video", in.Video != nil}, {"audio", in.Audio != nil},
		{"document", in.Document != nil}, {"sticker", in.Sticker != nil}, {"location", in.Location != nil},
		{"contacts", in.Contacts != nil}, {"interactive", in.Interactive != nil}, {"reaction", in.Reaction != nil}} {
		if o.present && o.name != in.Type {
			return o.name
		}
	}
	return ""
}

// content is the request's message in the domain's terms.
func (in sessionRequest) content() domain.SessionContent {
	s := domain.SessionContent{Type: in.Type}
	if in.Text != nil {
		s.Text = &domain.SessionText{Body: in.Text.Body, PreviewURL: in.Text.PreviewURL}
	}
	if m := mediaOf(in, in.Type); m != nil {
		s.Media = &domain.SessionMedia{MediaRef: domain.MediaRef{MediaID: m.MediaID, Link: m.Link},
			Caption: m.Caption, Filename: m.Filename, Voice: m.Voice}
	}
	if in.Location != nil {
		s.Location = &domain.SessionLocation{Latitude: in.Location.Latitude, Longitude: in.Location.Longitude,
			Name: in.Location.Name, Address: in.Location.Address}
	}
	if in.Contacts != nil {
		s.Contacts = make([]domain.ContactCard, len(in.Contacts))
		for i, c := range in.Contacts {
			card := domain.ContactCard{FormattedName: c.Name.FormattedName, FirstName: c.Name.FirstName,
				LastName: c.Name.LastName, Birthday: c.Birthday}
			if c.Org != nil {
				card.Company = c.Org.Company
			}
			for _, p := range c.Phones {
				card.Phones = append(card.Phones, domain.CardPhone{Phone: p.Phone, Type: p.Type, WaID: p.WaID})
			}
			for _, e := range c.Emails {
				card.Emails = append(card.Emails, domain.CardEmail{Email: e.Email, Type: e.Type})
			}
			for _, u := range c.URLs {
				card.URLs = append(card.URLs, domain.CardURL{URL: u.URL, Type: u.Type})
			}
			s.Contacts[i] = card
		}
	}
	if in.Interactive != nil {
		s.Interactive = in.Interactive.domain()
	}
	if in.Reaction != nil {
		s.Reaction = &domain.SessionReaction{MessageID: in.Reaction.MessageID, Emoji: in.Reaction.Emoji}
	}
	return s
}

func mediaOf(in sessionRequest, t string) *sessionMediaIn {
	switch t {
	case domain.KindImage:
		return in.Image
	case domain.KindVideo:
		return in.Video
	case domain.KindAudio:
		return in.Audio
	case domain.KindDocument:
		return in.Document
	case domain.KindSticker:
		return in.Sticker
	}
	return nil
}

func (in sessionInteractive) domain() *domain.Interactive {
	out := &domain.Interactive{Type: in.Type}
	if in.Body != nil {
		out.Body = in.Body.Text
	}
	if in.Footer != nil {
		out.Footer = in.Footer.Text
	}
	if h := in.Header; h != nil {
		hdr := &domain.InteractiveHeader{Type: h.Type, Text: h.Text}
		for _, m := range []*sessionMediaRefIn{h.Image, h.Video, h.Document} {
			if m != nil {
				hdr.Media = &domain.MediaRef{MediaID: m.MediaID, Link: m.Link}
			}
		}
		out.Header = hdr
	}
	if a := in.Action; a != nil {
		switch in.Type {
		case domain.InteractiveButton:
			out.Buttons = []domain.ReplyButton{}
			for _, b := range a.Buttons {
				out.Buttons = append(out.Buttons, domain.ReplyButton{ID: b.ID, Title: b.Title})
			}
		case domain.InteractiveList:
			l := &domain.ListAction{Button: a.Button}
			for _, s := range a.Sections {
				sec := domain.ListSection{Title: s.Title}
				for _, r := range s.Rows {
					sec.Rows = append(sec.Rows, domain.ListRow{ID: r.ID, Title: r.Title, Description: r.Description})
				}
				l.Sections = append(l.Sections, sec)
			}
			out.List = l
		case domain.InteractiveCTAURL:
			out.CTA = &domain.CTAURL{DisplayText: a.DisplayText, URL: a.URL}
		}
	}
	return out
}

// acceptedSession is the answer to POST /v1/messages: send-campaign's
// answer with the kind and the session message's type.
type acceptedSession struct {
	ID          string  `json:"id"`
	Kind        string  `json:"kind"`
	Type        string  `json:"type"`
	Status      string  `json:"status"`
	CampaignID  *string `json:"campaignId"`
	ContactID   string  `json:"contactId"`
	PhoneNumber string  `json:"phoneNumber"`
	CreatedAt   string  `json:"createdAt"`
}

func (a *api) sendSession(w http.ResponseWriter, r *http.Request) {
	key, err := idempotencyKey(r)
	if err != nil {
		writeError(w, r, a.log, err)
		return
	}
	body, derr := readBody(w, r, a.cfg.BodyLimit)
	var in sessionRequest
	if derr == nil {
		derr = decodeStrict(body, sessionSpec, &in)
	}
	if derr == nil {
		derr = unknownNested(body)
	}
	if derr != nil {
		writeProblem(w, r, derr.code, derr.param, derr.detail)
		return
	}
	if stray := in.strayObject(); stray != "" && slices.Contains(domain.SessionTypes(), in.Type) {
		writeError(w, r, a.log, domain.InvalidParameter(stray, "a "+in.Type+" message carries the "+in.Type+" object only, not "+stray))
		return
	}
	res, err := a.d.SendSession.Handle(r.Context(), app.SendSessionMessage{
		Principal: principalFrom(r.Context()), To: in.To, ContactID: in.ContactID, Content: in.content(),
		ReplyTo: in.ReplyTo, From: in.From, IdempotencyKey: key,
	})
	if err != nil {
		writeError(w, r, a.log, err)
		return
	}
	m := res.Message
	w.Header().Set("Location", "/v1/messages/"+string(m.ID))
	if res.Replayed {
		w.Header().Set("Idempotent-Replayed", "true")
	}
	out := acceptedSession{ID: string(m.ID), Kind: domain.MessageKindSession, Status: domain.StatusQueued.String(),
		ContactID: string(m.ContactID), PhoneNumber: m.Phone.String(), CreatedAt: rfc3339(m.CreatedAt)}
	if m.Session != nil {
		out.Type = m.Session.Type
	}
	writeJSON(w, http.StatusAccepted, out)
}

// unknownNested refuses a field the session objects do not have, which
// decodeStrict (top-level fields only) lets through.
func unknownNested(body []byte) *decodeError {
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	var in sessionRequest
	if err := dec.Decode(&in); err != nil {
		msg := err.Error()
		if i := strings.Index(msg, "unknown field "); i >= 0 {
			return &decodeError{code: CodeInvalidJSON, detail: msg[i:]}
		}
	}
	return nil
}

type markReadRequest struct {
	Typing bool `json:"typing"`
}

var markReadSpec = bodySpec{fields: []string{"typing"}}

type markedRead struct {
	ProviderMessageID string `json:"providerMessageId"`
	ContactID         string `json:"contactId"`
	Read              bool   `json:"read"`
	Typing            bool   `json:"typing"`
}

// markRead answers POST /v1/messages/{id}/read: the contact's message
// whose wamid is id is marked read, with the typing indicator when the
// optional body says {"typing": true}.
func (a *api) markRead(w http.ResponseWriter, r *http.Request) {
	var in markReadRequest
	if r.ContentLength != 0 { // the body is optional
		if !a.decodeBody(w, r, markReadSpec, &in) {
			return
		}
	}
	e, err := a.d.MarkRead.Handle(r.Context(), app.MarkRead{Principal: principalFrom(r.Context()), ID: r.PathValue("id"), Typing: in.Typing})
	if err != nil {
		writeError(w, r, a.log, err)
		return
	}
	writeJSON(w, http.StatusOK, markedRead{ProviderMessageID: e.ProviderID, ContactID: string(e.ContactID), Read: true, Typing: in.Typing})
}
