package httpapi_test

import (
	"bytes"
	"fmt"
	"mime"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/heraldhq/herald/adapters/httpapi"
)

// spec is /openapi.json, loaded once, with a JSON Schema 2020-12 compiler
// (OpenAPI 3.1's schema dialect) over it.
var spec = sync.OnceValues(func() (*openAPI, error) {
	rec := httptest.NewRecorder()
	httpapi.NewHandler(httpapi.Deps{}, httpapi.Config{}, nil).ServeHTTP(rec, httptest.NewRequest("GET", "/openapi.json", nil))
	if rec.Code != 200 {
		return nil, fmt.Errorf("GET /openapi.json: %d", rec.Code)
	}
	raw := rec.Body.Bytes()
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return nil, err
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	if err := c.AddResource("openapi.json", doc); err != nil {
		return nil, err
	}
	top, _ := doc.(map[string]any)
	if top["openapi"] != "3.1.0" {
		return nil, fmt.Errorf("openapi is %v, want 3.1.0", top["openapi"])
	}
	paths, _ := top["paths"].(map[string]any)
	return &openAPI{compiler: c, paths: paths, schemas: map[string]*jsonschema.Schema{}}, nil
})

type openAPI struct {
	mu       sync.Mutex
	compiler *jsonschema.Compiler
	paths    map[string]any
	schemas  map[string]*jsonschema.Schema
}

// match finds the documented path template for a concrete path.
func (o *openAPI) match(path string) (string, bool) {
	segs := strings.Split(path, "/")
	var best string
	for tmpl := range o.paths {
		ts := strings.Split(tmpl, "/")
		if len(ts) != len(segs) {
			continue
		}
		ok, literal := true, 0
		for i := range ts {
			if strings.HasPrefix(ts[i], "{") {
				continue
			}
			if ts[i] != segs[i] {
				ok = false
				break
			}
			literal++
		}
		if ok && (best == "" || literal > strings.Count(best, "/")-strings.Count(best, "{")) {
			best = tmpl
		}
	}
	return best, best != ""
}

// compile compiles the schema at loc once; the compiler is not safe for
// concurrent use.
func (o *openAPI) compile(loc string) (*jsonschema.Schema, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if sch, ok := o.schemas[loc]; ok {
		return sch, nil
	}
	sch, err := o.compiler.Compile(loc)
	if err != nil {
		return nil, fmt.Errorf("compiling %s: %w", loc, err)
	}
	o.schemas[loc] = sch
	return sch, nil
}

func pointer(parts ...string) string {
	for i, p := range parts {
		p = strings.ReplaceAll(strings.ReplaceAll(p, "~", "~0"), "/", "~1")
		parts[i] = url.PathEscape(p)
	}
	return "openapi.json#/" + strings.Join(parts, "/")
}

// specError checks a response against the document: the route and status
// are documented, the content type is the documented one, and the body
// matches its schema.
func specError(req *http.Request, status int, header http.Header, body []byte) error {
	o, err := spec()
	if err != nil {
		return err
	}
	tmpl, ok := o.match(req.URL.Path)
	if !ok {
		if status == http.StatusNotFound || status == http.StatusMethodNotAllowed {
			return nil // unknown routes are undocumented by definition
		}
		return fmt.Errorf("%s %s is not in the document", req.Method, req.URL.Path)
	}
	method := strings.ToLower(req.Method)
	op, ok := o.paths[tmpl].(map[string]any)[method].(map[string]any)
	if !ok {
		if status == http.StatusMethodNotAllowed {
			return nil
		}
		return fmt.Errorf("%s %s is not documented", req.Method, tmpl)
	}
	code := strconv.Itoa(status)
	resp, ok := op["responses"].(map[string]any)[code].(map[string]any)
	if !ok {
		return fmt.Errorf("%s %s: status %d is not documented", req.Method, tmpl, status)
	}
	content, _ := resp["content"].(map[string]any)
	mt, _, _ := mime.ParseMediaType(header.Get("Content-Type"))
	if _, ok := content[mt]; !ok {
		return fmt.Errorf("%s %s %d: content type %q is not documented", req.Method, tmpl, status, mt)
	}
	loc := pointer("paths", tmpl, method, "responses", code, "content", mt, "schema")
	sch, err := o.compile(loc)
	if err != nil {
		return err
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(body))
	if err != nil {
		return fmt.Errorf("%s %s %d: body is not JSON: %v", req.Method, tmpl, status, err)
	}
	if err := sch.Validate(inst); err != nil {
		return fmt.Errorf("%s %s %d: body does not match the document: %v\nbody: %s", req.Method, tmpl, status, err, body)
	}
	return nil
}

