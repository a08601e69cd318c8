package domain

import (
	"net/mail"
	"sort"
	"strings"
	"time"
	"unicode/utf8"
)

// Contact is one recipient in a workspace, unique by phone number in each
// mode, in any form WhatsApp writes it (NumberKey), and by BSUID. Live and
// test traffic keep apart contacts for one number: test sends and test
// keys' syncs make and change test contacts, live sends, live keys' syncs
// and what people write make and change live ones, and a key sees only its
// own mode's (Principal.Sees).
type Contact struct {
	ID             ContactID
	Workspace      WorkspaceID
	Mode           KeyMode
	ConversationID ConversationID
	Phone          PhoneNumber
	Name           string
	Email          string
	Attributes     map[string]string
	Tags           []string
	OptedOut       bool
	// OptOutChangedAt is when OptedOut was last set: by a sync, or by the
	// time of the contact's STOP or START message. An opt-out change
	// older than it is stale and changes nothing.
	OptOutChangedAt *time.Time
	// Marketing is whether the contact stopped the business's marketing
	// messages on WhatsApp (Meta's user_preferences), apart from OptedOut.
	Marketing MarketingPreference
	// WaID and ProfileName are what WhatsApp reports about the contact
	// when they write: their WhatsApp id and the name on their profile.
	// Name stays the business's own name for them.
	WaID        string
	ProfileName string
	// UserID, ParentUserID and Username are the contact's business-scoped
	// user id, its parent and their WhatsApp username, when WhatsApp
	// reports them (identity.go). A contact known only by its BSUID has no
	// Phone.
	UserID        string
	ParentUserID  string
	Username      string
	CreatedAt     time.Time
	UpdatedAt     time.Time
	LastMessageAt *time.Time
	// LastInboundAt is when the contact last wrote: their 24-hour
	// customer-service window runs from it (session.go).
	LastInboundAt *time.Time
	// LastNumber is the business number the contact last wrote to; their
	// session messages leave from it unless another is named. "" when
	// unknown.
	LastNumber BusinessNumberID
}

// Limits on a contact's attributes and tags.
const (
	MaxAttributes     = 50
	MaxAttributeKey   = 64
	MaxAttributeValue = 1024
	MaxTags           = 50
	MaxTagLength      = 64
	MaxNameLength     = 256
)

// NewContact makes a contact of a mode for a phone number, with its
// conversation.
func NewContact(id ContactID, conv ConversationID, ws WorkspaceID, mode KeyMode, phone PhoneNumber, now time.Time) Contact {
	now = now.UTC().Truncate(time.Microsecond)
	return Contact{ID: id, ConversationID: conv, Workspace: ws, Mode: mode, Phone: phone,
		Attributes: map[string]string{}, Tags: []string{}, CreatedAt: now, UpdatedAt: now}
}

// ContactSync is an upsert of a contact's details. Nil fields are left as
// they are. Attributes merge key by key, and an empty value removes the key.
// Tags, when given, replace the tag set.
type ContactSync struct {
	Name       *string
	Email      *string
	Attributes map[string]string
	Tags       []string
	OptedOut   *bool
}

