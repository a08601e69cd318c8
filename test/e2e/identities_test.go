package e2e

import (
	"database/sql"
	"encoding/json"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	_ "modernc.org/sqlite" // the SQLite driver, to read the outcome

	"github.com/heraldhq/herald/test/fakemeta"
)

// TestWhatsAppUsersAsMetaReportsThem sends, through the built binary on
// SQLite and PostgreSQL, to a Brazilian and a Mexican mobile as people type
// them; the fake Cloud API answers with the wa_id Meta reports for each (no
// ninth digit; 521), and a reply and a STOP come from that wa_id. Each
// person is one contact, found by either form of the number, with one
// thread holding the send, the reply and the STOP; they are opted out and
// the next send answers 409. A user known only by a business-scoped user id
// and a username writes and stops: both are kept, on a contact without a
// number. A user who changes number keeps their contact. A STOP reported
// for a business number this server does not send from changes nothing.
func TestWhatsAppUsersAsMetaReportsThem(t *testing.T) {
	t.Parallel()
	for _, engine := range []string{"sqlite", "postgres"} {
		t.Run(engine, func(t *testing.T) {
			t.Parallel()
			whatsAppUsers(t, engine)
		})
	}
}

func whatsAppUsers(t *testing.T, engine string) {
	in := newInstance(t, engine)
	var key struct{ Token string }
	in.cli(&key, "keys", "create", "--name", "live", "--mode", "live")
	var camp struct{ ID string }
	in.cli(&camp, "campaigns", "create", "--name", "W", "--template-name", "welcome", "--language", "en_US",
		"--body", "Hi {{1}}, your code is {{2}}", "--activate")

	type person struct{ typed, meta string }
	brazil, mexico := person{"+5582999448232", "558299448232"}, person{"+525512345678", "5215512345678"}
	fake := webhookFake(t, []string{"sent", "delivered"})
	fake.WaIDs = map[string]string{brazil.typed[1:]: brazil.meta, mexico.typed[1:]: mexico.meta}
	srv := serveWithWebhooks(t, in, fake)
	ids := sendLive(t, srv, key.Token, camp.ID, brazil.typed, mexico.typed)
	awaitWebhooks(t, srv, fake, key.Token, ids...)
	for _, id := range ids {
		srv.awaitStatus(t, key.Token, id, "delivered")
	}

	at := time.Now().Truncate(time.Second)
	for _, p := range []person{brazil, mexico} {
		postInbound(t, fake, fakemeta.Inbound{From: p.meta, ProfileName: "Ana", Type: "text", Text: "Obrigada!", At: at})
		postInbound(t, fake, fakemeta.Inbound{From: p.meta, ProfileName: "Ana", Type: "text", Text: "STOP", At: at.Add(time.Second)})
	}
	for _, p := range []person{brazil, mexico} {
		lines, c := thread(t, srv, key.Token, p.typed)
		want := []string{"inbound text STOP", "inbound text Obrigada!", "outbound template Hi Ana, your code is 1234 delivered"}
		if d := cmp.Diff(want, lines); d != "" {
			t.Errorf("the thread of %s (-want +got):\n%s", p.typed, d)
		}
		if !c.OptedOut {
			t.Errorf("%s is not opted out after the STOP from %s", p.typed, p.meta)
		}
		var byMeta contact
		if code := srv.call(t, "GET", "/v1/contacts/by-phone/"+url.PathEscape("+"+p.meta), key.Token, nil, &byMeta); code != 200 ||
			byMeta.ID != c.ID || byMeta.WaID == nil || *byMeta.WaID != p.meta {
			t.Errorf("the contact by Meta's form +%s: %d %+v, want %s with wa_id %s", p.meta, code, byMeta, c.ID, p.meta)
		}
		var problem struct{ Code string }
		if code := srv.call(t, "POST", "/v1/messages/send-campaign", key.Token,
			map[string]any{"phoneNumber": p.typed, "campaignId": camp.ID, "variables": []string{"Ana", "1"}}, &problem); code != 409 ||
			problem.Code != "contact_opted_out" {
			t.Errorf("a send to %s after the STOP: %d %+v, want 409 contact_opted_out", p.typed, code, problem)
		}
	}

	// A username user, known only by their business-scoped user id.
	bsuid := "BR.1502576394655843"
	for i, text := range []string{"oi, tudo bem?", "STOP"} {
		postInbound(t, fake, fakemeta.Inbound{UserID: bsuid, Username: "ana.silva", ProfileName: "Ana", Type: "text",
			Text: text, At: at.Add(time.Duration(i) * time.Second)})
	}

	// The Mexican user changes number: Meta's notice, then a message from
	// the new one.
	postInbound(t, fake, fakemeta.Inbound{Type: "system", From: mexico.meta, NewWaID: "5215587654321", At: at.Add(2 * time.Second)})
	postInbound(t, fake, fakemeta.Inbound{From: "5215587654321", ProfileName: "Ana", Type: "text", Text: "número novo",
		At: at.Add(3 * time.Second)})
	lines, moved := thread(t, srv, key.Token, "+525587654321")
	if len(lines) != 4 || lines[0] != "inbound text número novo" || !moved.OptedOut {
		t.Errorf("after the change of number the contact is %+v with thread %v, want the Mexican contact, still opted out", moved, lines)
	}

	// A STOP for another business number of the account is stored, not
	// applied.
	other := fakemeta.InboundPayload(fake.WABAID, "999888777666555",
		fakemeta.Inbound{From: "14155552671", ProfileName: "Bo", Type: "text", Text: "STOP", At: at})
	res, err := fake.PostWebhook(other)
	if err != nil {
		t.Fatal(err)
	}
	var receipt webhookReceipt
	if err := json.NewDecoder(res.Body).Decode(&receipt); err != nil || res.StatusCode != 200 || !receipt.Applied {
		t.Errorf("the webhook for another number: %d %+v %v, want stored and done with", res.StatusCode, receipt, err)
	}
	res.Body.Close()
	if code := srv.call(t, "GET", "/v1/contacts/by-phone/"+url.PathEscape("+14155552671"), key.Token, nil, nil); code != 404 {
		t.Errorf("a STOP for another number made a contact: %d", code)
	}
	srv.Stop(t)
	if !strings.Contains(srv.Logs(), `"phone_number_id":"999888777666555"`) {
		t.Errorf("the log does not name the other number:\n%s", srv.Logs())
	}

	// What the database holds: one live contact per person, the username
	// user's without a number, with both their messages.
	db := openDatabase(t, in)
	var count int
	if err := db.QueryRow(`SELECT count(*) FROM contacts WHERE mode = 'live'`).Scan(&count); err != nil || count != 3 {
		t.Errorf("live contacts: %d (%v), want 3: the Brazilian, the Mexican and the username user", count, err)
	}
	var phone, username string
	var optedOut bool
	var entries int
	err = db.QueryRow(`SELECT c.phone_number, c.username, c.opted_out,
    (SELECT count(*) FROM conversation_entries e WHERE e.contact_id = c.id AND e.direction = 'inbound')
FROM contacts c WHERE c.user_id = '`+bsuid+`'`).Scan(&phone, &username, &optedOut, &entries)
	if err != nil || phone != "" || username != "ana.silva" || !optedOut || entries != 2 {
		t.Errorf("the username user's contact: phone %q, username %q, opted out %v, %d messages (%v); want no number, "+
			"ana.silva, opted out, 2 messages", phone, username, optedOut, entries, err)
	}
}

// contact is a contact as GET /v1/contacts/by-phone shows it.
type contact struct {
	ID       string
	OptedOut bool
	WaID     *string `json:"waId"`
}

// openDatabase opens the instance's database to read an outcome the API
// has no view of.
func openDatabase(t *testing.T, in *instance) *sql.DB {
	t.Helper()
	driver, dsn := "pgx", in.url
	if path, ok := strings.CutPrefix(in.url, "sqlite:"); ok {
		driver, dsn = "sqlite", path
	}
	db, err := sql.Open(driver, dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}
