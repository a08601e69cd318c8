package fakemeta_test

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/heraldhq/herald/test/fakemeta"
)

type listAnswer struct {
	Data   []map[string]any `json:"data"`
	Paging *struct {
		Cursors struct{ Before, After string }
		Next    string
	}
	Error *struct {
		Code    int `json:"code"`
		Subcode int `json:"error_subcode"`
	}
}

func get(t *testing.T, url, token string) (int, listAnswer) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+token)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	raw, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	var a listAnswer
	if err := json.Unmarshal(raw, &a); err != nil {
		t.Fatalf("%v: %s", err, raw)
	}
	return res.StatusCode, a
}

func newFake(t *testing.T) *fakemeta.Server {
	t.Helper()
	fake := fakemeta.New(t)
	for _, tmpl := range []fakemeta.Template{
		{Name: "b", Language: "pt_BR", Status: "APPROVED", BodyParams: 1},
		{Name: "a", Language: "en", Status: "PAUSED", Header: "image"},
		{Name: "b", Language: "en", Status: "APPROVED", HeaderFormat: "text", HeaderText: "Hi", Body: "{{1}} and {{2}}"},
		{Name: "c", Language: "en", Status: "DISABLED", Category: "MARKETING"},
		{Name: "d", Language: "en", Status: "APPROVED", ParameterFormat: "NAMED", Body: "Hi {{name}}"},
	} {
		fake.AddTemplate(tmpl)
	}
	return fake
}

func names(a listAnswer) []string {
	var out []string
	for _, d := range a.Data {
		out = append(out, d["name"].(string)+"/"+d["language"].(string))
	}
	return out
}

func TestTemplateListPages(t *testing.T) {
	t.Parallel()
	fake := newFake(t)
	url := fake.URL + "/" + fake.WABAID + "/message_templates?limit=2&fields=name,language"
	var got []string
	pages := 0
	for url != "" {
		status, a := get(t, url, fake.Token)
		if status != 200 {
			t.Fatalf("HTTP %d", status)
		}
		got = append(got, names(a)...)
		if a.Paging == nil || a.Paging.Cursors.After == "" || a.Paging.Cursors.Before == "" {
			t.Fatalf("page %d has no cursors", pages+1)
		}
		url = a.Paging.Next
		if url != "" && !strings.HasPrefix(url, fake.URL+"/") {
			t.Fatalf("next %s is not on the fake", url)
		}
		pages++
	}
	want := []string{"a/en", "b/en", "b/pt_BR", "c/en", "d/en"}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("templates (-want +got):\n%s", d)
	}
	if pages != 3 || fake.TemplateRequests() != 3 {
		t.Errorf("%d pages, %d recorded, want 3", pages, fake.TemplateRequests())
	}
}

func TestTemplateListFiltersAndFields(t *testing.T) {
	t.Parallel()
	fake := newFake(t)
	fake.SetTemplateStatus("b", "pt_BR", "PAUSED")
	base := fake.URL + "/" + fake.WABAID + "/message_templates"
	for _, c := range []struct {
		query string
		want  []string
	}{
		{"?status=paused,disabled&fields=name,language", []string{"a/en", "b/pt_BR", "c/en"}},
		{"?name=b", []string{"b/en", "b/pt_BR"}},
		{"?category=MARKETING", []string{"c/en"}},
		{"?name=nope", nil},
	} {
		_, a := get(t, base+c.query, fake.Token)
		if d := cmp.Diff(c.want, names(a)); d != "" {
			t.Errorf("%s (-want +got):\n%s", c.query, d)
		}
	}
	_, a := get(t, base+"?name=b&fields=name,language", fake.Token)
	if d := cmp.Diff(map[string]any{"id": a.Data[0]["id"], "name": "b", "language": "en"}, a.Data[0]); d != "" {
		t.Errorf("fields (-want +got):\n%s", d)
	}
	_, a = get(t, base+"?name=b", fake.Token)
	want := []any{
		map[string]any{"type": "HEADER", "format": "TEXT", "text": "Hi"},
		map[string]any{"type": "BODY", "text": "{{1}} and {{2}}",
			"example": map[string]any{"body_text": []any{[]any{"sample 1", "sample 2"}}}},
	}
	if d := cmp.Diff(want, a.Data[0]["components"]); d != "" {
		t.Errorf("components (-want +got):\n%s", d)
	}
	if a.Data[0]["category"] != "UTILITY" || a.Data[0]["parameter_format"] != "POSITIONAL" {
		t.Errorf("defaults: %v", a.Data[0])
	}
}

