package whatsapp

import (
	"cmp"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/heraldhq/herald/domain"
	"github.com/heraldhq/herald/ports"
)

// The marketing webhooks: a user stopping or resuming the business's
// marketing messages (field user_preferences), and a template's category
// changing (field template_category_update).
type (
	userPreferencesValue struct {
		Metadata struct {
			PhoneNumberID string `json:"phone_number_id"`
		} `json:"metadata"`
		Contacts    []json.RawMessage `json:"contacts"`
		Preferences []json.RawMessage `json:"user_preferences"`
	}
	userPreferenceItem struct {
		WaID      string   `json:"wa_id"`
		UserID    string   `json:"user_id"`
		Category  string   `json:"category"`
		Value     string   `json:"value"`
		Timestamp unixTime `json:"timestamp"`
	}
	templateCategoryValue struct {
		Name     string   `json:"message_template_name"`
		Language string   `json:"message_template_language"`
		Previous string   `json:"previous_category"`
		New      string   `json:"new_category"`
		Correct  string   `json:"correct_category"`
		UpdateAt unixTime `json:"category_update_timestamp"`
	}
)

// userPreferences reads a user_preferences change: each item is a user's
// stop or resume of the business's marketing messages, identified by its
// wa_id (or a business-scoped user id) and completed by the change's
// contact with that wa_id or BSUID, or its only contact (who may be all
// there is to name the user). Other categories and values (pywa also
// models signup) are left out with a line in Skipped.
func (d *decoder) userPreferences(at string, raw json.RawMessage) {
	var v userPreferencesValue
	if err := json.Unmarshal(raw, &v); err != nil {
		d.skip(at, "unreadable value: %v", err)
		return
	}
	contacts := readContacts(v.Contacts)
	for i, raw := range v.Preferences {
		at := fmt.Sprintf("%s preference %d", at, i)
		var p userPreferenceItem
		if err := json.Unmarshal(raw, &p); err != nil {
			d.skip(at, "unreadable preference: %v", err)
			continue
		}
		if p.Category != "marketing_messages" {
			d.skip(at, "preference category %q is not handled", short(p.Category))
			continue
		}
		e := ports.MarketingPreferenceEvent{Number: v.Metadata.PhoneNumberID, At: p.Timestamp.t}
		switch p.Value {
		case "stop":
			e.Stopped = true
		case "resume":
		default:
			d.skip(at, "marketing preference %q is not stop or resume", short(p.Value))
			continue
		}
		c := whoIs(contacts, p.WaID, p.UserID)
		e.User = domain.WhatsAppUser{WaID: cmp.Or(p.WaID, c.WaID), UserID: cmp.Or(p.UserID, c.UserID),
			ParentUserID: c.ParentUserID, Username: c.Username, ProfileName: c.ProfileName}
		if e.User.IsZero() {
			d.skip(at, "marketing preference %s names no wa_id or user id", p.Value)
			continue
		}
		d.batch.Preferences = append(d.batch.Preferences, e)
	}
}

// templateCategory reads a template_category_update change, in either of
// its forms: a change Meta announces (new_category is the category now,
// correct_category the one from category_update_timestamp on) or one it
// made (previous_category and new_category). Template ids are JSON numbers
// here; Herald keys templates by name and language and does not read them.
func (d *decoder) templateCategory(at, account string, when time.Time, raw json.RawMessage) {
	var v templateCategoryValue
	if err := json.Unmarshal(raw, &v); err != nil {
		d.skip(at, "unreadable template category: %v", err)
		return
	}
	cat, err := domain.ParseTemplateCategory(v.New)
	if err != nil {
		d.skip(at, "template category %q is not a category", short(v.New))
		return
	}
	e := ports.TemplateCategoryEvent{Account: account, Name: v.Name, Language: domain.CanonicalLanguage(v.Language),
		Category: cat, At: when}
	if e.Name == "" || e.Language == "" {
		d.skip(at, "template category %s names no template and language", cat)
		return
	}
	// Categories that cannot be read are left zero: Meta did not say.
	e.Previous, _ = domain.ParseTemplateCategory(v.Previous)
	if up, err := domain.ParseTemplateCategory(v.Correct); err == nil && !strings.EqualFold(v.Correct, v.New) {
		e.Upcoming, e.UpcomingAt = up, v.UpdateAt.t
	}
	d.batch.Categories = append(d.batch.Categories, e)
}
