package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/heraldhq/herald/adapters/sqlstore"
	"github.com/heraldhq/herald/adapters/system"
	"github.com/heraldhq/herald/adapters/whatsapp"
	"github.com/heraldhq/herald/app/delivery"
	"github.com/heraldhq/herald/app/usecase"
	"github.com/heraldhq/herald/domain"
	"github.com/heraldhq/herald/test/fakemeta"
	"github.com/heraldhq/herald/test/testenv"
)

const (
	hookWABA   = "102290129340398"
	hookPhone  = "106540352242922"
	hookSecret = "cli-test-app-secret"
)

// openStore opens the CLI's database directly, migrated, as the server
// would have it; closed when the test ends.
func openStore(t *testing.T, c *cli) *sqlstore.Store {
	t.Helper()
	ctx := context.Background()
	db, d, err := sqlstore.Open(ctx, sqlstore.Config{DatabaseURL: c.env("HERALD_DATABASE_URL")})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	if err := sqlstore.Migrate(ctx, db, d); err != nil {
		t.Fatal(err)
	}
	return sqlstore.New(db, d)
}

// storeOnly stores webhook bodies the way the server's receive path does
// before it applies them (an id, the exact bytes and their digest), and
// does not apply them: what a server leaves behind when it stops, or its
// store fails, between storing an event and applying it. It returns the
// ids, oldest first.
func storeOnly(t *testing.T, c *cli, bodies ...[]byte) []string {
	t.Helper()
	st, ids := openStore(t, c), system.NewIDs()
	var out []string
	for _, b := range bodies {
		sum := sha256.Sum256(b)
		ev := domain.NewWebhookEvent(domain.WebhookEventID(ids.NewID(domain.PrefixWebhookEvent)), b, hex.EncodeToString(sum[:]), time.Now())
		stored, created, err := st.SaveWebhookEvent(context.Background(), ev)
		if err != nil || !created {
			t.Fatalf("storing %s: created %v, %v", b, created, err)
		}
		out = append(out, string(stored.ID))
	}
	return out
}

// newWebhookCLI is a CLI on a fresh SQLite database, or on databaseURL,
// whose business number is hookPhone: the events these tests store are for
// it.
func newWebhookCLI(t *testing.T, databaseURL string) *cli {
	if databaseURL == "" {
		databaseURL = "sqlite:" + filepath.Join(t.TempDir(), "herald.db")
	}
	return &cli{t: t, env: envOf(map[string]string{"HERALD_DATABASE_URL": databaseURL,
		"HERALD_WHATSAPP_PHONE_NUMBER_ID": hookPhone})}
}

// receive takes webhook bodies through the app's receive path, signed as
// Meta signs them: each is stored and applied. It returns the event ids.
func receive(t *testing.T, c *cli, bodies ...[]byte) []string {
	t.Helper()
	st, ids, clock, obs := openStore(t, c), system.NewIDs(), system.Clock{}, usecase.NewObserver(nil)
	hooks := whatsapp.NewWebhooks(whatsapp.WebhookConfig{AppSecrets: []string{hookSecret}, PhoneNumberIDs: []string{hookPhone}})
	apply := delivery.NewApplyWebhookEventHandler(hooks, hooks, st, st, clock, ids, nil, delivery.Config{}, obs)
	h := delivery.NewReceiveWebhookHandler(hooks, st, apply, clock, ids, obs)
	var out []string
	for _, b := range bodies {
		res, err := h.Handle(context.Background(), delivery.ReceiveWebhook{Body: b, Signature: fakemeta.Sign(hookSecret, b)})
		if err != nil || !res.Applied || res.Duplicate {
			t.Fatalf("receiving %s: %+v %v", b, res, err)
		}
		out = append(out, string(res.Event.ID))
	}
	return out
}

// replayed is one event of herald webhooks replay --json, every field as
// printed; receivedAt is checked and then left out.
func replayed(id string, applied bool, attempts int, errText string, counts map[string]int) map[string]any {
	m := map[string]any{"id": id, "applied": applied, "attempts": float64(attempts), "error": nil, "notApplied": []any{}}
	if errText != "" {
		m["error"] = errText
	}
	for _, f := range []string{"statuses", "parked", "inbound", "optedOut", "optedIn", "templates", "identities", "foreign",
		"marketingStopped", "marketingResumed", "categories", "queuedFailed"} {
		m[f] = float64(counts[f])
	}
	return m
}

