package whatsapp_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/heraldhq/herald/adapters/whatsapp"
	"github.com/heraldhq/herald/domain"
	"github.com/heraldhq/herald/ports"
	"github.com/heraldhq/herald/test/fakemeta"
)

// TestQualityUpdateDecode reads phone_number_quality_update and
// business_capability_update: FLAGGED is RED, UNFLAGGED no longer RED
// (UNKNOWN until Meta is read), other events carry the tier only; the tier
// is read from max_daily_conversations_per_business first, then
// current_limit, as a TIER_* name or a number; the number is named by its
// display digits. Events with nothing Herald reads are skipped.
func TestQualityUpdateDecode(t *testing.T) {
	t.Parallel()
	d := whatsapp.NewWebhooks(whatsapp.WebhookConfig{})
	batch, err := d.Decode(fakemeta.BatchChanges(
		fakemeta.QualityUpdatePayload(waba, fakemeta.DisplayPhoneNumber, "FLAGGED", "TIER_10K", at),
		fakemeta.QualityUpdatePayload(waba, fakemeta.DisplayPhoneNumber, "UNFLAGGED", "", later),
		fakemeta.QualityUpdatePayload(waba, fakemeta.DisplayPhoneNumber, "DOWNGRADE", "TIER_2K", later),
		[]byte(`{"object":"whatsapp_business_account","entry":[{"id":"`+waba+`","time":1767225599,"changes":[
 {"field":"phone_number_quality_update","value":{"display_phone_number":"+1 555-078-3881","event":"UPGRADE","current_limit":"TIER_1K","max_daily_conversations_per_business":100000}},
 {"field":"phone_number_quality_update","value":{"display_phone_number":"15550783881","event":"ONBOARDING"}},
 {"field":"phone_number_quality_update","value":{"event":"FLAGGED"}},
 {"field":"business_capability_update","value":{"max_daily_conversation_per_phone":-1,"max_daily_conversations_per_business":"TIER_UNLIMITED","max_phone_numbers_per_business":20}},
 {"field":"business_capability_update","value":{"max_phone_numbers_per_waba":2}}]}]}`),
	))
	if err != nil {
		t.Fatal(err)
	}
	want := []ports.NumberHealthEvent{
		{Account: waba, DisplayNumber: fakemeta.DisplayPhoneNumber, Event: "FLAGGED", Quality: domain.QualityRed, Tier: domain.Tier10K, At: at},
		{Account: waba, DisplayNumber: fakemeta.DisplayPhoneNumber, Event: "UNFLAGGED", Quality: domain.QualityUnknown, At: at},
		{Account: waba, DisplayNumber: fakemeta.DisplayPhoneNumber, Event: "DOWNGRADE", Tier: domain.Tier2K, At: at},
		{Account: waba, DisplayNumber: fakemeta.DisplayPhoneNumber, Event: "UPGRADE", Tier: domain.Tier100K, At: at},
		{Account: waba, Tier: domain.TierUnlimited, At: at},
	}
	// BatchChanges keeps the first entry's time for every change.
	if d := cmp.Diff(want, batch.Health); d != "" {
		t.Errorf("health (-want +got):\n%s", d)
	}
	wantSkipped := []string{
		"entry 0 change 4: quality update ONBOARDING says no quality or tier Herald reads",
		"entry 0 change 5: quality update FLAGGED names no number",
		"entry 0 change 7: capability update gives no messaging limit Herald reads",
	}
	if d := cmp.Diff(wantSkipped, batch.Skipped); d != "" {
		t.Errorf("skipped (-want +got):\n%s", d)
	}
}

// TestAccountEventsDecode reads account_update (a partner event names its
// account in waba_info) and account_alerts (entity_id as a string or a
// number) as account notices.
func TestAccountEventsDecode(t *testing.T) {
	t.Parallel()
	d := whatsapp.NewWebhooks(whatsapp.WebhookConfig{})
	batch, err := d.Decode(fakemeta.Batch(
		fakemeta.AccountUpdatePayload(waba, "ACCOUNT_RESTRICTION", at),
		fakemeta.AccountAlertPayload(waba, "PHONE_NUMBER", phoneID, "WARNING", "INCREASED_CAPABILITIES_ELIGIBILITY_DEFERRED", "Not yet", at),
		[]byte(`{"object":"whatsapp_business_account","entry":[{"id":"9988","time":1767225599,"changes":[
 {"field":"account_update","value":{"event":"MM_LITE_TERMS_SIGNED","waba_info":{"waba_id":"`+waba+`","owner_business_id":"9988"}}},
 {"field":"account_update","value":{}},
 {"field":"account_alerts","value":{"entity_type":"WABA","entity_id":102290129340398,"alert_info":{"alert_severity":"CRITICAL","alert_status":"ACTIVE","alert_type":"OBA_REJECTED","alert_description":"d"}}}]}]}`),
	))
	if err != nil {
		t.Fatal(err)
	}
	want := []ports.AccountEvent{
		{Account: waba, Field: "account_update", Event: "ACCOUNT_RESTRICTION", At: at},
		{Account: waba, Field: "account_alerts", Event: "INCREASED_CAPABILITIES_ELIGIBILITY_DEFERRED", Severity: "WARNING",
			Status: "ACTIVE", EntityType: "PHONE_NUMBER", EntityID: phoneID, Description: "Not yet", At: at},
		{Account: waba, Field: "account_update", Event: "MM_LITE_TERMS_SIGNED", At: mustUnix(1767225599)},
		{Account: "9988", Field: "account_alerts", Event: "OBA_REJECTED", Severity: "CRITICAL", Status: "ACTIVE",
			EntityType: "WABA", EntityID: "102290129340398", Description: "d", At: mustUnix(1767225599)},
	}
	if d := cmp.Diff(want, batch.Accounts); d != "" {
		t.Errorf("accounts (-want +got):\n%s", d)
	}
	if d := cmp.Diff([]string{"entry 2 change 1: account update without an event"}, batch.Skipped); d != "" {
		t.Errorf("skipped (-want +got):\n%s", d)
	}
}
