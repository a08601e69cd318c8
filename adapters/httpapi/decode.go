package httpapi

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"mime"
	"net/http"
	"strconv"
	"strings"

	"github.com/heraldhq/herald/domain"
)

// bodySpec names a request body's fields, exactly as spelled on the wire, and
// which of them are required.
type bodySpec struct {
	fields   []string
	required []string
}

// decodeError is a transport-level refusal of a request body.
type decodeError struct {
	code   domain.Code
	param  string
	detail string
}

func (e *decodeError) Error() string { return string(e.code) + ": " + e.detail }

// readBody checks the content type and reads at most limit bytes.
func readBody(w http.ResponseWriter, r *http.Request, limit int64) ([]byte, *decodeError) {
	mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if err != nil || mt != "application/json" {
		return nil, &decodeError{code: CodeUnsupportedMediaType, detail: "send the body as application/json"}
	}
	b, err := io.ReadAll(http.MaxBytesReader(w, r.Body, limit))
	if err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			return nil, &decodeError{code: CodePayloadTooLarge, detail: "the body is larger than " + sizeText(limit)}
		}
		return nil, &decodeError{code: CodeInvalidJSON, detail: "the body could not be read"}
	}
	return b, nil
}

// sizeText writes a byte limit as people read it: 64 KiB, 4 MiB.
func sizeText(n int64) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return strconv.FormatInt(n>>20, 10) + " MiB"
	case n >= 1<<10 && n%(1<<10) == 0:
		return strconv.FormatInt(n>>10, 10) + " KiB"
	}
	return strconv.FormatInt(n, 10) + " bytes"
}

// decodeStrict decodes body into dst, refusing what encoding/json lets pass:
// unknown names, names that differ only in case, duplicate names at any depth
// and data after the object. A required field that is absent or null is
// missing_parameter.
func decodeStrict(body []byte, spec bodySpec, dst any) *decodeError {
	present, derr := scanObject(body, spec.fields)
	if derr != nil {
		return derr
	}
	for _, f := range spec.required {
		if !present[f] {
			return &decodeError{code: CodeMissingParameter, param: f, detail: f + " is required"}
		}
	}
	if err := json.Unmarshal(body, dst); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			field := te.Field
			if i := strings.IndexByte(field, '.'); i >= 0 {
				field = field[:i]
			}
			return &decodeError{code: CodeInvalidJSON, param: field,
				detail: field + " must be " + jsonKind(te.Type.String())}
		}
		return &decodeError{code: CodeInvalidJSON, detail: "the body is not valid JSON"}
	}
	return nil
}

// scanObject walks the tokens once: the body must be one JSON object whose
// names are all in fields, each once, followed by nothing but whitespace. It
// returns the names present with a non-null value.
func scanObject(body []byte, fields []string) (map[string]bool, *decodeError) {
	bad := func(param, detail string) (map[string]bool, *decodeError) {
		return nil, &decodeError{code: CodeInvalidJSON, param: param, detail: detail}
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	tok, err := dec.Token()
	if err != nil {
		return bad("", "the body is not valid JSON")
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return bad("", "the body must be a JSON object")
	}
	present := make(map[string]bool, len(fields))
	seen := make(map[string]bool, len(fields))
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return bad("", "the body is not valid JSON")
		}
		name := tok.(string)
		if !contains(fields, name) {
			for _, f := range fields {
				if strings.EqualFold(f, name) {
					return bad(name, "field names are case-sensitive: "+name+" should be "+f)
				}
			}
			return bad(name, "unknown field "+name)
		}
		if seen[name] {
			return bad(name, "field "+name+" appears more than once")
		}
		seen[name] = true
		isNull, derr := skipValue(dec, name)
		if derr != nil {
			return nil, derr
		}
		present[name] = !isNull
	}
	if _, err := dec.Token(); err != nil { // the closing brace
		return bad("", "the body is not valid JSON")
	}
	if _, err := dec.Token(); err != io.EOF {
		return bad("", "the body has data after the JSON object")
	}
	return present, nil
}

// skipValue consumes one value, checking nested objects for duplicate names.
// It reports whether the value was null.
func skipValue(dec *json.Decoder, field string) (bool, *decodeError) {
	invalid := &decodeError{code: CodeInvalidJSON, param: field, detail: "the body is not valid JSON"}
	tok, err := dec.Token()
	if err != nil {
		return false, invalid
	}
	d, ok := tok.(json.Delim)
	if !ok {
		return tok == nil, nil
	}
	switch d {
	case '[':
		for dec.More() {
			if _, derr := skipValue(dec, field); derr != nil {
				return false, derr
			}
		}
	case '{':
		seen := map[string]bool{}
		for dec.More() {
			k, err := dec.Token()
			if err != nil {
				return false, invalid
			}
			name := k.(string)
			if seen[name] {
				return false, &decodeError{code: CodeInvalidJSON, param: field,
					detail: "field " + field + " has the name " + name + " more than once"}
			}
			seen[name] = true
			if _, derr := skipValue(dec, field); derr != nil {
				return false, derr
			}
		}
	}
	if _, err := dec.Token(); err != nil { // the closing delimiter
		return false, invalid
	}
	return false, nil
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func jsonKind(goType string) string {
	switch {
	case goType == "string":
		return "a string"
	case goType == "bool":
		return "a boolean"
	case strings.HasPrefix(goType, "[]"):
		return "an array of " + strings.TrimPrefix(jsonKind(goType[2:]), "a ") + "s"
	case strings.HasPrefix(goType, "map["):
		return "an object of strings"
	case strings.HasPrefix(goType, "int"), strings.HasPrefix(goType, "float"):
		return "a number"
	}
	return "of another type"
}
