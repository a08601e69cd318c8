package whatsapp

import (
	"cmp"
	"encoding/json"
	"strings"
	"time"

	"github.com/heraldhq/herald/domain"
	"github.com/heraldhq/herald/ports"
)

// The health webhooks: a number's quality or its business's messaging
// limit (phone_number_quality_update, business_capability_update), and
// account notices (account_update, account_alerts). They carry no
// metadata: the entry id is the WhatsApp Business Account.
type (
	qualityUpdateValue struct {
		DisplayPhoneNumber string          `json:"display_phone_number"`
		Event              string          `json:"event"`
		CurrentLimit       json.RawMessage `json:"current_limit"`
		// max_daily_conversations_per_business replaces current_limit
		// (announced for removal in February 2026); Meta types it as an
		// integer and documents TIER_* values, so both are read.
		MaxPerBusiness json.RawMessage `json:"max_daily_conversations_per_business"`
	}
	capabilityUpdateValue struct {
		MaxPerBusiness json.RawMessage `json:"max_daily_conversations_per_business"`
		MaxPerPhone    json.RawMessage `json:"max_daily_conversation_per_phone"`
	}
	accountUpdateValue struct {
		Event    string `json:"event"`
		WabaInfo *struct {
			WabaID string `json:"waba_id"`
		} `json:"waba_info"`
	}
	accountAlertValue struct {
		EntityType string          `json:"entity_type"`
		EntityID   json.RawMessage `json:"entity_id"`
		AlertInfo  struct {
			Severity    string `json:"alert_severity"`
			Status      string `json:"alert_status"`
			Type        string `json:"alert_type"`
			Description string `json:"alert_description"`
		} `json:"alert_info"`
	}
)

// readTier reads the first of raws that is a tier (a TIER_* string or a
// number of recipients); zero when none is.
func readTier(raws ...json.RawMessage) domain.MessagingTier {
	for _, raw := range raws {
		if len(raw) == 0 || string(raw) == "null" {
			continue
		}
		if t, err := domain.ParseMessagingTier(string(raw)); err == nil {
			return t
		}
	}
	return ""
}

// qualityUpdate reads a phone_number_quality_update change. FLAGGED says
// the number's quality is low (RED); UNFLAGGED that it no longer is, which
// is recorded as UNKNOWN until Meta's phone numbers endpoint gives the
// rating. Any other event (UPGRADE, DOWNGRADE, ONBOARDING,
// THROUGHPUT_UPGRADE, …) reports the tier only. An event that says
// neither a quality nor a tier Herald can read is skipped.
func (d *decoder) qualityUpdate(at, account string, when time.Time, raw json.RawMessage) {
	var v qualityUpdateValue
	if err := json.Unmarshal(raw, &v); err != nil {
		d.skip(at, "unreadable quality update: %v", err)
		return
	}
	e := ports.NumberHealthEvent{Account: account, DisplayNumber: digitsOnly(v.DisplayPhoneNumber),
		Event: strings.ToUpper(v.Event), Tier: readTier(v.MaxPerBusiness, v.CurrentLimit), At: when}
	switch e.Event {
	case "FLAGGED":
		e.Quality = domain.QualityRed
	case "UNFLAGGED":
		e.Quality = domain.QualityUnknown
	}
	switch {
	case e.DisplayNumber == "":
		d.skip(at, "quality update %s names no number", short(e.Event))
		return
	case e.Quality == "" && e.Tier == "":
		d.skip(at, "quality update %s says no quality or tier Herald reads", short(e.Event))
		return
	}
	d.batch.Health = append(d.batch.Health, e)
}

// capabilityUpdate reads a business_capability_update change: the
// messaging limit of the account's business, for every one of its numbers.
func (d *decoder) capabilityUpdate(at, account string, when time.Time, raw json.RawMessage) {
	var v capabilityUpdateValue
	if err := json.Unmarshal(raw, &v); err != nil {
		d.skip(at, "unreadable capability update: %v", err)
		return
	}
	tier := readTier(v.MaxPerBusiness, v.MaxPerPhone)
	if tier == "" {
		d.skip(at, "capability update gives no messaging limit Herald reads")
		return
	}
	d.batch.Health = append(d.batch.Health, ports.NumberHealthEvent{Account: account, Tier: tier, At: when})
}

// accountUpdate reads an account_update change; partner events name the
// account in waba_info.
func (d *decoder) accountUpdate(at, account string, when time.Time, raw json.RawMessage) {
	var v accountUpdateValue
	if err := json.Unmarshal(raw, &v); err != nil {
		d.skip(at, "unreadable account update: %v", err)
		return
	}
	if v.Event == "" {
		d.skip(at, "account update without an event")
		return
	}
	if v.WabaInfo != nil {
		account = cmp.Or(v.WabaInfo.WabaID, account)
	}
	d.batch.Accounts = append(d.batch.Accounts, ports.AccountEvent{Account: account, Field: "account_update",
		Event: cut(v.Event, 100), At: when})
}

// accountAlert reads an account_alerts change. entity_id may be a string
// or a number.
func (d *decoder) accountAlert(at, account string, when time.Time, raw json.RawMessage) {
	var v accountAlertValue
	if err := json.Unmarshal(raw, &v); err != nil {
		d.skip(at, "unreadable account alert: %v", err)
		return
	}
	if v.AlertInfo.Type == "" {
		d.skip(at, "account alert without a type")
		return
	}
	d.batch.Accounts = append(d.batch.Accounts, ports.AccountEvent{Account: account, Field: "account_alerts",
		Event: cut(v.AlertInfo.Type, 100), Severity: short(v.AlertInfo.Severity), Status: short(v.AlertInfo.Status),
		EntityType: short(v.EntityType), EntityID: short(strings.Trim(string(v.EntityID), `"`)),
		Description: v.AlertInfo.Description, At: when})
}

// digitsOnly keeps the digits of a display number: the endpoint formats it
// (+1 631-555-5555), webhooks do not (16315555555).
func digitsOnly(s string) string {
	var b strings.Builder
	for _, r := range s {
		if r >= '0' && r <= '9' {
			b.WriteRune(r)
		}
	}
	return b.String()
}

// cut cuts s to n runes: a name Meta sends, kept whole where short would
// cut it for a log line.
func cut(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n])
	}
	return s
}
