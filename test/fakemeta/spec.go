package fakemeta

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"go.yaml.in/yaml/v3"
)

// SpecVar names the path of Meta's OpenAPI document
// (business-messaging-api_v23.0.yaml).
const SpecVar = "HERALD_META_OPENAPI"

// Spec checks values against schemas of Meta's OpenAPI document.
type Spec struct {
	mu       sync.Mutex
	compiler *jsonschema.Compiler
	schemas  map[string]*jsonschema.Schema
}

var loadSpec = sync.OnceValues(func() (*Spec, error) {
	path := os.Getenv(SpecVar)
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var doc any
	if err := yaml.Unmarshal(raw, &doc); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	doc = stringKeys(doc)
	if err := correctSpec(doc); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	js, err := json.Marshal(doc)
	if err != nil {
		return nil, err
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(js))
	if err != nil {
		return nil, err
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	if err := c.AddResource("meta.json", inst); err != nil {
		return nil, err
	}
	return &Spec{compiler: c, schemas: map[string]*jsonschema.Schema{}}, nil
})

// LoadSpec loads Meta's document from HERALD_META_OPENAPI. Without the
// variable the test is skipped, except under CI (CI=true), where it fails.
func LoadSpec(t testing.TB) *Spec {
	t.Helper()
	if os.Getenv(SpecVar) == "" {
		if os.Getenv("CI") == "true" {
			t.Fatalf("%s is not set: under CI the checks against Meta's OpenAPI document must run", SpecVar)
		}
		t.Skipf("set %s to check against Meta's OpenAPI document", SpecVar)
	}
	s, err := loadSpec()
	if err != nil {
		t.Fatalf("loading Meta's OpenAPI document: %v", err)
	}
	return s
}

// Check validates a JSON document against the component schema name
// (e.g. "TemplateMessage").
func (s *Spec) Check(name string, doc []byte) error {
	return s.check(name, pointer("components", "schemas", name), doc)
}

// CheckResponse validates a JSON document against the schema Meta's
// document gives inline for the answer with status to method on path,
// e.g. ("/{Version}/{WABA-ID}/message_templates", "get", 200).
func (s *Spec) CheckResponse(path, method string, status int, doc []byte) error {
	name := strings.ToUpper(method) + " " + path + " " + strconv.Itoa(status)
	return s.check(name, pointer("paths", path, strings.ToLower(method), "responses", strconv.Itoa(status),
		"content", "application/json", "schema"), doc)
}

// CheckRequest validates a JSON request body against the schema Meta's
// document gives inline for method on path, e.g.
// ("/{Version}/{WABA-ID}/message_templates", "post").
func (s *Spec) CheckRequest(path, method string, doc []byte) error {
	name := strings.ToUpper(method) + " " + path + " request"
	return s.check(name, pointer("paths", path, strings.ToLower(method), "requestBody", "content", "application/json", "schema"), doc)
}

// pointer joins tokens into a JSON pointer for a URL fragment: "~" and "/"
// are escaped as ~0 and ~1, then each token is percent-encoded, since the
// schema compiler percent-decodes fragments.
func pointer(tokens ...string) string {
	var b strings.Builder
	for _, t := range tokens {
		t = strings.ReplaceAll(strings.ReplaceAll(t, "~", "~0"), "/", "~1")
		b.WriteString("/" + url.PathEscape(t))
	}
	return b.String()
}

func (s *Spec) check(name, ptr string, doc []byte) error {
	s.mu.Lock()
	sch, ok := s.schemas[ptr]
	if !ok {
		var err error
		sch, err = s.compiler.Compile("meta.json#" + ptr)
		if err != nil {
			s.mu.Unlock()
			return fmt.Errorf("compiling %s: %w", name, err)
		}
		s.schemas[ptr] = sch
	}
	s.mu.Unlock()
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(doc))
	if err != nil {
		return err
	}
	if err := sch.Validate(inst); err != nil {
		return fmt.Errorf("not a valid %s: %v\n%s", name, err, doc)
	}
	return nil
}

