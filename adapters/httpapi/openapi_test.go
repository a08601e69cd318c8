package httpapi_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"mime"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/heraldhq/herald/adapters/httpapi"
	"github.com/heraldhq/herald/adapters/whatsapp"
	"github.com/heraldhq/herald/app/delivery"
)

// The OpenAPI 3.1 document is checked with a JSON Schema 2020-12 validator
// (3.1's schema dialect) applied to the document's own schemas: response
// bodies against their content schema, headers against theirs. Formats
// (date-time, uri) are asserted, not just annotated.

// spec is GET /openapi.json, loaded once from the handler (so what is tested
// is what is served).
var spec = sync.OnceValues(func() (*openAPI, error) {
	rec := httptest.NewRecorder()
	httpapi.NewHandler(httpapi.Deps{}, httpapi.Config{}, nil).ServeHTTP(rec, httptest.NewRequest("GET", "/openapi.json", nil))
	if rec.Code != http.StatusOK {
		return nil, fmt.Errorf("GET /openapi.json: status %d", rec.Code)
	}
	raw := rec.Body.Bytes()
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return nil, fmt.Errorf("GET /openapi.json: %w", err)
	}
	top, ok := doc.(map[string]any)
	if !ok {
		return nil, errors.New("GET /openapi.json: not a JSON object")
	}
	if top["openapi"] != "3.1.0" {
		return nil, fmt.Errorf("openapi is %v, want 3.1.0", top["openapi"])
	}
	paths, ok := top["paths"].(map[string]any)
	if !ok {
		return nil, errors.New("the document has no paths")
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.AssertFormat()
	if err := c.AddResource(specURL, doc); err != nil {
		return nil, err
	}
	return &openAPI{compiler: c, top: top, paths: paths, schemas: map[string]*jsonschema.Schema{}}, nil
})

const specURL = "https://herald.invalid/openapi.json"

type openAPI struct {
	top   map[string]any
	paths map[string]any

	mu       sync.Mutex // the compiler is not safe for concurrent use
	compiler *jsonschema.Compiler
	schemas  map[string]*jsonschema.Schema
}

// match finds the documented path template for a concrete path. When several
// match, the one whose first literal segment comes earliest wins, as in the
// server (/v1/contacts/by-phone/conversation is a lookup by phone).
func (o *openAPI) match(path string) (string, bool) {
	segs := strings.Split(path, "/")
	var best string
	var bestRank []bool
	for tmpl := range o.paths {
		ts := strings.Split(tmpl, "/")
		if len(ts) != len(segs) {
			continue
		}
		rank := make([]bool, len(ts))
		ok := true
		for i := range ts {
			if strings.HasPrefix(ts[i], "{") && strings.HasSuffix(ts[i], "}") {
				if segs[i] == "" {
					ok = false
					break
				}
				continue
			}
			if ts[i] != segs[i] {
				ok = false
				break
			}
			rank[i] = true
		}
		if ok && (best == "" || moreSpecific(rank, bestRank)) {
			best, bestRank = tmpl, rank
		}
	}
	return best, best != ""
}

func moreSpecific(a, b []bool) bool {
	for i := range a {
		if a[i] != b[i] {
			return a[i]
		}
	}
	return false
}

// resolve follows local $refs ("#/components/…") from node, returning the
// object reached and its JSON pointer tokens.
func (o *openAPI) resolve(node any, loc []string) (map[string]any, []string, error) {
	for range 16 {
		m, ok := node.(map[string]any)
		if !ok {
			return nil, loc, fmt.Errorf("%s is not an object", "#/"+strings.Join(loc, "/"))
		}
		r, ok := m["$ref"].(string)
		if !ok {
			return m, loc, nil
		}
		target, tokens, err := o.lookup(r)
		if err != nil {
			return nil, loc, err
		}
		node, loc = target, tokens
	}
	return nil, loc, fmt.Errorf("%s: $ref chain too long", "#/"+strings.Join(loc, "/"))
}

// lookup returns the value at a local reference "#/a/b".
func (o *openAPI) lookup(ref string) (any, []string, error) {
	p, ok := strings.CutPrefix(ref, "#/")
	if !ok {
		return nil, nil, fmt.Errorf("$ref %q is not local", ref)
	}
	var node any = o.top
	var tokens []string
	for _, tok := range strings.Split(p, "/") {
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		m, ok := node.(map[string]any)
		if !ok {
			return nil, nil, fmt.Errorf("$ref %q does not resolve", ref)
		}
		if node, ok = m[tok]; !ok {
			return nil, nil, fmt.Errorf("$ref %q does not resolve", ref)
		}
		tokens = append(tokens, tok)
	}
	return node, tokens, nil
}

