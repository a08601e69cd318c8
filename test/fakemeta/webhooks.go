package fakemeta

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"syscall"
	"time"
	"unicode/utf8"
)

// The webhook builders below write the JSON of Meta's webhook calls, in the
// shapes of the v24 webhooks (statuses carry pricing.type and no
// conversation), field for field as Meta documents them.
//
// Meta escapes every non-ASCII character in its webhook JSON as \uXXXX
// (lowercase hex, UTF-16 surrogate pairs beyond the BMP: "é😀" is
// "\u00e9\ud83d\ude00"), and it signs those bytes. The builders emit that
// escaped form, so a test signs and sends exactly the bytes Meta would; a
// receiver that re-encodes the JSON before checking the signature fails on
// them. Like Meta, and unlike encoding/json's default, they leave <, > and
// & as they are.

// DisplayPhoneNumber is the business number as the builders show it in
// metadata and in the context of replies.
const DisplayPhoneNumber = "15550783881"

// StatusUpdate is one status of an outbound message, as a status webhook
// reports it.
type StatusUpdate struct {
	WAMID, Status, RecipientID, BizOpaque string
	// RecipientUserID adds the recipient's business-scoped user id (2026):
	// recipient_user_id, and a contact beside the statuses with the user
	// id, RecipientID as wa_id and, on delivered and read, Username.
	// RecipientID may then be empty (a send to the user id).
	RecipientUserID, Username string
	At                        time.Time // when it happened; zero is now
	// Pricing adds Meta's pricing object (model PMP, type regular, billable),
	// with PricingCategory as its category ("marketing" when empty).
	Pricing         bool
	PricingCategory string
	// ErrorCode adds errors[] with the code; a failed status without one
	// gets 131026 (undeliverable). ErrorTitle defaults to Meta's title for
	// the code.
	ErrorCode  int
	ErrorTitle string
}

// Inbound is one message a contact sent. Type is Meta's message type:
// text, image, video, document, audio, sticker, button (a template's quick
// reply: set ReplyTo to the template message's wamid), button_reply or
// list_reply (sent as type interactive), reaction, location, contacts,
// unsupported or system; any other type is sent bare, with only the fields
// every message has.
type Inbound struct {
	From        string // the sender's phone number, digits only; empty for a user known only by their user id
	WaID        string // the contact's wa_id; From when empty
	ProfileName string
	// UserID, ParentUserID and Username are the sender's business-scoped
	// user id (from_user_id, and user_id of the contact), its parent and
	// username (2026).
	UserID, ParentUserID, Username string
	// SystemType is a system notice's type (user_changed_number when
	// empty, or user_changed_user_id); NewWaID and NewUserID are the
	// user's new wa_id and business-scoped user id it reports.
	SystemType, NewWaID, NewUserID string
	WAMID                          string // random when empty
	Type                           string
	// Text is the text's body, the button's or reply's title, the
	// reaction's emoji, the location's name, the shared contact's name or
	// the system notice.
	Text string
	// Payload is the quick reply's payload or the reply's id.
	Payload string
	// Description is a list reply's row description.
	Description string
	// ReplyTo is the context's id (the message quoted or whose button was
	// tapped), or the message a reaction is about.
	ReplyTo string
	// MediaID, MimeType, Caption and Filename describe media; MediaID and
	// MimeType get defaults. Caption is also a location's address.
	MediaID, MimeType, Caption, Filename string
	At                                   time.Time // zero is now
}

// StatusPayload is a status webhook body: one entry for wabaID with one
// change carrying the updates.
func StatusPayload(wabaID, phoneNumberID string, updates ...StatusUpdate) []byte {
	v := messagesValue(phoneNumberID)
	seen := map[string]bool{}
	for _, u := range updates {
		v.Statuses = append(v.Statuses, u.wire())
		if u.RecipientUserID != "" && !seen[u.RecipientUserID] {
			seen[u.RecipientUserID] = true
			c := whContact{WaID: u.RecipientID, UserID: u.RecipientUserID}
			if u.Status == "delivered" || u.Status == "read" {
				c.Profile.Username = u.Username
			}
			v.Contacts = append(v.Contacts, c)
		}
	}
	return encode(whPayload{Object: "whatsapp_business_account",
		Entry: []whEntry{{ID: wabaID, Changes: []whChange{{Field: "messages", Value: v}}}}})
}