// correctSpec mends what Meta's document gets wrong about a template send,
// and makes its discriminators bind (JSON Schema ignores OpenAPI's
// discriminator keyword, so a component's or parameter's own schema would
// otherwise never be checked):
//
//   - a component's index pattern is "^[2-6, 11-14]$", a character class
//     that refuses "0"; the description says 0-9, and Meta's own examples
//     send "0": the pattern becomes ^[0-9]$;
//   - the component types lack limited_time_offer and carousel, the button
//     sub_types copy_code, the parameter types location, and the button
//     parameter types coupon_code, all of which Meta's template pages
//     document for a send;
//   - the components of a template, and the parameters of a header, a body
//     and a button, are checked against the schema their type names.
//
// Nothing else is loosened.
func correctSpec(doc any) error {
	schemas, ok := dig(doc, "components", "schemas").(map[string]any)
	if !ok {
		return fmt.Errorf("no components.schemas")
	}
	var missing []string
	prop := func(path ...string) map[string]any {
		m, _ := dig(schemas, path...).(map[string]any)
		if m == nil {
			missing = append(missing, strings.Join(path, "."))
			m = map[string]any{}
		}
		return m
	}
	addEnum := func(m map[string]any, values ...string) {
		e, _ := m["enum"].([]any)
		for _, v := range values {
			e = append(e, v)
		}
		m["enum"] = e
	}
	addEnum(prop("TemplateComponent", "properties", "type"), "limited_time_offer", "carousel")
	addEnum(prop("TemplateComponent", "properties", "sub_type"), "copy_code")
	prop("TemplateComponent", "properties", "index")["pattern"] = "^[0-9]$"
	addEnum(prop("ButtonComponent", "allOf", "1", "properties", "sub_type"), "copy_code")
	prop("ButtonComponent", "allOf", "1", "properties", "index")["pattern"] = "^[0-9]$"
	addEnum(prop("ParameterObject", "properties", "type"), "location", "limited_time_offer")
	addEnum(prop("ButtonParameterObject", "properties", "type"), "coupon_code")

	ref := func(name string) map[string]any { return map[string]any{"$ref": "#/components/schemas/" + name} }
	bind := func(base string, mapping map[string]string) map[string]any {
		var rules []any
		for typ, name := range mapping {
			rules = append(rules, map[string]any{
				"if":   map[string]any{"properties": map[string]any{"type": map[string]any{"const": typ}}, "required": []any{"type"}},
				"then": ref(name),
			})
		}
		return map[string]any{"allOf": append([]any{ref(base)}, rules...)}
	}
	params := bind("ParameterObject", map[string]string{"text": "TextParameter", "image": "ImageParameter",
		"video": "VideoParameter", "document": "DocumentParameter", "currency": "CurrencyParameter", "date_time": "DateTimeParameter"})
	prop("TemplateObject", "properties", "components")["items"] = bind("TemplateComponent",
		map[string]string{"header": "HeaderComponent", "body": "BodyComponent", "button": "ButtonComponent"})
	prop("HeaderComponent", "allOf", "1", "properties", "parameters")["items"] = params
	prop("BodyComponent", "allOf", "1", "properties", "parameters")["items"] = params
	prop("ButtonComponent", "allOf", "1", "properties", "parameters")["items"] = bind("ButtonParameterObject",
		map[string]string{"payload": "ButtonPayloadParameter", "text": "ButtonTextParameter"})
	if missing != nil {
		return fmt.Errorf("the document has none of %s: the corrections no longer fit it", strings.Join(missing, ", "))
	}
	return nil
}

// dig follows keys (array indexes as decimal strings) into v.
func dig(v any, keys ...string) any {
	for _, k := range keys {
		switch x := v.(type) {
		case map[string]any:
			v = x[k]
		case []any:
			i, err := strconv.Atoi(k)
			if err != nil || i >= len(x) {
				return nil
			}
			v = x[i]
		default:
			return nil
		}
	}
	return v
}

// stringKeys turns YAML maps with non-string keys (such as an unquoted 200)
// into JSON objects.
func stringKeys(v any) any {
	switch v := v.(type) {
	case map[string]any:
		for k, x := range v {
			v[k] = stringKeys(x)
		}
		return v
	case map[any]any:
		out := make(map[string]any, len(v))
		for k, x := range v {
			out[fmt.Sprint(k)] = stringKeys(x)
		}
		return out
	case []any:
		for i, x := range v {
			v[i] = stringKeys(x)
		}
	}
	return v
}

// CheckSessionMessage validates the body of a session message send
// against Meta's document, as far as the document can judge one. Its
// per-type message schemas (TextMessage, …) cannot accept any real body:
// each joins BaseMessageProperties with an object that forbids every
// property but its own, messaging_product included. So the common fields
// are checked against BaseMessageProperties and the type's object against
// the schema the type's message gives it. InteractiveObject's type has no
// cta_url (a gap the reference notes): a cta_url message's header, body
// and footer are checked, its action only by shape here.
func (s *Spec) CheckSessionMessage(doc []byte) error {
	if err := s.Check("BaseMessageProperties", doc); err != nil {
		return err
	}
	var body map[string]json.RawMessage
	if err := json.Unmarshal(doc, &body); err != nil {
		return err
	}
	var typ string
	if err := json.Unmarshal(body["type"], &typ); err != nil {
		return fmt.Errorf("type: %v", err)
	}
	known := map[string]bool{"messaging_product": true, "recipient_type": true, "to": true, "type": true,
		"context": true, "biz_opaque_callback_data": true, typ: true}
	for k := range body {
		if !known[k] {
			return fmt.Errorf("a %s message carries %s", typ, k)
		}
	}
	obj, ok := body[typ]
	if !ok {
		return fmt.Errorf("a %s message without its %s object", typ, typ)
	}
	inline := func(message string) error {
		return s.check(message+"."+typ, pointer("components", "schemas", message, "allOf", "1", "properties", typ), obj)
	}
	switch typ {
	case "text":
		return inline("TextMessage")
	case "image", "video", "audio", "document":
		return s.Check("MediaObject", obj)
	case "sticker":
		return inline("StickerMessage")
	case "location":
		return inline("LocationMessage")
	case "contacts":
		return inline("ContactsMessage")
	case "reaction":
		return inline("ReactionMessage")
	case "interactive":
		var in map[string]json.RawMessage
		if err := json.Unmarshal(obj, &in); err != nil {
			return err
		}
		if string(in["type"]) != `"cta_url"` {
			return s.Check("InteractiveObject", obj)
		}
		for part, schema := range map[string]string{"header": "HeaderObject", "body": "BodyObject", "footer": "FooterObject"} {
			if raw, ok := in[part]; ok {
				if err := s.Check(schema, raw); err != nil {
					return err
				}
			}
		}
		var action struct {
			Name       string `json:"name"`
			Parameters struct {
				DisplayText string `json:"display_text"`
				URL         string `json:"url"`
			} `json:"parameters"`
		}
		if err := json.Unmarshal(in["action"], &action); err != nil || action.Name != "cta_url" ||
			action.Parameters.DisplayText == "" || action.Parameters.URL == "" {
			return fmt.Errorf("a cta_url action needs name cta_url and parameters display_text and url: %s", in["action"])
		}
		return nil
	}
	return fmt.Errorf("%s is not a session message type", typ)
}
