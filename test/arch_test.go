package test

import (
	"encoding/json"
	"go/ast"
	"go/parser"
	"go/token"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

const module = "github.com/heraldhq/herald"

// TestImportRules enforces the hexagonal arrows: adapters → app → ports →
// domain. The domain does no I/O; app never imports an adapter, and
// app/delivery never imports app; adapters do not import each other; mocks
// and contract suites stay in tests.
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
		if local && strings.HasPrefix(pkg, "app/delivery") && own == "app" {
			return "app/delivery never imports app: app hands over to it"
		}
		if local && strings.HasPrefix(pkg, "app/usecase") && (own == "app" || strings.HasPrefix(own, "app/delivery")) {
			return "app/usecase is what app and app/delivery share: it imports neither"
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

// TestFileImportRules enforces the rules STYLE §1 and §5 set per file, in
// the packages that join the fx graph (domain, ports, app, adapters; not
// cmd/herald, which builds it, nor tests):
//   - only module files (module.go, or NAME_module.go where a package has
//     more than one fx module) import fx; an adapter's server.go may take fx's
//     lifecycle (fx.Lifecycle and its hooks) through its module's
//     constructor parameters, and uses nothing else of fx;
//   - in app and its packages only the logging wrapper
//     (app/usecase/observe.go) and the module.go files import zap.
func TestFileImportRules(t *testing.T) {
	t.Parallel()
	out, err := exec.Command("go", "list", "-json=ImportPath,Dir,GoFiles", module+"/...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	dec := json.NewDecoder(strings.NewReader(string(out)))
	files := 0
	for dec.More() {
		var p struct {
			ImportPath string
			Dir        string
			GoFiles    []string
		}
		if err := dec.Decode(&p); err != nil {
			t.Fatal(err)
		}
		pkg := strings.TrimPrefix(strings.TrimPrefix(p.ImportPath, module), "/")
		for _, name := range p.GoFiles {
			f, err := parser.ParseFile(token.NewFileSet(), filepath.Join(p.Dir, name), nil, parser.ImportsOnly)
			if err != nil {
				t.Fatal(err)
			}
			files++
			for _, spec := range f.Imports {
				imp, _ := strconv.Unquote(spec.Path.Value)
				if why := fileForbidden(pkg, name, imp); why != "" {
					t.Errorf("%s/%s imports %s: %s", pkg, name, imp, why)
				}
			}
			if pkg != "" && layerOf(pkg) == "adapters" && name == "server.go" {
				for _, use := range fxUses(t, filepath.Join(p.Dir, name)) {
					if !lifecycleOnly[use] {
						t.Errorf("%s/%s uses fx.%s: a server.go takes fx's lifecycle and nothing else of fx", pkg, name, use)
					}
				}
			}
		}
	}
	if files < 100 {
		t.Fatalf("go list showed only %d files; the check is not looking at the project", files)
	}
}

// lifecycleOnly is what of fx an adapter's server.go may use: the
// lifecycle its constructor takes, and the hooks it appends.
var lifecycleOnly = map[string]bool{"Lifecycle": true, "Hook": true, "StartHook": true, "StopHook": true, "StartStopHook": true}

func layerOf(p string) string { return strings.SplitN(p, "/", 2)[0] }

// fileForbidden says why file name of package pkg may not import imp, or
// "" when it may.
func fileForbidden(pkg, name, imp string) string {
	joinsGraph := map[string]bool{"domain": true, "ports": true, "app": true, "adapters": true}[layerOf(pkg)]
	switch {
	case imp == "go.uber.org/fx" || strings.HasPrefix(imp, "go.uber.org/fx/"):
		if joinsGraph && !isModuleFile(name) && !(layerOf(pkg) == "adapters" && name == "server.go") {
			return "only module.go files import fx (an adapter's server.go may take its lifecycle)"
		}
	case imp == "go.uber.org/zap" || strings.HasPrefix(imp, "go.uber.org/zap/"):
		if layerOf(pkg) == "app" && !isModuleFile(name) && (pkg != "app/usecase" || name != "observe.go") {
			return "in app only the logging wrapper (app/usecase/observe.go) and module.go files import zap"
		}
	case strings.HasPrefix(imp, "github.com/prometheus/"):
		if layerOf(pkg) != "adapters" || !strings.HasPrefix(pkg, "adapters/metrics") {
			return "only adapters/metrics knows Prometheus: the rest counts through ports.Metrics"
		}
	case strings.HasPrefix(imp, "go.opentelemetry.io/"):
		switch layerOf(pkg) {
		case "domain", "ports":
			return "the domain and the ports know nothing of tracing"
		case "app":
			if !isModuleFile(name) && (pkg != "app/usecase" || name != "trace.go") {
				return "in app only the tracing wrapper (app/usecase/trace.go) and module.go files import OpenTelemetry"
			}
		}
		if (layerOf(pkg) == "app" || layerOf(pkg) == "adapters") && strings.HasPrefix(imp, "go.opentelemetry.io/otel/sdk") {
			return "the OpenTelemetry SDK is set up in cmd only"
		}
	}
	return ""
}

// isModuleFile reports whether a file holds a package's fx module:
// module.go, or NAME_module.go for a package with more than one.
func isModuleFile(name string) bool {
	return name == "module.go" || strings.HasSuffix(name, "_module.go")
}

// fxUses lists the names a file uses from the package it imports as fx.
func fxUses(t *testing.T, path string) []string {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), path, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	var uses []string
	ast.Inspect(f, func(n ast.Node) bool {
		if sel, ok := n.(*ast.SelectorExpr); ok {
			if id, ok := sel.X.(*ast.Ident); ok && id.Name == "fx" {
				uses = append(uses, sel.Sel.Name)
			}
		}
		return true
	})
	return uses
}

func TestFileForbiddenCatchesViolations(t *testing.T) {
	t.Parallel()
	forbiddenCases := []struct{ pkg, file, imp string }{
		{"adapters/httpapi", "debug.go", "go.uber.org/fx"},
		{"adapters/sqlstore", "store.go", "go.uber.org/fx"},
		{"app", "send_campaign_message.go", "go.uber.org/fx"},
		{"app/delivery", "dispatch.go", "go.uber.org/zap"},
		{"app", "sync_templates.go", "go.uber.org/zap"},
		{"app/usecase", "every.go", "go.uber.org/zap"},
		{"app/delivery", "observe.go", "go.uber.org/zap/zapcore"},
		{"app/delivery", "dispatch.go", "github.com/prometheus/client_golang/prometheus"},
		{"adapters/httpapi", "telemetry.go", "github.com/prometheus/client_golang/prometheus"},
		{"app/delivery", "dispatch.go", "go.opentelemetry.io/otel/trace"},
		{"ports", "metrics.go", "go.opentelemetry.io/otel/trace"},
		{"adapters/httpapi", "telemetry.go", "go.opentelemetry.io/otel/sdk/trace"},
		{"ports", "store.go", "go.uber.org/fx"},
		{"app", "server.go", "go.uber.org/fx"},
		{"app/events", "modules.go", "go.uber.org/fx"},
	}
	for _, c := range forbiddenCases {
		if fileForbidden(c.pkg, c.file, c.imp) == "" {
			t.Errorf("%s/%s importing %s should be forbidden", c.pkg, c.file, c.imp)
		}
	}
	allowed := []struct{ pkg, file, imp string }{
		{"adapters/httpapi", "module.go", "go.uber.org/fx"},
		{"adapters/httpapi", "server.go", "go.uber.org/fx"},
		{"adapters/zaplog", "module.go", "go.uber.org/fx/fxevent"},
		{"app", "module.go", "go.uber.org/zap"},
		{"adapters/metrics", "metrics.go", "github.com/prometheus/client_golang/prometheus"},
		{"app/usecase", "trace.go", "go.opentelemetry.io/otel/trace"},
		{"app", "module.go", "go.opentelemetry.io/otel/trace"},
		{"adapters/httpapi", "telemetry.go", "go.opentelemetry.io/otel/trace"},
		{"app/delivery", "module.go", "go.uber.org/fx"},
		{"app/events", "manage_module.go", "go.uber.org/fx"},
		{"app/usecase", "observe.go", "go.uber.org/zap"},
		{"adapters/sandbox", "sender.go", "go.uber.org/zap"},
		{"cmd/herald", "options.go", "go.uber.org/fx"},
	}
	for _, c := range allowed {
		if why := fileForbidden(c.pkg, c.file, c.imp); why != "" {
			t.Errorf("%s/%s may import %s: %s", c.pkg, c.file, c.imp, why)
		}
	}
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
		{"app/delivery", module + "/app"},
		{"app/usecase", module + "/app/delivery"},
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