// replay runs herald webhooks replay --json with args, checks the exit code
// and returns the events printed, receivedAt checked and removed.
func (c *cli) replay(wantCode int, args ...string) ([]map[string]any, string) {
	c.t.Helper()
	code, out, errOut := c.run(append([]string{"webhooks", "replay", "--json"}, args...)...)
	if code != wantCode {
		c.t.Fatalf("herald webhooks replay %v: exit %d, want %d\n%s%s", args, code, wantCode, out, errOut)
	}
	var evs []map[string]any
	if err := json.Unmarshal([]byte(out), &evs); err != nil || evs == nil {
		c.t.Fatalf("herald webhooks replay %v printed %q, want a JSON array: %v", args, out, err)
	}
	for _, ev := range evs {
		at, ok := ev["receivedAt"].(string)
		if _, err := time.Parse(time.RFC3339Nano, at); !ok || err != nil {
			c.t.Errorf("receivedAt %v is not an RFC 3339 time", ev["receivedAt"])
		}
		delete(ev, "receivedAt")
	}
	return evs, errOut
}

// lastLine is the last line of s.
func lastLine(s string) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	return lines[len(lines)-1]
}

func TestWebhooksReplayWithNothingStored(t *testing.T) {
	t.Parallel()
	c := newWebhookCLI(t, "")
	for _, args := range [][]string{nil, {"--since", "2026-01-01T00:00:00Z"}} {
		if code, out, errOut := c.run(append([]string{"webhooks", "replay", "--json"}, args...)...); code != 0 || out != "[]\n" || errOut != "" {
			t.Errorf("webhooks replay --json %v: exit %d, %q %q; want 0 and []", args, code, out, errOut)
		}
		code, out, errOut := c.run(append([]string{"webhooks", "replay"}, args...)...)
		if code != 0 || lastLine(out) != "0 event(s) replayed, 0 failed." || errOut != "" {
			t.Errorf("webhooks replay %v: exit %d, %q %q; want 0 and a zero summary", args, code, out, errOut)
		}
	}
}

