package whatsapp

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/heraldhq/herald/domain"
	"github.com/heraldhq/herald/ports"
)

// ErrNotWebhookPayload is what Decode returns (wrapped) for a body that is
// not JSON or not a WhatsApp Business Account webhook.
var ErrNotWebhookPayload = errors.New("whatsapp: not a webhook payload")

// Decode reads a verified webhook body: every entry, change and array item,
// in payload order. Statuses, inbound messages, identity changes (system
// notices of a changed number or user id), template status changes and
// account-level errors become events, each with the business number it
// came for; whatever Herald does not act on (another field, a status it
// does not track, another system notice, an item it cannot read) is left out with one line in Skipped, which names the item
// by position and never quotes phone numbers or message text. Times come
// from Meta's timestamps and are zero when one is missing or is not a unix
// time, so the caller decides what to use instead. The error wraps
// ErrNotWebhookPayload and only says the body is not JSON or not a WhatsApp
// Business Account webhook at all.
func (w *Webhooks) Decode(body []byte) (ports.WebhookBatch, error) {
	var p struct {
		Object string            `json:"object"`
		Entry  []json.RawMessage `json:"entry"`
	}
	if err := json.Unmarshal(body, &p); err != nil {
		return ports.WebhookBatch{}, fmt.Errorf("%w: %w", ErrNotWebhookPayload, err)
	}
	if p.Object != "whatsapp_business_account" {
		return ports.WebhookBatch{}, fmt.Errorf("%w: object is %q", ErrNotWebhookPayload, short(p.Object))
	}
	var d decoder
	for i, raw := range p.Entry {
		d.entry(fmt.Sprintf("entry %d", i), raw)
	}
	return d.batch, nil
}

// The parts of a webhook body. Arrays are kept raw down to their items, so
// that one unreadable item is skipped without losing the others.
type (
	webhookEntry struct {
		ID      string            `json:"id"`
		Time    unixTime          `json:"time"`
		Changes []json.RawMessage `json:"changes"`
	}
	webhookChange struct {
		Field string          `json:"field"`
		Value json.RawMessage `json:"value"`
	}
	messagesValue struct {
		Metadata struct {
			PhoneNumberID string `json:"phone_number_id"`
		} `json:"metadata"`
		Contacts []json.RawMessage `json:"contacts"`
		Messages []json.RawMessage `json:"messages"`
		Statuses []json.RawMessage `json:"statuses"`
		Errors   []json.RawMessage `json:"errors"`
	}
	statusItem struct {
		ID          string            `json:"id"`
		Status      string            `json:"status"`
		Timestamp   unixTime          `json:"timestamp"`
		RecipientID string            `json:"recipient_id"`
		BizOpaque   string            `json:"biz_opaque_callback_data"`
		Pricing     json.RawMessage   `json:"pricing"`
		Errors      []json.RawMessage `json:"errors"`
		// Business-scoped user ids (2026): sources disagree on the
		// parent's name, so both are read.
		RecipientUserID       string            `json:"recipient_user_id"`
		RecipientParentUserID string            `json:"recipient_parent_user_id"`
		ParentRecipientUserID string            `json:"parent_recipient_user_id"`
		Contacts              []json.RawMessage `json:"contacts"`
	}
	templateStatusValue struct {
		Event    string `json:"event"`
		Name     string `json:"message_template_name"`
		Language string `json:"message_template_language"`
		Reason   string `json:"reason"` // null when the template is being deleted
	}
)

// decoder accumulates one body's events.
type decoder struct{ batch ports.WebhookBatch }

func (d *decoder) skip(at, format string, args ...any) {
	d.batch.Skipped = append(d.batch.Skipped, at+": "+fmt.Sprintf(format, args...))
}

