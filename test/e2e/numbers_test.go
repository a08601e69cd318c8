package e2e

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/heraldhq/herald/test/fakemeta"
)

// TestSeveralNumbersEndToEnd: two Meta apps, three numbers in two business
// accounts. The HERALD_WHATSAPP_* number and a second number of its
// account and app; a third number in another account of another app,
// offered to a second workspace only. Each send leaves from its campaign's
// number with that number's token; each app's status webhooks are verified
// with its own secret and reach their messages; each account's templates
// are synced, and Meta pausing one account's template stops only that
// account's campaign; the database holds no token or app secret in clear,
// in the file or its WAL.
func TestSeveralNumbersEndToEnd(t *testing.T) {
	t.Parallel()
	fake := fakemeta.New(t)
	fake.AppSecret = "app-a-secret-0123456789"
	fake.AddTemplate(fakemeta.Template{Name: "welcome", Language: "en_US", Status: "APPROVED", BodyParams: 1})
	const accountB = "400000000000004"
	fake.AddTemplate(fakemeta.Template{WABAID: accountB, Name: "welcome", Language: "en_US", Status: "APPROVED", BodyParams: 1})
	const (
		tokenTwo   = "EAAsecondNumberToken-7f3c9a1b2d"
		tokenThree = "EAAthirdNumberToken-5e8d2c4f6a"
		secretB    = "app-b-secret-9876543210"
	)
	fake.AddNumber(fakemeta.Number{PhoneNumberID: "200000000000002", WABAID: fake.WABAID, AppID: "5001",
		AppSecret: fake.AppSecret, Token: tokenTwo, DisplayPhoneNumber: "+1 555-010-0002", VerifiedName: "Acme Support"})
	fake.AddNumber(fakemeta.Number{PhoneNumberID: "300000000000003", WABAID: "400000000000004", AppID: "6001",
		AppSecret: secretB, Token: tokenThree, DisplayPhoneNumber: "+44 7700 900003", VerifiedName: "Brand B"})

	in := newInstance(t, "sqlite")
	file := func(name, content string) string {
		p := filepath.Join(in.dir, name)
		if err := os.WriteFile(p, []byte(content+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	var brandB struct{ ID string }
	in.cli(&brandB, "workspaces", "create", "--name", "Brand B")
	var keyA, keyB struct{ Token string }
	in.cli(&keyA, "keys", "create", "--name", "a", "--mode", "live")
	in.cli(&keyB, "keys", "create", "--name", "b", "--mode", "live", "--workspace", brandB.ID)
	var two, three struct{ ID, Token string }
	in.cli(&two, "numbers", "add", "--phone-number-id", "200000000000002", "--waba-id", fake.WABAID, "--app-id", "5001",
		"--display-number", "+1 555-010-0002", "--verified-name", "Acme Support", "--workspace", defaultWorkspace(t, in),
		"--access-token-file", file("two.token", tokenTwo))
	in.cli(&three, "numbers", "add", "--phone-number-id", "300000000000003", "--waba-id", "400000000000004", "--app-id", "6001",
		"--display-number", "+44 7700 900003", "--verified-name", "Brand B", "--workspace", brandB.ID,
		"--access-token-file", file("three.token", tokenThree), "--app-secret-file", file("b.secret", secretB))
	if two.Token != "sealed:"+keyIDOf(t, in) || three.Token != two.Token {
		t.Fatalf("numbers add printed tokens %q and %q, want their sealing key only", two.Token, three.Token)
	}

	srv := in.serve("HERALD_WHATSAPP_API_URL="+fake.URL, "HERALD_WHATSAPP_ACCESS_TOKEN="+fake.Token,
		"HERALD_WHATSAPP_PHONE_NUMBER_ID="+fake.PhoneNumberID, "HERALD_WHATSAPP_WABA_ID="+fake.WABAID,
		"HERALD_WHATSAPP_APP_SECRET="+fake.AppSecret)
	fake.WebhookURL = srv.Base + "/v1/webhooks/whatsapp"

	// The start's template sync reads both accounts; campaigns made
	// after it take their account's template status.
	var synced struct {
		Data []struct{ Name, Status string }
	}
	for deadline := time.Now().Add(15 * time.Second); len(synced.Data) == 0 && time.Now().Before(deadline); {
		time.Sleep(20 * time.Millisecond)
		srv.call(t, "GET", "/v1/templates", keyA.Token, nil, &synced)
	}
	var listA, listB struct {
		Data []struct{ ID, VerifiedName string }
	}
	if code := srv.call(t, "GET", "/v1/phone-numbers", keyA.Token, nil, &listA); code != 200 || len(listA.Data) != 2 {
		t.Fatalf("workspace A's numbers: %d %+v", code, listA)
	}
	if code := srv.call(t, "GET", "/v1/phone-numbers", keyB.Token, nil, &listB); code != 200 || len(listB.Data) != 2 {
		t.Fatalf("workspace B's numbers: %d %+v", code, listB)
	}
	envNumber := ""
	for _, n := range listA.Data {
		if n.ID != two.ID {
			envNumber = n.ID
		}
	}
	for _, n := range listB.Data {
		if n.ID == two.ID {
			t.Fatalf("workspace B sees workspace A's number: %+v", listB)
		}
	}

	campaign := func(key, number string) string {
		var c struct{ ID string }
		if code := srv.call(t, "POST", "/v1/campaigns", key, map[string]any{"name": "W", "templateName": "welcome",
			"language": "en_US", "body": "Hi {{1}}", "activate": true, "phoneNumberId": number}, &c); code != 201 {
			t.Fatalf("create campaign on %s: %d", number, code)
		}
		return c.ID
	}
	var refused struct{ Code string }
	if code := srv.call(t, "POST", "/v1/campaigns", keyA.Token, map[string]any{"name": "W", "templateName": "welcome",
		"language": "en_US", "body": "Hi {{1}}"}, &refused); code != 422 || refused.Code != "phone_number_required" {
		t.Fatalf("campaign without a number in a workspace with two: %d %+v", code, refused)
	}
	sends := []struct {
		key, campaign, to, from, token string
	}{
		{keyA.Token, campaign(keyA.Token, envNumber), "+14155550101", fake.PhoneNumberID, fake.Token},
		{keyA.Token, campaign(keyA.Token, two.ID), "+14155550102", "200000000000002", tokenTwo},
		{keyB.Token, campaign(keyB.Token, three.ID), "+14155550103", "300000000000003", tokenThree},
	}
	ids := map[string]int{}
	for i, s := range sends {
		var accepted struct{ ID string }
		if code := srv.call(t, "POST", "/v1/messages/send-campaign", s.key,
			map[string]any{"phoneNumber": s.to, "campaignId": s.campaign, "variables": []string{"Ana"}}, &accepted); code != 202 {
			t.Fatalf("send %d: %d", i, code)
		}
		ids[accepted.ID] = i
		// Read, through webhooks signed by the number's own app.
		srv.awaitStatus(t, s.key, accepted.ID, "read")
	}
	for _, a := range fake.Accepted() {
		var body struct {
			To  string `json:"to"`
			Biz string `json:"biz_opaque_callback_data"`
		}
		if err := json.Unmarshal(a.Body, &body); err != nil {
			t.Fatal(err)
		}
		i, ok := ids[body.Biz]
		if !ok {
			t.Fatalf("an unexpected send: %s", a.Body)
		}
		if want := sends[i]; a.From != want.from || a.Token != want.token || body.To != want.to {
			t.Errorf("send %d left from %s with token …%s, want %s with …%s", i, a.From, tail(a.Token), want.from, tail(want.token))
		}
	}
	if n := len(fake.Accepted()); n != 3 {
		t.Errorf("the fake accepted %d sends, want 3", n)
	}

	// Meta pauses account B's welcome: its campaign stops, account A's
	// (the configured one, and number two's) keep sending.
	if status, err := fake.ReviewAccount(accountB, "welcome", "en_US", "PAUSED", ""); err != nil || status != 200 {
		t.Fatalf("account B's template status webhook: %d %v", status, err)
	}
	templateStatus := func(key, id string) string {
		var c struct{ Template struct{ Status string } }
		if code := srv.call(t, "GET", "/v1/campaigns/"+id, key, nil, &c); code != 200 {
			t.Fatalf("get campaign %s: %d", id, code)
		}
		return c.Template.Status
	}
	deadline := time.Now().Add(15 * time.Second)
	for templateStatus(keyB.Token, sends[2].campaign) != "PAUSED" && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if got := templateStatus(keyB.Token, sends[2].campaign); got != "PAUSED" {
		t.Errorf("account B's campaign after Meta paused its template: %s, want PAUSED\n%s", got, srv.Logs())
	}
	for _, s := range sends[:2] {
		if got := templateStatus(s.key, s.campaign); got != "APPROVED" {
			t.Errorf("campaign %s of account A after account B's pause: template %s, want APPROVED", s.campaign, got)
		}
	}
	if code := srv.call(t, "GET", "/v1/templates", keyA.Token, nil, &synced); code != 200 || len(synced.Data) != 1 ||
		synced.Data[0].Status != "APPROVED" {
		t.Errorf("account A's synced templates after account B's pause: %d %+v", code, synced)
	}
	logs := srv.Logs()
	srv.Stop(t)
	for _, secret := range []string{tokenTwo, tokenThree, secretB} {
		if bytes.Contains([]byte(logs), []byte(secret)) {
			t.Errorf("the log holds a secret ending …%s", tail(secret))
		}
		for _, f := range []string{"herald.db", "herald.db-wal"} {
			b, err := os.ReadFile(filepath.Join(in.dir, f))
			if err != nil && !os.IsNotExist(err) {
				t.Fatal(err)
			}
			if bytes.Contains(b, []byte(secret)) {
				t.Errorf("%s holds a secret ending …%s in clear", f, tail(secret))
			}
		}
	}
}

func tail(s string) string {
	if len(s) < 4 {
		return s
	}
	return s[len(s)-4:]
}

// defaultWorkspace returns the default workspace's id.
func defaultWorkspace(t *testing.T, in *instance) string {
	t.Helper()
	var keys []struct{ WorkspaceID string }
	in.cli(&keys, "keys", "list")
	if len(keys) == 0 {
		t.Fatal("no key in the default workspace")
	}
	return keys[0].WorkspaceID
}

// keyIDOf returns the id of the key the instance made beside its database.
func keyIDOf(t *testing.T, in *instance) string {
	t.Helper()
	var ns []struct{ Token string }
	in.cli(&ns, "numbers", "list")
	if len(ns) == 0 {
		t.Fatal("no numbers")
	}
	return ns[0].Token[len("sealed:"):]
}
