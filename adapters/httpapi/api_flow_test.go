package httpapi_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/heraldhq/herald/adapters/httpapi"
	"github.com/heraldhq/herald/app"
	"github.com/heraldhq/herald/domain"
	"github.com/heraldhq/herald/ports"
	"github.com/heraldhq/herald/ports/portsmock"
	"github.com/heraldhq/herald/ports/porttest"
)

func decode[T any](t *testing.T, body string) T {
	t.Helper()
	var v T
	if err := json.Unmarshal([]byte(body), &v); err != nil {
		t.Fatalf("decoding %s: %v", body, err)
	}
	return v
}

func TestSendCampaignAccepted(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	res, body := e.do(t, "POST", sendURL, e.keyed(e.key), sendBody(phone, e.active, "Ana", "1234"))
	if res.StatusCode != 202 {
		t.Fatalf("status %d: %s", res.StatusCode, body)
	}
	got := decode[map[string]string](t, body)
	if got["status"] != "queued" || got["campaignId"] != e.active || got["phoneNumber"] != phone ||
		!strings.HasPrefix(got["id"], "msg_") || !strings.HasPrefix(got["contactId"], "ctc_") {
		t.Fatalf("unexpected 202 body %s", body)
	}
	if loc := res.Header.Get("Location"); loc != "/v1/messages/"+got["id"] {
		t.Errorf("Location = %q", loc)
	}

	res, body = e.do(t, "GET", "/v1/messages/"+got["id"], e.keyed(e.key), "")
	if res.StatusCode != 200 {
		t.Fatalf("get message: %d %s", res.StatusCode, body)
	}
	m := decode[struct {
		Status       string
		RenderedBody string
		Mode         string
		History      []struct{ Status string }
	}](t, body)
	if m.RenderedBody != "Hi Ana, your code is 1234" || m.Mode != "test" || len(m.History) == 0 || m.History[0].Status != "queued" {
		t.Fatalf("message %s", body)
	}

	// The contact exists, with both spellings of "+".
	for _, p := range []string{"+14155552671", "%2B14155552671"} {
		res, body = e.do(t, "GET", "/v1/contacts/by-phone/"+p, e.keyed(e.key), "")
		if res.StatusCode != 200 || decode[map[string]any](t, body)["id"] != got["contactId"] {
			t.Fatalf("by-phone %s: %d %s", p, res.StatusCode, body)
		}
		if res.Header.Get("Cache-Control") != "no-store" || res.Header.Get("X-Content-Type-Options") != "nosniff" {
			t.Errorf("contact data must not be cached nor sniffed: Cache-Control %q, X-Content-Type-Options %q",
				res.Header.Get("Cache-Control"), res.Header.Get("X-Content-Type-Options"))
		}
	}
	// The thread has the outbound entry.
	res, body = e.do(t, "GET", "/v1/contacts/"+got["contactId"]+"/conversation", e.keyed(e.key), "")
	thread := decode[struct {
		Data []struct{ Direction, Body, MessageID string }
	}](t, body)
	if res.StatusCode != 200 || len(thread.Data) != 1 || thread.Data[0].Body != "Hi Ana, your code is 1234" || thread.Data[0].MessageID != got["id"] {
		t.Fatalf("conversation: %d %s", res.StatusCode, body)
	}
}