func (d *decoder) entry(at string, raw json.RawMessage) {
	var e webhookEntry
	if err := json.Unmarshal(raw, &e); err != nil {
		d.skip(at, "unreadable entry: %v", err)
		return
	}
	for i, raw := range e.Changes {
		at := fmt.Sprintf("%s change %d", at, i)
		var c webhookChange
		if err := json.Unmarshal(raw, &c); err != nil {
			d.skip(at, "unreadable change: %v", err)
			continue
		}
		switch c.Field {
		case "messages":
			d.messages(at, c.Value)
		case "message_template_status_update":
			d.templateStatus(at, e.ID, e.Time.t, c.Value)
		case "user_preferences":
			d.userPreferences(at, c.Value)
		case "template_category_update":
			d.templateCategory(at, e.ID, e.Time.t, c.Value)
		case "phone_number_quality_update":
			d.qualityUpdate(at, e.ID, e.Time.t, c.Value)
		case "business_capability_update":
			d.capabilityUpdate(at, e.ID, e.Time.t, c.Value)
		case "account_update":
			d.accountUpdate(at, e.ID, e.Time.t, c.Value)
		case "account_alerts":
			d.accountAlert(at, e.ID, e.Time.t, c.Value)
		default:
			d.skip(at, "field %q is not handled", short(c.Field))
		}
	}
}

// messages reads a "messages" change: inbound messages, statuses of
// sent messages and account-level errors, in any combination.
func (d *decoder) messages(at string, raw json.RawMessage) {
	var v messagesValue
	if err := json.Unmarshal(raw, &v); err != nil {
		d.skip(at, "unreadable value: %v", err)
		return
	}
	number := v.Metadata.PhoneNumberID
	contacts := readContacts(v.Contacts)
	for i, raw := range v.Statuses {
		d.status(fmt.Sprintf("%s status %d", at, i), number, raw, contacts)
	}
	for i, raw := range v.Messages {
		d.message(fmt.Sprintf("%s message %d", at, i), number, raw, contacts)
	}
	for i, raw := range v.Errors {
		if f := readFailure(raw); f != nil {
			d.batch.Errors = append(d.batch.Errors, *f)
		} else {
			d.skip(fmt.Sprintf("%s error %d", at, i), "unreadable error")
		}
	}
}

// metaStatuses maps Meta's status names to Herald's; played (the first
// play of a voice message) counts as read.
var metaStatuses = map[string]domain.MessageStatus{
	"sent":      domain.StatusSent,
	"delivered": domain.StatusDelivered,
	"read":      domain.StatusRead,
	"played":    domain.StatusRead,
	"failed":    domain.StatusFailed,
}

func (d *decoder) status(at, number string, raw json.RawMessage, contacts []domain.WhatsAppUser) {
	var s statusItem
	if err := json.Unmarshal(raw, &s); err != nil {
		d.skip(at, "unreadable status: %v", err)
		return
	}
	status, ok := metaStatuses[s.Status]
	if !ok {
		d.skip(at, "status %q is not tracked", short(s.Status))
		return
	}
	e := ports.StatusEvent{ProviderID: s.ID, Status: status, At: s.Timestamp.t, Pricing: readPricing(s.Pricing),
		Number: number, Recipient: s.recipient(contacts)}
	// Herald puts its message id in biz_opaque_callback_data; anything
	// else there was put by someone else and matches nothing.
	if id, err := domain.ParseMessageID(s.BizOpaque); err == nil {
		e.MessageID = id
	}
	if e.ProviderID == "" && e.MessageID == "" {
		d.skip(at, "status %s has neither a wamid nor our message id", s.Status)
		return
	}
	if status == domain.StatusFailed && len(s.Errors) > 0 {
		e.Failure = readFailure(s.Errors[0])
		e.MarketingStopped = e.Failure != nil && MarketingStopped(e.Failure.Code)
	}
	d.batch.Statuses = append(d.batch.Statuses, e)
}

// recipient is what a status says of its recipient: recipient_id and the
// BSUIDs, completed by the status's own contacts or else the value's, the
// one with that wa_id or BSUID.
func (s statusItem) recipient(valueContacts []domain.WhatsAppUser) domain.WhatsAppUser {
	u := domain.WhatsAppUser{WaID: s.RecipientID, UserID: s.RecipientUserID,
		ParentUserID: cmp.Or(s.RecipientParentUserID, s.ParentRecipientUserID)}
	contacts := readContacts(s.Contacts)
	if len(contacts) == 0 {
		contacts = valueContacts
	}
	c := whoIs(contacts, u.WaID, u.UserID)
	u.WaID, u.UserID = cmp.Or(u.WaID, c.WaID), cmp.Or(u.UserID, c.UserID)
	u.ParentUserID, u.Username = cmp.Or(u.ParentUserID, c.ParentUserID), c.Username
	return u
}