// ApplySync validates s and applies it.
func (c *Contact) ApplySync(s ContactSync, now time.Time) error {
	if s.Name != nil {
		if err := CheckText("name", "the name", *s.Name); err != nil {
			return err
		}
		if utf8.RuneCountInString(*s.Name) > MaxNameLength {
			return InvalidParameter("name", "a name is at most 256 characters")
		}
	}
	if s.Email != nil && *s.Email != "" {
		if err := CheckText("email", "the email address", *s.Email); err != nil {
			return err
		}
		a, err := mail.ParseAddress(*s.Email)
		if err != nil || a.Address != *s.Email {
			return InvalidParameter("email", "the email address is not valid")
		}
	}
	attrs := make(map[string]string, len(c.Attributes)+len(s.Attributes))
	for k, v := range c.Attributes {
		attrs[k] = v
	}
	for k, v := range s.Attributes {
		if err := CheckText("attributes", "an attribute name", k); err != nil {
			return err
		}
		if k == "" || len(k) > MaxAttributeKey {
			return InvalidParameter("attributes", "attribute names are 1 to 64 bytes")
		}
		if err := CheckText("attributes", "the value of attribute "+k, v); err != nil {
			return err
		}
		if utf8.RuneCountInString(v) > MaxAttributeValue {
			return InvalidParameter("attributes", "attribute "+k+" is longer than 1024 characters")
		}
		if v == "" {
			delete(attrs, k)
		} else {
			attrs[k] = v
		}
	}
	if len(attrs) > MaxAttributes {
		return InvalidParameter("attributes", "a contact has at most 50 attributes")
	}
	var tags []string
	if s.Tags != nil {
		set := map[string]bool{}
		for _, t := range s.Tags {
			if err := CheckText("tags", "a tag", t); err != nil {
				return err
			}
			t = strings.TrimSpace(t)
			if t == "" || utf8.RuneCountInString(t) > MaxTagLength {
				return InvalidParameter("tags", "tags are 1 to 64 characters")
			}
			if !set[t] {
				set[t] = true
				tags = append(tags, t)
			}
		}
		if len(tags) > MaxTags {
			return InvalidParameter("tags", "a contact has at most 50 tags")
		}
		sort.Strings(tags)
		if tags == nil {
			tags = []string{}
		}
	}
	if s.Name != nil {
		c.Name = strings.TrimSpace(*s.Name)
	}
	if s.Email != nil {
		c.Email = *s.Email
	}
	c.Attributes = attrs
	if s.Tags != nil {
		c.Tags = tags
	}
	now = now.UTC().Truncate(time.Microsecond)
	// Only a real change counts as the latest word: a sync that repeats
	// the current value must not outrank a STOP that Meta delivers late.
	if s.OptedOut != nil && *s.OptedOut != c.OptedOut {
		c.OptedOut = *s.OptedOut
		c.OptOutChangedAt = &now
	}
	c.UpdatedAt = now
	return nil
}

// SetOptOut records the contact's own opt-out (a STOP) or opt-in (a START)
// written at the time at. A change older than the last one (Meta does not
// deliver messages in order) is stale and changes nothing. SetOptOut
// reports whether the contact changed.
func (c *Contact) SetOptOut(out bool, at, now time.Time) bool {
	changed := latestWord(&c.OptedOut, &c.OptOutChangedAt, out, at)
	if changed {
		c.UpdatedAt = now.UTC().Truncate(time.Microsecond)
	}
	return changed
}

// latestWord records an opt-out (out) or opt-in said at the time at on the
// flag and its time of change, unless an opt-out change at least as late
// stands: an older word is stale, and a stop and a resume in the same
// second (Meta's times are whole seconds) leave the flag set, whichever
// arrives last. It reports whether anything changed.
func latestWord(flag *bool, changedAt **time.Time, out bool, at time.Time) bool {
	at = at.UTC().Truncate(time.Microsecond)
	last := *changedAt
	if last != nil && (at.Before(*last) || at.Equal(*last) && *flag && !out) {
		return false
	}
	changed := *flag != out || last == nil || !at.Equal(*last)
	*flag = out
	*changedAt = &at
	return changed
}

// RecordInbound records a message the contact wrote at the time at: the
// WhatsApp id and profile name it came with (kept when empty) and the time
// of the latest message.
func (c *Contact) RecordInbound(waID, profileName string, at, now time.Time) {
	if waID != "" {
		c.WaID = waID
	}
	if profileName = strings.TrimSpace(profileName); profileName != "" {
		c.ProfileName = strings.TrimSpace(truncateRunes(profileName, MaxNameLength))
	}
	at = at.UTC().Truncate(time.Microsecond)
	if c.LastMessageAt == nil || at.After(*c.LastMessageAt) {
		c.LastMessageAt = &at
	}
	if c.LastInboundAt == nil || at.After(*c.LastInboundAt) {
		in := at
		c.LastInboundAt = &in
	}
	c.UpdatedAt = now.UTC().Truncate(time.Microsecond)
}

// truncateRunes cuts s to at most n runes.
func truncateRunes(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return string([]rune(s)[:n])
}

// CanReceive refuses contacts who opted out.
func (c Contact) CanReceive() error {
	if c.OptedOut {
		return &Error{Code: CodeContactOptedOut, Param: "phoneNumber", Detail: "the recipient opted out of messages"}
	}
	return nil
}

// Touch records a message to the contact at now.
func (c *Contact) Touch(now time.Time) {
	now = now.UTC().Truncate(time.Microsecond)
	if c.LastMessageAt == nil || now.After(*c.LastMessageAt) {
		c.LastMessageAt = &now
	}
	c.UpdatedAt = now
}
