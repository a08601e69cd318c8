package httpapi_test

import (
	"context"
	"testing"
	"time"

	"github.com/heraldhq/herald/domain"
	"github.com/heraldhq/herald/ports"
	"github.com/heraldhq/herald/test/fakemeta"
)

// contactBody is the exact body GET /v1/contacts/by-phone answers with for
// the stored contact id.
func contactBody(t *testing.T, e *apiEnv, ws domain.WorkspaceID, id string) string {
	t.Helper()
	c, err := e.store.GetContact(context.Background(), ws, domain.ContactID(id))
	if err != nil {
		t.Fatal(err)
	}
	orNull := func(s string) any {
		if s == "" {
			return nil
		}
		return s
	}
	var last any
	if c.LastMessageAt != nil {
		last = c.LastMessageAt.Format(time.RFC3339Nano)
	}
	var window any
	if c.LastInboundAt != nil {
		window = c.LastInboundAt.Add(domain.ServiceWindow).Format(time.RFC3339Nano)
	}
	return canonical(map[string]any{"id": id, "serviceWindowExpiresAt": window, "phoneNumber": orNull(c.Phone.String()), "name": c.Name, "email": c.Email,
		"attributes": c.Attributes, "tags": c.Tags, "optedOut": c.OptedOut, "marketingOptedOut": c.Marketing.Stopped,
		"waId": orNull(c.WaID), "profileName": orNull(c.ProfileName), "userId": orNull(c.UserID),
		"parentUserId": orNull(c.ParentUserID), "username": orNull(c.Username), "createdAt": c.CreatedAt.Format(time.RFC3339Nano),
		"updatedAt": c.UpdatedAt.Format(time.RFC3339Nano), "lastMessageAt": last, "conversationId": string(c.ConversationID)})
}

// TestContactByEitherForm: Herald sends to a Brazilian, an Argentine and a
// Mexican mobile as people type them; each writes back from the form Meta
// reports them under (no ninth digit, 549, 521). Each contact is found by
// either written form of its number, Mexico's +521… included, and what they
// wrote is on the contact Herald sent to; a number that is not one in any
// form is still refused.
func TestContactByEitherForm(t *testing.T) {
	t.Parallel()
	onEveryEngine(t, func(t *testing.T, e *apiEnv) {
		ws := principalWorkspace(t, e)
		send := func(phone string) string {
			t.Helper()
			res, body := e.do(t, "POST", sendURL, e.keyed(e.liveKey), sendBody(phone, e.active, "Ana", "1234"))
			if res.StatusCode != 202 {
				t.Fatalf("send to %s: %d %s", phone, res.StatusCode, body)
			}
			return decode[map[string]string](t, body)["contactId"]
		}
		br, ar, mx := send("+5582999448232"), send("+541123456789"), send("+525512345678")
		// Each writes back from the form Meta reports them under.
		for _, from := range []string{"558299448232", "5491123456789", "5215512345678"} {
			e.signed(t, fakemeta.InboundPayload(wabaID, phoneID, fakemeta.Inbound{From: from, ProfileName: "Ana",
				Type: "text", Text: "oi", At: time.Now()}))
		}
		brBody, arBody, mxBody := contactBody(t, e, ws, br), contactBody(t, e, ws, ar), contactBody(t, e, ws, mx)
		k := e.keyed(e.liveKey)
		e.run(t, []scenario{
			{"Brazil as sent", "GET", "/v1/contacts/by-phone/%2B5582999448232", k, "", 200, brBody},
			{"Brazil as Meta writes it", "GET", "/v1/contacts/by-phone/%2B558299448232", k, "", 200, brBody},
			{"Argentina as sent", "GET", "/v1/contacts/by-phone/+541123456789", k, "", 200, arBody},
			{"Argentina with the 9", "GET", "/v1/contacts/by-phone/+5491123456789", k, "", 200, arBody},
			{"Mexico as sent", "GET", "/v1/contacts/by-phone/%2B525512345678", k, "", 200, mxBody},
			{"Mexico with the 1", "GET", "/v1/contacts/by-phone/%2B5215512345678", k, "", 200, mxBody},
			{"a Brazilian landline is another number", "GET", "/v1/contacts/by-phone/%2B558233448232", k, "", 404,
				problemBody(404, "contact_not_found", "Contact not found", "", "no contact with this phone number or id")},
			{"too long in every form", "GET", "/v1/contacts/by-phone/%2B52155123456789", k, "", 422,
				problemBody(422, "invalid_phone_number", "Invalid phone number", "phoneNumber", "the number is too long for country code +52")},
		})
		for id, want := range map[string][2]string{br: {"+5582999448232", "558299448232"}, ar: {"+541123456789", "5491123456789"},
			mx: {"+525512345678", "5215512345678"}} {
			c, err := e.store.GetContact(context.Background(), ws, domain.ContactID(id))
			if err != nil || c.Phone.String() != want[0] || c.WaID != want[1] || c.ProfileName != "Ana" {
				t.Errorf("the contact of %s after the reply from %s: %+v, %v", want[0], want[1], c, err)
			}
		}
		cs, _, err := e.store.ListContacts(context.Background(), ws, ports.ContactFilter{Mode: domain.ModeLive}, ports.Page{Limit: 10})
		if err != nil || len(cs) != 3 {
			t.Errorf("live contacts: %d, %v; want the three sent to, and no other", len(cs), err)
		}
	})
}

// TestUsernameUserHasNoNumber: a user known only by a business-scoped user
// id writes STOP through the webhook; their contact has no number, keeps
// the user id and username, and is opted out, on every engine.
func TestUsernameUserHasNoNumber(t *testing.T) {
	t.Parallel()
	onEveryEngine(t, func(t *testing.T, e *apiEnv) {
		ws := principalWorkspace(t, e)
		e.signed(t, fakemeta.InboundPayload(wabaID, phoneID, fakemeta.Inbound{UserID: "BR.1502576394655843",
			Username: "ana.silva", ProfileName: "Ana", Type: "text", Text: "STOP", At: time.Now()}))
		cs, err := e.store.ListContactsOfUser(context.Background(), domain.ModeLive, "BR.1502576394655843", nil)
		if err != nil || len(cs) != 1 {
			t.Fatalf("contacts of the user: %+v, %v", cs, err)
		}
		c := cs[0]
		if c.Workspace != ws || !c.Phone.IsZero() || c.Username != "ana.silva" || !c.OptedOut {
			t.Fatalf("contact %+v", c)
		}
	})
}