func readPricing(raw json.RawMessage) *domain.Pricing {
	var p *struct {
		Billable bool   `json:"billable"`
		Model    string `json:"pricing_model"`
		Type     string `json:"type"`
		Category string `json:"category"`
	}
	if len(raw) == 0 || json.Unmarshal(raw, &p) != nil || p == nil {
		return nil
	}
	return &domain.Pricing{Model: p.Model, Type: p.Type, Category: p.Category, Billable: p.Billable}
}

// readFailure reads one of Meta's error objects; nil when it is not one.
// The code may arrive as a number or a string; the title falls back to the
// message, then to the details.
func readFailure(raw json.RawMessage) *domain.Failure {
	var e *struct {
		Code      flexInt `json:"code"`
		Title     string  `json:"title"`
		Message   string  `json:"message"`
		ErrorData struct {
			Details string `json:"details"`
		} `json:"error_data"`
	}
	if json.Unmarshal(raw, &e) != nil || e == nil {
		return nil
	}
	f := &domain.Failure{Code: int(e.Code), Title: e.Title}
	for _, alt := range []string{e.Message, e.ErrorData.Details} {
		if f.Title == "" {
			f.Title = alt
		}
	}
	return f
}

// readContacts reads a value's (or a status's) contacts: who wrote, or who
// received. The username is read from the profile, where Meta documents
// it, and beside it, where statuses carry it.
func readContacts(raws []json.RawMessage) []domain.WhatsAppUser {
	var out []domain.WhatsAppUser
	for _, raw := range raws {
		var c struct {
			WaID         string `json:"wa_id"`
			UserID       string `json:"user_id"`
			ParentUserID string `json:"parent_user_id"`
			Username     string `json:"username"`
			Profile      struct {
				Name     string `json:"name"`
				Username string `json:"username"`
			} `json:"profile"`
		}
		if json.Unmarshal(raw, &c) == nil {
			out = append(out, domain.WhatsAppUser{WaID: c.WaID, UserID: c.UserID, ParentUserID: c.ParentUserID,
				Username: cmp.Or(c.Profile.Username, c.Username), ProfileName: c.Profile.Name})
		}
	}
	return out
}

// whoIs finds the contact with the wa_id or the BSUID or, since wa_id and
// from may differ (Brazil's ninth digit), the only one there is.
func whoIs(contacts []domain.WhatsAppUser, waID, userID string) domain.WhatsAppUser {
	for _, c := range contacts {
		if (waID != "" && c.WaID == waID) || (userID != "" && c.UserID == userID) {
			return c
		}
	}
	if len(contacts) == 1 {
		return contacts[0]
	}
	return domain.WhatsAppUser{}
}

// messageHead is what every inbound message has. A user known only by
// their business-scoped user id comes without from.
type messageHead struct {
	From             string   `json:"from"`
	FromUserID       string   `json:"from_user_id"`
	FromParentUserID string   `json:"from_parent_user_id"`
	ID               string   `json:"id"`
	Timestamp        unixTime `json:"timestamp"`
	Type             string   `json:"type"`
	Context          *struct {
		ID string `json:"id"`
	} `json:"context"`
	Errors []json.RawMessage `json:"errors"`
	System *struct {
		Type         string `json:"type"`
		WaID         string `json:"wa_id"`
		UserID       string `json:"user_id"`
		ParentUserID string `json:"parent_user_id"`
	} `json:"system"`
}

// messageBody is the part of an inbound message that depends on its type.
type messageBody struct {
	Text *struct {
		Body string `json:"body"`
	} `json:"text"`
	Image    *media `json:"image"`
	Video    *media `json:"video"`
	Audio    *media `json:"audio"`
	Document *media `json:"document"`
	Sticker  *media `json:"sticker"`
	Button   *struct {
		Payload string `json:"payload"`
		Text    string `json:"text"`
	} `json:"button"`
	Interactive *struct {
		Type        string `json:"type"`
		ButtonReply *reply `json:"button_reply"`
		ListReply   *reply `json:"list_reply"`
		NFMReply    *struct {
			Body string `json:"body"`
		} `json:"nfm_reply"`
	} `json:"interactive"`
	Reaction *struct {
		MessageID string `json:"message_id"`
		Emoji     string `json:"emoji"`
	} `json:"reaction"`
	Location *struct {
		Name      string      `json:"name"`
		Address   string      `json:"address"`
		Latitude  json.Number `json:"latitude"`
		Longitude json.Number `json:"longitude"`
	} `json:"location"`
	Contacts []struct {
		Name struct {
			FormattedName string `json:"formatted_name"`
		} `json:"name"`
	} `json:"contacts"`
}