// InboundPayload is an inbound message webhook body: one entry for wabaID
// with one change carrying the messages and the contacts who sent them.
// System notices come without contacts, as Meta sends them.
func InboundPayload(wabaID, phoneNumberID string, msgs ...Inbound) []byte {
	v := messagesValue(phoneNumberID)
	seen := map[string]bool{}
	for _, m := range msgs {
		v.Messages = append(v.Messages, m.wire())
		if m.Type == "system" {
			continue
		}
		waID := cmpOr(m.WaID, m.From)
		if key := cmpOr(waID, m.UserID); !seen[key] {
			seen[key] = true
			v.Contacts = append(v.Contacts, whContact{Profile: whProfile{Name: m.ProfileName, Username: m.Username},
				WaID: waID, UserID: m.UserID, ParentUserID: m.ParentUserID})
		}
	}
	return encode(whPayload{Object: "whatsapp_business_account",
		Entry: []whEntry{{ID: wabaID, Changes: []whChange{{Field: "messages", Value: v}}}}})
}

// ErrorsPayload is a system-level errors webhook body (no message
// concerned), such as 130429 when the number's throughput is exceeded.
func ErrorsPayload(wabaID, phoneNumberID string, code int, title string) []byte {
	v := messagesValue(phoneNumberID)
	v.Errors = []whError{wireError(code, title)}
	return encode(whPayload{Object: "whatsapp_business_account",
		Entry: []whEntry{{ID: wabaID, Changes: []whChange{{Field: "messages", Value: v}}}}})
}

// TemplateStatusPayload is a message_template_status_update webhook body.
// An empty reason is sent as null, as Meta does for templates scheduled
// for deletion.
func TemplateStatusPayload(wabaID, name, language, event, reason string, at time.Time) []byte {
	h := fnv.New64a()
	h.Write([]byte(name + "\x00" + language))
	v := whTemplateValue{Event: event,
		ID:       json.Number(strconv.FormatUint(1e15+h.Sum64()%9e15, 10)),
		Name:     name,
		Language: language,
	}
	if reason != "" {
		v.Reason = &reason
	}
	switch event {
	case "PAUSED":
		v.OtherInfo = &whOtherInfo{Title: "FIRST_PAUSE", Description: "Your WhatsApp message template has been paused."}
	case "REINSTATED":
		v.OtherInfo = &whOtherInfo{Title: "UNPAUSE", Description: "Your WhatsApp message template has been unpaused."}
	}
	return encode(whPayload{Object: "whatsapp_business_account",
		Entry: []whEntry{{ID: wabaID, Time: unixSeconds(at), Changes: []whChange{{Field: "message_template_status_update", Value: v}}}}})
}

// Batch joins webhook bodies into one: the entries of each, in order, as
// Meta batches up to 1000 updates in a call. It panics on a body that is
// not a webhook payload.
func Batch(payloads ...[]byte) []byte {
	out := rawPayload{Object: "whatsapp_business_account"}
	for _, p := range payloads {
		out.Entry = append(out.Entry, decodeRaw(p).Entry...)
	}
	return encode(out)
}

// BatchChanges joins webhook bodies into one with a single entry, the
// first body's, holding the changes of all of them in order.
func BatchChanges(payloads ...[]byte) []byte {
	var entry *rawEntry
	for _, p := range payloads {
		for _, e := range decodeRaw(p).Entry {
			if entry == nil {
				entry = &rawEntry{ID: e.ID, Time: e.Time}
			}
			entry.Changes = append(entry.Changes, e.Changes...)
		}
	}
	out := rawPayload{Object: "whatsapp_business_account"}
	if entry != nil {
		out.Entry = []rawEntry{*entry}
	}
	return encode(out)
}

// Sign returns the X-Hub-Signature-256 value Meta sends with body:
// "sha256=" and the lowercase hex HMAC-SHA256 of the exact bytes.
func Sign(secret string, body []byte) string {
	mac := hmac.New(sha256.New, []byte(secret))
	mac.Write(body)
	return "sha256=" + hex.EncodeToString(mac.Sum(nil))
}

// MediaSHA256 is the sha256 the builders give media with this id (Meta
// sends the file's hash in base64).
func MediaSHA256(mediaID string) string {
	sum := sha256.Sum256([]byte(mediaID))
	return base64.StdEncoding.EncodeToString(sum[:])
}