func TestDryRunStoresNothing(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	res, body := e.do(t, "POST", sendURL+"?dryRun=true", e.keyed(e.key), sendBody(phone, e.active, "Ana", "1234"))
	if res.StatusCode != 200 {
		t.Fatalf("dry run: %d %s", res.StatusCode, body)
	}
	// The payload carries a message id in biz_opaque_callback_data, as a
	// real send would; it names no stored message.
	opaque := decode[struct {
		Payload struct {
			BizOpaqueCallbackData string `json:"biz_opaque_callback_data"`
		}
	}](t, body).Payload.BizOpaqueCallbackData
	if _, err := domain.ParseMessageID(opaque); err != nil {
		t.Fatalf("biz_opaque_callback_data %q is not a message id: %v", opaque, err)
	}
	want := canonical(map[string]any{
		"dryRun": true, "campaignId": e.active, "phoneNumber": phone, "renderedBody": "Hi Ana, your code is 1234",
		"payload": map[string]any{
			"messaging_product": "whatsapp", "recipient_type": "individual", "to": phone, "type": "template",
			"biz_opaque_callback_data": opaque,
			"template": map[string]any{"name": "welcome", "language": map[string]any{"policy": "deterministic", "code": "en_US"},
				"components": []any{map[string]any{"type": "body", "parameters": []any{
					map[string]any{"type": "text", "text": "Ana"}, map[string]any{"type": "text", "text": "1234"}}}}},
		},
	})
	if got := canonicalString(body); got != want {
		t.Fatalf("dry run body\n got %s\nwant %s", got, want)
	}
	res, _ = e.do(t, "GET", "/v1/contacts/by-phone/"+phone, e.keyed(e.key), "")
	if res.StatusCode != 404 {
		t.Fatalf("a dry run created the contact (status %d)", res.StatusCode)
	}
	_, body = e.do(t, "GET", "/v1/campaigns/"+e.active+"/stats", e.keyed(e.key), "")
	if decode[map[string]any](t, body)["total"] != 0.0 {
		t.Fatalf("a dry run stored a message: %s", body)
	}
}

func TestLookupErrors(t *testing.T) {
	t.Parallel()
	onEveryEngine(t, func(t *testing.T, e *apiEnv) {
		k := e.keyed(e.key)
		e.run(t, []scenario{
			{"contact not found", "GET", "/v1/contacts/by-phone/%2B14155550000", k, "", 404,
				problemBody(404, "contact_not_found", "Contact not found", "", "no contact with this phone number or id")},
			{"by-phone invalid", "GET", "/v1/contacts/by-phone/14155552671", k, "", 422,
				problemBody(422, "invalid_phone_number", "Invalid phone number", "phoneNumber", `the phone number must be in E.164 form, starting with "+" and the country code`)},
			{"by-phone with a space for the plus", "GET", "/v1/contacts/by-phone/%2014155552671", k, "", 422,
				problemBody(422, "invalid_phone_number", "Invalid phone number", "phoneNumber", `the phone number must be in E.164 form, starting with "+" and the country code`)},
			{"message not found", "GET", "/v1/messages/msg_01m80000000000000000000000", k, "", 404,
				problemBody(404, "message_not_found", "Message not found", "", "no message with this id")},
			{"campaign not found", "GET", "/v1/campaigns/cmp_01m80000000000000000000000", k, "", 404,
				problemBody(404, "campaign_not_found", "Campaign not found", "", "no campaign with this id")},
			{"stats of missing campaign", "GET", "/v1/campaigns/nope/stats", k, "", 404,
				problemBody(404, "campaign_not_found", "Campaign not found", "", "no campaign with this id")},
			{"conversation of missing contact", "GET", "/v1/contacts/ctc_01m80000000000000000000000/conversation", k, "", 404,
				problemBody(404, "contact_not_found", "Contact not found", "", "no contact with this phone number or id")},
			{"bad limit", "GET", "/v1/campaigns?limit=0", k, "", 422,
				problemBody(422, "invalid_parameter", "Invalid parameter", "limit", "limit must be between 1 and 100")},
			{"limit too large", "GET", "/v1/campaigns?limit=101", k, "", 422,
				problemBody(422, "invalid_parameter", "Invalid parameter", "limit", "limit must be between 1 and 100")},
			{"unknown route", "GET", "/v1/nothing", k, "", 404,
				problemBody(404, "not_found", "Not found", "", "no route for /v1/nothing")},
			{"wrong method", "DELETE", "/v1/campaigns", k, "", 405,
				problemBody(405, "method_not_allowed", "Method not allowed", "", "DELETE is not allowed here; use GET or POST or HEAD")},
			{"healthz", "GET", "/healthz", nil, "", 200, `{"status":"ok"}`},
			{"readyz", "GET", "/readyz", nil, "", 200, `{"status":"ready"}`},
		})
	})
}

