package e2e

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/heraldhq/herald/test/fakemeta"
)

// TestQualityDropPausesMarketingEndToEnd: a number added with the CLI, a
// marketing campaign on it; Meta's phone_number_quality_update (FLAGGED),
// signed by the app, pauses the campaign with its reason, and sends on it
// are refused.
func TestQualityDropPausesMarketingEndToEnd(t *testing.T) {
	t.Parallel()
	fake := fakemeta.New(t)
	fake.AppSecret = "app-health-secret-0123456789"
	fake.AddTemplate(fakemeta.Template{Name: "welcome", Language: "en_US", Status: "APPROVED", Category: "MARKETING", BodyParams: 1})
	const token = "EAAhealthNumberToken-1a2b3c4d5e"
	fake.AddNumber(fakemeta.Number{PhoneNumberID: "200000000000012", WABAID: fake.WABAID, AppID: "5001",
		AppSecret: fake.AppSecret, Token: token, DisplayPhoneNumber: "+1 555-010-0012", VerifiedName: "Acme Sales",
		QualityRating: "GREEN", MessagingLimitTier: "TIER_10K"})

	in := newInstance(t, "sqlite")
	tokenFile := filepath.Join(in.dir, "number.token")
	if err := os.WriteFile(tokenFile, []byte(token+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	var key struct{ Token string }
	in.cli(&key, "keys", "create", "--name", "a", "--mode", "live")
	var number struct{ ID string }
	in.cli(&number, "numbers", "add", "--phone-number-id", "200000000000012", "--waba-id", fake.WABAID, "--app-id", "5001",
		"--display-number", "+1 555-010-0012", "--verified-name", "Acme Sales", "--workspace", defaultWorkspace(t, in),
		"--access-token-file", tokenFile)
	srv := in.serve("HERALD_WHATSAPP_API_URL="+fake.URL, "HERALD_WHATSAPP_ACCESS_TOKEN="+fake.Token,
		"HERALD_WHATSAPP_PHONE_NUMBER_ID="+fake.PhoneNumberID, "HERALD_WHATSAPP_APP_SECRET="+fake.AppSecret)

	var c struct{ ID, Status, PausedReason string }
	if code := srv.call(t, "POST", "/v1/campaigns", key.Token, map[string]any{"name": "Sale", "templateName": "welcome",
		"language": "en_US", "body": "Hi {{1}}", "activate": true, "phoneNumberId": number.ID}, &c); code != 201 {
		t.Fatalf("create campaign: %d", code)
	}
	body := fakemeta.QualityUpdatePayload(fake.WABAID, "15550100012", "FLAGGED", "TIER_10K", time.Now())
	code, answer := rawCall(t, "POST", srv.Base+"/v1/webhooks/whatsapp", map[string]string{"Content-Type": "application/json",
		"X-Hub-Signature-256": fakemeta.Sign(fake.AppSecret, body)}, body)
	if code != 200 {
		t.Fatalf("quality webhook: %d %s", code, answer)
	}
	defer func() {
		if t.Failed() {
			t.Log(srv.Logs())
		}
	}()
	if code := srv.call(t, "GET", "/v1/campaigns/"+c.ID, key.Token, nil, &c); code != 200 || c.Status != "paused" ||
		c.PausedReason != "quality_red" {
		t.Fatalf("the campaign after FLAGGED: %d %+v, want paused for quality_red", code, c)
	}
	var refused struct{ Code string }
	if code := srv.call(t, "POST", "/v1/messages/send-campaign", key.Token,
		map[string]any{"phoneNumber": "+14155550199", "campaignId": c.ID, "variables": []string{"Ana"}}, &refused); code != 409 ||
		refused.Code != "campaign_not_active" {
		t.Fatalf("a send on the paused campaign: %d %+v", code, refused)
	}
	var phones struct {
		Data []struct{ ID, Quality string }
	}
	srv.call(t, "GET", "/v1/phone-numbers", key.Token, nil, &phones)
	for _, p := range phones.Data {
		if p.ID == number.ID && p.Quality != "RED" {
			t.Errorf("GET /v1/phone-numbers shows the number %s, want RED", p.Quality)
		}
	}
}