// EscapeNonASCII rewrites every non-ASCII character of JSON text as
// \uXXXX, as Meta writes its webhooks. Outside strings JSON is ASCII, so
// only string contents change.
func EscapeNonASCII(js []byte) []byte {
	var b bytes.Buffer
	for len(js) > 0 {
		r, n := utf8.DecodeRune(js)
		switch {
		case r < utf8.RuneSelf:
			b.WriteByte(js[0])
		case r > 0xFFFF:
			r -= 0x10000
			fmt.Fprintf(&b, `\u%04x\u%04x`, 0xD800+(r>>10), 0xDC00+(r&0x3FF))
		default:
			fmt.Fprintf(&b, `\u%04x`, r)
		}
		js = js[n:]
	}
	return b.Bytes()
}

// encode writes v as Meta does: compact, <>& unescaped, non-ASCII escaped.
func encode(v any) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		panic("fakemeta: " + err.Error())
	}
	return EscapeNonASCII(bytes.TrimSuffix(b.Bytes(), []byte("\n")))
}

// The wire shapes, fields in Meta's order.
type (
	whPayload struct {
		Object string    `json:"object"`
		Entry  []whEntry `json:"entry"`
	}
	whEntry struct {
		ID      string     `json:"id"`
		Time    int64      `json:"time,omitempty"`
		Changes []whChange `json:"changes"`
	}
	whChange struct {
		Field string `json:"field"`
		Value any    `json:"value"`
	}
	whMessagesValue struct {
		MessagingProduct string      `json:"messaging_product"`
		Metadata         whMetadata  `json:"metadata"`
		Contacts         []whContact `json:"contacts,omitempty"`
		Messages         []whMessage `json:"messages,omitempty"`
		Statuses         []whStatus  `json:"statuses,omitempty"`
		Errors           []whError   `json:"errors,omitempty"`
	}
	whMetadata struct {
		DisplayPhoneNumber string `json:"display_phone_number"`
		PhoneNumberID      string `json:"phone_number_id"`
	}
	whContact struct {
		Profile      whProfile `json:"profile"`
		WaID         string    `json:"wa_id,omitempty"`
		UserID       string    `json:"user_id,omitempty"`
		ParentUserID string    `json:"parent_user_id,omitempty"`
	}
	whProfile struct {
		Name     string `json:"name"`
		Username string `json:"username,omitempty"`
	}
	whStatus struct {
		ID          string     `json:"id"`
		Status      string     `json:"status"`
		Timestamp   string     `json:"timestamp"`
		RecipientID *string    `json:"recipient_id,omitempty"`
		UserID      string     `json:"recipient_user_id,omitempty"`
		BizOpaque   string     `json:"biz_opaque_callback_data,omitempty"`
		Pricing     *whPricing `json:"pricing,omitempty"`
		Errors      []whError  `json:"errors,omitempty"`
	}
	whPricing struct {
		Billable     bool   `json:"billable"`
		PricingModel string `json:"pricing_model"`
		Type         string `json:"type"`
		Category     string `json:"category"`
	}
	whError struct {
		Code      int         `json:"code"`
		Title     string      `json:"title"`
		Message   string      `json:"message"`
		ErrorData whErrorData `json:"error_data"`
		Href      string      `json:"href,omitempty"`
	}
	whErrorData struct {
		Details string `json:"details"`
	}
	whMessage struct {
		Context     *whContext        `json:"context,omitempty"`
		From        string            `json:"from,omitempty"`
		FromUserID  string            `json:"from_user_id,omitempty"`
		FromParent  string            `json:"from_parent_user_id,omitempty"`
		ID          string            `json:"id"`
		Timestamp   string            `json:"timestamp"`
		Type        string            `json:"type"`
		Text        *whText           `json:"text,omitempty"`
		Image       *whMedia          `json:"image,omitempty"`
		Video       *whMedia          `json:"video,omitempty"`
		Audio       *whMedia          `json:"audio,omitempty"`
		Document    *whMedia          `json:"document,omitempty"`
		Sticker     *whMedia          `json:"sticker,omitempty"`
		Button      *whButton         `json:"button,omitempty"`
		Interactive *whInteractive    `json:"interactive,omitempty"`
		Reaction    *whReaction       `json:"reaction,omitempty"`
		Location    *whLocation       `json:"location,omitempty"`
		Contacts    []whSharedContact `json:"contacts,omitempty"`
		System      *whSystem         `json:"system,omitempty"`
		Errors      []whError         `json:"errors,omitempty"`
	}
	whContext struct {
		From string `json:"from"`
		ID   string `json:"id"`
	}
	whText struct {
		Body string `json:"body"`
	}
	whMedia struct {
		Caption  *string `json:"caption,omitempty"`
		Filename *string `json:"filename,omitempty"`
		MimeType string  `json:"mime_type"`
		SHA256   string  `json:"sha256"`
		ID       string  `json:"id"`
		URL      string  `json:"url"`
		Voice    *bool   `json:"voice,omitempty"`
		Animated *bool   `json:"animated,omitempty"`
	}
	whButton struct {
		Payload string `json:"payload"`
		Text    string `json:"text"`
	}
	whInteractive struct {
		Type        string   `json:"type"`
		ButtonReply *whReply `json:"button_reply,omitempty"`
		ListReply   *whReply `json:"list_reply,omitempty"`
	}
	whReply struct {
		ID          string  `json:"id"`
		Title       string  `json:"title"`
		Description *string `json:"description,omitempty"`
	}
	whReaction struct {
		MessageID string `json:"message_id"`
		Emoji     string `json:"emoji"`
	}
	whLocation struct {
		Address   string  `json:"address"`
		Latitude  float64 `json:"latitude"`
		Longitude float64 `json:"longitude"`
		Name      string  `json:"name"`
	}
	whSharedContact struct {
		Name   whContactName    `json:"name"`
		Phones []whContactPhone `json:"phones"`
	}
	whContactName struct {
		FormattedName string `json:"formatted_name"`
		FirstName     string `json:"first_name"`
	}
	whContactPhone struct {
		Phone string `json:"phone"`
		WaID  string `json:"wa_id"`
		Type  string `json:"type"`
	}
	whSystem struct {
		Body   string `json:"body"`
		WaID   string `json:"wa_id,omitempty"`
		UserID string `json:"user_id,omitempty"`
		Type   string `json:"type"`
	}
	whTemplateValue struct {
		Event     string       `json:"event"`
		ID        json.Number  `json:"message_template_id"`
		Name      string       `json:"message_template_name"`
		Language  string       `json:"message_template_language"`
		Reason    *string      `json:"reason"`
		OtherInfo *whOtherInfo `json:"other_info,omitempty"`
	}
	whOtherInfo struct {
		Title       string `json:"title"`
		Description string `json:"description"`
	}
	// rawPayload reads built bodies back for batching.
	rawPayload struct {
		Object string     `json:"object"`
		Entry  []rawEntry `json:"entry"`
	}
	rawEntry struct {
		ID      string            `json:"id"`
		Time    int64             `json:"time,omitempty"`
		Changes []json.RawMessage `json:"changes"`
	}
)

