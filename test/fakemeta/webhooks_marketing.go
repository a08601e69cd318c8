package fakemeta

import (
	"encoding/json"
	"hash/fnv"
	"strconv"
	"time"
)

// UserPreference is one user's choice about the business's marketing
// messages, as the user_preferences webhook reports it.
type UserPreference struct {
	WaID        string // the user's wa_id, digits only
	ProfileName string
	Value       string    // stop or resume
	At          time.Time // zero is now
	// UserID adds the user's business-scoped user id (2026) to their
	// contact.
	UserID string
	// NoWaID leaves wa_id out of the preference (the contacts array still
	// names the user), as a receiver must be ready for.
	NoWaID bool
}

// UserPreferencesPayload is a user_preferences webhook body: one entry for
// wabaID with one change carrying the users' contacts and their marketing
// preferences, field for field as Meta documents them (the timestamp is an
// integer here, unlike in messages and statuses).
func UserPreferencesPayload(wabaID, phoneNumberID string, prefs ...UserPreference) []byte {
	v := whPreferencesValue{MessagingProduct: "whatsapp",
		Metadata: whMetadata{DisplayPhoneNumber: DisplayPhoneNumber, PhoneNumberID: phoneNumberID}}
	for _, p := range prefs {
		v.Contacts = append(v.Contacts, whContact{Profile: whProfile{Name: p.ProfileName}, WaID: p.WaID, UserID: p.UserID})
		item := whPreference{WaID: p.WaID, Detail: "User requested to " + p.Value + " marketing messages",
			Category: "marketing_messages", Value: p.Value, Timestamp: unixSeconds(p.At)}
		if p.NoWaID {
			item.WaID = ""
		}
		v.Preferences = append(v.Preferences, item)
	}
	return encode(whPayload{Object: "whatsapp_business_account",
		Entry: []whEntry{{ID: wabaID, Changes: []whChange{{Field: "user_preferences", Value: v}}}}})
}

// TemplateCategoryPayload is a template_category_update webhook body. With
// upcoming empty it reports a change Meta made (previous_category,
// new_category); otherwise a change Meta announces: new_category is the
// category the template has now, and correct_category (upcoming) takes
// effect at effective, about a day later.
func TemplateCategoryPayload(wabaID, name, language, previous, current, upcoming string, effective, at time.Time) []byte {
	h := fnv.New64a()
	h.Write([]byte(name + "\x00" + language))
	v := whCategoryValue{ID: json.Number(strconv.FormatUint(1e15+h.Sum64()%9e15, 10)), Name: name, Language: language,
		New: current}
	if upcoming != "" {
		v.Correct, v.UpdateAt = upcoming, unixSeconds(effective)
	} else {
		v.Previous = previous
	}
	return encode(whPayload{Object: "whatsapp_business_account",
		Entry: []whEntry{{ID: wabaID, Time: unixSeconds(at), Changes: []whChange{{Field: "template_category_update", Value: v}}}}})
}

// The wire shapes of the marketing webhooks, fields in Meta's order.
type (
	whPreferencesValue struct {
		MessagingProduct string         `json:"messaging_product"`
		Metadata         whMetadata     `json:"metadata"`
		Contacts         []whContact    `json:"contacts,omitempty"`
		Preferences      []whPreference `json:"user_preferences"`
	}
	whPreference struct {
		WaID      string `json:"wa_id,omitempty"`
		Detail    string `json:"detail"`
		Category  string `json:"category"`
		Value     string `json:"value"`
		Timestamp int64  `json:"timestamp"`
	}
	whCategoryValue struct {
		ID       json.Number `json:"message_template_id"`
		Name     string      `json:"message_template_name"`
		Language string      `json:"message_template_language"`
		Previous string      `json:"previous_category,omitempty"`
		Correct  string      `json:"correct_category,omitempty"`
		New      string      `json:"new_category"`
		UpdateAt int64       `json:"category_update_timestamp,omitempty"`
	}
)