// TestOtherWorkspaceLooksMissing: every read of another workspace's object
// answers byte for byte like a missing one.
func TestOtherWorkspaceLooksMissing(t *testing.T) {
	t.Parallel()
	onEveryEngine(t, func(t *testing.T, e *apiEnv) {
		res, body := e.do(t, "POST", sendURL, e.keyed(e.otherKey), sendBody(phone, e.otherCampaign, "Ana", "1234"))
		if res.StatusCode != 202 {
			t.Fatalf("send in the other workspace: %d %s", res.StatusCode, body)
		}
		theirs := decode[map[string]string](t, body)
		missing := "01m80000000000000000000000"
		pairs := [][2]string{
			{"/v1/campaigns/" + e.otherCampaign, "/v1/campaigns/cmp_" + missing},
			{"/v1/campaigns/" + e.otherCampaign + "/stats", "/v1/campaigns/cmp_" + missing + "/stats"},
			{"/v1/messages/" + theirs["id"], "/v1/messages/msg_" + missing},
			{"/v1/contacts/" + theirs["contactId"] + "/conversation", "/v1/contacts/ctc_" + missing + "/conversation"},
			{"/v1/contacts/by-phone/" + phone, "/v1/contacts/by-phone/%2B14155550000"},
		}
		for _, p := range pairs {
			r1, b1 := e.do(t, "GET", p[0], e.keyed(e.key), "")
			r2, b2 := e.do(t, "GET", p[1], e.keyed(e.key), "")
			if r1.StatusCode != 404 || r1.StatusCode != r2.StatusCode || normalize(b1) != normalize(b2) {
				t.Errorf("another workspace's %s answered %d %s; a missing one %d %s", p[0], r1.StatusCode, b1, r2.StatusCode, b2)
			}
		}
		// Their campaign is not in our list either.
		_, body = e.do(t, "GET", "/v1/campaigns?limit=100", e.keyed(e.key), "")
		if strings.Contains(body, e.otherCampaign) {
			t.Errorf("campaign list shows another workspace's campaign")
		}
	})
}

func TestSyncContact(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	k := e.keyed(e.key)
	res, body := e.do(t, "POST", "/v1/contacts/sync", k, `{"phoneNumber":"+14155552671","name":"Ana","email":"ana@example.com","attributes":{"plan":"pro","city":"Lisbon"},"tags":["vip","beta","vip"]}`)
	if res.StatusCode != 201 {
		t.Fatalf("create: %d %s", res.StatusCode, body)
	}
	res, body = e.do(t, "POST", "/v1/contacts/sync", k, `{"phoneNumber":"+14155552671","attributes":{"city":""},"tags":["gold"]}`)
	if res.StatusCode != 200 {
		t.Fatalf("update: %d %s", res.StatusCode, body)
	}
	c := decode[struct {
		Name       string
		Email      string
		Attributes map[string]string
		Tags       []string
		OptedOut   bool
	}](t, body)
	if c.Name != "Ana" || c.Email != "ana@example.com" || len(c.Attributes) != 1 || c.Attributes["plan"] != "pro" ||
		len(c.Tags) != 1 || c.Tags[0] != "gold" || c.OptedOut {
		t.Fatalf("after update: %s", body)
	}
	e.run(t, []scenario{
		{"bad email", "POST", "/v1/contacts/sync", k, `{"phoneNumber":"+14155552671","email":"nope"}`, 422,
			problemBody(422, "invalid_parameter", "Invalid parameter", "email", "the email address is not valid")},
		{"duplicate attribute name", "POST", "/v1/contacts/sync", k, `{"phoneNumber":"+14155552671","attributes":{"a":"1","a":"2"}}`, 400,
			problemBody(400, "invalid_json", "Invalid JSON", "attributes", "field attributes has the name a more than once")},
		{"attribute not a string", "POST", "/v1/contacts/sync", k, `{"phoneNumber":"+14155552671","attributes":{"a":1}}`, 400,
			problemBody(400, "invalid_json", "Invalid JSON", "attributes", "attributes must be a string")},
	})
}

