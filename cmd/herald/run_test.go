package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/heraldhq/herald/domain"
)

// TestHelpPerCommand: every command and subcommand answers --help (and -h)
// on stdout with exit 0, showing its own usage line.
func TestHelpPerCommand(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	for _, tc := range []struct {
		args []string
		want []string
	}{
		{[]string{"--help"}, []string{"Usage:\n  herald [command]", "serve", "keys", "campaigns", "Exit codes:", "2  the command line is wrong",
			"migrate     Database migrations: up (the default), down, status, version"}},
		{[]string{"help"}, []string{"Usage:\n  herald [command]"}},
		{nil, []string{"Usage:\n  herald [command]"}},
		{[]string{"keys", "--help"}, []string{"Usage:\n  herald keys [command]", "create", "list", "revoke"}},
		{[]string{"keys"}, []string{"Usage:\n  herald keys [command]"}},
		{[]string{"help", "keys"}, []string{"Usage:\n  herald keys [command]"}},
		{[]string{"keys", "create", "-h"}, []string{"herald keys create --name N [--mode live|test] [flags]", "--quiet"}},
		{[]string{"keys", "revoke", "--help"}, []string{"herald keys revoke ID [flags]"}},
		{[]string{"campaigns", "--help"}, []string{"activate", "pause", "sync-templates"}},
		{[]string{"campaigns", "create", "--help"}, []string{"herald campaigns create --name N --template-name T --language L [flags]",
			"--variable-label label", "--database-url", "(HERALD_DATABASE_URL, default sqlite:herald.db)", "read from their HERALD_* variables"}},
		{[]string{"webhooks", "replay", "--help"}, []string{"--since"}},
		{[]string{"workspaces", "create", "--help"}, []string{"--name"}},
		{[]string{"migrate", "--help"}, []string{"herald migrate [flags]", "herald migrate [command]",
			"\n  up ", "\n  down ", "\n  status ", "\n  version "}},
		{[]string{"migrate", "down", "--help"}, []string{"herald migrate down [flags]", "--json", "--database-url"}},
		{[]string{"help", "migrate", "status"}, []string{"herald migrate status [flags]"}},
		{[]string{"serve", "--help"}, []string{"herald serve [flags]", "--rate-limit"}},
		{[]string{"version", "--help"}, []string{"--json"}},
	} {
		code, out, errOut := c.run(tc.args...)
		if code != 0 || errOut != "" {
			t.Errorf("herald %v: exit %d, stderr %q", tc.args, code, errOut)
		}
		for _, w := range tc.want {
			if !strings.Contains(out, w) {
				t.Errorf("herald %v does not show %q:\n%s", tc.args, w, out)
			}
		}
	}
}

// TestServerSettingsOnlyUnderServe: the administration commands take as
// flags only the settings they are about (the database everywhere, the
// Cloud API's for sync-templates); serve takes every setting. The others
// are still read from their variables.
func TestServerSettingsOnlyUnderServe(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	serverOnly := []string{"--addr", "--rate-limit", "--whatsapp-mps", "--tls-cert-file", "--log-format", "--dashboard-secure-cookie"}
	cloudAPI := []string{"--whatsapp-api-url", "--whatsapp-access-token", "--whatsapp-waba-id"}
	for _, args := range [][]string{
		{"keys", "create"}, {"keys", "list"}, {"keys", "revoke"}, {"campaigns", "create"}, {"campaigns", "list"},
		{"campaigns", "activate"}, {"campaigns", "pause"}, {"campaigns", "sync-templates"}, {"workspaces", "create"},
		{"webhooks", "replay"}, {"admin", "create"}, {"migrate"}, {"migrate", "up"}, {"migrate", "down"},
		{"migrate", "status"}, {"migrate", "version"},
	} {
		_, help, _ := c.run(append(args, "--help")...)
		if !strings.Contains(help, "--database-url") {
			t.Errorf("herald %v --help lacks --database-url", args)
		}
		for _, f := range serverOnly {
			if strings.Contains(help, f+" ") {
				t.Errorf("herald %v --help lists the server setting %s", args, f)
			}
		}
		isSync := strings.Join(args, " ") == "campaigns sync-templates"
		for _, f := range cloudAPI {
			if strings.Contains(help, f+" ") != isSync {
				t.Errorf("herald %v --help: listing %s is %v", args, f, !isSync)
			}
		}
		if lines := strings.Count(help, "\n"); lines > 45 {
			t.Errorf("herald %v --help is %d lines", args, lines)
		}
	}
	if code, _, errOut := c.run("keys", "list", "--rate-limit", "5"); code != 2 || !strings.Contains(errOut, "unknown flag: --rate-limit") {
		t.Errorf("a server setting as a flag of keys list: exit %d %q", code, errOut)
	}

	// --database-url picks the database, over the variable.
	other := "sqlite:" + filepath.Join(t.TempDir(), "other.db")
	var key map[string]string
	c.json(&key, "keys", "create", "--name", "elsewhere", "--database-url", other)
	var here, there []map[string]any
	c.json(&here, "keys", "list")
	c.json(&there, "keys", "list", "--database-url", other)
	if len(here) != 0 || len(there) != 1 || there[0]["id"] != key["id"] {
		t.Errorf("keys in HERALD_DATABASE_URL: %v; in --database-url: %v", here, there)
	}
}

