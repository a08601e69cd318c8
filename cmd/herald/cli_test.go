package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"path/filepath"
	"strings"
	"testing"

	"github.com/heraldhq/herald/domain"
	"github.com/heraldhq/herald/test/fakemeta"
	"github.com/heraldhq/herald/test/testenv"
)

// cli runs herald in-process against one SQLite file.
type cli struct {
	t   *testing.T
	env func(string) string
}

func newCLI(t *testing.T) *cli {
	db := "sqlite:" + filepath.Join(t.TempDir(), "herald.db")
	return &cli{t: t, env: envOf(map[string]string{"HERALD_DATABASE_URL": db})}
}

func (c *cli) run(args ...string) (int, string, string) {
	var out, errOut bytes.Buffer
	code := run(context.Background(), args, c.env, strings.NewReader(""), &out, &errOut)
	return code, out.String(), errOut.String()
}

func (c *cli) json(v any, args ...string) {
	c.t.Helper()
	code, out, errOut := c.run(append(args, "--json")...)
	if code != 0 {
		c.t.Fatalf("herald %v: exit %d: %s", args, code, errOut)
	}
	if err := json.Unmarshal([]byte(out), v); err != nil {
		c.t.Fatalf("herald %v printed %q: %v", args, out, err)
	}
}

func TestKeysCommands(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	var created map[string]string
	c.json(&created, "keys", "create", "--name", "ci", "--mode", "live")
	for _, f := range []string{"id", "token", "identifier", "mode", "workspaceId"} {
		if created[f] == "" {
			t.Errorf("keys create --json lacks %q: %v", f, created)
		}
	}
	tok, err := domain.ParseToken(created["token"])
	if err != nil || tok.Mode() != domain.ModeLive || tok.Identifier() != created["identifier"] {
		t.Fatalf("the printed token does not parse as a live key: %v", err)
	}

	var list []map[string]any
	c.json(&list, "keys", "list")
	if len(list) != 1 || list[0]["id"] != created["id"] || list[0]["revokedAt"] != nil {
		t.Fatalf("keys list: %v", list)
	}
	_, human, _ := c.run("keys", "list")
	_, asJSON, _ := c.run("keys", "list", "--json")
	if strings.Contains(human+asJSON, created["token"]) || strings.Contains(human+asJSON, created["token"][24:]) {
		t.Fatal("keys list prints the token")
	}

	var revoked map[string]string
	c.json(&revoked, "keys", "revoke", created["id"])
	if revoked["id"] != created["id"] || revoked["revokedAt"] == "" {
		t.Fatalf("keys revoke: %v", revoked)
	}
	if code, _, errOut := c.run("keys", "revoke", "key_01m80000000000000000000000"); code != 1 || !strings.Contains(errOut, "no API key") {
		t.Errorf("revoking a missing key: exit %d %q", code, errOut)
	}
	if code, _, _ := c.run("keys", "create"); code != 2 {
		t.Errorf("keys create without --name: exit %d, want 2", code)
	}
}

func TestCampaignCommands(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	var camp struct {
		ID, Name, Status, TemplateName, Language, HeaderFormat, WorkspaceID string
		Placeholders                                                        []struct {
			Index int
			Label string
		}
	}
	c.json(&camp, "campaigns", "create", "--name", "Promo", "--template-name", "promo", "--language", "en",
		"--body", "Hi {{1}}, {{2}} off", "--header-format", "image", "--variable-label", "Name", "--variable-label", "Discount")
	if camp.Status != "draft" || camp.HeaderFormat != "image" || len(camp.Placeholders) != 2 || camp.Placeholders[1].Label != "Discount" {
		t.Fatalf("campaigns create: %+v", camp)
	}
	var activated struct{ ID, Status string }
	c.json(&activated, "campaigns", "activate", camp.ID)
	if activated.Status != "active" {
		t.Fatalf("activate: %+v", activated)
	}
	c.json(&activated, "campaigns", "pause", camp.ID)
	if activated.Status != "paused" {
		t.Fatalf("pause: %+v", activated)
	}
	var list []struct{ ID, Status string }
	c.json(&list, "campaigns", "list")
	if len(list) != 1 || list[0].ID != camp.ID || list[0].Status != "paused" {
		t.Fatalf("list: %+v", list)
	}
	if code, _, errOut := c.run("campaigns", "create", "--name", "X", "--template-name", "x", "--language", "en", "--body", "Hi {{2}}"); code != 1 || !strings.Contains(errOut, "{{1}}") {
		t.Errorf("a body with a gap in its placeholders: exit %d %q", code, errOut)
	}
}