func messagesValue(phoneNumberID string) whMessagesValue {
	return whMessagesValue{MessagingProduct: "whatsapp",
		Metadata: whMetadata{DisplayPhoneNumber: DisplayPhoneNumber, PhoneNumberID: phoneNumberID}}
}

func decodeRaw(p []byte) rawPayload {
	var r rawPayload
	if err := json.Unmarshal(p, &r); err != nil || r.Object != "whatsapp_business_account" {
		panic(fmt.Sprintf("fakemeta: not a webhook payload: %v", err))
	}
	return r
}

// errorTitles are Meta's titles for the codes that arrive in status
// webhooks.
var errorTitles = map[int]string{
	130429: "Rate limit hit",
	130472: "User's number is part of an experiment",
	131000: "Something went wrong",
	131026: "Message undeliverable",
	131049: "This message was not delivered to maintain healthy ecosystem engagement.",
	131050: "Unable to deliver the message. This recipient has chosen to stop receiving marketing messages on WhatsApp from your business.",
	131051: "Message type unknown",
	131053: "Media upload error",
	132012: "Parameter format does not match format in the created template",
	132015: "Template is paused",
}

func wireError(code int, title string) whError {
	if title == "" {
		title = cmpOr(errorTitles[code], "Something went wrong")
	}
	return whError{Code: code, Title: title, Message: title, ErrorData: whErrorData{Details: title},
		Href: "/documentation/business-messaging/whatsapp/support/error-codes"}
}

