package domain

import (
	"strings"
	"time"
)

// Identifiers are type-prefixed and sortable: a prefix, an underscore and 26
// lowercase Crockford base32 characters encoding a 48-bit millisecond
// timestamp followed by 80 random bits (the ULID layout). Sorting the strings
// sorts by creation time.
type (
	WorkspaceID    string
	KeyID          string
	CampaignID     string
	ContactID      string
	MessageID      string
	ConversationID string
	EntryID        string
	WebhookEventID string
	OperatorID     string
)

// The prefixes of each identifier type.
const (
	PrefixWorkspace    = "wsp"
	PrefixKey          = "key"
	PrefixCampaign     = "cmp"
	PrefixContact      = "ctc"
	PrefixMessage      = "msg"
	PrefixConversation = "cnv"
	PrefixEntry        = "ent"
	PrefixWebhookEvent = "whk"
	PrefixOperator     = "opr"
	PrefixMedia        = "med"
)

const (
	idBodyLen = 26
	crockford = "0123456789abcdefghjkmnpqrstvwxyz"
)

// NewID formats an identifier from a prefix, a creation time and 10 bytes of
// entropy. It is pure: the caller supplies both the time and the randomness.
func NewID(prefix string, t time.Time, entropy [10]byte) string {
	var raw [16]byte
	ms := uint64(t.UnixMilli())
	for i := 0; i < 6; i++ {
		raw[i] = byte(ms >> (8 * (5 - i)))
	}
	copy(raw[6:], entropy[:])
	// 128 bits as 26 base32 digits: the first digit carries the top 3 bits.
	var out [idBodyLen]byte
	var acc uint64
	var bits uint
	pos := idBodyLen - 1
	for i := 15; i >= 0; i-- {
		acc |= uint64(raw[i]) << bits
		bits += 8
		for bits >= 5 {
			out[pos] = crockford[acc&31]
			pos--
			acc >>= 5
			bits -= 5
		}
	}
	out[0] = crockford[acc&31]
	return prefix + "_" + string(out[:])
}

// validID reports whether s is prefix_ followed by a well-formed body.
func validID(prefix, s string) bool {
	body, ok := strings.CutPrefix(s, prefix+"_")
	if !ok || len(body) != idBodyLen || body[0] > '7' {
		return false
	}
	for i := 0; i < len(body); i++ {
		if strings.IndexByte(crockford, body[i]) < 0 {
			return false
		}
	}
	return true
}

// ParseCampaignID validates a campaign id. A malformed id cannot name any
// campaign, so it is reported as not found.
func ParseCampaignID(s string) (CampaignID, error) {
	if !validID(PrefixCampaign, s) {
		return "", NotFound(ErrCampaignNotFound)
	}
	return CampaignID(s), nil
}

// ParseContactID validates a contact id; malformed ids are not found.
func ParseContactID(s string) (ContactID, error) {
	if !validID(PrefixContact, s) {
		return "", NotFound(ErrContactNotFound)
	}
	return ContactID(s), nil
}

// ParseMessageID validates a message id; malformed ids are not found.
func ParseMessageID(s string) (MessageID, error) {
	if !validID(PrefixMessage, s) {
		return "", NotFound(ErrMessageNotFound)
	}
	return MessageID(s), nil
}

// ParseKeyID validates an API key id; malformed ids are not found.
func ParseKeyID(s string) (KeyID, error) {
	if !validID(PrefixKey, s) {
		return "", NotFound(ErrKeyNotFound)
	}
	return KeyID(s), nil
}

// ParseWorkspaceID validates a workspace id; malformed ids are not found.
func ParseWorkspaceID(s string) (WorkspaceID, error) {
	if !validID(PrefixWorkspace, s) {
		return "", NotFound(ErrWorkspaceNotFound)
	}
	return WorkspaceID(s), nil
}

// legacyWebhookEventPrefix is the prefix webhook events had until the
// customer's events took it (decision 0020); the migration that changed it
// kept each id's sortable part.
const legacyWebhookEventPrefix = "evt"

// ParseWebhookEventID validates a webhook event id; malformed ids are not
// found. An id written with the prefix webhook events had before (evt_, as
// an older log shows it) is the same event's id under whk_.
func ParseWebhookEventID(s string) (WebhookEventID, error) {
	if body, ok := strings.CutPrefix(s, legacyWebhookEventPrefix+"_"); ok {
		s = PrefixWebhookEvent + "_" + body
	}
	if !validID(PrefixWebhookEvent, s) {
		return "", NotFound(ErrWebhookEventNotFound)
	}
	return WebhookEventID(s), nil
}