// compile compiles the schema at the pointer tokens, once.
func (o *openAPI) compile(tokens ...string) (*jsonschema.Schema, error) {
	loc := pointer(tokens...)
	o.mu.Lock()
	defer o.mu.Unlock()
	if sch, ok := o.schemas[loc]; ok {
		return sch, nil
	}
	sch, err := o.compiler.Compile(loc)
	if err != nil {
		return nil, fmt.Errorf("compiling #/%s: %w", strings.Join(tokens, "/"), err)
	}
	o.schemas[loc] = sch
	return sch, nil
}

func pointer(tokens ...string) string {
	parts := make([]string, len(tokens))
	for i, p := range tokens {
		p = strings.ReplaceAll(strings.ReplaceAll(p, "~", "~0"), "/", "~1")
		parts[i] = url.PathEscape(p)
	}
	return specURL + "#/" + strings.Join(parts, "/")
}

// response finds the documented response for a status: the exact code, then
// its range ("4XX"), then "default".
func (o *openAPI) response(op map[string]any, loc []string, status int) (map[string]any, []string, bool, error) {
	rs, _ := op["responses"].(map[string]any)
	code := strconv.Itoa(status)
	for _, k := range []string{code, code[:1] + "XX", "default"} {
		if r, ok := rs[k]; ok {
			m, rl, err := o.resolve(r, append(slices.Clone(loc), "responses", k))
			return m, rl, true, err
		}
	}
	return nil, nil, false, nil
}

// specError checks one response against the document: the route, method and
// status are documented; every required header is there and each documented
// header matches its schema; the content type is a documented one; and the
// body matches that content's schema. Responses to unknown routes (404) and
// methods (405) are not described by the document and pass.
func specError(req *http.Request, status int, header http.Header, body []byte) error {
	o, err := spec()
	if err != nil {
		return fmt.Errorf("loading the OpenAPI document: %w", err)
	}
	route := req.Method + " " + req.URL.Path
	tmpl, ok := o.match(req.URL.Path)
	if !ok {
		if status == http.StatusNotFound || status == http.StatusMethodNotAllowed {
			return nil
		}
		return fmt.Errorf("%s → %d: the path is not in the document", route, status)
	}
	route = req.Method + " " + tmpl
	method := strings.ToLower(req.Method)
	op, ok := o.paths[tmpl].(map[string]any)[method].(map[string]any)
	if !ok {
		if status == http.StatusMethodNotAllowed {
			return nil
		}
		return fmt.Errorf("%s → %d: the method is not documented for this path", route, status)
	}
	resp, loc, ok, err := o.response(op, []string{"paths", tmpl, method}, status)
	if err != nil {
		return fmt.Errorf("%s → %d: %w", route, status, err)
	}
	if !ok {
		return fmt.Errorf("%s → %d: the status is not documented", route, status)
	}

	var problems []string
	headers, _ := resp["headers"].(map[string]any)
	for name, h := range headers {
		if strings.EqualFold(name, "Content-Type") {
			continue // OpenAPI ignores it here; the content map rules
		}
		hm, hloc, err := o.resolve(h, append(slices.Clone(loc), "headers", name))
		if err != nil {
			return fmt.Errorf("%s → %d: header %s: %w", route, status, name, err)
		}
		values := header.Values(name)
		if len(values) == 0 {
			if hm["required"] == true {
				problems = append(problems, "header "+name+" is required but absent")
			}
			continue
		}
		if _, ok := hm["schema"]; !ok {
			continue
		}
		sch, err := o.compile(append(hloc, "schema")...)
		if err != nil {
			return err
		}
		for _, v := range values {
			if err := sch.Validate(v); err != nil {
				problems = append(problems, fmt.Sprintf("header %s: %q does not match the document: %v", name, v, err))
			}
		}
	}

	content, _ := resp["content"].(map[string]any)
	mt := ""
	if ct := header.Get("Content-Type"); ct != "" {
		if mt, _, err = mime.ParseMediaType(ct); err != nil {
			problems = append(problems, fmt.Sprintf("Content-Type %q does not parse: %v", ct, err))
		}
	}
	// A media range documents every type it covers (RFC 9110 §12.5.1):
	// the file download is */*.
	if _, exact := content[mt]; !exact && mt != "" {
		if _, ok := content[strings.Split(mt, "/")[0]+"/*"]; ok {
			mt = strings.Split(mt, "/")[0] + "/*"
		} else if _, ok := content["*/*"]; ok {
			mt = "*/*"
		}
	}
	switch _, documented := content[mt]; {
	case len(content) == 0:
		if len(body) > 0 {
			problems = append(problems, "a body is sent where the document describes none")
		}
	case !documented:
		problems = append(problems, fmt.Sprintf("content type %q is not documented (documented: %s)", mt, strings.Join(sortedKeys(content), ", ")))
	default:
		if _, ok := content[mt].(map[string]any)["schema"]; !ok {
			break
		}
		sch, err := o.compile(append(slices.Clone(loc), "content", mt, "schema")...)
		if err != nil {
			return err
		}
		var inst any = string(body) // a text/plain body, or a file's bytes, is one string
		if mt != "text/plain" && !strings.Contains(mt, "*") {
			var err error
			if inst, err = jsonschema.UnmarshalJSON(bytes.NewReader(body)); err != nil {
				problems = append(problems, fmt.Sprintf("the body is not JSON: %v", err))
				break
			}
		}
		if err := sch.Validate(inst); err != nil {
			problems = append(problems, fmt.Sprintf("the body does not match the document: %v", err))
		}
	}
	if len(problems) > 0 {
		return fmt.Errorf("%s → %d:\n%s\nbody: %s", route, status, strings.Join(problems, "\n"), body)
	}
	return nil
}

