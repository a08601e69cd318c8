package domain

import "time"

// Direction says who wrote a conversation entry.
type Direction struct{ s string }

// The directions of a conversation entry.
var (
	Outbound = Direction{"outbound"}
	Inbound  = Direction{"inbound"}
)

// ParseDirection parses "outbound" or "inbound".
func ParseDirection(s string) (Direction, error) {
	switch s {
	case "outbound":
		return Outbound, nil
	case "inbound":
		return Inbound, nil
	}
	return Direction{}, InvalidParameter("direction", "direction must be outbound or inbound")
}

func (d Direction) String() string { return d.s }

// IsZero reports whether d is the zero value.
func (d Direction) IsZero() bool { return d.s == "" }

// The kinds of conversation entry: outbound entries are templates; inbound
// ones are the WhatsApp message types. A type Herald does not know is kept
// under its own name.
const (
	KindTemplate    = "template"
	KindText        = "text"
	KindImage       = "image"
	KindVideo       = "video"
	KindAudio       = "audio"
	KindDocument    = "document"
	KindSticker     = "sticker"
	KindButton      = "button"      // a quick-reply button of a template tapped
	KindInteractive = "interactive" // a button or list reply
	KindReaction    = "reaction"    // an emoji on one of our messages
	KindLocation    = "location"
	KindContacts    = "contacts"    // shared contact cards
	KindUnsupported = "unsupported" // a message type WhatsApp does not deliver to businesses
)

// Attachment is media a contact sent. The bytes stay at Meta: ID is Meta's
// media id, to download with the access token.
type Attachment struct {
	ID       string
	MimeType string
	SHA256   string // base64, as Meta gives it
	Filename string // documents only
}

// InboundMessage is a message a contact wrote, as WhatsApp reported it.
type InboundMessage struct {
	ProviderID string // Meta's wamid: a message is recorded once
	Kind       string
	// Text is what the contact wrote: a text's body, a media caption, a
	// tapped button's text or a reply's title.
	Text string
	// Payload is what the business defined behind a tapped button: the
	// quick reply's payload, or the reply's id.
	Payload string
	Media   *Attachment
	// ReplyTo is the wamid of the message this one answers (a tapped
	// template button or a quoted message), when it has one.
	ReplyTo string
	At      time.Time
	// Failure is Meta's reason when the message type is not supported.
	Failure *Failure
}

// Entry is one item of a contact's conversation thread: an outbound template
// message or an inbound message from the contact.
type Entry struct {
	ID             EntryID
	Workspace      WorkspaceID
	ContactID      ContactID
	ConversationID ConversationID
	Direction      Direction
	Kind           string        // KindTemplate for outbound entries, the message type for inbound ones
	MessageID      MessageID     // outbound entries: the message sent
	Status         MessageStatus // outbound entries: the message's current status, filled on read
	Mode           KeyMode       // the entry's traffic: its message's mode if outbound (test: it stayed in the sandbox), live if inbound (it came from Meta)
	Body           string
	// Inbound entries: Meta's wamid (unique in the workspace), the
	// button payload or reply id, the media, and which of our messages
	// this one answers.
	ProviderID string
	Payload    string
	Media      *Attachment
	ReplyTo    MessageID
	CreatedAt  time.Time
}

// OutboundEntry is the thread entry for a message just accepted.
func OutboundEntry(id EntryID, m Message, c Contact) Entry {
	kind := KindTemplate
	if m.Session != nil {
		kind = m.Session.Type
	}
	return Entry{ID: id, Workspace: m.Workspace, ContactID: c.ID, ConversationID: c.ConversationID,
		Direction: Outbound, Kind: kind, MessageID: m.ID, Status: m.Status, Mode: m.Mode, Body: m.RenderedBody,
		CreatedAt: m.CreatedAt}
}

// InboundEntry is the thread entry for a message the contact wrote;
// replyTo is our message it answers, when Herald sent it.
func InboundEntry(id EntryID, c Contact, m InboundMessage, replyTo MessageID) Entry {
	e := Entry{ID: id, Workspace: c.Workspace, ContactID: c.ID, ConversationID: c.ConversationID, Mode: ModeLive,
		Direction: Inbound, Kind: m.Kind, Body: m.Text, ProviderID: m.ProviderID, Payload: m.Payload,
		ReplyTo: replyTo, CreatedAt: m.At.UTC().Truncate(time.Microsecond)}
	if m.Media != nil {
		a := *m.Media
		e.Media = &a
	}
	if e.Body == "" && m.Failure != nil {
		e.Body = m.Failure.Title
	}
	return e
}
