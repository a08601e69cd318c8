package domain

import (
	"fmt"
	"math"
	"net/url"
	"strings"
	"time"
	"unicode/utf8"
)

// A session message is a free-form message (text, media, location, contact
// cards, interactive buttons or list, or a reaction) sent inside the
// contact's customer-service window (decision 0024). Its content is
// checked here against Meta's limits; the wire shape is the sender's.

// The kinds of message: a campaign's template, or a session message.
const (
	MessageKindTemplate = "template"
	MessageKindSession  = "session"
)

// ServiceWindow is how long after a contact's last message a business may
// answer with session messages.
const ServiceWindow = 24 * time.Hour

// Meta's limits on session messages.
const (
	MaxTextBody          = 4096
	MaxCaption           = 1024
	MaxFilename          = 240
	MaxInteractiveBody   = 1024
	MaxInteractiveFooter = 60
	MaxInteractiveHeader = 60
	MaxReplyButtons      = 3
	MaxReplyButtonTitle  = 20
	MaxReplyButtonID     = 256
	MaxListButton        = 20
	MaxListSections      = 10
	MaxListRows          = 10 // in all sections together
	MaxListSectionTitle  = 24
	MaxListRowID         = 200
	MaxListRowTitle      = 24
	MaxListRowDesc       = 72
	MaxCTADisplayText    = 20
	MaxContactCards      = 5
	MaxLocationText      = 1000
	MaxProviderRef       = 256
)

// SessionContent is what a session message says: its type and the one
// object of that type.
type SessionContent struct {
	Type        string // KindText, KindImage, …, KindInteractive, KindReaction
	Text        *SessionText
	Media       *SessionMedia // image, video, audio, document, sticker
	Location    *SessionLocation
	Contacts    []ContactCard
	Interactive *Interactive
	Reaction    *SessionReaction
}

// SessionText is a text message; PreviewURL asks the client to preview
// the body's first link.
type SessionText struct {
	Body       string
	PreviewURL bool
}

// MediaRef names media by Herald's media id or by a public link that Meta
// fetches; exactly one is set.
type MediaRef struct {
	MediaID string
	Link    string
}

// SessionMedia is an image, video, audio, document or sticker message.
type SessionMedia struct {
	MediaRef
	Caption  string // image, video, document
	Filename string // document
	Voice    bool   // audio: a voice note
}

// SessionLocation is a shared place.
type SessionLocation struct {
	Latitude  float64
	Longitude float64
	Name      string
	Address   string
}

// ContactCard is one shared contact card, in Meta's fields.
type ContactCard struct {
	FormattedName string
	FirstName     string
	LastName      string
	Company       string
	Birthday      string // YYYY-MM-DD
	Phones        []CardPhone
	Emails        []CardEmail
	URLs          []CardURL
}

// CardPhone is a phone number on a contact card.
type CardPhone struct{ Phone, Type, WaID string }

// CardEmail is an email address on a contact card.
type CardEmail struct{ Email, Type string }

// CardURL is a web address on a contact card.
type CardURL struct{ URL, Type string }

// The interactive message types.
const (
	InteractiveButton = "button"
	InteractiveList   = "list"
	InteractiveCTAURL = "cta_url"
)

// Interactive is a message with reply buttons, a list, or a call-to-action
// link button.
type Interactive struct {
	Type    string
	Header  *InteractiveHeader
	Body    string
	Footer  string
	Buttons []ReplyButton // button
	List    *ListAction   // list
	CTA     *CTAURL       // cta_url
}

// InteractiveHeader is a text header, or an image, video or document.
type InteractiveHeader struct {
	Type  string // text, image, video, document
	Text  string
	Media *MediaRef
}

// ReplyButton is one quick-reply button.
type ReplyButton struct{ ID, Title string }

// ListAction is a list message's button and its sections.
type ListAction struct {
	Button   string
	Sections []ListSection
}

// ListSection is one section of a list.
type ListSection struct {
	Title string
	Rows  []ListRow
}

// ListRow is one choice of a list.
type ListRow struct{ ID, Title, Description string }

// CTAURL is the one button of a call-to-action message.
type CTAURL struct{ DisplayText, URL string }

