package httpapi_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	// The generated client's one dependency: required here so that go.mod
	// keeps it, and the client compiles without fetching anything.
	_ "github.com/oapi-codegen/runtime"

	"github.com/heraldhq/herald/adapters/httpapi"
)

// openFields are the generated declarations whose interface{} is right:
// the document leaves their values open on purpose.
var openFields = map[string]string{
	// Meta's webhook body is taken as Meta sends it; Herald documents it as
	// an object of Meta's.
	"ReceiveWhatsAppWebhookJSONBody": "Meta's webhook payload",
}

// TestGeneratedGoClient: oapi-codegen (pinned in go.mod's tool directive)
// generates a Go client from the served document, the client compiles, and
// no field, parameter or type of it is interface{} where the document says
// what the value is: untyped enums and consts made 46 such fields before
// they were typed.
func TestGeneratedGoClient(t *testing.T) {
	t.Parallel()
	rec := httptest.NewRecorder()
	httpapi.NewHandler(httpapi.Deps{}, httpapi.Config{}, nil).ServeHTTP(rec, httptest.NewRequest("GET", "/openapi.json", nil))
	if rec.Code != http.StatusOK {
		t.Fatalf("GET /openapi.json: %d", rec.Code)
	}
	dir := t.TempDir()
	doc, client := filepath.Join(dir, "openapi.json"), filepath.Join(dir, "client.go")
	if err := os.WriteFile(doc, rec.Body.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	// skip-prune: every component is generated, also those only the
	// document's webhooks section (the events Herald posts) uses.
	gen := exec.Command("go", "tool", "oapi-codegen", "-generate", "types,client,skip-prune", "-package", "heraldclient", "-o", client, doc)
	if out, err := gen.CombinedOutput(); err != nil {
		t.Fatalf("oapi-codegen: %v\n%s", err, out)
	}

	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, client, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	typed := 0
	for _, decl := range f.Decls {
		gd, ok := decl.(*ast.GenDecl)
		if !ok || gd.Tok != token.TYPE {
			continue
		}
		for _, spec := range gd.Specs {
			ts := spec.(*ast.TypeSpec)
			if _, open := openFields[ts.Name.Name]; open {
				continue
			}
			typed++
			ast.Inspect(ts.Type, func(n ast.Node) bool {
				if it, ok := n.(*ast.InterfaceType); ok && len(it.Methods.List) == 0 {
					t.Errorf("%s: %s has an interface{} (%s)", fset.Position(it.Pos()), ts.Name.Name, fieldAt(ts, it))
				}
				return true
			})
		}
	}
	if typed < 20 {
		t.Fatalf("the client declares only %d types: the check is not looking at it", typed)
	}
	for _, want := range []string{"type MessageStatus string", "type HeaderFormat string", "func NewClient("} {
		if b, _ := os.ReadFile(client); !strings.Contains(string(b), want) {
			t.Errorf("the client has no %q", want)
		}
	}

	// Compile it as a package of this module (an overlay: nothing is
	// written in the tree), with the module's pinned dependencies.
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	overlay := filepath.Join(dir, "overlay.json")
	at := filepath.Join(wd, "generatedclient", "client.go")
	if err := os.WriteFile(overlay, []byte(`{"Replace":{`+quote(at)+`:`+quote(client)+`}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	build := exec.Command("go", "build", "-overlay", overlay, "./generatedclient/")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("the generated client does not compile: %v\n%s", err, out)
	}
}

// fieldAt names the struct field of ts that holds n, or "the type itself".
func fieldAt(ts *ast.TypeSpec, n ast.Node) string {
	name := "the type itself"
	ast.Inspect(ts.Type, func(m ast.Node) bool {
		if f, ok := m.(*ast.Field); ok && f.Pos() <= n.Pos() && n.End() <= f.End() && len(f.Names) > 0 {
			name = "field " + f.Names[0].Name
		}
		return true
	})
	return name
}

// quote is s as a JSON string (file paths here hold no quote or control
// character, but a backslash may come on another system).
func quote(s string) string {
	return `"` + strings.ReplaceAll(strings.ReplaceAll(s, `\`, `\\`), `"`, `\"`) + `"`
}
