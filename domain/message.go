package domain

import (
	"time"
)

// MessageStatus is where a message is on its way to the recipient.
type MessageStatus struct{ s string }

// The message statuses, in the order they are reached. Failed is terminal and
// may follow any status before read.
var (
	StatusQueued    = MessageStatus{"queued"}
	StatusSending   = MessageStatus{"sending"}
	StatusSent      = MessageStatus{"sent"}
	StatusDelivered = MessageStatus{"delivered"}
	StatusRead      = MessageStatus{"read"}
	StatusFailed    = MessageStatus{"failed"}
)

// MessageStatuses lists every status in lifecycle order.
func MessageStatuses() []MessageStatus {
	return []MessageStatus{StatusQueued, StatusSending, StatusSent, StatusDelivered, StatusRead, StatusFailed}
}

// ParseMessageStatus parses a stored or reported status.
func ParseMessageStatus(s string) (MessageStatus, error) {
	for _, m := range MessageStatuses() {
		if s == m.s {
			return m, nil
		}
	}
	return MessageStatus{}, InvalidParameter("status", "unknown message status "+s)
}

func (s MessageStatus) String() string { return s.s }

// IsZero reports whether s is the zero value.
func (s MessageStatus) IsZero() bool { return s.s == "" }

// ReportedByProvider reports whether the provider has reported the message
// (sent, delivered, read or failed): it is past Herald's own hands.
func (s MessageStatus) ReportedByProvider() bool {
	return s.rank() >= StatusSent.rank() || s == StatusFailed
}

// IsTerminal reports whether nothing can move the message on from s.
func (s MessageStatus) IsTerminal() bool { return s == StatusRead || s == StatusFailed }

func (s MessageStatus) rank() int {
	switch s {
	case StatusQueued:
		return 1
	case StatusSending:
		return 2
	case StatusSent:
		return 3
	case StatusDelivered:
		return 4
	case StatusRead:
		return 5
	}
	return 0
}

// StatusChange is one entry of a message's status history.
type StatusChange struct {
	Status MessageStatus
	At     time.Time
}

// Failure is why a message failed: the provider's error code and title,
// or, when Herald failed the message without sending it, Herald's own
// code (HeraldCode, e.g. CodeContactOptedOut) with Code 0.
type Failure struct {
	Code       int
	Title      string
	HeraldCode Code
}

// MetaOutsideWindowCode is Meta's error for a session message sent
// outside the customer-service window ("Re-engagement message"): Herald
// records it as outside_service_window.
const MetaOutsideWindowCode = 131047

// Pricing is how Meta charges for a message, as its status events report
// it: the pricing model (PMP, or CBP before July 2025), the type (regular,
// free_customer_service, free_entry_point) and the category (marketing,
// utility, …).
type Pricing struct {
	Model    string
	Type     string
	Category string
	Billable bool
}

// Message is one message to one recipient: a campaign's template, or a
// session message (Kind MessageKindSession, no campaign, its content in
// Session).
type Message struct {
	ID             MessageID
	Kind           string // MessageKindTemplate or MessageKindSession
	Workspace      WorkspaceID
	CampaignID     CampaignID
	ContactID      ContactID
	KeyID          KeyID
	Mode           KeyMode
	Phone          PhoneNumber
	TemplateName   string
	Language       string
	HeaderFormat   HeaderFormat
	Variables      []string
	MediaHeaderURL string
	MediaFilename  string // a document header's file name, sent with its link
	// Values are every slot of the template with the value this message
	// sends it; nil for a message accepted before slots existed, which
	// sends Variables as the body and MediaHeaderURL as the header.
	Values       []SlotValue
	RenderedBody string
	Status       MessageStatus
	History      []StatusChange
	ProviderID   string // Meta's wamid, once sent
	WaID         string // the recipient's WhatsApp id, as Meta answered the send
	Failure      *Failure
	Pricing      *Pricing // from Meta's status events, once one carries it
	// Session messages: what the message says, and the wamid of the
	// message it quotes (Meta's context), when it quotes one.
	Session   *SessionContent
	ReplyTo   string
	CreatedAt time.Time
	UpdatedAt time.Time
	// TraceParent is the W3C traceparent of the request that accepted the
	// message, "" without tracing: its send's span links back to it.
	TraceParent string
	// Number is the business number the message leaves from; "" for a
	// message from before several numbers (the HERALD_WHATSAPP_* number)
	// and for test mode's (the sandbox number).
	Number BusinessNumberID
}