// validateAgainstSpec fails t when the response does not match the OpenAPI
// document; the message names the route, the status and each violation.
func validateAgainstSpec(t *testing.T, req *http.Request, status int, header http.Header, body []byte) {
	t.Helper()
	if err := specError(req, status, header, body); err != nil {
		t.Errorf("response differs from openapi.json: %v", err)
	}
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

var (
	specMethods    = []string{"get", "put", "post", "delete", "options", "head", "patch", "trace"}
	specPathParams = regexp.MustCompile(`\{([^{}]+)\}`)
)

// TestOpenAPIDocumentIsValid checks that the document is OpenAPI 3.1 as this
// API means it: the fixed header, every $ref resolving, every schema
// (bodies, parameters, headers, components) compiling as JSON Schema
// 2020-12, no OpenAPI 3.0 leftovers, path parameters declared, the key
// required on /v1 and only there, and problems as application/problem+json.
func TestOpenAPIDocumentIsValid(t *testing.T) {
	t.Parallel()
	o, err := spec()
	if err != nil {
		t.Fatal(err)
	}
	top := o.top
	if d, ok := top["jsonSchemaDialect"]; ok && d != "https://spec.openapis.org/oas/3.1/dialect/base" && d != "https://json-schema.org/draft/2020-12/schema" {
		t.Errorf("jsonSchemaDialect = %v", d)
	}
	info, _ := top["info"].(map[string]any)
	if info["title"] != "Herald" || info["version"] != "1" {
		t.Errorf("info = %v, want title Herald and version 1", info)
	}
	servers, _ := top["servers"].([]any)
	if len(servers) == 0 || servers[0].(map[string]any)["url"] != "http://127.0.0.1:8080" {
		t.Errorf("servers = %v, want http://127.0.0.1:8080 first", servers)
	}
	components, _ := top["components"].(map[string]any)
	schemes, _ := components["securitySchemes"].(map[string]any)
	if got, want := fmt.Sprint(schemes["ApiKey"]), fmt.Sprint(map[string]any{"type": "apiKey", "in": "header", "name": "X-API-KEY"}); got != want {
		t.Errorf("securitySchemes.ApiKey = %s, want %s", got, want)
	}

	// Every $ref resolves; no 3.0 spellings.
	var walk func(v any, at string)
	walk = func(v any, at string) {
		switch v := v.(type) {
		case map[string]any:
			for k, x := range v {
				switch {
				case k == "$ref":
					if s, ok := x.(string); !ok {
						t.Errorf("%s: $ref is not a string", at)
					} else if _, _, err := o.lookup(s); err != nil {
						t.Errorf("%s: %v", at, err)
					}
				case k == "nullable" && !strings.HasSuffix(at, "/properties"):
					t.Errorf("%s: nullable is OpenAPI 3.0; use \"type\": [\"…\", \"null\"]", at)
				case (k == "exclusiveMinimum" || k == "exclusiveMaximum") && !strings.HasSuffix(at, "/properties"):
					if _, isBool := x.(bool); isBool {
						t.Errorf("%s: boolean %s is OpenAPI 3.0; use a number", at, k)
					}
				}
				walk(x, at+"/"+k)
			}
		case []any:
			for i, x := range v {
				walk(x, at+"/"+strconv.Itoa(i))
			}
		}
	}
	walk(top, "#")

	// Every component schema and header compiles.
	for _, kind := range []string{"schemas", "headers"} {
		section, _ := components[kind].(map[string]any)
		for name, v := range section {
			tokens := []string{"components", kind, name}
			if kind == "headers" {
				if _, ok := v.(map[string]any)["schema"]; !ok {
					t.Errorf("#/components/headers/%s has no schema", name)
					continue
				}
				tokens = append(tokens, "schema")
			}
			if _, err := o.compile(tokens...); err != nil {
				t.Error(err)
			}
		}
	}

	operationIDs := map[string]string{}
	for tmpl, item := range o.paths {
		if !strings.HasPrefix(tmpl, "/") {
			t.Errorf("path %q does not start with /", tmpl)
		}
		var inPath []string
		for _, m := range specPathParams.FindAllStringSubmatch(tmpl, -1) {
			inPath = append(inPath, m[1])
		}
		for method, v := range item.(map[string]any) {
			where := strings.ToUpper(method) + " " + tmpl
			if !slices.Contains(specMethods, method) {
				t.Errorf("%s: %q is not an HTTP method", tmpl, method)
				continue
			}
			op := v.(map[string]any)
			id, _ := op["operationId"].(string)
			if id == "" {
				t.Errorf("%s: no operationId", where)
			} else if prev, dup := operationIDs[id]; dup {
				t.Errorf("%s: operationId %s is also %s's", where, id, prev)
			}
			operationIDs[id] = where

			// Parameters: well-formed, schemas compile, path ones match the template.
			var declared []string
			params, _ := op["parameters"].([]any)
			for i, p := range params {
				pm, ploc, err := o.resolve(p, []string{"paths", tmpl, method, "parameters", strconv.Itoa(i)})
				if err != nil {
					t.Errorf("%s: %v", where, err)
					continue
				}
				name, _ := pm["name"].(string)
				switch pm["in"] {
				case "path":
					declared = append(declared, name)
					if pm["required"] != true {
						t.Errorf("%s: path parameter %s must be required", where, name)
					}
				case "query", "header", "cookie":
				default:
					t.Errorf("%s: parameter %s is in %v", where, name, pm["in"])
				}
				if _, err := o.compile(append(ploc, "schema")...); err != nil {
					t.Errorf("%s: parameter %s: %v", where, name, err)
				}
			}
			sort.Strings(declared)
			sort.Strings(inPath)
			if !slices.Equal(declared, inPath) {
				t.Errorf("%s: path parameters declared %v, in the template %v", where, declared, inPath)
			}

			// Request body schemas compile.
			if rb, ok := op["requestBody"]; ok {
				rbm, rbloc, err := o.resolve(rb, []string{"paths", tmpl, method, "requestBody"})
				if err != nil {
					t.Errorf("%s: %v", where, err)
				} else {
					for mt := range rbm["content"].(map[string]any) {
						if _, err := o.compile(append(rbloc, "content", mt, "schema")...); err != nil {
							t.Errorf("%s: request body %s: %v", where, mt, err)
						}
					}
				}
			}

			// Security: the key on /v1, nothing elsewhere. Meta's webhook
			// calls are authenticated by their signature instead.
			wantKey := keyed(tmpl)
			sec, hasSec := op["security"].([]any)
			gotKey := hasSec && len(sec) == 1 && fmt.Sprint(sec[0]) == fmt.Sprint(map[string]any{"ApiKey": []any{}})
			if wantKey != gotKey || (!wantKey && hasSec && len(sec) > 0) {
				t.Errorf("%s: security = %v; want [{ApiKey: []}] exactly on /v1 routes", where, op["security"])
			}

			// Responses: described, schemas compile, content types by class.
			rs, _ := op["responses"].(map[string]any)
			if len(rs) == 0 {
				t.Errorf("%s: no responses", where)
			}
			for code, r := range rs {
				rm, rloc, err := o.resolve(r, []string{"paths", tmpl, method, "responses", code})
				if err != nil {
					t.Errorf("%s %s: %v", where, code, err)
					continue
				}
				if d, _ := rm["description"].(string); d == "" {
					t.Errorf("%s %s: no description", where, code)
				}
				content, _ := rm["content"].(map[string]any) // none: 204
				for mt := range content {
					wantMT := "application/json"
					switch where {
					case "GET /v1/webhooks/whatsapp":
						wantMT = "text/plain" // the handshake echoes Meta's challenge
					case "GET /v1/media/{id}/content":
						wantMT = "*/*" // the file, with its own type
					}
					if code[0] == '4' || code[0] == '5' {
						wantMT = "application/problem+json"
					}
					if mt != wantMT {
						t.Errorf("%s %s: content type %s, want %s", where, code, mt, wantMT)
					}
					if _, err := o.compile(append(slices.Clone(rloc), "content", mt, "schema")...); err != nil {
						t.Errorf("%s %s %s: %v", where, code, mt, err)
					}
				}
				hs, _ := rm["headers"].(map[string]any)
				for name, h := range hs {
					hm, hloc, err := o.resolve(h, append(slices.Clone(rloc), "headers", name))
					if err != nil {
						t.Errorf("%s %s header %s: %v", where, code, name, err)
						continue
					}
					if _, ok := hm["schema"]; !ok {
						t.Errorf("%s %s header %s: no schema", where, code, name)
						continue
					}
					if _, err := o.compile(append(hloc, "schema")...); err != nil {
						t.Errorf("%s %s header %s: %v", where, code, name, err)
					}
				}
			}
			if wantKey {
				for _, code := range []string{"401", "500", "503"} {
					if _, ok := rs[code]; !ok {
						t.Errorf("%s: %s is not documented", where, code)
					}
				}
			}
		}
	}
}

// keyed reports whether a route needs an API key: every /v1 route but
// Meta's webhooks, which their signature or verify token authenticates.
func keyed(tmpl string) bool {
	return strings.HasPrefix(tmpl, "/v1/") && !strings.HasPrefix(tmpl, "/v1/webhooks/")
}

// specRoutes reads the patterns of routes.go, with the one route that
// serves two documented paths expanded. The redirects to the dashboard are
// web pages, not API (docs/decisions/0012-dashboard.md).
func specRoutes(t *testing.T) []string {
	t.Helper()
	src, err := os.ReadFile("routes.go")
	if err != nil {
		t.Fatal(err)
	}
	var served []string
	for _, m := range regexp.MustCompile(`"(GET|HEAD|POST|PUT|PATCH|DELETE|OPTIONS) (/[^"]*)"`).FindAllStringSubmatch(string(src), -1) {
		if m[2] == "/v1/contacts/{first}/{second}" {
			served = append(served, "GET /v1/contacts/by-phone/{phone}", "GET /v1/contacts/{id}/conversation")
			continue
		}
		if m[2] == "/dashboard" || m[2] == "/{$}" {
			continue
		}
		served = append(served, m[1]+" "+m[2])
	}
	if len(served) == 0 {
		t.Fatal("no route patterns found in routes.go")
	}
	sort.Strings(served)
	return served
}

// specPinger is a store that answers.
type specPinger struct{}

func (specPinger) Ping(context.Context) error { return nil }

// TestOpenAPIListsEveryRoute checks that routes.go and the document name the
// same routes, and that every documented operation is served: /v1 ones
// answer 401 without a key, the others 200, each as documented.
func TestOpenAPIListsEveryRoute(t *testing.T) {
	t.Parallel()
	served := specRoutes(t)
	o, err := spec()
	if err != nil {
		t.Fatal(err)
	}
	var documented []string
	for tmpl, item := range o.paths {
		for method := range item.(map[string]any) {
			documented = append(documented, strings.ToUpper(method)+" "+tmpl)
		}
	}
	sort.Strings(documented)
	for _, r := range served {
		if !slices.Contains(documented, r) {
			t.Errorf("%s is served but not documented", r)
		}
	}
	for _, r := range documented {
		if !slices.Contains(served, r) {
			t.Errorf("%s is documented but not in routes.go", r)
		}
	}

	hooks := whatsapp.NewWebhooks(whatsapp.WebhookConfig{}) // refuses every call
	h := httpapi.NewHandler(httpapi.Deps{Store: specPinger{},
		Webhook:       delivery.NewReceiveWebhookHandler(hooks, nil, nil, nil, nil, nil),
		WebhookVerify: delivery.NewVerifyWebhookSubscriptionHandler(hooks, nil)}, httpapi.Config{AuthFailuresPerMinute: 1 << 20}, nil)
	// Without a key /v1 answers 401; Meta's webhook routes refuse what
	// Meta did not sign or verify.
	unkeyed := map[string]int{"GET /v1/webhooks/whatsapp": http.StatusForbidden, "POST /v1/webhooks/whatsapp": http.StatusUnauthorized}
	samples := strings.NewReplacer("{phone}", "%2B14155552671", "{id}", "x")
	for _, r := range documented {
		method, tmpl, _ := strings.Cut(r, " ")
		req := httptest.NewRequest(method, samples.Replace(tmpl), nil)
		req.Header.Set("Content-Type", "application/json")
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		want := http.StatusOK
		if keyed(tmpl) {
			want = http.StatusUnauthorized // served, and behind the key
		}
		if w, ok := unkeyed[r]; ok {
			want = w
		}
		if rec.Code != want {
			t.Errorf("%s without a key: status %d, want %d: %s", r, rec.Code, want, rec.Body)
			continue
		}
		if err := specError(req, rec.Code, rec.Header(), rec.Body.Bytes()); err != nil {
			t.Error(err)
		}
	}
}

// TestSpecCheckRejectsDrift checks the checker: documented responses pass
// and each kind of drift is refused, naming the route and status.
func TestSpecCheckRejectsDrift(t *testing.T) {
	t.Parallel()
	const (
		msgID  = "msg_01jd0000000000000000000000"
		cmpID  = "cmp_01jd0000000000000000000000"
		ctcID  = "ctc_01jd0000000000000000000000"
		reqID  = "req_abcdefghijklmnop"
		wwwKey = `ApiKey header="X-API-KEY"`
	)
	accepted := map[string]any{"id": msgID, "status": "queued", "campaignId": cmpID, "contactId": ctcID,
		"phoneNumber": "+14155552671", "createdAt": "2026-11-22T10:00:00.123Z"}
	message := map[string]any{"id": msgID, "status": "failed", "campaignId": cmpID, "contactId": ctcID,
		"phoneNumber": "+14155552671", "mode": "test", "templateName": "welcome", "language": "en_US",
		"renderedBody": "Hi", "mediaHeaderUrl": nil, "mediaHeaderFilename": nil, "providerMessageId": nil, "waId": nil, "pricing": nil,
		"kind": "template", "type": nil, "replyTo": nil,
		"error":     map[string]any{"code": 131026, "title": "Message undeliverable", "heraldCode": nil},
		"history":   []any{map[string]any{"status": "queued", "at": "2026-11-22T10:00:00Z"}},
		"createdAt": "2026-11-22T10:00:00Z", "updatedAt": "2026-11-22T10:00:01Z"}
	problem := func(status int, code string) map[string]any {
		return map[string]any{"type": "https://github.com/heraldhq/herald/blob/main/docs/errors.md#" + code,
			"title": "T", "status": status, "detail": "D", "code": code, "requestId": reqID}
	}
	with := func(m map[string]any, k string, v any) map[string]any {
		c := maps.Clone(m)
		c[k] = v
		return c
	}
	without := func(m map[string]any, k string) map[string]any {
		c := maps.Clone(m)
		delete(c, k)
		return c
	}
	jsonH := func(extra ...string) http.Header {
		h := http.Header{"Content-Type": {"application/json"}, "X-Request-Id": {reqID}}
		for i := 0; i+1 < len(extra); i += 2 {
			h.Set(extra[i], extra[i+1])
		}
		return h
	}
	problemH := func(extra ...string) http.Header {
		h := jsonH(extra...)
		h.Set("Content-Type", "application/problem+json")
		return h
	}
	loc := "/v1/messages/" + msgID
	send := "POST /v1/messages/send-campaign"
	getMsg := "GET /v1/messages/" + msgID

	type tc struct {
		route  string
		status int
		header http.Header
		body   any
	}
	good := map[string]tc{
		"202 accepted":           {send, 202, jsonH("Location", loc), accepted},
		"401 problem":            {send, 401, problemH("WWW-Authenticate", wwwKey), problem(401, "missing_api_key")},
		"422 problem with param": {send, 422, problemH(), with(problem(422, "variables_mismatch"), "param", "variables")},
		"200 message with nulls": {getMsg, 200, jsonH(), message},
		"503 with Retry-After":   {getMsg, 503, problemH("Retry-After", "1"), problem(503, "unavailable")},
		"unknown route 404":      {"GET /v2/nothing", 404, problemH(), problem(404, "not_found")},
		"unknown method 405":     {"DELETE /v1/campaigns", 405, problemH(), problem(405, "method_not_allowed")},
		"by-phone beats {id}":    {"GET /v1/contacts/by-phone/conversation", 422, problemH(), problem(422, "invalid_phone_number")},
		"problem content params": {send, 413, problemH("Content-Type", "application/problem+json; charset=utf-8"), problem(413, "payload_too_large")},
		"healthz":                {"GET /healthz", 200, jsonH(), map[string]any{"status": "ok"}},
		"by-phone 404":           {"GET /v1/contacts/by-phone/+14155552671", 404, problemH(), problem(404, "contact_not_found")},
	}
	bad := map[string]tc{
		"202 missing id":            {send, 202, jsonH("Location", loc), without(accepted, "id")},
		"202 extra field":           {send, 202, jsonH("Location", loc), with(accepted, "secret", "x")},
		"202 id of another type":    {send, 202, jsonH("Location", loc), with(accepted, "id", cmpID)},
		"202 status not queued":     {send, 202, jsonH("Location", loc), with(accepted, "status", "sent")},
		"202 time not UTC":          {send, 202, jsonH("Location", loc), with(accepted, "createdAt", "2026-11-22T12:00:00+02:00")},
		"202 time not a time":       {send, 202, jsonH("Location", loc), with(accepted, "createdAt", "2026-11-22 10:00:00Z")},
		"202 phone not E.164":       {send, 202, jsonH("Location", loc), with(accepted, "phoneNumber", "4155552671")},
		"202 without Location":      {send, 202, jsonH(), accepted},
		"202 without X-Request-Id":  {send, 202, http.Header{"Content-Type": {"application/json"}, "Location": {loc}}, accepted},
		"undocumented status":       {send, 418, jsonH(), accepted},
		"wrong content type":        {send, 202, http.Header{"Content-Type": {"text/plain"}, "X-Request-Id": {reqID}, "Location": {loc}}, accepted},
		"no content type":           {send, 202, http.Header{"X-Request-Id": {reqID}, "Location": {loc}}, accepted},
		"body not JSON":             {send, 202, jsonH("Location", loc), "not json"},
		"problem as plain JSON":     {send, 400, jsonH(), problem(400, "invalid_json")},
		"problem code of another":   {getMsg, 404, problemH(), problem(404, "campaign_not_found")},
		"problem status mismatched": {getMsg, 404, problemH(), problem(400, "message_not_found")},
		"problem without requestId": {getMsg, 404, problemH(), without(problem(404, "message_not_found"), "requestId")},
		"401 without WWW-Auth":      {send, 401, problemH(), problem(401, "invalid_api_key")},
		"nullable field absent":     {getMsg, 200, jsonH(), without(message, "providerMessageId")}, // present as null, never absent
		"null where not nullable":   {getMsg, 200, jsonH(), with(message, "history", nil)},
		"undocumented method":       {"PUT /v1/campaigns", 200, jsonH(), map[string]any{}},
		"undocumented path":         {"GET /v1/nothing", 200, jsonH(), map[string]any{}},
	}
	run := func(c tc) error {
		method, path, _ := strings.Cut(c.route, " ")
		req := httptest.NewRequest(method, path, nil)
		var b []byte
		if s, ok := c.body.(string); ok {
			b = []byte(s)
		} else {
			var err error
			if b, err = json.Marshal(c.body); err != nil {
				t.Fatal(err)
			}
		}
		return specError(req, c.status, c.header, b)
	}
	for name, c := range good {
		if err := run(c); err != nil {
			t.Errorf("%s: a correct response is refused: %v", name, err)
		}
	}
	for name, c := range bad {
		err := run(c)
		if err == nil {
			t.Errorf("%s: the check let it pass", name)
			continue
		}
		method, _, _ := strings.Cut(c.route, " ")
		if msg := err.Error(); !strings.HasPrefix(msg, method+" /") || !strings.Contains(msg, "→ "+strconv.Itoa(c.status)) {
			t.Errorf("%s: the error does not start with the route and status: %v", name, err)
		}
	}
}