func (u StatusUpdate) wire() whStatus {
	s := whStatus{ID: u.WAMID, Status: u.Status, Timestamp: strconv.FormatInt(unixSeconds(u.At), 10),
		UserID: u.RecipientUserID, BizOpaque: u.BizOpaque}
	if u.RecipientID != "" || u.RecipientUserID == "" {
		s.RecipientID = &u.RecipientID // absent only for a send to a user id
	}
	if u.Pricing {
		s.Pricing = &whPricing{Billable: true, PricingModel: "PMP", Type: "regular",
			Category: cmpOr(u.PricingCategory, "marketing")}
	}
	code := u.ErrorCode
	if code == 0 && u.Status == "failed" {
		code = 131026
	}
	if code != 0 {
		s.Errors = []whError{wireError(code, u.ErrorTitle)}
	}
	return s
}

func (m Inbound) wire() whMessage {
	w := whMessage{From: m.From, FromUserID: m.UserID, FromParent: m.ParentUserID, ID: cmpOr(m.WAMID, "wamid."+randomString(48)),
		Timestamp: strconv.FormatInt(unixSeconds(m.At), 10), Type: m.Type}
	if m.ReplyTo != "" && m.Type != "reaction" {
		w.Context = &whContext{From: DisplayPhoneNumber, ID: m.ReplyTo}
	}
	switch m.Type {
	case "text":
		w.Text = &whText{Body: m.Text}
	case "image", "video", "document", "audio", "sticker":
		md := m.media()
		switch m.Type {
		case "image":
			w.Image = md
		case "video":
			w.Video = md
		case "document":
			w.Document = md
		case "audio":
			w.Audio = md
		case "sticker":
			w.Sticker = md
		}
	case "button":
		w.Button = &whButton{Payload: m.Payload, Text: m.Text}
	case "button_reply":
		w.Type = "interactive"
		w.Interactive = &whInteractive{Type: "button_reply", ButtonReply: &whReply{ID: m.Payload, Title: m.Text}}
	case "list_reply":
		w.Type = "interactive"
		w.Interactive = &whInteractive{Type: "list_reply",
			ListReply: &whReply{ID: m.Payload, Title: m.Text, Description: &m.Description}}
	case "reaction":
		w.Reaction = &whReaction{MessageID: m.ReplyTo, Emoji: m.Text}
	case "location":
		w.Location = &whLocation{Address: m.Caption, Latitude: 37.44221496582, Longitude: -122.16165924072, Name: m.Text}
	case "contacts":
		w.Contacts = []whSharedContact{{Name: whContactName{FormattedName: m.Text, FirstName: m.Text},
			Phones: []whContactPhone{{Phone: "+1 (983) 555-2319", WaID: "19835552319", Type: "WORK"}}}}
	case "system":
		kind := cmpOr(m.SystemType, "user_changed_number")
		body := "User " + cmpOr(m.ProfileName, "A") + " changed from " + m.From + " to " + m.NewWaID
		if kind != "user_changed_number" {
			body = "User " + cmpOr(m.ProfileName, "A") + " changed their user id"
		}
		w.System = &whSystem{Body: cmpOr(m.Text, body), WaID: m.NewWaID, UserID: m.NewUserID, Type: kind}
	case "unsupported":
		e := wireError(131051, "")
		e.ErrorData.Details, e.Href = "Message type is currently not supported.", ""
		w.Errors = []whError{e}
	}
	return w
}

// media is the media object of m: mime type by kind, Meta's voice flag on
// audio and animated flag on stickers, a filename on documents.
func (m Inbound) media() *whMedia {
	id := cmpOr(m.MediaID, randomDigits(16))
	md := &whMedia{MimeType: m.MimeType, SHA256: MediaSHA256(id), ID: id,
		URL: "https://lookaside.fbsbx.com/whatsapp_business/attachments/?mid=" + id + "&ext=1&hash=fake"}
	if m.Caption != "" && (m.Type == "image" || m.Type == "video" || m.Type == "document") {
		md.Caption = &m.Caption
	}
	var yes, no = true, false
	switch m.Type {
	case "image":
		md.MimeType = cmpOr(md.MimeType, "image/jpeg")
	case "video":
		md.MimeType = cmpOr(md.MimeType, "video/mp4")
	case "document":
		md.MimeType = cmpOr(md.MimeType, "application/pdf")
		name := cmpOr(m.Filename, "document.pdf")
		md.Filename = &name
	case "audio":
		md.MimeType = cmpOr(md.MimeType, "audio/ogg; codecs=opus")
		md.Voice = &yes
	case "sticker":
		md.MimeType = cmpOr(md.MimeType, "image/webp")
		md.Animated = &no
	}
	return md
}