func validateAgainstSpec(t *testing.T, req *http.Request, status int, header http.Header, body []byte) {
	t.Helper()
	if err := specError(req, status, header, body); err != nil {
		t.Error(err)
	}
}

func TestOpenAPIDocumentCompiles(t *testing.T) {
	t.Parallel()
	o, err := spec()
	if err != nil {
		t.Fatal(err)
	}
	for tmpl, item := range o.paths {
		for method, op := range item.(map[string]any) {
			for code, r := range op.(map[string]any)["responses"].(map[string]any) {
				for mt := range r.(map[string]any)["content"].(map[string]any) {
					if _, err := o.compile(pointer("paths", tmpl, method, "responses", code, "content", mt, "schema")); err != nil {
						t.Errorf("%s %s %s %s: %v", method, tmpl, code, mt, err)
					}
				}
			}
		}
	}
}

// TestOpenAPIListsEveryRoute compares routes.go with the document.
func TestOpenAPIListsEveryRoute(t *testing.T) {
	t.Parallel()
	src, err := os.ReadFile("routes.go")
	if err != nil {
		t.Fatal(err)
	}
	var served []string
	for _, m := range regexp.MustCompile(`\{"(GET|POST|PUT|PATCH|DELETE) (/[^"]*)"`).FindAllStringSubmatch(string(src), -1) {
		if m[2] == "/v1/contacts/{first}/{second}" { // one route for two documented paths
			served = append(served, "get /v1/contacts/by-phone/{phone}", "get /v1/contacts/{id}/conversation")
			continue
		}
		served = append(served, strings.ToLower(m[1])+" "+m[2])
	}
	o, err := spec()
	if err != nil {
		t.Fatal(err)
	}
	var documented []string
	for tmpl, item := range o.paths {
		for method := range item.(map[string]any) {
			documented = append(documented, method+" "+tmpl)
		}
	}
	sort.Strings(served)
	sort.Strings(documented)
	if strings.Join(served, "\n") != strings.Join(documented, "\n") {
		t.Fatalf("routes and document differ\nserved:\n%s\ndocumented:\n%s", strings.Join(served, "\n"), strings.Join(documented, "\n"))
	}
}

func TestSpecCheckRejectsDrift(t *testing.T) {
	t.Parallel()
	req := httptest.NewRequest("POST", "/v1/messages/send-campaign", nil)
	h := http.Header{"Content-Type": {"application/json"}}
	good := `{"id":"msg_1","status":"queued","campaignId":"c","contactId":"k","phoneNumber":"+1","createdAt":"2026-11-22T10:00:00Z"}`
	if err := specError(req, 202, h, []byte(good)); err != nil {
		t.Fatalf("a correct body is refused: %v", err)
	}
	for name, c := range map[string]struct {
		status int
		ct     string
		body   string
	}{
		"missing id":          {202, "application/json", `{"status":"queued","campaignId":"c","contactId":"k","phoneNumber":"+1","createdAt":"2026-11-22T10:00:00Z"}`},
		"extra field":         {202, "application/json", strings.TrimSuffix(good, "}") + `,"secret":"x"}`},
		"undocumented status": {418, "application/json", good},
		"wrong content type":  {202, "text/plain", good},
	} {
		if err := specError(req, c.status, http.Header{"Content-Type": {c.ct}}, []byte(c.body)); err == nil {
			t.Errorf("%s: the check let it pass", name)
		}
	}
}