// SessionReaction is an emoji on a message; an empty emoji removes ours.
type SessionReaction struct {
	MessageID string // Herald's msg_ id or Meta's wamid of the message reacted to
	Emoji     string
}

// SessionTypes lists the session message types in the API's order.
func SessionTypes() []string {
	return []string{KindText, KindImage, KindVideo, KindAudio, KindDocument, KindSticker,
		KindLocation, KindContacts, KindInteractive, KindReaction}
}

// IsMediaType reports whether t is one of the media message types.
func IsMediaType(t string) bool {
	switch t {
	case KindImage, KindVideo, KindAudio, KindDocument, KindSticker:
		return true
	}
	return false
}

// Check applies Meta's limits to the content, naming the offending field
// in the API's dotted form (text.body, interactive.action.buttons[1].title,
// …). Links must be public URLs under the policy.
func (s SessionContent) Check(p MediaPolicy) error {
	present := 0
	for _, set := range []bool{s.Text != nil, s.Media != nil, s.Location != nil, s.Contacts != nil,
		s.Interactive != nil, s.Reaction != nil} {
		if set {
			present++
		}
	}
	switch {
	case s.Type == "":
		return InvalidParameter("type", "type is one of "+strings.Join(SessionTypes(), ", "))
	case s.Type == KindText:
		if s.Text == nil {
			return missingObject("text")
		}
	case IsMediaType(s.Type):
		if s.Media == nil {
			return missingObject(s.Type)
		}
	case s.Type == KindLocation:
		if s.Location == nil {
			return missingObject("location")
		}
	case s.Type == KindContacts:
		if s.Contacts == nil {
			return missingObject("contacts")
		}
	case s.Type == KindInteractive:
		if s.Interactive == nil {
			return missingObject("interactive")
		}
	case s.Type == KindReaction:
		if s.Reaction == nil {
			return missingObject("reaction")
		}
	default:
		return InvalidParameter("type", "type is one of "+strings.Join(SessionTypes(), ", "))
	}
	if present != 1 {
		return InvalidParameter("type", "a session message carries only the object of its type ("+s.Type+")")
	}
	switch {
	case s.Text != nil:
		return checkText(s.Text)
	case s.Media != nil:
		return checkMedia(s.Type, *s.Media, p)
	case s.Location != nil:
		return checkLocation(*s.Location)
	case s.Contacts != nil:
		return checkCards(s.Contacts)
	case s.Interactive != nil:
		return checkInteractive(*s.Interactive, p)
	default:
		return checkReaction(*s.Reaction)
	}
}

func missingObject(t string) error {
	return InvalidParameter(t, "a "+t+" message needs the "+t+" object")
}

// Preview is a short text of the content for the conversation thread.
func (s SessionContent) Preview() string {
	switch {
	case s.Text != nil:
		return s.Text.Body
	case s.Media != nil:
		if s.Media.Caption != "" {
			return s.Media.Caption
		}
		if s.Media.Filename != "" {
			return s.Media.Filename
		}
		return "[" + s.Type + "]"
	case s.Location != nil:
		return strings.TrimSpace(s.Location.Name + " " + s.Location.Address)
	case len(s.Contacts) > 0:
		return s.Contacts[0].FormattedName
	case s.Interactive != nil:
		return s.Interactive.Body
	case s.Reaction != nil:
		return s.Reaction.Emoji
	}
	return ""
}

// limit refuses a value of field longer than max characters, or not
// valid text; required refuses it empty too.
func limit(field, v string, max int, required bool) error {
	if err := CheckText(field, field, v); err != nil {
		return err
	}
	if required && strings.TrimSpace(v) == "" {
		return InvalidParameter(field, field+" is required")
	}
	if n := utf8.RuneCountInString(v); n > max {
		return InvalidParameter(field, fmt.Sprintf("%s is at most %d characters (%d given)", field, max, n))
	}
	return nil
}

func checkText(t *SessionText) error {
	return limit("text.body", t.Body, MaxTextBody, true)
}