func unixSeconds(t time.Time) int64 {
	if t.IsZero() {
		t = time.Now()
	}
	return t.Unix()
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// CheckWebhook validates a webhook body against Meta's OpenAPI document.
// For bodies without inbound messages it is Check("WebhookPayload", body).
// Inbound messages cannot pass that check whatever their shape: the
// document's IncomingMessage lists the schemas of messages a business
// sends (requiring messaging_product, recipient_type and to), and its
// inbound schemas (TextMessage_2, ImageMessage_1, ButtonMessage, …) are
// built on that same outbound base instead of BaseMessageProperties_1, with
// the outbound ErrorObject for their errors. CheckWebhook therefore checks
// the envelope with the messages arrays emptied, then each message against
// BaseMessageProperties_1 plus its type's own part of the inbound schema,
// and each of its errors against ErrorObject_2.
func (s *Spec) CheckWebhook(body []byte) error {
	var doc map[string]any
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	if err := dec.Decode(&doc); err != nil {
		return err
	}
	for _, e := range asSlice(doc["entry"]) {
		for _, c := range asSlice(asMap(e)["changes"]) {
			value := asMap(asMap(c)["value"])
			msgs, ok := value["messages"].([]any)
			if !ok {
				continue
			}
			for i, m := range msgs {
				if err := s.checkInbound(asMap(m)); err != nil {
					return fmt.Errorf("message %d: %w", i, err)
				}
			}
			value["messages"] = []any{}
		}
	}
	envelope, err := json.Marshal(doc)
	if err != nil {
		return err
	}
	return s.Check("WebhookPayload", envelope)
}

// inboundSchemas names, by message type, the inbound schema whose second
// allOf part describes that type.
var inboundSchemas = map[string]string{
	"text": "TextMessage_2", "reaction": "ReactionMessage_1", "audio": "AudioMessage_1",
	"document": "DocumentMessage_1", "image": "ImageMessage_1", "sticker": "StickerMessage_1",
	"video": "VideoMessage_1", "location": "LocationMessage_1", "contacts": "ContactSharingMessage",
	"unsupported": "UnsupportedMessage", "unknown": "UnsupportedMessage", "button": "ButtonMessage",
	"interactive": "InteractiveMessageReply", "order": "OrderMessage", "system": "SystemMessage",
}

func (s *Spec) checkInbound(m map[string]any) error {
	name, ok := inboundSchemas[fmt.Sprint(m["type"])]
	if !ok {
		return fmt.Errorf("type %v has no schema in Meta's document", m["type"])
	}
	if errs, ok := m["errors"].([]any); ok {
		for _, e := range errs {
			if err := s.checkValue("ErrorObject_2", pointer("components", "schemas", "ErrorObject_2"), e); err != nil {
				return err
			}
		}
		m = shallowCopy(m)
		m["errors"] = []any{}
	}
	if err := s.checkValue("BaseMessageProperties_1", pointer("components", "schemas", "BaseMessageProperties_1"), m); err != nil {
		return err
	}
	return s.checkValue(name, pointer("components", "schemas", name, "allOf", "1"), m)
}

func (s *Spec) checkValue(name, ptr string, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return s.check(name, ptr, b)
}

func asSlice(v any) []any        { s, _ := v.([]any); return s }
func asMap(v any) map[string]any { m, _ := v.(map[string]any); return m }

func shallowCopy(m map[string]any) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

// WebhookDelivery is one webhook POST the fake made.
type WebhookDelivery struct {
	Body      []byte
	Signature string // the X-Hub-Signature-256 header sent
	Status    int    // the status code answered; 0 when none came
	Err       error  // why no answer came
	Attempt   int    // 1 for a body's first try, 2 for its first retry, …
}

const (
	webhookTries      = 3
	webhookRetryDelay = 10 * time.Millisecond
	webhookTimeout    = 5 * time.Second
	webhookParallel   = 8 // POSTs in flight at once when WebhookParallel is zero
)

// WebhookPost is one try at posting a status webhook of an accepted send,
// as OnWebhookPost reports it.
type WebhookPost struct {
	Status string // sent, delivered, read, failed, …
	Number string // the sending business number (Meta's phone number id)
	// BizOpaque is the send's biz_opaque_callback_data: the sender's own
	// id of the message.
	BizOpaque string
	// Due is when the status became due: the send's answer for the first
	// status, the previous status's answer plus WebhookGap for the next.
	// The time from Due to the POST is time spent waiting for a free slot
	// (WebhookParallel) and for earlier tries.
	Due      time.Time
	Took     time.Duration // from the POST to its answer, or to its failure
	Answered int           // the status code answered; 0 when none came
	Attempt  int           // 1 for the first try, 2 for the first retry, …
	// Last says no further try of this status follows: it was answered
	// 200, or this was the last try.
	Last bool
}

// defaultWebhookStatuses is what an accepted send reports when
// WebhookStatuses is nil.
var defaultWebhookStatuses = []string{"sent", "delivered", "read"}

// emission is what a send's status webhooks need to know about it.
type emission struct {
	url, secret string
	statuses    []string
	wamid, biz  string
	recipient   string
	category    string // the template's, for pricing
	waba        string // the sending number's account
	number      string // the sending number (Meta's id)
}

// webhookSetup returns the client the webhooks are posted with and the
// slots that bound the POSTs in flight, made on first use from
// WebhookParallel.
func (s *Server) webhookSetup() (*http.Client, chan struct{}) {
	s.webhookOnce.Do(func() {
		parallel := s.WebhookParallel
		if parallel <= 0 {
			parallel = webhookParallel
		}
		s.webhookClient = newWebhookClient(parallel)
		s.emitSlots = make(chan struct{}, parallel)
	})
	return s.webhookClient, s.emitSlots
}

// emitLocked registers the send's status webhooks, so that WaitWebhooks waits
// for them from now on, and returns the function that starts posting them
// in the background, one after the other, in the configured order. Each
// status's timestamp follows the lifecycle (sent, then delivered a second
// later, then read, then played), whatever order the statuses are posted
// in, as Meta's timestamps say when a status happened and not when it was
// posted.
// The caller holds s.mu.
func (s *Server) emitLocked(e emission) (start func()) {
	done := make(chan struct{})
	s.emissions = append(s.emissions, done)
	return func() { go s.post(e, done) }
}

// post posts one emission's statuses and closes done.
func (s *Server) post(e emission, done chan struct{}) {
	defer close(done)
	base := time.Now()
	for i, st := range e.statuses {
		if i > 0 && s.WebhookGap > 0 && !sleep(s.emitCtx, s.WebhookGap) {
			return
		}
		u := StatusUpdate{WAMID: e.wamid, RecipientID: e.recipient, BizOpaque: e.biz, Status: st,
			Pricing: st == "sent", PricingCategory: strings.ToLower(e.category)}
		if code, ok := strings.CutPrefix(st, "failed:"); ok {
			u.Status = "failed"
			u.ErrorCode, _ = strconv.Atoi(code)
		}
		u.At = base.Add(statusOffset[u.Status])
		if !s.postStatus(e, u, StatusPayload(e.waba, e.number, u)) {
			return
		}
	}
}

// postStatus posts one status, trying again after a non-200 answer up to
// webhookTries times in all, each try in one of the slots. It reports
// false when the fake is closing.
func (s *Server) postStatus(e emission, u StatusUpdate, body []byte) bool {
	_, slots := s.webhookSetup()
	due := time.Now()
	s.mu.Lock()
	s.pendingSeq++
	id := s.pendingSeq
	s.pending[id] = due
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		delete(s.pending, id)
		s.mu.Unlock()
	}()
	for try := 1; try <= webhookTries; try++ {
		if try > 1 && !sleep(s.emitCtx, webhookRetryDelay) {
			return false
		}
		select {
		case slots <- struct{}{}:
		case <-s.emitCtx.Done():
			return false
		}
		start := time.Now()
		status, _ := s.attempt(s.emitCtx, e.url, e.secret, body, try)
		took := time.Since(start)
		<-slots
		if s.OnWebhookPost != nil {
			s.OnWebhookPost(WebhookPost{Status: u.Status, Number: e.number, BizOpaque: e.biz, Due: due, Took: took, Answered: status,
				Attempt: try, Last: status == http.StatusOK || try == webhookTries})
		}
		if status == http.StatusOK {
			break
		}
	}
	return true
}