// TestWebhooksReplayAppliesStoredEvents replays events that were stored but
// never applied: each is applied and reported with what it did, the one
// that cannot be decoded is reported with its error (exit 1) and stays
// waiting, and replaying applied ones again changes nothing.
func TestWebhooksReplayAppliesStoredEvents(t *testing.T) {
	t.Parallel()
	c := newWebhookCLI(t, "")
	var camp struct{ ID, TemplateStatus string }
	c.json(&camp, "campaigns", "create", "--name", "W", "--template-name", "welcome", "--language", "en_US",
		"--body", "Hi {{1}}", "--activate")
	if camp.TemplateStatus == "PAUSED" {
		t.Fatalf("the campaign starts paused: %+v", camp)
	}
	at := time.Now().Truncate(time.Second)
	ids := storeOnly(t, c,
		// A status for a wamid no message holds: parked.
		fakemeta.StatusPayload(hookWABA, hookPhone, fakemeta.StatusUpdate{WAMID: "wamid.unknown", Status: "delivered",
			RecipientID: "14155550100", At: at}),
		fakemeta.InboundPayload(hookWABA, hookPhone, fakemeta.Inbound{From: "14155550100", ProfileName: "Ana", Type: "text", Text: "STOP", At: at}),
		[]byte(`{"object":"page"}`),
		fakemeta.InboundPayload(hookWABA, hookPhone, fakemeta.Inbound{From: "14155550100", ProfileName: "Ana", Type: "text", Text: "START",
			At: at.Add(time.Second)}),
		fakemeta.TemplateStatusPayload(hookWABA, "welcome", "en_US", "PAUSED", "NONE", at),
	)
	undecodable := `decoding webhook event ` + ids[2] + `: whatsapp: not a webhook payload: object is "page"`

	// Without flags: every event not applied yet.
	evs, errOut := c.replay(1)
	want := []map[string]any{
		replayed(ids[0], true, 1, "", map[string]int{"parked": 1}),
		replayed(ids[1], true, 1, "", map[string]int{"inbound": 1, "optedOut": 1}),
		replayed(ids[2], false, 1, undecodable, nil),
		replayed(ids[3], true, 1, "", map[string]int{"inbound": 1, "optedIn": 1}),
		replayed(ids[4], true, 1, "", map[string]int{"templates": 1}),
	}
	if d := cmp.Diff(want, evs); d != "" {
		t.Errorf("first replay (-want +got):\n%s", d)
	}
	if got := lastLine(errOut); got != "herald: 1 webhook event(s) failed to apply; they stay stored" {
		t.Errorf("first replay's error: %q", got)
	}
	// The applied events' effects are committed.
	var list []struct{ ID, TemplateStatus string }
	c.json(&list, "campaigns", "list")
	if len(list) != 1 || list[0].TemplateStatus != "PAUSED" {
		t.Errorf("after the template event the campaigns are %+v, want the template PAUSED", list)
	}

	// Only the failed event is still waiting, and it fails again.
	evs, _ = c.replay(1)
	if d := cmp.Diff([]map[string]any{replayed(ids[2], false, 2, undecodable, nil)}, evs); d != "" {
		t.Errorf("second replay (-want +got):\n%s", d)
	}

	// One applied event by id: applied again, changing nothing (the STOP
	// does not opt the contact out again after their START), exit 0.
	evs, _ = c.replay(0, "--id", ids[1])
	if d := cmp.Diff([]map[string]any{replayed(ids[1], true, 2, "", nil)}, evs); d != "" {
		t.Errorf("replay --id of the STOP (-want +got):\n%s", d)
	}
	// Its id as a log written before webhook events were whk_ shows it.
	evs, _ = c.replay(0, "--id", "evt_"+strings.TrimPrefix(ids[0], "whk_"))
	if d := cmp.Diff([]map[string]any{replayed(ids[0], true, 2, "", map[string]int{"parked": 1})}, evs); d != "" {
		t.Errorf("replay --id of the parked status, by its former id (-want +got):\n%s", d)
	}

	// Since a time: every event received since, applied or not.
	evs, _ = c.replay(1, "--since", at.Add(-time.Minute).UTC().Format(time.RFC3339))
	want = []map[string]any{
		replayed(ids[0], true, 3, "", map[string]int{"parked": 1}),
		replayed(ids[1], true, 3, "", nil),
		replayed(ids[2], false, 3, undecodable, nil),
		replayed(ids[3], true, 2, "", nil),
		replayed(ids[4], true, 2, "", nil),
	}
	if d := cmp.Diff(want, evs); d != "" {
		t.Errorf("replay --since (-want +got):\n%s", d)
	}
	if evs, _ := c.replay(0, "--since", time.Now().Add(time.Hour).UTC().Format(time.RFC3339)); len(evs) != 0 {
		t.Errorf("replay --since an hour ahead: %v", evs)
	}

	// The table names the failure.
	code, out, _ := c.run("webhooks", "replay", "--id", ids[2])
	if code != 1 || !strings.Contains(out, ids[2]) || !strings.Contains(out, "failed: "+undecodable) ||
		lastLine(out) != "1 event(s) replayed, 1 failed." {
		t.Errorf("webhooks replay --id %s: exit %d\n%s", ids[2], code, out)
	}
}

// TestWebhooksReplayExitsZeroWhenAllApply replays events the receive path
// stored and applied: nothing is waiting, and replaying them since a time
// applies each again, changing nothing, with exit 0.
func TestWebhooksReplayExitsZeroWhenAllApply(t *testing.T) {
	t.Parallel()
	c := newWebhookCLI(t, "")
	since := time.Now().Add(-time.Second).UTC().Format(time.RFC3339)
	ids := receive(t, c,
		fakemeta.InboundPayload(hookWABA, hookPhone, fakemeta.Inbound{From: "14155550101", ProfileName: "Bo", Type: "text", Text: "Hello"}),
		fakemeta.StatusPayload(hookWABA, hookPhone, fakemeta.StatusUpdate{WAMID: "wamid.other", Status: "sent", RecipientID: "14155550101"}),
	)
	if evs, _ := c.replay(0); len(evs) != 0 {
		t.Errorf("replay without flags after every event applied: %v", evs)
	}
	evs, errOut := c.replay(0, "--since", since)
	want := []map[string]any{
		replayed(ids[0], true, 2, "", nil),
		replayed(ids[1], true, 2, "", map[string]int{"parked": 1}),
	}
	if d := cmp.Diff(want, evs); d != "" {
		t.Errorf("replay --since (-want +got):\n%s", d)
	}
	if errOut != "" {
		t.Errorf("a replay where everything applied wrote %q", errOut)
	}
	code, out, _ := c.run("webhooks", "replay", "--since", since)
	if code != 0 || lastLine(out) != "2 event(s) replayed, 0 failed." || strings.Contains(out, "failed:") {
		t.Errorf("webhooks replay --since: exit %d\n%s", code, out)
	}
}