type media struct {
	ID       string `json:"id"`
	MimeType string `json:"mime_type"`
	SHA256   string `json:"sha256"`
	Filename string `json:"filename"`
	Caption  string `json:"caption"`
}

type reply struct {
	ID    string `json:"id"`
	Title string `json:"title"`
}

func (d *decoder) message(at, number string, raw json.RawMessage, contacts []domain.WhatsAppUser) {
	var h messageHead
	if err := json.Unmarshal(raw, &h); err != nil {
		d.skip(at, "unreadable message: %v", err)
		return
	}
	switch {
	case h.Type == "system":
		d.system(at, number, h)
		return
	case h.ID == "":
		d.skip(at, "message of type %q has no id", short(h.Type))
		return
	case h.From == "" && h.FromUserID == "":
		d.skip(at, "message of type %q has no sender", short(h.Type))
		return
	}
	c := whoIs(contacts, h.From, h.FromUserID)
	m := domain.InboundMessage{ProviderID: h.ID, Kind: kind(h.Type), At: h.Timestamp.t}
	if h.Context != nil {
		m.ReplyTo = h.Context.ID
	}
	if len(h.Errors) > 0 {
		m.Failure = readFailure(h.Errors[0])
	}
	var b messageBody
	if err := json.Unmarshal(raw, &b); err != nil {
		// Keep what the contact sent, even if its content cannot be read.
		d.skip(at, "unreadable %s content, message kept without it: %v", m.Kind, err)
	} else {
		b.fill(&m)
	}
	d.batch.Inbound = append(d.batch.Inbound, ports.InboundEvent{Number: number, From: h.From, WaID: c.WaID,
		ProfileName: c.ProfileName, UserID: cmp.Or(h.FromUserID, c.UserID),
		ParentUserID: cmp.Or(h.FromParentUserID, c.ParentUserID), Username: c.Username, Message: m})
}

// system reads a notice from WhatsApp. A user who changed their number or
// their business-scoped user id is an identity change: who they were
// (from, from_user_id) and who they are (the notice's wa_id and BSUIDs).
// Other notices are not acted on.
func (d *decoder) system(at, number string, h messageHead) {
	if h.System == nil || (h.System.Type != ports.UserChangedNumber && h.System.Type != ports.UserChangedUserID) {
		kind := ""
		if h.System != nil {
			kind = " " + short(h.System.Type)
		}
		d.skip(at, "system notice%s is not acted on", kind)
		return
	}
	e := ports.IdentityChangeEvent{Number: number, Kind: h.System.Type, ProviderID: h.ID, At: h.Timestamp.t,
		Old: domain.WhatsAppUser{WaID: h.From, UserID: h.FromUserID, ParentUserID: h.FromParentUserID},
		New: domain.WhatsAppUser{WaID: h.System.WaID, UserID: h.System.UserID, ParentUserID: h.System.ParentUserID}}
	switch {
	case e.Old.IsZero():
		d.skip(at, "system notice %s names nobody (no from, no from_user_id)", e.Kind)
		return
	case e.New.IsZero():
		d.skip(at, "system notice %s gives no new wa_id or user_id", e.Kind)
		return
	}
	d.batch.IdentityChanges = append(d.batch.IdentityChanges, e)
}

// kind is the conversation kind of Meta's message type: unknown and
// unsupported types are KindUnsupported, and a type that is not a plain
// lowercase word is not kept under its own name.
func kind(t string) string {
	switch t {
	case "unsupported", "unknown", "":
		return domain.KindUnsupported
	}
	if len(t) > 32 || strings.Trim(t, "abcdefghijklmnopqrstuvwxyz0123456789_") != "" {
		return domain.KindUnsupported
	}
	return t
}