func TestCampaignsAndPagination(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	k := e.keyed(e.key)
	var seen []string
	cursor := ""
	for range 5 {
		url := "/v1/campaigns?limit=2"
		if cursor != "" {
			url += "&cursor=" + cursor
		}
		res, body := e.do(t, "GET", url, k, "")
		if res.StatusCode != 200 {
			t.Fatalf("%s: %d %s", url, res.StatusCode, body)
		}
		page := decode[struct {
			Data       []struct{ ID string }
			NextCursor *string
		}](t, body)
		for _, c := range page.Data {
			seen = append(seen, c.ID)
		}
		if page.NextCursor == nil {
			break
		}
		cursor = *page.NextCursor
	}
	want := []string{e.image, e.paused, e.active} // newest first
	if fmt.Sprint(seen) != fmt.Sprint(want) {
		t.Fatalf("pages visited %v, want %v", seen, want)
	}
	_, body := e.do(t, "GET", "/v1/campaigns/"+e.active, k, "")
	c := decode[struct {
		Status       string
		Placeholders []struct {
			Index int
			Label string
		}
		Stats struct{ Total int }
	}](t, body)
	if c.Status != "active" || len(c.Placeholders) != 2 || c.Placeholders[0].Label != "First name" || c.Placeholders[1].Label != "Code" {
		t.Fatalf("campaign %s", body)
	}
}

func TestConversationPagination(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	k := e.keyed(e.key)
	var ids []string
	var contact string
	for i := range 5 {
		_, body := e.do(t, "POST", sendURL, k, sendBody(phone, e.active, "Ana", fmt.Sprint(i)))
		m := decode[map[string]string](t, body)
		ids = append([]string{m["id"]}, ids...) // newest first
		contact = m["contactId"]
	}
	var seen []string
	url := "/v1/contacts/" + contact + "/conversation?limit=2"
	for range 5 {
		_, body := e.do(t, "GET", url, k, "")
		page := decode[struct {
			Data       []struct{ MessageID string }
			NextCursor *string
		}](t, body)
		for _, en := range page.Data {
			seen = append(seen, en.MessageID)
		}
		if page.NextCursor == nil {
			break
		}
		url = "/v1/contacts/" + contact + "/conversation?limit=2&cursor=" + *page.NextCursor
	}
	if fmt.Sprint(seen) != fmt.Sprint(ids) {
		t.Fatalf("thread pages %v, want %v", seen, ids)
	}
}

func TestStoreUnavailable(t *testing.T) {
	t.Parallel()
	down := fmt.Errorf("sqlstore: dial tcp 127.0.0.1:5432: %w", ports.ErrUnavailable)
	e := newEnv(t, func(d *httpapi.Deps, st porttest.Store) {
		d.ContactByPhone = app.NewGetContactByPhoneHandler(&portsmock.ContactRepositoryMock{
			GetContactByPhoneFunc: func(context.Context, domain.WorkspaceID, domain.KeyMode, domain.PhoneNumber) (domain.Contact, error) {
				return domain.Contact{}, down
			},
		}, nil)
		d.Store = &portsmock.PingerMock{PingFunc: func(context.Context) error { return down }}
	})
	unavailable := problemBody(503, "unavailable", "Service unavailable", "", "the service cannot reach its database; nothing was stored, retry shortly")
	e.run(t, []scenario{
		{"lookup", "GET", "/v1/contacts/by-phone/" + phone, e.keyed(e.key), "", 503, unavailable},
		{"readyz", "GET", "/readyz", nil, "", 503, problemBody(503, "unavailable", "Service unavailable", "", "the database cannot be reached")},
	})
}

