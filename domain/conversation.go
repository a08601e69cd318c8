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

// Entry is one item of a contact's conversation thread: an outbound template
// message or an inbound message from the contact.
type Entry struct {
	ID             EntryID
	Workspace      WorkspaceID
	ContactID      ContactID
	ConversationID ConversationID
	Direction      Direction
	MessageID      MessageID     // outbound entries: the message sent
	Status         MessageStatus // outbound entries: the message's current status, filled on read
	Body           string
	CreatedAt      time.Time
}

// OutboundEntry is the thread entry for a message just accepted.
func OutboundEntry(id EntryID, m Message, c Contact) Entry {
	return Entry{ID: id, Workspace: m.Workspace, ContactID: c.ID, ConversationID: c.ConversationID,
		Direction: Outbound, MessageID: m.ID, Status: m.Status, Body: m.RenderedBody, CreatedAt: m.CreatedAt}
}