// WebhookBacklog is how many statuses are due and not yet answered 200 or
// given up, and when the oldest of them became due (zero when none): what
// the fake would still owe a receiver that is falling behind.
func (s *Server) WebhookBacklog() (n int, oldest time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, due := range s.pending {
		if oldest.IsZero() || due.Before(oldest) {
			oldest = due
		}
	}
	return len(s.pending), oldest
}

var statusOffset = map[string]time.Duration{"delivered": time.Second, "read": 2 * time.Second,
	"played": 3 * time.Second, "failed": time.Second}

func sleep(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}

// WaitWebhooks blocks until every webhook emission started so far is done:
// posted, retried or given up.
func (s *Server) WaitWebhooks() {
	s.mu.Lock()
	pending := append([]chan struct{}(nil), s.emissions...)
	s.mu.Unlock()
	for _, done := range pending {
		<-done
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	kept := s.emissions[:0]
	for _, done := range s.emissions {
		select {
		case <-done:
		default:
			kept = append(kept, done)
		}
	}
	s.emissions = kept
}

// WebhookDeliveries returns every webhook POST made so far, retries
// included, in the order they were answered.
func (s *Server) WebhookDeliveries() []WebhookDelivery {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]WebhookDelivery(nil), s.deliveries...)
}

// PostWebhook signs body with AppSecret and posts it once to WebhookURL,
// as Meta would, for payloads the test built itself (inbound messages,
// template events). The caller closes the answer's body. It is recorded in
// WebhookDeliveries.
func (s *Server) PostWebhook(body []byte) (*http.Response, error) {
	res, err := s.send(s.emitCtx, s.WebhookURL, s.AppSecret, body)
	d := WebhookDelivery{Body: body, Signature: Sign(s.AppSecret, body), Err: err, Attempt: 1}
	if res != nil {
		d.Status = res.StatusCode
	}
	s.record(d)
	return res, err
}

