package fakemeta_test

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/heraldhq/herald/test/fakemeta"
)

// A number of another account and app sends only with its own token, its
// sends are recorded with it, and GET /{waba-id}/phone_numbers lists the
// account's numbers with their health.
func TestSeveralNumbers(t *testing.T) {
	t.Parallel()
	fake := fakemeta.New(t)
	fake.AddTemplate(fakemeta.Template{Name: "hello", Language: "en_US", Status: "APPROVED", Body: "Hello"})
	fake.AddNumber(fakemeta.Number{PhoneNumberID: "2001", WABAID: "3001", AppID: "4001", AppSecret: "app-b-secret",
		Token: "EAAnumber2", DisplayPhoneNumber: "+44 7700 900001", VerifiedName: "Brand B", QualityRating: "YELLOW",
		MessagingLimitTier: "TIER_10K"})
	do := func(method, path, token, body string) (int, string) {
		req, err := http.NewRequest(method, fake.URL+path, strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Authorization", "Bearer "+token)
		req.Header.Set("Content-Type", "application/json")
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		return res.StatusCode, string(b)
	}
	send := `{"messaging_product":"whatsapp","to":"+447700900123","type":"template","template":{"name":"hello","language":{"code":"en_US"}}}`
	if code, body := do("POST", "/2001/messages", fake.Token, send); code != 400 || !strings.Contains(body, `"code":100`) {
		t.Errorf("number 2001 with the fake's own token: %d %s", code, body)
	}
	if code, body := do("POST", "/2001/messages", "EAAunknown", send); code != 401 {
		t.Errorf("an unknown token: %d %s", code, body)
	}
	if code, body := do("POST", "/2001/messages", "EAAnumber2", send); code != 404 || !strings.Contains(body, `"code":132001`) {
		t.Errorf("number 2001 sends a template of another account: %d %s", code, body)
	}
	fake.AddTemplate(fakemeta.Template{WABAID: "3001", Name: "hello", Language: "en_US", Status: "APPROVED", Body: "Hi"})
	if code, body := do("POST", "/2001/messages", "EAAnumber2", send); code != 200 {
		t.Fatalf("number 2001 with its token: %d %s", code, body)
	}
	acc := fake.Accepted()
	if len(acc) != 1 || acc[0].From != "2001" || acc[0].Token != "EAAnumber2" {
		t.Fatalf("accepted %+v", acc)
	}
	if by := fake.AcceptedByNumber(); len(by) != 1 || by["2001"] != 1 {
		t.Errorf("accepted by number: %v, want one from 2001", by)
	}
	code, body := do("GET", "/3001/phone_numbers", "EAAnumber2", "")
	var list struct {
		Data []map[string]any `json:"data"`
	}
	if err := json.Unmarshal([]byte(body), &list); code != 200 || err != nil || len(list.Data) != 1 ||
		list.Data[0]["quality_rating"] != "YELLOW" || list.Data[0]["messaging_limit_tier"] != "TIER_10K" ||
		list.Data[0]["display_phone_number"] != "+44 7700 900001" || list.Data[0]["verified_name"] != "Brand B" {
		t.Errorf("phone numbers of 3001: %d %s", code, body)
	}
	fake.SetQuality("2001", "RED", "TIER_250")
	if _, body := do("GET", "/3001/phone_numbers", "EAAnumber2", ""); !strings.Contains(body, `"quality_rating":"RED"`) {
		t.Errorf("after a quality drop: %s", body)
	}
	if code, _ := do("GET", "/3001/phone_numbers", fake.Token, ""); code != 401 {
		t.Errorf("another account's token lists 3001: %d", code)
	}
}

// Templates belong to a business account: each account lists its own, to
// its numbers' tokens only, and a status change of one account's template
// leaves the other's of the same name alone.
func TestTemplatesPerAccount(t *testing.T) {
	t.Parallel()
	fake := fakemeta.New(t)
	fake.AddNumber(fakemeta.Number{PhoneNumberID: "2001", WABAID: "3001", Token: "EAAnumber2"})
	fake.AddTemplate(fakemeta.Template{Name: "hello", Language: "en_US", Status: "APPROVED", Body: "Hello"})
	fake.AddTemplate(fakemeta.Template{WABAID: "3001", Name: "hello", Language: "en_US", Status: "APPROVED", Body: "Hi"})
	fake.AddTemplate(fakemeta.Template{WABAID: "3001", Name: "promo", Language: "en_US", Status: "APPROVED", Body: "Sale"})
	fake.SetAccountTemplateStatus("3001", "hello", "en_US", "PAUSED")
	list := func(waba, token string) (int, string) {
		req, err := http.NewRequest("GET", fake.URL+"/"+waba+"/message_templates?fields=name,status", nil)
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Authorization", "Bearer "+token)
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		var out struct {
			Data []struct{ Name, Status string } `json:"data"`
		}
		_ = json.Unmarshal(b, &out)
		var names []string
		for _, d := range out.Data {
			names = append(names, d.Name+":"+d.Status)
		}
		return res.StatusCode, strings.Join(names, ",")
	}
	if code, got := list(fake.WABAID, fake.Token); code != 200 || got != "hello:APPROVED" {
		t.Errorf("the fake's own account lists %d %q, want hello:APPROVED", code, got)
	}
	if code, got := list("3001", "EAAnumber2"); code != 200 || got != "hello:PAUSED,promo:APPROVED" {
		t.Errorf("account 3001 lists %d %q, want hello:PAUSED,promo:APPROVED", code, got)
	}
	if code, _ := list("3001", fake.Token); code != 400 {
		t.Errorf("another account's token lists 3001's templates: %d, want 400", code)
	}
}
