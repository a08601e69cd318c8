package httpapi_test

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/heraldhq/herald/test/fakemeta"
)

// TestNULIsRefusedOnEveryEngine: PostgreSQL refuses NUL (U+0000) in text,
// so every engine refuses it at the API, with the field at fault, instead
// of storing it on one and failing with 500 on the other. A refused
// request stores nothing.
func TestNULIsRefusedOnEveryEngine(t *testing.T) {
	t.Parallel()
	onEveryEngine(t, func(t *testing.T, e *apiEnv) {
		k := e.keyed(e.key)
		invalid := func(param, detail string) string {
			return problemBody(422, "invalid_parameter", "Invalid parameter", param, detail)
		}
		nul := "contains a NUL character (U+0000), which Herald does not store"
		sync := func(fields string) string { return `{"phoneNumber":"+14155552671",` + fields + `}` }
		e.run(t, []scenario{
			{"name", "POST", "/v1/contacts/sync", k, sync(`"name":"Ana\u0000Lima"`), 422, invalid("name", "the name "+nul)},
			{"email", "POST", "/v1/contacts/sync", k, sync(`"email":"ana\u0000@example.com"`), 422, invalid("email", "the email address "+nul)},
			{"attribute name", "POST", "/v1/contacts/sync", k, sync(`"attributes":{"ci\u0000ty":"Pune"}`), 422, invalid("attributes", "an attribute name "+nul)},
			{"attribute value", "POST", "/v1/contacts/sync", k, sync(`"attributes":{"city":"Pu\u0000ne"}`), 422, invalid("attributes", "the value of attribute city "+nul)},
			{"tag", "POST", "/v1/contacts/sync", k, sync(`"tags":["vip","be\u0000ta"]`), 422, invalid("tags", "a tag "+nul)},
			{"nothing was stored", "GET", "/v1/contacts/by-phone/+14155552671", k, "", 404,
				problemBody(404, "contact_not_found", "Contact not found", "", "no contact with this phone number or id")},
			{"variable", "POST", sendURL, k, sendBody(phone, e.active, "Ana", "12\u000034"), 422,
				problemBody(422, "variables_mismatch", "Variables mismatch", "variables[1]", "variables[1] fills the body's {{2}} (slot body.2): "+nul)},
			{"variable, dry run", "POST", sendURL + "?dryRun=true", k, sendBody(phone, e.active, "\u0000", "1234"), 422,
				problemBody(422, "variables_mismatch", "Variables mismatch", "variables[0]", "variables[0] fills the body's {{1}} (slot body.1): "+nul)},
			{"cursor of the campaign list", "GET", "/v1/campaigns?cursor=cmp_%00", k, "", 422,
				invalid("cursor", "the cursor is not one this API returned")},
			// The send's other fields were refused by their own rules
			// already, before any store sees them.
			{"phone number", "POST", sendURL, k, sendBody("+1415555\u00002671", e.active, "Ana", "1234"), 422,
				problemBody(422, "invalid_phone_number", "Invalid phone number", "phoneNumber", `the phone number may contain only digits after the "+" (no spaces or punctuation)`)},
			{"campaign id", "POST", sendURL, k, sendBody(phone, "cmp_\u0000", "Ana", "1234"), 404,
				problemBody(404, "campaign_not_found", "Campaign not found", "campaignId", "no campaign with this id")},
			{"media header URL", "POST", sendURL, k, `{"phoneNumber":"+14155552671","campaignId":"` + e.image +
				`","variables":["Ana","1"],"mediaHeaderUrl":"https://cdn.example.com/a\u0000.jpg"}`, 422,
				problemBody(422, "invalid_media_url", "Invalid media URL", "mediaHeaderUrl", "the media header URL must be an absolute https URL")},
		})
		if _, body := e.do(t, "GET", "/v1/campaigns/"+e.active+"/stats", k, ""); !strings.Contains(body, `"total":0`) {
			t.Errorf("a refused send was stored: %s", body)
		}
		res, body := e.do(t, "POST", "/v1/contacts/sync", k,
			sync(`"name":"Ana Lima","email":"ana@example.com","attributes":{"city":"Pune"},"tags":["vip"]`))
		if res.StatusCode != 201 {
			t.Fatalf("the same text without NUL: %d %s", res.StatusCode, body)
		}
		var c struct{ ID string }
		json.Unmarshal([]byte(body), &c)
		e.run(t, []scenario{
			{"cursor of a conversation", "GET", "/v1/contacts/" + c.ID + "/conversation?cursor=%00", k, "", 422,
				invalid("cursor", "the cursor is not one this API returned")},
		})
	})
}

// TestWebhookWithNULKeepsEveryItem: Meta's call carries a message whose
// text and sender's name hold NUL, and a STOP from another number. Herald
// cannot refuse Meta's text: on every engine the NUL becomes U+FFFD, the
// rest of the text is kept, and the STOP in the same call is applied.
func TestWebhookWithNULKeepsEveryItem(t *testing.T) {
	t.Parallel()
	onEveryEngine(t, func(t *testing.T, e *apiEnv) {
		now := time.Now().UTC().Truncate(time.Second)
		e.signed(t, fakemeta.InboundPayload(wabaID, phoneID,
			fakemeta.Inbound{From: "14155550100", ProfileName: "A\x00na", Type: "text", Text: "hello\x00world", At: now},
			fakemeta.Inbound{From: "14155550101", ProfileName: "Bo", Type: "text", Text: "STOP", At: now}))
		k := e.keyed(e.liveKey)
		_, body := e.do(t, "GET", "/v1/contacts/by-phone/+14155550101", k, "")
		if !strings.Contains(body, `"optedOut":true`) {
			t.Errorf("the STOP beside the NUL was lost: %s", body)
		}
		_, body = e.do(t, "GET", "/v1/contacts/by-phone/+14155550100", k, "")
		var c struct{ ID, ProfileName string }
		json.Unmarshal([]byte(body), &c)
		if c.ProfileName != "A\uFFFDna" {
			t.Errorf("profile name %q, want A\uFFFDna: %s", c.ProfileName, body)
		}
		_, body = e.do(t, "GET", "/v1/contacts/"+c.ID+"/conversation", k, "")
		var th struct{ Data []struct{ Body string } }
		json.Unmarshal([]byte(body), &th)
		if len(th.Data) != 1 || th.Data[0].Body != "hello\uFFFDworld" {
			t.Errorf("thread %s, want hello\uFFFDworld", body)
		}
	})
}
