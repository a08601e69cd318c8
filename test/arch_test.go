package test

import (
	"encoding/json"
	"os/exec"
	"strings"
	"testing"
)

const module = "github.com/heraldhq/herald"

// TestImportRules enforces the hexagonal arrows: adapters → app → ports →
// domain. The domain does no I/O; app never imports an adapter; adapters do
// not import each other; mocks and contract suites stay in tests.
func TestImportRules(t *testing.T) {
	t.Parallel()
	out, err := exec.Command("go", "list", "-json=ImportPath,Imports", module+"/...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	dec := json.NewDecoder(strings.NewReader(string(out)))
	seen := 0
	for dec.More() {
		var p struct {
			ImportPath string
			Imports    []string
		}
		if err := dec.Decode(&p); err != nil {
			t.Fatal(err)
		}
		seen++
		pkg := strings.TrimPrefix(strings.TrimPrefix(p.ImportPath, module), "/")
		for _, imp := range p.Imports {
			if why := forbidden(pkg, imp); why != "" {
				t.Errorf("%s imports %s: %s", pkg, imp, why)
			}
		}
	}
	if seen < 8 {
		t.Fatalf("go list saw only %d packages; the check is not looking at the project", seen)
	}
}

func forbidden(pkg, imp string) string {
	own, local := strings.CutPrefix(imp, module+"/")
	layer := func(p string) string { return strings.SplitN(p, "/", 2)[0] }
	switch layer(pkg) {
	case "domain":
		if local && layer(own) != "domain" {
			return "the domain imports nothing of the project outside domain/"
		}
		for _, bad := range []string{"context", "database/sql", "net/http", "os", "log", "go.uber.org/", "github.com/jmoiron/sqlx"} {
			if imp == bad || strings.HasPrefix(imp, bad+"/") || (strings.HasSuffix(bad, "/") && strings.HasPrefix(imp, bad)) {
				return "the domain does no I/O"
			}
		}
	case "ports":
		if local && (layer(own) == "app" || layer(own) == "adapters" || layer(own) == "cmd") {
			return "ports know only the domain"
		}
	case "app":
		if local && (layer(own) == "adapters" || layer(own) == "cmd") {
			return "app never imports an adapter"
		}
	case "adapters":
		if local && layer(own) == "adapters" && adapterOf(own) != adapterOf(pkg) {
			return "no adapter imports another adapter"
		}
		if local && layer(own) == "cmd" {
			return "adapters never import cmd"
		}
	}
	if local && (strings.HasPrefix(own, "ports/portsmock") || strings.HasPrefix(own, "ports/porttest")) &&
		!strings.HasPrefix(pkg, "ports/") && !strings.HasPrefix(pkg, "test") {
		return "mocks and contract suites are for tests only"
	}
	return ""
}

func adapterOf(p string) string {
	parts := strings.SplitN(p, "/", 3)
	if len(parts) < 2 {
		return p
	}
	return parts[1]
}

func TestForbiddenCatchesViolations(t *testing.T) {
	t.Parallel()
	cases := []struct{ pkg, imp string }{
		{"domain", "os"},
		{"domain", "context"},
		{"domain", module + "/ports"},
		{"ports", module + "/app"},
		{"app", module + "/adapters/sqlstore"},
		{"adapters/httpapi", module + "/adapters/memstore"},
		{"adapters/sqlstore", module + "/ports/portsmock"},
	}
	for _, c := range cases {
		if forbidden(c.pkg, c.imp) == "" {
			t.Errorf("%s importing %s should be forbidden", c.pkg, c.imp)
		}
	}
	if why := forbidden("adapters/httpapi", module+"/app"); why != "" {
		t.Errorf("adapters may import app: %s", why)
	}
}