// NewMessage makes a queued message from a campaign's prepared send.
//
// A live message leaves from the campaign's number; a test message from
// the sandbox's.
func NewMessage(id MessageID, c Campaign, contact Contact, p Principal, prep Prepared, now time.Time) Message {
	now = now.UTC().Truncate(time.Microsecond)
	var number BusinessNumberID
	if p.Mode == ModeLive {
		number = c.Number
	}
	return Message{
		Number: number,
		ID:     id, Kind: MessageKindTemplate, Workspace: c.Workspace, CampaignID: c.ID, ContactID: contact.ID,
		KeyID: p.Key, Mode: p.Mode, Phone: contact.Phone,
		TemplateName: c.Template.Name, Language: c.Template.Language, HeaderFormat: c.Template.HeaderFormat,
		Variables: prep.Variables, MediaHeaderURL: prep.MediaHeaderURL, MediaFilename: prep.MediaFilename, Values: prep.Values,
		RenderedBody: prep.RenderedBody,
		Status:       StatusQueued,
		History:      []StatusChange{{Status: StatusQueued, At: now}},
		CreatedAt:    now, UpdatedAt: now,
	}
}

// NewSessionMessage makes a queued session message to contact, quoting
// the message whose wamid is replyTo when it is not empty.
func NewSessionMessage(id MessageID, contact Contact, p Principal, phone PhoneNumber, content SessionContent, replyTo string, now time.Time) Message {
	now = now.UTC().Truncate(time.Microsecond)
	return Message{
		ID: id, Kind: MessageKindSession, Workspace: contact.Workspace, ContactID: contact.ID,
		KeyID: p.Key, Mode: p.Mode, Phone: phone, Variables: []string{},
		Session: &content, ReplyTo: replyTo, RenderedBody: content.Preview(),
		Status:    StatusQueued,
		History:   []StatusChange{{Status: StatusQueued, At: now}},
		CreatedAt: now, UpdatedAt: now,
	}
}

// IsSession reports whether m is a session message.
func (m Message) IsSession() bool { return m.Kind == MessageKindSession }

// Advance records that the message reached status at the given time. Status
// only moves forward: a late or repeated event is kept in the history (once)
// but does not move the status back, and nothing moves a failed or read
// message. failure is recorded when status is failed and the move happens.
// Advance reports whether the message changed at all.
func (m *Message) Advance(status MessageStatus, at time.Time, failure *Failure) bool {
	if status.IsZero() {
		return false
	}
	for _, h := range m.History {
		if h.Status == status {
			return false // a duplicate event changes nothing
		}
	}
	at = at.UTC().Truncate(time.Microsecond)
	m.History = append(m.History, StatusChange{Status: status, At: at})
	sortHistory(m.History)
	if at.After(m.UpdatedAt) {
		m.UpdatedAt = at
	}
	switch {
	case m.Status.IsTerminal():
	case status == StatusFailed:
		m.Status = StatusFailed
		if failure != nil {
			f := *failure
			if f.Code == MetaOutsideWindowCode && f.HeraldCode == "" {
				f.HeraldCode = CodeOutsideServiceWindow
			}
			m.Failure = &f
		}
	case status.rank() > m.Status.rank():
		m.Status = status
	}
	return true
}

// WithDelivery is m with the delivery of r: what Meta's reports change of
// a message (its status and history, Meta's wamid, the recipient's wa_id,
// the failure, the pricing and when it last changed). m's content stays.
func (m Message) WithDelivery(r Message) Message {
	m.Status, m.History, m.ProviderID, m.WaID = r.Status, r.History, r.ProviderID, r.WaID
	m.Failure, m.Pricing, m.UpdatedAt = r.Failure, r.Pricing, r.UpdatedAt
	return m
}

// RecordPricing keeps the first pricing Meta reports for the message (its
// sent event carries it; delivered or read may repeat it). It reports
// whether the message changed.
func (m *Message) RecordPricing(p *Pricing) bool {
	if p == nil || m.Pricing != nil {
		return false
	}
	c := *p
	m.Pricing = &c
	return true
}

// ReachedAt is when the message first reached status s, for statistics over
// time. Reaching a status implies the ones before it: a message read without
// a delivered event was delivered (and sent) when it was read. Failed counts
// only its own event. ok is false when the message never reached s.
func (m Message) ReachedAt(s MessageStatus) (at time.Time, ok bool) {
	for _, h := range m.History {
		reached := h.Status == s
		if s != StatusFailed && h.Status != StatusFailed && s.rank() >= StatusSent.rank() {
			reached = h.Status.rank() >= s.rank()
		}
		if reached && (!ok || h.At.Before(at)) {
			at, ok = h.At, true
		}
	}
	return at, ok
}

// sortHistory orders entries by time, then by lifecycle order for ties.
func sortHistory(h []StatusChange) {
	for i := 1; i < len(h); i++ {
		for j := i; j > 0 && historyLess(h[j], h[j-1]); j-- {
			h[j], h[j-1] = h[j-1], h[j]
		}
	}
}

func historyLess(a, b StatusChange) bool {
	if !a.At.Equal(b.At) {
		return a.At.Before(b.At)
	}
	ra, rb := a.Status.rank(), b.Status.rank()
	if a.Status == StatusFailed {
		ra = 6
	}
	if b.Status == StatusFailed {
		rb = 6
	}
	return ra < rb
}