func TestWorkspacesAndDefault(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	var ws map[string]string
	c.json(&ws, "workspaces", "create", "--name", "Acme")
	if !strings.HasPrefix(ws["id"], "wsp_") {
		t.Fatalf("workspaces create: %v", ws)
	}
	var k1, k2 map[string]string
	c.json(&k1, "keys", "create", "--name", "a")
	c.json(&k2, "keys", "create", "--name", "b", "--workspace", ws["id"])
	if k1["workspaceId"] == ws["id"] || k2["workspaceId"] != ws["id"] {
		t.Fatalf("keys landed in the wrong workspaces: %v %v", k1, k2)
	}
	var again map[string]string
	c.json(&again, "keys", "create", "--name", "c")
	if again["workspaceId"] != k1["workspaceId"] {
		t.Fatalf("the default workspace changed between commands: %s then %s", k1["workspaceId"], again["workspaceId"])
	}
	var list []map[string]any
	c.json(&list, "keys", "list", "--workspace", ws["id"])
	if len(list) != 1 {
		t.Fatalf("keys list --workspace: %v", list)
	}
}

func TestUnknownCommand(t *testing.T) {
	t.Parallel()
	var errOut bytes.Buffer
	if code := run(context.Background(), []string{"frobnicate"}, envOf(nil), nil, io.Discard, &errOut); code != 2 {
		t.Fatalf("exit %d", code)
	}
	if want := "herald: unknown command \"frobnicate\" for \"herald\"\nRun 'herald --help' for usage.\n"; errOut.String() != want {
		t.Errorf("an unknown command printed %q, want %q", errOut.String(), want)
	}
}

func TestMigrateCommand(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	var first, second struct{ From, To int }
	c.json(&first, "migrate")
	if first.From != 0 || first.To < 1 {
		t.Fatalf("migrate on a new database: %+v, want from 0 to the latest version", first)
	}
	c.json(&second, "migrate")
	if second.From != first.To || second.To != first.To {
		t.Fatalf("migrate again: %+v, want from %d to %d", second, first.To, first.To)
	}
}

func TestStrayArgumentsAreUsageErrors(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	for _, args := range [][]string{
		// The body lost its quotes: {{1}} must not be dropped silently.
		{"campaigns", "create", "--name", "W", "--template-name", "w", "--language", "en", "--body", "Hi", "{{1}}"},
		{"keys", "create", "--name", "dev", "extra"},
		{"keys", "revoke"},
		{"keys", "revoke", "key_a", "key_b"},
		{"campaigns", "activate"},
		{"serve", "now"},
	} {
		if code, _, errOut := c.run(args...); code != 2 || !strings.HasPrefix(errOut, "herald: ") {
			t.Errorf("herald %s: exit %d %q; want a usage error (exit 2)", strings.Join(args, " "), code, errOut)
		}
	}
	var list []map[string]any
	c.json(&list, "campaigns", "list")
	if len(list) != 0 {
		t.Errorf("a refused command created campaigns: %v", list)
	}
}

// TestTemplateSyncCommands syncs from the fake Cloud API, creates a
// campaign from a synced template without --body, and follows Meta's
// verdicts: a paused template is reported and blocks activation.
func TestTemplateSyncCommands(t *testing.T) {
	t.Parallel()
	fake := fakemeta.New(t)
	fake.AddTemplate(fakemeta.Template{Name: "order_update", Language: "en_US", Status: "APPROVED",
		Header: "image", Body: "Order {{1}} ships {{2}}", Footer: "Reply STOP to opt out"})
	fake.AddTemplate(fakemeta.Template{Name: "coupon", Language: "en", Status: "APPROVED", Body: "Code {{code}}", ParameterFormat: "NAMED"})
	fake.AddTemplate(fakemeta.Template{Name: "booking", Language: "en", Status: "APPROVED", Body: "Book a table",
		Buttons: []fakemeta.Button{{Type: "FLOW", Text: "Book"}}})
	c := newCLI(t)
	env := c.env
	c.env = func(k string) string {
		switch k {
		case "HERALD_WHATSAPP_API_URL":
			return fake.URL
		case "HERALD_WHATSAPP_ACCESS_TOKEN":
			return fake.Token
		case "HERALD_WHATSAPP_WABA_ID":
			return fake.WABAID
		}
		return env(k)
	}

	var templates []struct {
		Name, Language, Status, HeaderFormat, Body, Unsupported string
		Placeholders                                            int
	}
	c.json(&templates, "campaigns", "sync-templates")
	if len(templates) != 3 || templates[2].Name != "order_update" || templates[2].Status != "APPROVED" ||
		templates[2].HeaderFormat != "image" || templates[2].Placeholders != 2 || templates[0].Unsupported == "" ||
		templates[1].Name != "coupon" || templates[1].Unsupported != "" {
		t.Fatalf("sync-templates: %+v", templates)
	}

	var camp struct {
		ID, Status, TemplateStatus, HeaderFormat, Body string
		Placeholders                                   []struct{ Label string }
	}
	c.json(&camp, "campaigns", "create", "--name", "Orders", "--template-name", "order_update", "--language", "en_US",
		"--variable-label", "Order", "--variable-label", "Date", "--activate")
	if camp.Status != "active" || camp.TemplateStatus != "APPROVED" || camp.HeaderFormat != "image" ||
		camp.Body != "Order {{1}} ships {{2}}" || len(camp.Placeholders) != 2 || camp.Placeholders[0].Label != "Order" {
		t.Fatalf("campaign from the synced template: %+v", camp)
	}
	if code, _, errOut := c.run("campaigns", "create", "--name", "B", "--template-name", "booking", "--language", "en"); code != 1 ||
		!strings.Contains(errOut, "flow buttons are not supported") {
		t.Errorf("a template Herald cannot send: exit %d %q", code, errOut)
	}
	if code, _, errOut := c.run("campaigns", "create", "--name", "C", "--template-name", "coupon", "--language", "en"); code != 0 {
		t.Errorf("a template with named parameters: exit %d %q", code, errOut)
	}
	if code, _, errOut := c.run("campaigns", "create", "--name", "M", "--template-name", "missing", "--language", "en"); code != 1 ||
		!strings.Contains(errOut, "sync-templates") {
		t.Errorf("a template that was never synced: exit %d %q", code, errOut)
	}
	if code, _, errOut := c.run("campaigns", "create", "--name", "O", "--template-name", "order_update", "--language", "en_US", "--footer", "x"); code != 2 {
		t.Errorf("--footer without --body: exit %d %q, want a usage error", code, errOut)
	}

	fake.SetTemplateStatus("order_update", "en_US", "PAUSED")
	code, out, errOut := c.run("campaigns", "sync-templates")
	if code != 0 || !strings.Contains(out, "campaign "+camp.ID+": template order_update (en_US) went from APPROVED to PAUSED") {
		t.Fatalf("sync after the pause: exit %d\n%s%s", code, out, errOut)
	}
	c.json(&camp, "campaigns", "pause", camp.ID)
	if code, _, errOut := c.run("campaigns", "activate", camp.ID); code != 1 || !strings.Contains(errOut, "PAUSED at Meta") {
		t.Errorf("activating on a paused template: exit %d %q", code, errOut)
	}
	if fake.TemplateRequests() != 2 {
		t.Errorf("%d template list requests, want one per sync", fake.TemplateRequests())
	}
}