// TestDidYouMean: a mistyped command, subcommand or flag is a usage error
// that names the nearest one.
func TestDidYouMean(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"kyes", "list"}, "herald: unknown command \"kyes\" for \"herald\"\n\nDid you mean this?\n\tkeys\n\nRun 'herald --help' for usage.\n"},
		{[]string{"keys", "lsit"}, "herald: unknown command \"lsit\" for \"herald keys\"\n\nDid you mean this?\n\tlist\n\nRun 'herald keys --help' for usage.\n"},
		{[]string{"campaigns", "activte", "cmp_x"}, "herald: unknown command \"activte\" for \"herald campaigns\"\n\nDid you mean this?\n\tactivate\n\nRun 'herald campaigns --help' for usage.\n"},
		{[]string{"migrate", "upp"}, "herald: unknown command \"upp\" for \"herald migrate\"\n\nDid you mean this?\n\tup\n\nRun 'herald migrate --help' for usage.\n"},
		{[]string{"keys", "frobnicate"}, "herald: unknown command \"frobnicate\" for \"herald keys\"\nRun 'herald keys --help' for usage.\n"},
		{[]string{"keys", "create", "--nmae", "dev"}, "herald: unknown flag: --nmae\n\nDid you mean this?\n\t--name\n\nRun 'herald keys create --help' for usage.\n"},
	} {
		code, out, errOut := c.run(tc.args...)
		if code != 2 || out != "" || errOut != tc.want {
			t.Errorf("herald %v: exit %d, stdout %q, stderr %q; want exit 2 and %q", tc.args, code, out, errOut, tc.want)
		}
	}
}

// TestExitCodes: 0 done, 1 the command failed, 2 the command line is
// wrong, as herald --help says.
func TestExitCodes(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	for _, tc := range []struct {
		args []string
		code int
	}{
		{[]string{"keys", "list"}, 0},
		{[]string{"version"}, 0},
		{[]string{"keys", "revoke", "key_01m80000000000000000000000"}, 1},
		{[]string{"campaigns", "activate", "cmp_01m80000000000000000000000"}, 1},
		{[]string{"campaigns", "sync-templates"}, 1},
		{[]string{"keys", "create"}, 2},
		{[]string{"keys", "create", "--name", "x", "--mode", "sometimes"}, 2},
		{[]string{"keys", "list", "--json=maybe"}, 2},
		{[]string{"keys", "revoke"}, 2},
		{[]string{"serve", "--addr", "nowhere"}, 2},
		{[]string{"version", "extra"}, 2},
		{[]string{"nonsense"}, 2},
	} {
		code, _, errOut := c.run(tc.args...)
		if code != tc.code {
			t.Errorf("herald %v: exit %d, want %d (%q)", tc.args, code, tc.code, errOut)
		}
		if code != 0 && !strings.HasPrefix(errOut, "herald: ") {
			t.Errorf("herald %v: stderr %q, want a herald: error", tc.args, errOut)
		}
	}
}

// TestQuiet: -q prints only the new object's token or id, so $(…) takes
// it; it does not go with --json.
func TestQuiet(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	one := func(args ...string) string {
		t.Helper()
		code, out, errOut := c.runStdin("a long passphrase\n", args...)
		if code != 0 || errOut != "" || strings.Count(out, "\n") != 1 || !strings.HasSuffix(out, "\n") {
			t.Fatalf("herald %v: exit %d, stdout %q, stderr %q; want one line", args, code, out, errOut)
		}
		return strings.TrimSuffix(out, "\n")
	}
	tok, err := domain.ParseToken(one("keys", "create", "--name", "dev", "-q"))
	if err != nil || tok.Mode() != domain.ModeTest {
		t.Fatalf("keys create -q printed no test token: %v", err)
	}
	ws := one("workspaces", "create", "--name", "Acme", "--quiet")
	if _, err := domain.ParseWorkspaceID(ws); err != nil {
		t.Errorf("workspaces create -q printed %q: %v", ws, err)
	}
	camp := one("campaigns", "create", "--name", "W", "--template-name", "w", "--language", "en", "--body", "Hi {{1}}", "-q", "--workspace", ws)
	var list []struct{ ID, WorkspaceID string }
	c.json(&list, "campaigns", "list", "--workspace", ws)
	if len(list) != 1 || list[0].ID != camp {
		t.Errorf("campaigns create -q printed %q; the workspace holds %+v", camp, list)
	}
	if op := one("admin", "create", "--email", "ops@example.com", "-q"); !strings.HasPrefix(op, "opr_") {
		t.Errorf("admin create -q printed %q", op)
	}
	if code, out, errOut := c.run("keys", "create", "--name", "x", "-q", "--json"); code != 2 || out != "" || !strings.Contains(errOut, "--json or --quiet") {
		t.Errorf("-q with --json: exit %d %q %q", code, out, errOut)
	}
	var keys []map[string]any
	c.json(&keys, "keys", "list")
	if len(keys) != 1 {
		t.Errorf("the refused -q --json made a key: %v", keys)
	}
}