func TestTemplateListErrors(t *testing.T) {
	t.Parallel()
	fake := newFake(t)
	base := fake.URL + "/" + fake.WABAID + "/message_templates"
	for _, c := range []struct {
		url, token    string
		status, code  int
		wantSubcode33 bool
	}{
		{base, "wrong", 401, 190, false},
		{fake.URL + "/1/message_templates", fake.Token, 400, 100, true},
		{base + "?limit=0", fake.Token, 400, 100, false},
		{base + "?after=***", fake.Token, 400, 100, false},
	} {
		status, a := get(t, c.url, c.token)
		if status != c.status || a.Error == nil || a.Error.Code != c.code || (a.Error.Subcode == 33) != c.wantSubcode33 {
			t.Errorf("%s: HTTP %d %+v, want %d code %d", c.url, status, a.Error, c.status, c.code)
		}
	}
}

func TestSetTemplateStatusOfUnknownTemplatePanics(t *testing.T) {
	t.Parallel()
	defer func() {
		if recover() == nil {
			t.Fatal("no panic")
		}
	}()
	fakemeta.New(t).SetTemplateStatus("nope", "en", "PAUSED")
}

func TestCheckResponseRejectsWrongShapes(t *testing.T) {
	t.Parallel()
	spec := fakemeta.LoadSpec(t)
	const path = "/{Version}/{WABA-ID}/message_templates"
	if err := spec.CheckResponse(path, "get", 200, []byte(`{"data":[{"id":"1","name":"a"}],"paging":{"cursors":{"after":"x"}}}`)); err != nil {
		t.Errorf("a valid answer: %v", err)
	}
	for _, doc := range []string{`{"data":{}}`, `{"data":[{"id":1}]}`, `{"paging":{"cursors":{"after":2}}}`} {
		if err := spec.CheckResponse(path, "get", 200, []byte(doc)); err == nil {
			t.Errorf("%s passed", doc)
		}
	}
	if err := spec.CheckResponse("/nope", "get", 200, []byte(`{}`)); err == nil {
		t.Error("an unknown path passed")
	}
}

func TestRequestCountCountsEverySendReceived(t *testing.T) {
	fake := newFake(t)
	post := func(body string) {
		req, err := http.NewRequest(http.MethodPost, fake.URL+"/"+fake.PhoneNumberID+"/messages", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Authorization", "Bearer "+fake.Token)
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
	}
	if n := fake.RequestCount(); n != 0 {
		t.Fatalf("RequestCount before any send = %d, want 0", n)
	}
	post(`{"messaging_product":"whatsapp"}`) // refused, but received
	post(`not json`)
	if n, all := fake.RequestCount(), len(fake.Requests()); n != 2 || all != 2 {
		t.Errorf("RequestCount = %d and len(Requests()) = %d after two sends, want 2 and 2", n, all)
	}
}

// A button that takes a value must get it, as Meta refuses the send
// otherwise (132000); a static button needs nothing.
func TestSendNeedsButtonParameters(t *testing.T) {
	t.Parallel()
	fake := fakemeta.New(t)
	fake.AddTemplate(fakemeta.Template{Name: "track", Language: "en", Status: "APPROVED", Body: "Shipped.",
		Buttons: []fakemeta.Button{{Type: "PHONE_NUMBER", Text: "Call"}, {Type: "URL", Text: "Track", URL: "https://s.example/{{1}}"}}})
	post := func(components string) (int, string) {
		body := `{"messaging_product":"whatsapp","to":"+14155552671","type":"template","template":{"name":"track","language":{"code":"en"},"components":[` + components + `]}}`
		req, _ := http.NewRequest(http.MethodPost, fake.URL+"/"+fake.PhoneNumberID+"/messages", strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+fake.Token)
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		return res.StatusCode, string(b)
	}
	for _, c := range []struct {
		components string
		status     int
	}{
		{``, 400},
		{`{"type":"button","sub_type":"url","index":"0","parameters":[{"type":"text","text":"x"}]}`, 400}, // the wrong button
		{`{"type":"button","sub_type":"url","index":"1","parameters":[{"type":"text","text":"x"}]}`, 200},
	} {
		if status, body := post(c.components); status != c.status || status == 400 && !strings.Contains(body, "132000") {
			t.Errorf("components [%s]: %d %s, want %d", c.components, status, body, c.status)
		}
	}
}