// TestWebhooksReplayReportsIdentitiesAndMarketing: the report of each event
// counts what WhatsApp identities and marketing opt-outs did, in JSON and in
// the table: a change of number, an item for another business number, a
// marketing stop and resume (from a Mexican wa_id, which lands on the number
// people type), a template category change.
func TestWebhooksReplayReportsIdentitiesAndMarketing(t *testing.T) {
	t.Parallel()
	c := newWebhookCLI(t, "")
	var camp struct{ ID, Category string }
	c.json(&camp, "campaigns", "create", "--name", "W", "--template-name", "welcome", "--language", "en_US",
		"--body", "Hi {{1}}", "--category", "marketing", "--activate")
	at := time.Now().Truncate(time.Second)
	ids := storeOnly(t, c,
		fakemeta.InboundPayload(hookWABA, hookPhone, fakemeta.Inbound{From: "14155550100", ProfileName: "Ana", Type: "text",
			Text: "hi", At: at}),
		fakemeta.InboundPayload(hookWABA, hookPhone, fakemeta.Inbound{From: "14155550100", Type: "system",
			NewWaID: "14155550199", Text: "User changed number", At: at.Add(time.Second)}),
		fakemeta.UserPreferencesPayload(hookWABA, hookPhone, fakemeta.UserPreference{WaID: "5215512345678", Value: "stop", At: at}),
		fakemeta.UserPreferencesPayload(hookWABA, hookPhone, fakemeta.UserPreference{WaID: "5215512345678", Value: "resume",
			At: at.Add(time.Minute)}),
		fakemeta.InboundPayload(hookWABA, "106540352249999", fakemeta.Inbound{From: "14155550101", Type: "text", Text: "hi", At: at}),
		fakemeta.TemplateCategoryPayload(hookWABA, "welcome", "en_US", "MARKETING", "UTILITY", "", at, at),
	)
	evs, _ := c.replay(0)
	want := []map[string]any{
		replayed(ids[0], true, 1, "", map[string]int{"inbound": 1}),
		replayed(ids[1], true, 1, "", map[string]int{"identities": 1}),
		replayed(ids[2], true, 1, "", map[string]int{"marketingStopped": 1}),
		replayed(ids[3], true, 1, "", map[string]int{"marketingResumed": 1}),
		replayed(ids[4], true, 1, "", map[string]int{"foreign": 1}),
		replayed(ids[5], true, 1, "", map[string]int{"categories": 1}),
	}
	if d := cmp.Diff(want, evs); d != "" {
		t.Errorf("replay (-want +got):\n%s", d)
	}
	st := openStore(t, c)
	cs, err := st.ListContactsByPhone(context.Background(), domain.ModeLive, domain.MustPhoneNumber("+525512345678"))
	if err != nil || len(cs) != 1 || cs[0].Marketing.Stopped || cs[0].Marketing.ChangedAt == nil ||
		!cs[0].Marketing.ChangedAt.Equal(at.Add(time.Minute)) {
		t.Errorf("contacts of +525512345678: %+v (%v), want one, marketing resumed at %v", cs, err, at.Add(time.Minute))
	}

	code, out, _ := c.run("webhooks", "replay", "--id", ids[2])
	lines := strings.Split(out, "\n")
	if code != 0 || len(lines) < 2 || !strings.HasSuffix(strings.Join(strings.Fields(lines[0]), " "),
		"TEMPLATES IDENTITIES FOREIGN MARKETING STOPPED MARKETING RESUMED CATEGORIES QUEUED FAILED") ||
		!strings.HasSuffix(strings.Join(strings.Fields(lines[1]), " "), "applied 0 0 0 0 0 0 0 0 0 0 0 0") {
		t.Errorf("webhooks replay --id %s (applied again, changing nothing): exit %d\n%s", ids[2], code, out)
	}
}

