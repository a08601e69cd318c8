package ports

import (
	"time"

	"github.com/heraldhq/herald/domain"
)

// MarketingPreferenceEvent is Meta's report that a WhatsApp user stopped or
// resumed the business's marketing messages (the user_preferences webhook).
type MarketingPreferenceEvent struct {
	// Number is the business number whose marketing the user stopped or
	// resumed (Meta's phone_number_id).
	Number string
	// User is who: the item's wa_id (digits, no +), with what the change's
	// contacts say of that user (business-scoped user ids, username).
	User    domain.WhatsAppUser
	Stopped bool // stop; false is resume
	// At is when the user said it; zero when Meta gave no readable time.
	At time.Time
}

// TemplateCategoryEvent is Meta's report that a template's category
// changed, or is about to (the template_category_update webhook).
type TemplateCategoryEvent struct {
	Account  string // the WhatsApp Business Account id (the entry id)
	Name     string
	Language string // in canonical form (domain.CanonicalLanguage)
	// Category is the category the template has now (Meta's new_category,
	// in both of its forms of the event).
	Category domain.TemplateCategory
	// Previous is the category before a completed change; zero when Meta
	// did not say.
	Previous domain.TemplateCategory
	// Upcoming, for a change Meta announces, is the category the template
	// will have from UpcomingAt (correct_category and
	// category_update_timestamp); zero otherwise. It is reported, not
	// applied: Meta's event for the completed change, or the next template
	// sync, applies it.
	Upcoming   domain.TemplateCategory
	UpcomingAt time.Time
	At         time.Time
}
