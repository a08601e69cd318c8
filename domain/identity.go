package domain

import (
	"strings"
	"time"
)

// WhatsAppUser is what one of Meta's events says about a WhatsApp user:
// their WhatsApp id (wa_id: the digits of their number as WhatsApp writes
// it, which may differ from the number Herald sent to), their
// business-scoped user id (BSUID, "BR.1502576394655843") and its parent
// ("US.ENT.11815799212886844830"), their username and the name on their
// profile. Any of them may be absent: users with a username may come
// without a number at all.
type WhatsAppUser struct {
	WaID         string
	UserID       string
	ParentUserID string
	Username     string
	ProfileName  string
}

// IsZero reports whether u names nobody: no wa_id and no BSUID.
func (u WhatsAppUser) IsZero() bool { return u.WaID == "" && u.UserID == "" }

// Clean keeps what is well-formed: a wa_id of digits (ValidWaID), BSUIDs
// of the documented form (ValidUserID), a username and profile name cut to
// MaxNameLength runes. What it drops is reported, one word each ("wa_id",
// "user_id", "parent_user_id"), so a caller can say why.
func (u WhatsAppUser) Clean() (WhatsAppUser, []string) {
	var dropped []string
	if u.WaID != "" && !ValidWaID(u.WaID) {
		u.WaID, dropped = "", append(dropped, "wa_id")
	}
	if u.UserID != "" && !ValidUserID(u.UserID) {
		u.UserID, dropped = "", append(dropped, "user_id")
	}
	if u.ParentUserID != "" && !ValidUserID(u.ParentUserID) {
		u.ParentUserID, dropped = "", append(dropped, "parent_user_id")
	}
	u.Username = strings.TrimSpace(truncateRunes(strings.TrimSpace(u.Username), MaxNameLength))
	u.ProfileName = strings.TrimSpace(truncateRunes(strings.TrimSpace(u.ProfileName), MaxNameLength))
	return u, dropped
}

// ValidWaID reports whether s can be a WhatsApp id: 5 to 20 digits, not
// starting with 0. It need not be a number Herald can send to (Mexico's
// 521… is not a valid E.164 number).
func ValidWaID(s string) bool {
	if len(s) < 5 || len(s) > 20 || s[0] == '0' {
		return false
	}
	return strings.Trim(s, "0123456789") == ""
}

// ValidUserID reports whether s has the form of a business-scoped user id:
// an ISO 3166 alpha-2 country code, ".", and up to 128 letters and digits,
// with an optional upper-case word between them for a parent id
// ("US.ENT.1181…").
func ValidUserID(s string) bool {
	cc, rest, ok := strings.Cut(s, ".")
	if !ok || len(cc) != 2 || strings.Trim(cc, "ABCDEFGHIJKLMNOPQRSTUVWXYZ") != "" {
		return false
	}
	if word, id, ok := strings.Cut(rest, "."); ok {
		if word == "" || len(word) > 16 || strings.Trim(word, "ABCDEFGHIJKLMNOPQRSTUVWXYZ") != "" {
			return false
		}
		rest = id
	}
	return rest != "" && len(rest) <= 128 &&
		strings.Trim(rest, "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ") == ""
}

// NumberKey is the form of a WhatsApp number, digits without "+", that is
// the same however Meta or people write it: Meta reports some users under
// another form of the number Herald sent to, and both must find one
// contact. The rewrites, from field reports (Meta publishes no table):
//
//   - Brazil (+55): a mobile is written with its ninth digit (55 DD 9
//     XXXX-XXXX, 13 digits) or, for accounts older than the ninth digit,
//     without it (55 DD XXXX-XXXX, 12 digits). The key drops the 9 when it
//     is followed by 6 to 9, the old mobile ranges, so a landline (2 to 5)
//     never meets a mobile.
//   - Mexico (+52): mobiles were written with a 1 after the country code
//     (521 + 10 digits); the key drops it.
//   - Argentina (+54): mobiles are written with a 9 after the country code
//     in international form (549 + 10 digits), and without it elsewhere;
//     the key drops it. Fixed and mobile numbers of an area do not share
//     numbers, so the ten digits name one line.
//
// Any other number is its own key. The key is for finding a contact, never
// for sending: Herald sends to the number as it is stored.
func NumberKey(digits string) string {
	if len(digits) != 13 {
		return digits
	}
	switch digits[:2] {
	case "55":
		if digits[2] != '0' && digits[3] != '0' && digits[4] == '9' && digits[5] >= '6' && digits[5] <= '9' {
			return digits[:4] + digits[5:]
		}
	case "52":
		if digits[2] == '1' {
			return "52" + digits[3:]
		}
	case "54":
		if digits[2] == '9' {
			return "54" + digits[3:]
		}
	}
	return digits
}

// Key is p's NumberKey; empty for the zero number.
func (p PhoneNumber) Key() string {
	if p.IsZero() {
		return ""
	}
	return NumberKey(p.e164[1:])
}

