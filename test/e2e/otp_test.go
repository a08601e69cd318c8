package e2e

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/heraldhq/herald/test/fakemeta"
)

// TestOTPEndToEnd: an authentication template synced from (the fake of)
// Meta, as Meta lists it (its code button stored as a URL button), becomes
// a campaign over the API that takes one variable; a live send puts the
// code in the body and the button, in a payload Meta's schema accepts, and
// the fake, which refuses a code button without its parameter, accepts it.
func TestOTPEndToEnd(t *testing.T) {
	t.Parallel()
	spec := fakemeta.LoadSpec(t)
	fake := fakemeta.New(t)
	fake.AddTemplate(fakemeta.Template{Name: "login_code", Language: "en_US", Status: "APPROVED", Category: "AUTHENTICATION",
		Body: "*{{1}}* is your verification code.", Footer: "This code expires in 5 minutes.",
		Buttons: []fakemeta.Button{{Type: "URL", Text: "Copy code",
			URL: "https://www.whatsapp.com/otp/code/?otp_type=COPY_CODE&code_expiration_minutes=5&code=otp{{1}}"}}})
	in := newInstance(t, "sqlite")
	in.env = append(in.env, "HERALD_WHATSAPP_API_URL="+fake.URL, "HERALD_WHATSAPP_ACCESS_TOKEN="+fake.Token,
		"HERALD_WHATSAPP_PHONE_NUMBER_ID="+fake.PhoneNumberID, "HERALD_WHATSAPP_WABA_ID="+fake.WABAID)
	var live struct{ Token string }
	in.cli(&live, "keys", "create", "--name", "live", "--mode", "live")
	var synced []struct{ Name, Unsupported string }
	in.cli(&synced, "campaigns", "sync-templates")
	if len(synced) != 1 || synced[0].Unsupported != "" {
		t.Fatalf("sync-templates: %+v", synced)
	}
	srv := in.serve()

	var camp struct {
		ID            string
		Status        string
		VariableCount int
	}
	if code := srv.call(t, "POST", "/v1/campaigns", live.Token,
		map[string]any{"name": "Login", "templateName": "login_code", "language": "en_US", "activate": true}, &camp); code != 201 ||
		camp.Status != "active" || camp.VariableCount != 1 {
		t.Fatalf("create: %d %+v\n%s", code, camp, srv.Logs())
	}
	var refused struct{ Code, Param string }
	if code := srv.call(t, "POST", "/v1/messages/send-campaign", live.Token,
		map[string]any{"phoneNumber": "+14155552671", "campaignId": camp.ID, "variables": []string{"1234567890123456"}}, &refused); code != 422 ||
		refused.Code != "variables_mismatch" || refused.Param != "variables[0]" {
		t.Fatalf("a 16-character code: %d %+v", code, refused)
	}
	var accepted struct{ ID string }
	if code := srv.call(t, "POST", "/v1/messages/send-campaign", live.Token,
		map[string]any{"phoneNumber": "+14155552671", "campaignId": camp.ID, "variables": []string{"482913"}}, &accepted); code != 202 {
		t.Fatalf("send: %d\n%s", code, srv.Logs())
	}
	var m struct {
		Status            string
		RenderedBody      string
		ProviderMessageID *string
	}
	deadline := time.Now().Add(15 * time.Second)
	for time.Now().Before(deadline) && m.ProviderMessageID == nil && m.Status != "failed" {
		srv.call(t, "GET", "/v1/messages/"+accepted.ID, live.Token, nil, &m)
		if m.ProviderMessageID == nil {
			time.Sleep(20 * time.Millisecond)
		}
	}
	if m.ProviderMessageID == nil || m.RenderedBody != "*482913* is your verification code." {
		t.Fatalf("the OTP message was not accepted by the Cloud API: %+v\n%s", m, srv.Logs())
	}
	reqs := fake.Requests()
	if len(reqs) != 1 {
		t.Fatalf("the fake received %d sends, want 1", len(reqs))
	}
	if err := spec.Check("TemplateMessage", reqs[0].Body); err != nil {
		t.Error(err)
	}
	var sent struct {
		Template struct{ Components json.RawMessage }
	}
	json.Unmarshal(reqs[0].Body, &sent)
	if got, want := string(sent.Template.Components), `[{"type":"body","parameters":[{"type":"text","text":"482913"}]},`+
		`{"type":"button","sub_type":"url","index":"0","parameters":[{"type":"text","text":"482913"}]}]`; got != want {
		t.Errorf("components\n got %s\nwant %s", got, want)
	}
	srv.Stop(t)
}
