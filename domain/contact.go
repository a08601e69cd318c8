package domain

import (
	"net/mail"
	"sort"
	"strings"
	"time"
	"unicode/utf8"
)

// Contact is one recipient in a workspace, unique by phone number.
type Contact struct {
	ID             ContactID
	Workspace      WorkspaceID
	ConversationID ConversationID
	Phone          PhoneNumber
	Name           string
	Email          string
	Attributes     map[string]string
	Tags           []string
	OptedOut       bool
	CreatedAt      time.Time
	UpdatedAt      time.Time
	LastMessageAt  *time.Time
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

// NewContact makes a contact for a phone number, with its conversation.
func NewContact(id ContactID, conv ConversationID, ws WorkspaceID, phone PhoneNumber, now time.Time) Contact {
	now = now.UTC().Truncate(time.Microsecond)
	return Contact{ID: id, ConversationID: conv, Workspace: ws, Phone: phone,
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
	if s.Name != nil && utf8.RuneCountInString(*s.Name) > MaxNameLength {
		return InvalidParameter("name", "a name is at most 256 characters")
	}
	if s.Email != nil && *s.Email != "" {
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
		if k == "" || len(k) > MaxAttributeKey {
			return InvalidParameter("attributes", "attribute names are 1 to 64 bytes")
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
	if s.OptedOut != nil {
		c.OptedOut = *s.OptedOut
	}
	c.UpdatedAt = now.UTC().Truncate(time.Microsecond)
	return nil
}

// CanReceive refuses contacts who opted out.
func (c Contact) CanReceive() error {
	if c.OptedOut {
		return &Error{Code: CodeContactOptedOut, Param: "phoneNumber", Detail: "the recipient opted out of messages"}
	}
	return nil
}

// Touch records a message to or from the contact at now.
func (c *Contact) Touch(now time.Time) {
	now = now.UTC().Truncate(time.Microsecond)
	c.LastMessageAt = &now
	c.UpdatedAt = now
}