// TestCommandsLogNothing: a command prints its result and, when it fails,
// one human line on stderr; its log appears only with --verbose.
func TestCommandsLogNothing(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	code, out, errOut := c.run("campaigns", "sync-templates")
	if code != 1 || out != "" || errOut != "herald: template sync needs the Cloud API: set HERALD_WHATSAPP_ACCESS_TOKEN and HERALD_WHATSAPP_WABA_ID, or add a number with its access token\n" {
		t.Errorf("a failing command: exit %d, stdout %q, stderr %q; want only the error", code, out, errOut)
	}
	_, _, verbose := c.run("campaigns", "sync-templates", "--verbose")
	if !strings.Contains(verbose, `"msg":"use case failed"`) || !strings.HasSuffix(verbose, "\nherald: template sync needs the Cloud API: set HERALD_WHATSAPP_ACCESS_TOKEN and HERALD_WHATSAPP_WABA_ID, or add a number with its access token\n") {
		t.Errorf("with --verbose stderr is %q; want the log, then the error", verbose)
	}

	unreachable := newCLI(t)
	unreachable.env = envOf(map[string]string{"HERALD_DATABASE_URL": "postgres://herald@127.0.0.1:1/herald?connect_timeout=1"})
	code, _, errOut = unreachable.run("keys", "list")
	if code != 1 || strings.Count(errOut, "herald: ") != 1 || strings.Contains(errOut, `"level"`) {
		t.Errorf("an unreachable database: exit %d, stderr %q; want one error and no log", code, errOut)
	}
}

// TestErrorsWithoutFieldNames: a refused value is explained in words, not
// with the API's field name in parentheses.
func TestErrorsWithoutFieldNames(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"campaigns", "create", "--name", "X", "--template-name", "x", "--language", "en", "--body", "Hi {{2}}"},
			"herald: placeholder {{1}} is missing; placeholders must run from {{1}} without gaps\n"},
		{[]string{"campaigns", "create", "--name", "X", "--template-name", "x", "--language", "en"},
			"herald: no body given and template sync is not configured: give the body, or set HERALD_WHATSAPP_ACCESS_TOKEN and HERALD_WHATSAPP_WABA_ID and run herald campaigns sync-templates\n"},
		{[]string{"campaigns", "create", "--name", "X", "--template-name", "Bad Name", "--language", "en", "--body", "Hi"},
			"herald: a template name is 1 to 512 lowercase letters, digits and underscores\n"},
		{[]string{"workspaces", "create", "--name", strings.Repeat("w", 201)},
			"herald: a workspace needs a name of 1 to 200 characters\n"},
	} {
		if code, _, errOut := c.run(tc.args...); code != 1 || errOut != tc.want {
			t.Errorf("herald %v: exit %d, stderr %q; want %q", tc.args, code, errOut, tc.want)
		}
	}
}

// TestCompletion: herald completion writes a completion script for each
// shell, and the script's helper completes commands and flag values.
func TestCompletion(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	for shell, want := range map[string]string{
		"bash": "# bash completion V2 for herald", "zsh": "#compdef herald", "fish": "complete -c herald",
	} {
		code, out, errOut := c.run("completion", shell)
		if code != 0 || errOut != "" || !strings.Contains(out, want) {
			t.Errorf("completion %s: exit %d, stderr %q, script lacks %q", shell, code, errOut, want)
		}
	}
	for _, tc := range []struct {
		args []string
		want []string
	}{
		{[]string{"__complete", "ke"}, []string{"keys"}},
		{[]string{"__complete", "keys", ""}, []string{"create", "list", "revoke"}},
		{[]string{"__complete", "keys", "create", "--mode", ""}, []string{"test", "live"}},
		{[]string{"__complete", "campaigns", "create", "--header-format", "i"}, []string{"image"}},
		{[]string{"__complete", "campaigns", "create", "--category", ""}, []string{"marketing", "utility", "authentication"}},
	} {
		_, out, _ := c.run(tc.args...)
		for _, w := range tc.want {
			if !strings.Contains(out, w+"\t") && !strings.Contains(out, w+"\n") {
				t.Errorf("herald %v offers no %q:\n%s", tc.args, w, out)
			}
		}
	}
}

// TestHelpShowsNoSecrets: --help shows each setting's default, never the
// value the environment gives it.
func TestHelpShowsNoSecrets(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	c.env = envOf(map[string]string{"HERALD_WHATSAPP_ACCESS_TOKEN": "EAAG-secret-token",
		"HERALD_DATABASE_URL": "postgres://herald:pgpass@db:5432/herald"})
	for _, args := range [][]string{{"serve", "--help"}, {"campaigns", "sync-templates", "--help"}, {"keys", "list", "--help"}} {
		code, out, _ := c.run(args...)
		if code != 0 || strings.Contains(out, "EAAG-secret-token") || strings.Contains(out, "pgpass") {
			t.Errorf("herald %v: exit %d, and the help shows a secret:\n%s", args, code, out)
		}
	}
}
