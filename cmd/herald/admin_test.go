package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/heraldhq/herald/app"
	"github.com/heraldhq/herald/domain"
	"github.com/heraldhq/herald/ports"
)

// runStdin is run with stdin holding the given text.
func (c *cli) runStdin(stdin string, args ...string) (int, string, string) {
	var out, errOut bytes.Buffer
	code := run(context.Background(), args, c.env, strings.NewReader(stdin), &out, &errOut)
	return code, out.String(), errOut.String()
}

// withGraph starts the CLI's object graph on the same database and runs fn
// with the targets filled.
func (c *cli) withGraph(fn func() error, targets ...any) {
	c.t.Helper()
	e := &env{ctx: context.Background(), getenv: c.env, stdout: io.Discard, stderr: io.Discard}
	var err error
	if e.cfg, err = loadConfig(c.env, "json"); err != nil {
		c.t.Fatal(err)
	}
	if err := e.withApp(fn, targets...); err != nil {
		c.t.Fatal(err)
	}
}

func TestAdminCreate(t *testing.T) {
	t.Parallel()
	const password = "correct horse battery"
	c := newCLI(t)

	code, out, errOut := c.runStdin(password+"\r\n", "admin", "create", "--email", " Ops@Example.com ", "--json")
	if code != 0 {
		t.Fatalf("admin create: exit %d: %s", code, errOut)
	}
	if strings.Contains(out+errOut, password) {
		t.Fatalf("admin create printed the password: %q %q", out, errOut)
	}
	var created map[string]any
	if err := json.Unmarshal([]byte(out), &created); err != nil {
		t.Fatalf("admin create --json printed %q: %v", out, err)
	}
	id, _ := created["id"].(string)
	if !strings.HasPrefix(id, "opr_") || created["email"] != "ops@example.com" ||
		!strings.HasPrefix(created["workspaceId"].(string), "wsp_") || created["createdAt"] == "" || len(created) != 4 {
		t.Fatalf("admin create --json: %v; want id, email (normalised), workspaceId and createdAt only", created)
	}
	var key map[string]string
	c.json(&key, "keys", "create", "--name", "dev")
	if created["workspaceId"] != key["workspaceId"] {
		t.Errorf("the operator is in %v, the default workspace is %s", created["workspaceId"], key["workspaceId"])
	}

	// The password works for signing in, without the line ending, and is
	// stored as an argon2id hash.
	var login *app.LogInHandler
	var operators ports.OperatorRepository
	c.withGraph(func() error {
		ctx := context.Background()
		if _, err := login.Handle(ctx, app.LogIn{Email: "ops@example.com", Password: password}); err != nil {
			t.Errorf("signing in with the piped password: %v", err)
		}
		if _, err := login.Handle(ctx, app.LogIn{Email: "ops@example.com", Password: password + "\r"}); !errors.Is(err, domain.ErrInvalidCredentials) {
			t.Errorf("signing in with the line ending kept: %v, want invalid credentials", err)
		}
		o, err := operators.GetOperatorByEmail(ctx, "ops@example.com")
		if err != nil {
			return err
		}
		if !strings.HasPrefix(o.PasswordHash, "$argon2id$") || strings.Contains(o.PasswordHash, password) {
			t.Errorf("stored password hash %q, want an argon2id PHC string", o.PasswordHash)
		}
		return nil
	}, &login, &operators)

	for _, tc := range []struct {
		name, stdin string
		args        []string
		code        int
		want        string
	}{
		{"taken email, other case", "another long passphrase\n", []string{"--email", "OPS@example.com"}, 1, "an operator with this email address exists already\n"},
		{"short password", "too short\n", []string{"--email", "short@example.com"}, 1, "a password is 12 to 256 characters\n"},
		{"bad email", password + "\n", []string{"--email", "not-an-address"}, 1, "an email address such as ops@example.com is needed\n"},
		{"no email", password + "\n", nil, 2, "--email is required"},
		{"empty stdin", "", []string{"--email", "empty@example.com"}, 2, "stdin"},
		{"password as a flag", password + "\n", []string{"--email", "flag@example.com", "--password", password}, 2, "unknown flag: --password"},
		{"stray argument", password + "\n", []string{"--email", "stray@example.com", password}, 2, "takes no arguments"},
	} {
		code, out, errOut := c.runStdin(tc.stdin, append([]string{"admin", "create"}, tc.args...)...)
		if code != tc.code || !strings.HasPrefix(errOut, "herald: ") || !strings.Contains(errOut, tc.want) || out != "" {
			t.Errorf("%s: exit %d, stdout %q, stderr %q; want exit %d and %q", tc.name, code, out, errOut, tc.code, tc.want)
		}
		if strings.Contains(errOut, password) {
			t.Errorf("%s: the password was printed: %q", tc.name, errOut)
		}
	}
}

func TestAdminCreateHumanOutput(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	env := c.env
	c.env = func(k string) string {
		if k == "HERALD_ADDR" {
			return "0.0.0.0:9090"
		}
		return env(k)
	}
	code, out, errOut := c.runStdin("a long passphrase", "admin", "create", "--email", "ops@example.com")
	if code != 0 {
		t.Fatalf("admin create: exit %d: %s", code, errOut)
	}
	if !strings.HasPrefix(out, "Created operator ops@example.com (opr_") ||
		!strings.HasSuffix(out, "; sign in at http://127.0.0.1:9090/dashboard/login\n") || strings.Contains(out, "passphrase") {
		t.Errorf("admin create printed %q", out)
	}
	var help bytes.Buffer
	run(context.Background(), []string{"admin", "create", "--help"}, envOf(nil), nil, &help, io.Discard)
	if !strings.Contains(help.String(), "herald admin create --email E") || !strings.Contains(help.String(), "read from stdin") {
		t.Errorf("herald admin create --help does not say how to call it:\n%s", help.String())
	}
}