// fill copies the content of m's type into m.
func (b messageBody) fill(m *domain.InboundMessage) {
	switch m.Kind {
	case domain.KindText:
		if b.Text != nil {
			m.Text = b.Text.Body
		}
	case domain.KindImage, domain.KindVideo, domain.KindAudio, domain.KindDocument, domain.KindSticker:
		if md := b.media(m.Kind); md != nil {
			m.Text = md.Caption
			m.Media = &domain.Attachment{ID: md.ID, MimeType: md.MimeType, SHA256: md.SHA256, Filename: md.Filename}
		}
	case domain.KindButton:
		if b.Button != nil {
			m.Text, m.Payload = b.Button.Text, b.Button.Payload
		}
	case domain.KindInteractive:
		if i := b.Interactive; i != nil {
			r := i.ButtonReply
			if i.Type == "list_reply" || r == nil {
				r = i.ListReply
			}
			switch {
			case r != nil:
				m.Text, m.Payload = r.Title, r.ID
			case i.NFMReply != nil:
				m.Text = i.NFMReply.Body
			}
		}
	case domain.KindReaction:
		if b.Reaction != nil {
			m.Text = b.Reaction.Emoji
			if m.ReplyTo == "" {
				m.ReplyTo = b.Reaction.MessageID
			}
		}
	case domain.KindLocation:
		if l := b.Location; l != nil {
			m.Text = joinNonEmpty("\n", l.Name, l.Address)
			if m.Text == "" && l.Latitude != "" && l.Longitude != "" {
				m.Text = l.Latitude.String() + "," + l.Longitude.String()
			}
		}
	case domain.KindContacts:
		var names []string
		for _, c := range b.Contacts {
			names = append(names, c.Name.FormattedName)
		}
		m.Text = joinNonEmpty(", ", names...)
	}
}

func (b messageBody) media(kind string) *media {
	switch kind {
	case domain.KindImage:
		return b.Image
	case domain.KindVideo:
		return b.Video
	case domain.KindAudio:
		return b.Audio
	case domain.KindDocument:
		return b.Document
	}
	return b.Sticker
}

func joinNonEmpty(sep string, parts ...string) string {
	var kept []string
	for _, p := range parts {
		if p != "" {
			kept = append(kept, p)
		}
	}
	return strings.Join(kept, sep)
}

// templateStatus reads a message_template_status_update change. Meta's
// message_template_id is a JSON number here (a string in the template
// list); Herald keys templates by name and language, so it is not read.
func (d *decoder) templateStatus(at, account string, when time.Time, raw json.RawMessage) {
	var v templateStatusValue
	if err := json.Unmarshal(raw, &v); err != nil {
		d.skip(at, "unreadable template status: %v", err)
		return
	}
	e := ports.TemplateStatusEvent{Account: account, Name: v.Name, Language: domain.CanonicalLanguage(v.Language),
		Event: v.Event, Reason: v.Reason, At: when}
	switch strings.ToUpper(v.Event) {
	case "APPROVED", "REINSTATED", "UNARCHIVED":
		e.Status = domain.TemplateApproved
	case "FLAGGED":
		// At risk of being disabled, but still sendable.
		d.skip(at, "template event FLAGGED leaves the template sendable")
		return
	default:
		s, err := domain.ParseTemplateStatus(v.Event)
		if err != nil {
			d.skip(at, "template event %q is not a status", short(v.Event))
			return
		}
		e.Status = s
	}
	if e.Name == "" || e.Language == "" {
		d.skip(at, "template event %s names no template and language", e.Status)
		return
	}
	d.batch.Templates = append(d.batch.Templates, e)
}

// unixTime is a time in unix seconds, which Meta sends as a string in
// messages and statuses and as a number in entry.time. Anything else, or a
// time outside years 1970 to 9999, reads as the zero time.
type unixTime struct{ t time.Time }

func (u *unixTime) UnmarshalJSON(b []byte) error {
	u.t = time.Time{}
	s := strings.Trim(string(b), `"`)
	if n, err := strconv.ParseInt(s, 10, 64); err == nil && n > 0 && n < 253402300800 {
		u.t = time.Unix(n, 0).UTC()
	}
	return nil
}

// flexInt is an error code that may arrive as a number or as a string
// (some BSPs pass "131056"); anything else reads as 0.
type flexInt int

func (f *flexInt) UnmarshalJSON(b []byte) error {
	*f = 0
	if n, err := strconv.ParseInt(strings.Trim(string(b), `"`), 10, 32); err == nil {
		*f = flexInt(n)
	}
	return nil
}

// short cuts a value quoted in a Skipped line to 40 characters.
func short(s string) string {
	if utf8.RuneCountInString(s) <= 40 {
		return s
	}
	r := []rune(s)
	return string(r[:40]) + "…"
}