// PhoneForWaID is the number people type for a WhatsApp id, to address a
// contact that first wrote to the business: a Brazilian mobile without its
// ninth digit gets it back, a Mexican 521… loses its 1, and any other
// number is the wa_id with a "+". The error says why the wa_id is not a
// number Herald can address (the E.164 check that failed); the caller keeps
// the contact under its wa_id then.
func PhoneForWaID(waID string) (PhoneNumber, error) {
	if !ValidWaID(waID) {
		return PhoneNumber{}, &Error{Code: CodeInvalidPhoneNumber, Param: "phoneNumber", Detail: "a WhatsApp id is 5 to 20 digits"}
	}
	typed := waID
	switch {
	case len(waID) == 12 && strings.HasPrefix(waID, "55") && waID[2] != '0' && waID[3] != '0' && waID[4] >= '6' && waID[4] <= '9':
		typed = waID[:4] + "9" + waID[4:]
	case len(waID) == 13 && strings.HasPrefix(waID, "521"):
		typed = "52" + waID[3:]
	}
	if typed != waID {
		if p, err := ParsePhoneNumber("+" + typed); err == nil {
			return p, nil
		}
	}
	return ParsePhoneNumber("+" + waID)
}

// ParseWhatsAppNumber reads a number to look a contact up by: an E.164
// number, or a form WhatsApp writes that E.164 refuses (Mexico's +521…),
// which is read as the number people type (PhoneForWaID). The error is
// ParsePhoneNumber's.
func ParseWhatsAppNumber(s string) (PhoneNumber, error) {
	p, err := ParsePhoneNumber(s)
	if err == nil {
		return p, nil
	}
	if digits, ok := strings.CutPrefix(s, "+"); ok && ValidWaID(digits) {
		if q, werr := PhoneForWaID(digits); werr == nil && q.Key() == NumberKey(digits) {
			return q, nil
		}
	}
	return PhoneNumber{}, err
}

// NumberKey is the key a contact is found by from a number: its phone
// number's, or for a contact known only by its WhatsApp id (a number
// Herald cannot address), its wa_id's; empty for a contact known only by
// its BSUID.
func (c Contact) NumberKey() string {
	if !c.Phone.IsZero() {
		return c.Phone.Key()
	}
	if c.WaID != "" {
		return NumberKey(c.WaID)
	}
	return ""
}

// Match says how an event's user was recognised in a contact, strongest
// last.
type Match int

// The ways a contact matches a WhatsApp user.
const (
	MatchNone   Match = iota
	MatchNumber       // the contact's number, in any form Meta writes it (NumberKey)
	MatchWaID         // the contact's WhatsApp id, or its number exactly as the wa_id writes it
	MatchUserID       // the contact's business-scoped user id
)

// Matches says how strongly c is the user u, who wrote from the number
// from (may be empty): by BSUID, then by wa_id (the contact's, or its
// number written as the wa_id is), then by number in any form.
func (c Contact) Matches(u WhatsAppUser, from string) Match {
	digits := strings.TrimPrefix(c.Phone.String(), "+")
	same := func(id string) bool { return id != "" && (id == c.WaID || id == digits) }
	switch {
	case u.UserID != "" && c.UserID == u.UserID:
		return MatchUserID
	case same(u.WaID) || same(from):
		return MatchWaID
	}
	if key := c.NumberKey(); key != "" {
		for _, id := range []string{u.WaID, from} {
			if id != "" && NumberKey(id) == key {
				return MatchNumber
			}
		}
	}
	return MatchNone
}

// RecordUser records what WhatsApp reported about the contact: the wa_id,
// BSUID and parent, username and profile name it came with, each kept when
// the report has none. Name stays the business's own. It reports whether
// the contact changed; UpdatedAt moves only then.
func (c *Contact) RecordUser(u WhatsAppUser, now time.Time) bool {
	changed := false
	set := func(field *string, v string) {
		if v != "" && *field != v {
			*field, changed = v, true
		}
	}
	set(&c.WaID, u.WaID)
	set(&c.UserID, u.UserID)
	set(&c.ParentUserID, u.ParentUserID)
	set(&c.Username, strings.TrimSpace(truncateRunes(u.Username, MaxNameLength)))
	set(&c.ProfileName, strings.TrimSpace(truncateRunes(u.ProfileName, MaxNameLength)))
	if changed {
		c.UpdatedAt = now.UTC().Truncate(time.Microsecond)
	}
	return changed
}

// Handle is how a contact is shown where its number is absent: the phone
// number, else the WhatsApp id, else "@" and the username, else the BSUID.
func (c Contact) Handle() string {
	switch {
	case !c.Phone.IsZero():
		return c.Phone.String()
	case c.WaID != "":
		return "+" + c.WaID
	case c.Username != "":
		return "@" + c.Username
	}
	return c.UserID
}
