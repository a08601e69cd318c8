package main

import (
	"encoding/json"
	"runtime"
	"strings"
	"testing"
)

// TestVersion: herald --version and herald version print one line with
// the version, commit, build time and Go version; --json prints the same
// four fields. make build sets the first three with -ldflags -X.
func TestVersion(t *testing.T) {
	// Not parallel: it sets the variables -ldflags -X sets.
	orig := [3]string{version, commit, buildTime}
	t.Cleanup(func() { version, commit, buildTime = orig[0], orig[1], orig[2] })
	c := newCLI(t)

	version, commit, buildTime = "", "", ""
	_, out, _ := c.run("version")
	if !strings.HasPrefix(out, "herald ") || !strings.HasSuffix(out, ", "+runtime.Version()+")\n") {
		t.Errorf("version without -ldflags: %q", out)
	}

	version, commit, buildTime = "v1.4.0", "0123456789abcdef0123456789abcdef01234567", "2026-11-26T10:00:00Z"
	want := "herald v1.4.0 (commit 0123456789abcdef0123456789abcdef01234567, built 2026-11-26T10:00:00Z, " + runtime.Version() + ")\n"
	for _, args := range [][]string{{"version"}, {"--version"}} {
		if code, out, errOut := c.run(args...); code != 0 || out != want || errOut != "" {
			t.Errorf("herald %v: exit %d, %q %q; want %q", args, code, out, errOut, want)
		}
	}
	code, out, _ := c.run("version", "--json")
	var got map[string]string
	if err := json.Unmarshal([]byte(out), &got); code != 0 || err != nil {
		t.Fatalf("version --json: exit %d, %q: %v", code, out, err)
	}
	wantJSON := map[string]string{"version": "v1.4.0", "commit": "0123456789abcdef0123456789abcdef01234567",
		"buildTime": "2026-11-26T10:00:00Z", "goVersion": runtime.Version()}
	if len(got) != len(wantJSON) {
		t.Errorf("version --json: %v, want %v", got, wantJSON)
	}
	for k, v := range wantJSON {
		if got[k] != v {
			t.Errorf("version --json: %s is %q, want %q", k, got[k], v)
		}
	}
}