func checkMediaRef(field string, r MediaRef, p MediaPolicy) error {
	switch {
	case r.MediaID != "" && r.Link != "":
		return InvalidParameter(field, field+" takes mediaId or link, not both")
	case r.MediaID == "" && r.Link == "":
		return InvalidParameter(field, field+" needs mediaId (an uploaded med_ id) or link")
	case r.MediaID != "":
		if !validID(PrefixMedia, r.MediaID) {
			return InvalidParameter(field+".mediaId", "mediaId is a med_ id")
		}
	default:
		if why := checkPublicURL(r.Link, field+".link", p.AllowHTTP, p.AllowedHosts); why != "" {
			return &Error{Code: CodeInvalidMediaURL, Param: field + ".link", Detail: why}
		}
	}
	return nil
}

func checkMedia(t string, m SessionMedia, p MediaPolicy) error {
	if err := checkMediaRef(t, m.MediaRef, p); err != nil {
		return err
	}
	if m.Caption != "" && (t == KindAudio || t == KindSticker) {
		return InvalidParameter(t+".caption", "an "+t+" message has no caption")
	}
	if m.Filename != "" && t != KindDocument {
		return InvalidParameter(t+".filename", "only a document has a file name")
	}
	if m.Voice && t != KindAudio {
		return InvalidParameter(t+".voice", "only audio is a voice note")
	}
	if err := limit(t+".caption", m.Caption, MaxCaption, false); err != nil {
		return err
	}
	if err := limit(t+".filename", m.Filename, MaxFilename, false); err != nil {
		return err
	}
	if strings.ContainsAny(m.Filename, `/\`) {
		return InvalidParameter(t+".filename", "a file name has no path")
	}
	return nil
}

func checkLocation(l SessionLocation) error {
	if math.IsNaN(l.Latitude) || l.Latitude < -90 || l.Latitude > 90 {
		return InvalidParameter("location.latitude", "latitude is between -90 and 90")
	}
	if math.IsNaN(l.Longitude) || l.Longitude < -180 || l.Longitude > 180 {
		return InvalidParameter("location.longitude", "longitude is between -180 and 180")
	}
	if err := limit("location.name", l.Name, MaxLocationText, false); err != nil {
		return err
	}
	return limit("location.address", l.Address, MaxLocationText, false)
}

func checkCards(cards []ContactCard) error {
	if len(cards) == 0 || len(cards) > MaxContactCards {
		return InvalidParameter("contacts", fmt.Sprintf("contacts holds 1 to %d cards", MaxContactCards))
	}
	for i, c := range cards {
		f := fmt.Sprintf("contacts[%d]", i)
		if err := limit(f+".name.formattedName", c.FormattedName, MaxNameLength, true); err != nil {
			return err
		}
		for _, v := range []struct{ field, value string }{
			{".name.firstName", c.FirstName}, {".name.lastName", c.LastName}, {".org.company", c.Company},
		} {
			if err := limit(f+v.field, v.value, MaxNameLength, false); err != nil {
				return err
			}
		}
		if c.Birthday != "" {
			if _, err := time.Parse(time.DateOnly, c.Birthday); err != nil {
				return InvalidParameter(f+".birthday", "birthday is a date, YYYY-MM-DD")
			}
		}
		if len(c.Phones)+len(c.Emails)+len(c.URLs) > 20 {
			return InvalidParameter(f, "a card has at most 20 phones, emails and urls together")
		}
		for j, ph := range c.Phones {
			if err := limit(fmt.Sprintf("%s.phones[%d].phone", f, j), ph.Phone, 64, true); err != nil {
				return err
			}
			if err := limit(fmt.Sprintf("%s.phones[%d].type", f, j), ph.Type, 64, false); err != nil {
				return err
			}
			if ph.WaID != "" && !ValidWaID(ph.WaID) {
				return InvalidParameter(fmt.Sprintf("%s.phones[%d].waId", f, j), "waId is a WhatsApp id: digits only")
			}
		}
		for j, e := range c.Emails {
			if err := limit(fmt.Sprintf("%s.emails[%d].email", f, j), e.Email, 256, true); err != nil {
				return err
			}
			if err := limit(fmt.Sprintf("%s.emails[%d].type", f, j), e.Type, 64, false); err != nil {
				return err
			}
		}
		for j, u := range c.URLs {
			if err := limit(fmt.Sprintf("%s.urls[%d].url", f, j), u.URL, MaxMediaURLLength, true); err != nil {
				return err
			}
			if err := limit(fmt.Sprintf("%s.urls[%d].type", f, j), u.Type, 64, false); err != nil {
				return err
			}
		}
	}
	return nil
}

func checkInteractive(in Interactive, p MediaPolicy) error {
	if err := limit("interactive.body.text", in.Body, MaxInteractiveBody, true); err != nil {
		return err
	}
	if err := limit("interactive.footer.text", in.Footer, MaxInteractiveFooter, false); err != nil {
		return err
	}
	if h := in.Header; h != nil {
		switch h.Type {
		case "text":
			if h.Media != nil {
				return InvalidParameter("interactive.header", "a text header has no media")
			}
			if err := limit("interactive.header.text", h.Text, MaxInteractiveHeader, true); err != nil {
				return err
			}
		case KindImage, KindVideo, KindDocument:
			if in.Type == InteractiveList {
				return InvalidParameter("interactive.header.type", "a list's header is text only")
			}
			if h.Text != "" || h.Media == nil {
				return InvalidParameter("interactive.header", "a "+h.Type+" header carries the "+h.Type+" object only")
			}
			if err := checkMediaRef("interactive.header."+h.Type, *h.Media, p); err != nil {
				return err
			}
		default:
			return InvalidParameter("interactive.header.type", "a header is text, image, video or document")
		}
	}
	onlyOne := func(want string) error {
		if (in.Buttons != nil) != (want == InteractiveButton) || (in.List != nil) != (want == InteractiveList) ||
			(in.CTA != nil) != (want == InteractiveCTAURL) {
			return InvalidParameter("interactive.action", "an interactive "+want+" message carries the action of its type only")
		}
		return nil
	}
	switch in.Type {
	case InteractiveButton:
		if err := onlyOne(in.Type); err != nil {
			return err
		}
		return checkButtons(in.Buttons)
	case InteractiveList:
		if err := onlyOne(in.Type); err != nil {
			return err
		}
		return checkList(*in.List)
	case InteractiveCTAURL:
		if err := onlyOne(in.Type); err != nil {
			return err
		}
		if err := limit("interactive.action.displayText", in.CTA.DisplayText, MaxCTADisplayText, true); err != nil {
			return err
		}
		if err := limit("interactive.action.url", in.CTA.URL, MaxMediaURLLength, true); err != nil {
			return err
		}
		if u, err := url.Parse(in.CTA.URL); err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
			return InvalidParameter("interactive.action.url", "the button's url is an absolute http or https URL")
		}
		return nil
	}
	return InvalidParameter("interactive.type", "interactive.type is button, list or cta_url")
}

func checkButtons(buttons []ReplyButton) error {
	if len(buttons) == 0 || len(buttons) > MaxReplyButtons {
		return InvalidParameter("interactive.action.buttons", fmt.Sprintf("a button message has 1 to %d buttons", MaxReplyButtons))
	}
	ids, titles := map[string]bool{}, map[string]bool{}
	for i, b := range buttons {
		f := fmt.Sprintf("interactive.action.buttons[%d]", i)
		if err := limit(f+".title", b.Title, MaxReplyButtonTitle, true); err != nil {
			return err
		}
		if err := limit(f+".id", b.ID, MaxReplyButtonID, true); err != nil {
			return err
		}
		if strings.TrimSpace(b.ID) != b.ID {
			return InvalidParameter(f+".id", "a button's id has no leading or trailing spaces")
		}
		if ids[b.ID] || titles[b.Title] {
			return InvalidParameter(f, "buttons' ids and titles are unique")
		}
		ids[b.ID], titles[b.Title] = true, true
	}
	return nil
}

func checkList(l ListAction) error {
	if err := limit("interactive.action.button", l.Button, MaxListButton, true); err != nil {
		return err
	}
	if len(l.Sections) == 0 || len(l.Sections) > MaxListSections {
		return InvalidParameter("interactive.action.sections", fmt.Sprintf("a list has 1 to %d sections", MaxListSections))
	}
	rows, ids := 0, map[string]bool{}
	for i, s := range l.Sections {
		f := fmt.Sprintf("interactive.action.sections[%d]", i)
		if err := limit(f+".title", s.Title, MaxListSectionTitle, len(l.Sections) > 1); err != nil {
			return err
		}
		if len(s.Rows) == 0 {
			return InvalidParameter(f+".rows", "a section has at least one row")
		}
		for j, r := range s.Rows {
			rf := fmt.Sprintf("%s.rows[%d]", f, j)
			rows++
			if rows > MaxListRows {
				return InvalidParameter(rf, fmt.Sprintf("a list has at most %d rows in all its sections", MaxListRows))
			}
			if err := limit(rf+".id", r.ID, MaxListRowID, true); err != nil {
				return err
			}
			if ids[r.ID] {
				return InvalidParameter(rf+".id", "rows' ids are unique")
			}
			ids[r.ID] = true
			if err := limit(rf+".title", r.Title, MaxListRowTitle, true); err != nil {
				return err
			}
			if err := limit(rf+".description", r.Description, MaxListRowDesc, false); err != nil {
				return err
			}
		}
	}
	return nil
}

func checkReaction(r SessionReaction) error {
	if err := limit("reaction.messageId", r.MessageID, MaxProviderRef, true); err != nil {
		return err
	}
	if strings.ContainsAny(r.MessageID, " \t\r\n") {
		return InvalidParameter("reaction.messageId", "reaction.messageId is a message id")
	}
	// An emoji is one grapheme, which may be several code points (skin
	// tones, flags, joined sequences): a short bound is enough.
	return limit("reaction.emoji", r.Emoji, 16, false)
}

// CheckReplyTo checks a replyTo reference: Herald's msg_ id or Meta's
// wamid of the message quoted.
func CheckReplyTo(ref string, t string) error {
	if ref == "" {
		return nil
	}
	if t == KindReaction {
		return InvalidParameter("replyTo", "a reaction cannot quote a message")
	}
	if err := limit("replyTo", ref, MaxProviderRef, true); err != nil {
		return err
	}
	if strings.ContainsAny(ref, " \t\r\n") {
		return InvalidParameter("replyTo", "replyTo is a message id")
	}
	return nil
}

// ServiceWindowExpiresAt is when the contact's customer-service window
// closes (or closed): 24 hours after their last inbound message. ok is
// false when they never wrote.
func (c Contact) ServiceWindowExpiresAt() (at time.Time, ok bool) {
	if c.LastInboundAt == nil {
		return time.Time{}, false
	}
	return c.LastInboundAt.Add(ServiceWindow), true
}

// CheckServiceWindow refuses a session message to a contact whose window is
// closed at now: outside_service_window, with when it closed (zero when it
// never opened).
func (c Contact) CheckServiceWindow(now time.Time) error {
	exp, ok := c.ServiceWindowExpiresAt()
	if ok && now.Before(exp) {
		return nil
	}
	return OutsideServiceWindow(exp)
}

// WindowClosedError refuses a session message outside the contact's
// customer-service window; ClosedAt is when the window closed, zero when
// the contact never wrote.
type WindowClosedError struct {
	Err      *Error
	ClosedAt time.Time
}

func (e *WindowClosedError) Error() string { return e.Err.Error() }

// Unwrap returns the domain error, so errors.Is and errors.As see its code.
func (e *WindowClosedError) Unwrap() error { return e.Err }

// OutsideServiceWindow is the refusal of a session message whose
// contact's window closed at closedAt (zero: never opened).
func OutsideServiceWindow(closedAt time.Time) *WindowClosedError {
	detail := "the contact has not written to this business, so only a template can start the conversation"
	if !closedAt.IsZero() {
		detail = "the contact's 24-hour customer-service window closed at " + closedAt.UTC().Format(time.RFC3339) +
			"; send an approved template instead, and answer freely once they reply"
	}
	return &WindowClosedError{Err: &Error{Code: CodeOutsideServiceWindow, Param: "to", Detail: detail}, ClosedAt: closedAt.UTC()}
}