func TestPanicIsAPlain500(t *testing.T) {
	t.Parallel()
	e := newEnv(t, func(d *httpapi.Deps, st porttest.Store) {
		d.ContactByPhone = app.NewGetContactByPhoneHandler(&portsmock.ContactRepositoryMock{
			GetContactByPhoneFunc: func(context.Context, domain.WorkspaceID, domain.KeyMode, domain.PhoneNumber) (domain.Contact, error) {
				panic("sqlstore: SELECT secret_column FROM contacts")
			},
		}, nil)
	})
	res, body := e.do(t, "GET", "/v1/contacts/by-phone/"+phone, e.keyed(e.key), "")
	want := problemBody(500, "internal_error", "Internal error", "", "something went wrong on our side; quote the request id when reporting it")
	if res.StatusCode != 500 || canonicalString(normalize(body)) != want {
		t.Fatalf("panic answered %d %s", res.StatusCode, body)
	}
	for _, leak := range []string{"sqlstore", "SELECT", "goroutine", ".go:"} {
		if strings.Contains(body, leak) {
			t.Errorf("the 500 body leaks %q: %s", leak, body)
		}
	}
}

func TestEveryCodeHasAStatus(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	_ = e
	for _, code := range domain.Codes() {
		if httpapi.StatusFor(code) == http.StatusInternalServerError {
			t.Errorf("domain code %s has no HTTP status", code)
		}
	}
}

// TestTemplateNotApprovedStopsSends: a campaign whose template Meta paused
// shows the template's status and refuses sends with a detail that says
// why, on every engine.
func TestTemplateNotApprovedStopsSends(t *testing.T) {
	t.Parallel()
	onEveryEngine(t, func(t *testing.T, e *apiEnv) {
		res, body := e.do(t, "GET", "/v1/campaigns/"+e.active, e.keyed(e.key), "")
		if got := decode[struct{ Template struct{ Status *string } }](t, body).Template.Status; res.StatusCode != 200 || got != nil {
			t.Fatalf("a locally defined template: %d, template.status %v, want null", res.StatusCode, got)
		}
		ws := principalWorkspace(t, e)
		if _, err := e.store.UpdateCampaign(context.Background(), ws, domain.CampaignID(e.active), func(c *domain.Campaign) error {
			c.SetTemplateStatus(domain.TemplatePaused, time.Now())
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		res, body = e.do(t, "GET", "/v1/campaigns/"+e.active, e.keyed(e.key), "")
		if got := decode[struct{ Template struct{ Status *string } }](t, body).Template.Status; res.StatusCode != 200 || got == nil || *got != "PAUSED" {
			t.Fatalf("after Meta paused the template: %d %s", res.StatusCode, body)
		}
		res, body = e.do(t, "POST", sendURL, e.keyed(e.key), sendBody(phone, e.active, "Ana", "1234"))
		want := problemBody(409, "campaign_not_active", "Campaign not active", "campaignId",
			"the campaign's template welcome (en_US) is PAUSED at Meta; sends resume when Meta approves it again")
		if res.StatusCode != 409 || canonicalString(normalize(body)) != want {
			t.Fatalf("send on a paused template: %d\n got %s\nwant %s", res.StatusCode, normalize(body), want)
		}
	})
}

// principalWorkspace is the workspace of the environment's active campaign.
func principalWorkspace(t *testing.T, e *apiEnv) domain.WorkspaceID {
	t.Helper()
	list, err := e.store.ListCampaignsByTemplate(context.Background(), "welcome", "en_US")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range list {
		if string(c.ID) == e.active {
			return c.Workspace
		}
	}
	t.Fatal("the active campaign is not stored")
	return ""
}