// TestWebhooksReplayOnPostgresWithNUL replays, on PostgreSQL, a stored
// call whose first message holds NUL (which PostgreSQL refuses in text) and
// whose second is a STOP from another number: the NUL becomes U+FFFD, and
// the STOP is not lost with it.
func TestWebhooksReplayOnPostgresWithNUL(t *testing.T) {
	t.Parallel()
	c := newWebhookCLI(t, testenv.PostgresDatabase(t))
	at := time.Now().Truncate(time.Second)
	ids := storeOnly(t, c, fakemeta.InboundPayload(hookWABA, hookPhone,
		fakemeta.Inbound{From: "14155550100", ProfileName: "A\x00na", Type: "text", Text: "hello\x00world", At: at},
		fakemeta.Inbound{From: "14155550101", ProfileName: "Bo", Type: "text", Text: "STOP", At: at}))
	evs, _ := c.replay(0)
	if d := cmp.Diff([]map[string]any{replayed(ids[0], true, 1, "", map[string]int{"inbound": 2, "optedOut": 1})}, evs); d != "" {
		t.Errorf("replay (-want +got):\n%s", d)
	}
	st := openStore(t, c)
	for phone, want := range map[string]bool{"+14155550100": false, "+14155550101": true} {
		cs, err := st.ListContactsByPhone(context.Background(), domain.ModeLive, domain.MustPhoneNumber(phone))
		if err != nil || len(cs) != 1 || cs[0].OptedOut != want {
			t.Errorf("contacts with %s: %+v (%v), want one, opted out %v", phone, cs, err, want)
		}
		if phone == "+14155550100" && len(cs) == 1 && cs[0].ProfileName != "A\uFFFDna" {
			t.Errorf("profile name %q, want A\uFFFDna", cs[0].ProfileName)
		}
	}
}

func TestWebhooksReplayUsage(t *testing.T) {
	t.Parallel()
	const replayUsage = "Run 'herald webhooks replay --help' for usage.\n"
	c := newWebhookCLI(t, "")
	for _, tc := range []struct {
		args   []string
		code   int
		stderr string
	}{
		{[]string{"--id", "whk_01m80000000000000000000000", "--since", "2026-11-23T00:00:00Z"}, 2,
			"herald: give --id or --since, not both\n" + replayUsage},
		{[]string{"--since", "yesterday"}, 2, "herald: --since must be an RFC 3339 time, e.g. 2026-11-23T00:00:00Z\n" + replayUsage},
		{[]string{"--since", "2026-11-23"}, 2, "herald: --since must be an RFC 3339 time, e.g. 2026-11-23T00:00:00Z\n" + replayUsage},
		{[]string{"whk_01m80000000000000000000000"}, 2,
			"herald: webhooks replay takes no argument \"whk_01m80000000000000000000000\" (quote values that contain spaces)\n" + replayUsage},
		{[]string{"--id", "whk_bogus"}, 1, "herald: no webhook event with this id\n"},
		{[]string{"--id", "whk_01m80000000000000000000000"}, 1, "herald: no webhook event with this id\n"},
		{[]string{"--id", "evt_01m80000000000000000000000"}, 1, "herald: no webhook event with this id\n"},
	} {
		code, out, errOut := c.run(append([]string{"webhooks", "replay", "--json"}, tc.args...)...)
		if code != tc.code || errOut != tc.stderr || out != "" {
			t.Errorf("webhooks replay %v: exit %d, stdout %q, stderr %q; want exit %d and %q", tc.args, code, out, errOut, tc.code, tc.stderr)
		}
	}
	if code, _, errOut := c.run("webhooks", "replay", "--frobnicate"); code != 2 || errOut != "herald: unknown flag: --frobnicate\n"+replayUsage {
		t.Errorf("an unknown flag: exit %d %q", code, errOut)
	}
}
