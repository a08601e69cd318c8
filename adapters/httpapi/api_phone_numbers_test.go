package httpapi_test

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/heraldhq/herald/adapters/httpapi"
	"github.com/heraldhq/herald/adapters/system"
	"github.com/heraldhq/herald/app"
	"github.com/heraldhq/herald/app/usecase"
	"github.com/heraldhq/herald/domain"
	"github.com/heraldhq/herald/ports/porttest"
)

// numbersWorld is a server with three stored numbers: one every workspace
// may use, one only the default workspace may use, one only a second
// workspace may use.
type numbersWorld struct {
	e                 *apiEnv
	all, mine, theirs domain.BusinessNumber
	otherLive         string // a live key of the second workspace
}

// withNumbers binds new and changed campaigns to the stored numbers.
func withNumbers(d *httpapi.Deps, st porttest.Store) {
	clock, ids := system.Clock{}, system.NewIDs()
	def := app.NewEnsureDefaultWorkspaceHandler(st, clock, ids)
	d.CreateCampaign = app.NewCreateCampaignHandler(st, st, st, nil, def, clock, ids).WithNumbers(st)
	d.RemapCampaign = app.NewRemapCampaignHandler(st, clock, usecase.NewObserver(nil)).WithNumbers(st)
}

func newNumbersWorld(t *testing.T, st porttest.Store) *numbersWorld {
	t.Helper()
	ctx := context.Background()
	clock, ids := system.Clock{}, system.NewIDs()
	e := newEnvOn(t, st, withNumbers)
	def := app.NewEnsureDefaultWorkspaceHandler(st, clock, ids)
	ws, err := def.Handle(ctx)
	if err != nil {
		t.Fatal(err)
	}
	other, err := app.NewCreateWorkspaceHandler(st, clock, ids).Handle(ctx, app.CreateWorkspace{Name: "Brand B"})
	if err != nil {
		t.Fatal(err)
	}
	k, err := app.NewCreateKeyHandler(st, st, def, clock, ids).Handle(ctx, app.CreateKey{Workspace: string(other.ID), Name: "b", Mode: domain.ModeLive})
	if err != nil {
		t.Fatal(err)
	}
	w := &numbersWorld{e: e, otherLive: k.Token.Plaintext()}
	mk := func(name string, wss ...domain.WorkspaceID) domain.BusinessNumber {
		n := porttest.NewNumber(t, wss...)
		n.VerifiedName = name
		if err := st.CreateNumber(ctx, n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	w.all = mk("Acme Group")
	w.mine = mk("Acme UK", ws.ID)
	w.theirs = mk("Brand B", other.ID)
	return w
}

func phoneNumberJSON(n domain.BusinessNumber) string {
	return `{"id":"` + string(n.ID) + `","displayNumber":"` + n.DisplayNumber + `","verifiedName":"` + n.VerifiedName +
		`","quality":null,"tier":null,"status":"active"}`
}

// A live key lists the numbers its workspace may use, never another's nor
// a token; a test key lists the sandbox's number alone.
func TestPhoneNumbersPerWorkspace(t *testing.T) {
	t.Parallel()
	for _, eng := range engines {
		t.Run(eng.name, func(t *testing.T) {
			t.Parallel()
			w := newNumbersWorld(t, eng.open(t))
			e := w.e
			want := func(ns ...domain.BusinessNumber) string {
				// oldest (smallest id) first
				slices.SortFunc(ns, func(a, b domain.BusinessNumber) int { return strings.Compare(string(a.ID), string(b.ID)) })
				parts := make([]string, len(ns))
				for i, n := range ns {
					parts[i] = phoneNumberJSON(n)
				}
				return `{"data":[` + strings.Join(parts, ",") + `]}`
			}
			sandbox := `{"data":[{"id":"pn_00000000000000000000sandbx","displayNumber":"+1 555-000-0001",` +
				`"verifiedName":"Herald Sandbox","quality":"GREEN","tier":"TIER_UNLIMITED","status":"active"}]}`
			for _, tc := range []struct {
				name, key, want string
			}{
				{"default workspace, live", e.liveKey, want(w.all, w.mine)},
				{"second workspace, live", w.otherLive, want(w.all, w.theirs)},
				{"test key", e.key, sandbox},
			} {
				res, got := e.do(t, "GET", "/v1/phone-numbers", e.keyed(tc.key), "")
				if res.StatusCode != 200 || strings.TrimSpace(got) != tc.want {
					t.Errorf("%s: %d %s\nwant %s", tc.name, res.StatusCode, got, tc.want)
				}
				if strings.Contains(got, "wxyz") || strings.Contains(got, w.all.WABAID) {
					t.Errorf("%s: the list shows a token hint or an account: %s", tc.name, got)
				}
			}
		})
	}
}

// A campaign is bound to a number: required once the workspace may use
// several, refused for a number it may not use (404, as another
// workspace's object), and moved by PATCH.
func TestCampaignPhoneNumber(t *testing.T) {
	t.Parallel()
	for _, eng := range engines {
		t.Run(eng.name, func(t *testing.T) {
			t.Parallel()
			w := newNumbersWorld(t, eng.open(t))
			e := w.e
			body := func(extra string) string {
				return `{"name":"Spring","templateName":"spring","language":"en_US","body":"Hi {{1}}"` + extra + `}`
			}
			res, got := e.do(t, "POST", "/v1/campaigns", e.keyed(e.liveKey), body(""))
			if res.StatusCode != 422 || !strings.Contains(got, `"code":"phone_number_required"`) || !strings.Contains(got, `"param":"phoneNumberId"`) {
				t.Errorf("no number with two usable: %d %s", res.StatusCode, got)
			}
			for _, foreign := range []string{string(w.theirs.ID), "pn_00000000000000000000000000", "cmp_x"} {
				res, got = e.do(t, "POST", "/v1/campaigns", e.keyed(e.liveKey), body(`,"phoneNumberId":"`+foreign+`"`))
				if res.StatusCode != 404 || !strings.Contains(got, `"code":"phone_number_not_found"`) {
					t.Errorf("number %s: %d %s", foreign, res.StatusCode, got)
				}
			}
			res, got = e.do(t, "POST", "/v1/campaigns", e.keyed(e.liveKey), body(`,"phoneNumberId":"`+string(w.mine.ID)+`"`))
			if res.StatusCode != 201 {
				t.Fatalf("create on my number: %d %s", res.StatusCode, got)
			}
			var c struct {
				ID            string
				PhoneNumberID *string
			}
			if err := json.Unmarshal([]byte(got), &c); err != nil || c.PhoneNumberID == nil || *c.PhoneNumberID != string(w.mine.ID) {
				t.Fatalf("created campaign: %s", got)
			}
			res, got = e.do(t, "PATCH", "/v1/campaigns/"+c.ID, e.keyed(e.liveKey), `{"phoneNumberId":"`+string(w.theirs.ID)+`"}`)
			if res.StatusCode != 404 || !strings.Contains(got, `"code":"phone_number_not_found"`) {
				t.Errorf("move to a foreign number: %d %s", res.StatusCode, got)
			}
			res, got = e.do(t, "PATCH", "/v1/campaigns/"+c.ID, e.keyed(e.liveKey), `{"phoneNumberId":"`+string(w.all.ID)+`"}`)
			if res.StatusCode != 200 || !strings.Contains(got, `"phoneNumberId":"`+string(w.all.ID)+`"`) {
				t.Errorf("move to the shared number: %d %s", res.StatusCode, got)
			}
			// The second workspace may use two numbers too; with one
			// named it sends from it.
			res, got = e.do(t, "POST", "/v1/campaigns", e.keyed(w.otherLive), body(`,"phoneNumberId":"`+string(w.theirs.ID)+`"`))
			if res.StatusCode != 201 || !strings.Contains(got, `"phoneNumberId":"`+string(w.theirs.ID)+`"`) {
				t.Errorf("second workspace on its number: %d %s", res.StatusCode, got)
			}
			// A send on the campaign leaves from its number.
			if res, got := e.do(t, "POST", "/v1/campaigns/"+c.ID+"/activate", e.keyed(e.liveKey), ""); res.StatusCode != 200 {
				t.Fatalf("activate: %d %s", res.StatusCode, got)
			}
			res, got = e.do(t, "POST", "/v1/messages/send-campaign", e.keyed(e.liveKey),
				`{"phoneNumber":"+447700900123","campaignId":"`+c.ID+`","variables":["Ana"]}`)
			if res.StatusCode != 202 {
				t.Fatalf("send: %d %s", res.StatusCode, got)
			}
			var m struct{ ID string }
			_ = json.Unmarshal([]byte(got), &m)
			ws, _ := app.NewEnsureDefaultWorkspaceHandler(e.store, system.Clock{}, system.NewIDs()).Handle(context.Background())
			stored, err := e.store.GetMessage(context.Background(), ws.ID, domain.MessageID(m.ID))
			if err != nil || stored.Number != w.all.ID {
				t.Errorf("the message leaves from %q (%v), want %s", stored.Number, err, w.all.ID)
			}
		})
	}
}

// checkPhoneNumbersIsolation: a number offered to B alone is not in A's
// list (TestPhoneNumbersPerWorkspace covers the rest).
func checkPhoneNumbersIsolation(t *testing.T, f *isoFixture) {
	res, got := f.e.do(t, "GET", "/v1/phone-numbers", f.e.keyed(f.a.key), "")
	if res.StatusCode != 200 || strings.Contains(got, `"pn_`) && !strings.Contains(got, "sandbx") {
		t.Errorf("A's list: %d %s", res.StatusCode, got)
	}
}

// checkModePhoneNumbers: a test key sees the sandbox's number, never a
// live one; a live key never the sandbox's.
func checkModePhoneNumbers(t *testing.T, f *modeFixture) {
	n := porttest.NewNumber(t)
	if err := f.e.store.CreateNumber(context.Background(), n); err != nil {
		t.Fatal(err)
	}
	res, got := f.e.do(t, "GET", "/v1/phone-numbers", f.e.keyed(f.test.key), "")
	if res.StatusCode != 200 || strings.Contains(got, string(n.ID)) || !strings.Contains(got, string(domain.SandboxNumberID)) {
		t.Errorf("test key: %d %s", res.StatusCode, got)
	}
	res, got = f.e.do(t, "GET", "/v1/phone-numbers", f.e.keyed(f.live.key), "")
	if res.StatusCode != 200 || !strings.Contains(got, string(n.ID)) || strings.Contains(got, string(domain.SandboxNumberID)) {
		t.Errorf("live key: %d %s", res.StatusCode, got)
	}
}
