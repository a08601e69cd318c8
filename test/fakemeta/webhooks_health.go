package fakemeta

import "time"

// QualityUpdatePayload is a phone_number_quality_update webhook body for
// the number whose display number is displayDigits (digits only, as Meta
// writes it here): event is Meta's (FLAGGED, UNFLAGGED, UPGRADE,
// DOWNGRADE, ONBOARDING, …) and limit the business's messaging limit tier
// (TIER_*), sent both as current_limit and as
// max_daily_conversations_per_business, which replaces it.
func QualityUpdatePayload(wabaID, displayDigits, event, limit string, at time.Time) []byte {
	v := whQualityValue{DisplayPhoneNumber: displayDigits, Event: event, CurrentLimit: limit, MaxPerBusiness: limit}
	return encode(whPayload{Object: "whatsapp_business_account",
		Entry: []whEntry{{ID: wabaID, Time: unixSeconds(at), Changes: []whChange{{Field: "phone_number_quality_update", Value: v}}}}})
}

// AccountAlertPayload is an account_alerts webhook body about entityID
// (entityType PHONE_NUMBER, WABA or BUSINESS).
func AccountAlertPayload(wabaID, entityType, entityID, severity, alertType, description string, at time.Time) []byte {
	v := whAlertValue{EntityType: entityType, EntityID: entityID,
		AlertInfo: whAlertInfo{Severity: severity, Status: "ACTIVE", Type: alertType, Description: description}}
	return encode(whPayload{Object: "whatsapp_business_account",
		Entry: []whEntry{{ID: wabaID, Time: unixSeconds(at), Changes: []whChange{{Field: "account_alerts", Value: v}}}}})
}

// AccountUpdatePayload is an account_update webhook body with event (such
// as ACCOUNT_RESTRICTION or DISABLED_UPDATE).
func AccountUpdatePayload(wabaID, event string, at time.Time) []byte {
	return encode(whPayload{Object: "whatsapp_business_account",
		Entry: []whEntry{{ID: wabaID, Time: unixSeconds(at), Changes: []whChange{{Field: "account_update",
			Value: whAccountValue{PhoneNumber: DisplayPhoneNumber, Event: event}}}}}})
}

// The wire shapes of the health webhooks, fields in Meta's order.
type (
	whQualityValue struct {
		DisplayPhoneNumber string `json:"display_phone_number"`
		Event              string `json:"event"`
		CurrentLimit       string `json:"current_limit,omitempty"`
		MaxPerBusiness     string `json:"max_daily_conversations_per_business,omitempty"`
	}
	whAlertValue struct {
		EntityType string      `json:"entity_type"`
		EntityID   string      `json:"entity_id"`
		AlertInfo  whAlertInfo `json:"alert_info"`
	}
	whAlertInfo struct {
		Severity    string `json:"alert_severity"`
		Status      string `json:"alert_status"`
		Type        string `json:"alert_type"`
		Description string `json:"alert_description"`
	}
	whAccountValue struct {
		PhoneNumber string `json:"phone_number,omitempty"`
		Event       string `json:"event"`
	}
)