// attempt makes one delivery attempt and records it.
func (s *Server) attempt(ctx context.Context, target, secret string, body []byte, attempt int) (int, error) {
	res, err := s.send(ctx, target, secret, body)
	status := 0
	if err == nil {
		io.Copy(io.Discard, io.LimitReader(res.Body, 64<<10))
		res.Body.Close()
		status = res.StatusCode
	}
	if !s.Lean {
		s.record(WebhookDelivery{Body: body, Signature: Sign(secret, body), Attempt: attempt, Status: status, Err: err})
	}
	return status, err
}

func (s *Server) record(d WebhookDelivery) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.deliveries = append(s.deliveries, d)
}

// errNotLoopback refuses webhook targets off this machine.
var errNotLoopback = errors.New("fakemeta: webhooks only go to loopback addresses")

func (s *Server) send(ctx context.Context, target, secret string, body []byte) (*http.Response, error) {
	u, err := url.Parse(target)
	if err != nil {
		return nil, err
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return nil, fmt.Errorf("fakemeta: webhook URL %q is not http(s)", target)
	}
	if h := u.Hostname(); h != "localhost" {
		if ip := net.ParseIP(h); ip == nil || !ip.IsLoopback() {
			return nil, errNotLoopback
		}
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, target, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "facebookexternalua")
	req.Header.Set("X-Hub-Signature-256", Sign(secret, body))
	client, _ := s.webhookSetup()
	return client.Do(req)
}

// newWebhookClient is an HTTP client that connects only to loopback
// addresses (whatever a name resolves to), follows no redirects, gives up
// after webhookTimeout, and keeps up to parallel connections open.
func newWebhookClient(parallel int) *http.Client {
	dialer := &net.Dialer{Timeout: time.Second, Control: func(_, address string, _ syscall.RawConn) error {
		host, _, err := net.SplitHostPort(address)
		if ip := net.ParseIP(host); err != nil || ip == nil || !ip.IsLoopback() {
			return errNotLoopback
		}
		return nil
	}}
	return &http.Client{
		Timeout:       webhookTimeout,
		Transport:     &http.Transport{DialContext: dialer.DialContext, MaxIdleConnsPerHost: parallel},
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
}