// TestTemplateSyncOnPostgresWithNUL: a template list from Meta with NUL in
// a template's name and in another's body (PostgreSQL refuses NUL in text)
// is stored whole: the NUL in the name becomes U+FFFD, the body with NUL is
// a template Herald cannot send, and the other templates sync as usual. A
// template name with NUL on the command line is refused as invalid.
func TestTemplateSyncOnPostgresWithNUL(t *testing.T) {
	t.Parallel()
	fake := fakemeta.New(t)
	fake.AddTemplate(fakemeta.Template{Name: "order_update", Language: "en_US", Status: "APPROVED", Body: "Order {{1}} ships"})
	fake.AddTemplate(fakemeta.Template{Name: "bad\x00name", Language: "en_US", Status: "APPROVED", Body: "Hi"})
	fake.AddTemplate(fakemeta.Template{Name: "nul_body", Language: "en_US", Status: "APPROVED", Body: "Hi\x00 {{1}}"})
	c := &cli{t: t, env: envOf(map[string]string{"HERALD_DATABASE_URL": testenv.PostgresDatabase(t),
		"HERALD_WHATSAPP_API_URL": fake.URL, "HERALD_WHATSAPP_ACCESS_TOKEN": fake.Token, "HERALD_WHATSAPP_WABA_ID": fake.WABAID})}
	if code, _, errOut := c.run("migrate"); code != 0 {
		t.Fatalf("migrate: exit %d %s", code, errOut)
	}
	var templates []struct{ Name, Status, Unsupported string }
	c.json(&templates, "campaigns", "sync-templates")
	got := map[string]string{}
	for _, tm := range templates {
		got[tm.Name] = tm.Unsupported
	}
	if len(templates) != 3 || got["order_update"] != "" || !strings.Contains(got["bad\uFFFDname"], "lowercase") ||
		!strings.Contains(got["nul_body"], "NUL character") {
		t.Fatalf("sync-templates: %+v", templates)
	}
	var camp struct{ ID, Status string }
	c.json(&camp, "campaigns", "create", "--name", "Orders", "--template-name", "order_update", "--language", "en_US", "--activate")
	if camp.Status != "active" {
		t.Errorf("campaign from the synced template: %+v", camp)
	}
	if code, _, errOut := c.run("campaigns", "create", "--name", "N", "--template-name", "bad\x00name", "--language", "en_US"); code != 1 ||
		!strings.Contains(errOut, "lowercase letters") {
		t.Errorf("a template name with NUL: exit %d %q, want refused as invalid", code, errOut)
	}
	if code, _, errOut := c.run("campaigns", "create", "--name", "Or\x00ders", "--template-name", "order_update", "--language", "en_US"); code != 1 ||
		!strings.Contains(errOut, "NUL character") {
		t.Errorf("a campaign name with NUL: exit %d %q, want refused as invalid", code, errOut)
	}
}

func TestTemplateSyncNeedsTheCloudAPI(t *testing.T) {
	t.Parallel()
	code, _, errOut := newCLI(t).run("campaigns", "sync-templates")
	if code != 1 || !strings.Contains(errOut, "HERALD_WHATSAPP_WABA_ID") {
		t.Fatalf("sync without settings: exit %d %q", code, errOut)
	}
}
