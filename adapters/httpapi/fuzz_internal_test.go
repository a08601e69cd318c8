package httpapi

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"reflect"
	"slices"
	"testing"

	"go.uber.org/zap"

	"github.com/heraldhq/herald/domain"
	"github.com/heraldhq/herald/ports"
)

// checkDecoded holds for every strict decode: a refusal is a transport code
// with a status; an acceptance is one JSON object whose names are all
// fields of spec, each required one present and not null, and whose value
// re-encodes to a body that decodes, strictly, to the same value.
func checkDecoded[T any](t *testing.T, body []byte, spec bodySpec, in *T, derr *decodeError) {
	t.Helper()
	if derr != nil {
		if derr.code != CodeInvalidJSON && derr.code != CodeMissingParameter {
			t.Fatalf("unexpected code %s for %q", derr.code, body)
		}
		if _, ok := statuses[derr.code]; !ok {
			t.Fatalf("code %s has no status", derr.code)
		}
		if derr.detail == "" {
			t.Fatalf("refused %q without a detail", body)
		}
		return
	}
	var names map[string]json.RawMessage
	if err := json.Unmarshal(body, &names); err != nil || names == nil {
		t.Fatalf("accepted %q, which is not a JSON object: %v", body, err)
	}
	for name := range names {
		if !slices.Contains(spec.fields, name) {
			t.Fatalf("accepted %q with the unknown name %q", body, name)
		}
	}
	for _, name := range spec.required {
		if v, ok := names[name]; !ok || string(v) == "null" {
			t.Fatalf("accepted %q without the required %s", body, name)
		}
	}
	again, err := json.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	var back T
	if derr := decodeStrict(again, spec, &back); derr != nil {
		t.Fatalf("%q decodes to %+v, whose encoding %s is refused: %v", body, *in, again, derr)
	}
	if !reflect.DeepEqual(back, *in) {
		t.Fatalf("%q decodes to %+v, which re-encodes as %s and decodes to %+v", body, *in, again, back)
	}
}

// FuzzDecodeSendCampaign: strict decoding never panics, refuses with a
// transport code, and what it accepts is an object of known names whose
// value re-encodes and decodes to the same request.
func FuzzDecodeSendCampaign(f *testing.F) {
	for _, s := range []string{
		`{"phoneNumber":"+14155552671","campaignId":"cmp_01m81bkykc0s1bgwft8hc4jsfp","variables":["Ana","1234"]}`,
		`{"phoneNumber":"+14155552671","phoneNumber":"x","campaignId":"c"}`,
		`{"PhoneNumber":"+1","campaignId":"c"}`,
		`{"phoneNumber":"+1","campaignId":"c"} {}`,
		`{"phoneNumber":null,"campaignId":"c"}`,
		`{"phoneNumber":"+1","campaignId":"c","variables":[1]}`,
		`{"phoneNumber":"+1","campaignId":"c","mediaHeaderUrl":"https://cdn.example.com/a.jpg"}`,
		`[]`, `"x"`, ``, `{`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		var in sendCampaignRequest
		checkDecoded(t, body, sendCampaignSpec, &in, decodeStrict(body, sendCampaignSpec, &in))
	})
}

// FuzzDecodeSyncContact is FuzzDecodeSendCampaign's property for a body with
// a nested object (attributes) and optional pointers: null and absent stay
// apart from empty.
func FuzzDecodeSyncContact(f *testing.F) {
	for _, s := range []string{
		`{"phoneNumber":"+14155552671","name":"Ana","attributes":{"plan":"pro"},"tags":["vip"],"optedOut":true}`,
		`{"phoneNumber":"+1","attributes":{"a":"1","a":"2"}}`,
		`{"phoneNumber":"+1","attributes":{"a":{"b":1}}}`,
		`{"phoneNumber":"+1","name":null,"email":"","attributes":{},"tags":[]}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		var in syncContactRequest
		checkDecoded(t, body, syncContactSpec, &in, decodeStrict(body, syncContactSpec, &in))
	})
}

// tableCodes are the codes of the status table, in a fixed order.
var tableCodes = func() []domain.Code {
	var cs []domain.Code
	for c := range statuses {
		cs = append(cs, c)
	}
	slices.Sort(cs)
	return cs
}()

// asJSON is s as it reads back from JSON: invalid UTF-8 becomes U+FFFD.
func asJSON(s string) string {
	b, _ := json.Marshal(s)
	var out string
	_ = json.Unmarshal(b, &out)
	return out
}

// problemKeys are the members a problem body may have.
var problemKeys = []string{"type", "title", "status", "detail", "code", "param", "requestId"}

// checkProblem fails unless rec holds a valid problem+json answer whose
// status member is the HTTP status, with a type, a title, a code and a
// detail, and nothing else but param and requestId; it returns the body
// and its members.
func checkProblem(t *testing.T, rec *httptest.ResponseRecorder) (problem, map[string]json.RawMessage) {
	t.Helper()
	if ct := rec.Header().Get("Content-Type"); ct != "application/problem+json" {
		t.Fatalf("Content-Type %q, want application/problem+json", ct)
	}
	body := rec.Body.Bytes()
	if !bytes.HasSuffix(body, []byte("\n")) || !json.Valid(body) {
		t.Fatalf("the body %q is not one JSON value and a newline", body)
	}
	var members map[string]json.RawMessage
	if err := json.Unmarshal(body, &members); err != nil {
		t.Fatalf("the body %q is not a JSON object: %v", body, err)
	}
	for name := range members {
		if !slices.Contains(problemKeys, name) {
			t.Fatalf("the body %q has the member %q", body, name)
		}
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	var p problem
	if err := dec.Decode(&p); err != nil {
		t.Fatalf("the body %q is not a problem: %v", body, err)
	}
	if p.Status != rec.Code || rec.Code < 400 || rec.Code > 599 {
		t.Fatalf("status member %d, HTTP status %d", p.Status, rec.Code)
	}
	if p.Type == "" || p.Title == "" || p.Detail == "" {
		t.Fatalf("the body %q lacks a type, title or detail", body)
	}
	for _, name := range []string{"type", "title", "status", "detail", "code", "requestId"} {
		if _, ok := members[name]; !ok {
			t.Fatalf("the body %q has no %s", body, name)
		}
	}
	return p, members
}

// FuzzProblemJSON: every error body is valid problem+json. writeProblem,
// for an arbitrary code and for each code of the status table, with any
// param, detail and request id, answers the code's status (500 for a code
// the table lacks) with a body whose status member is that status, whose
// type names the code, whose title is the code's, whose detail is the one
// given (the title when none is) and whose param is present only when one
// is given. writeError never puts the text of an error that is not a
// domain error in the body: the answer is the same whatever that text is.
func FuzzProblemJSON(f *testing.F) {
	f.Add("invalid_phone_number", "phoneNumber", "the number has too few digits", "req_1", uint8(0))
	f.Add("", "", "", "", uint8(1))
	f.Add("no_such_code", "x", "dial tcp 10.0.0.5:5432: connection refused", "req_2", uint8(2))
	f.Add("invalid_json\xff", "\"}", "</script>\u2028\x00", "\xc3", uint8(3))
	for i := range tableCodes {
		f.Add(string(tableCodes[i]), "", "", "", uint8(i))
	}
	log := zap.NewNop()
	f.Fuzz(func(t *testing.T, code, param, detail, reqID string, pick uint8) {
		req := httptest.NewRequest(http.MethodPost, "/v1/messages/send-campaign", nil)
		req = req.WithContext(context.WithValue(req.Context(), requestIDKey, reqID))

		for _, c := range []domain.Code{domain.Code(code), tableCodes[int(pick)%len(tableCodes)]} {
			rec := httptest.NewRecorder()
			writeProblem(rec, req, c, param, detail)
			p, members := checkProblem(t, rec)
			want, ok := statuses[c]
			if !ok {
				want = statusTitle{http.StatusInternalServerError, statuses[CodeInternal].title}
			}
			if rec.Code != want.status || p.Title != want.title {
				t.Fatalf("code %q answers %d %q, want %d %q", c, rec.Code, p.Title, want.status, want.title)
			}
			wantDetail := detail
			if detail == "" {
				wantDetail = want.title
			}
			if p.Code != asJSON(string(c)) || p.Type != asJSON(problemTypeBase+string(c)) ||
				p.Param != asJSON(param) || p.Detail != asJSON(wantDetail) || p.RequestID != asJSON(reqID) {
				t.Fatalf("writeProblem(%q, %q, %q) with request id %q wrote %+v", c, param, detail, reqID, p)
			}
			if c != "" && p.Code == "" {
				t.Fatalf("code %q is written empty", c)
			}
			if _, hasParam := members["param"]; hasParam != (param != "") {
				t.Fatalf("param %q and body %s disagree", param, rec.Body.Bytes())
			}
		}

		// The cause of a 500 or 503, or the reason a key was refused, is
		// logged, never sent: the answer is the one for a fixed text.
		for _, wrap := range []func(string) error{
			func(s string) error { return errors.New(s) },
			func(s string) error { return fmt.Errorf("store: %s: %w", s, errors.New("boom")) },
			func(s string) error { return fmt.Errorf("query campaigns: %s: %w", s, ports.ErrUnavailable) },
			func(s string) error { return &domain.KeyAuthError{Reason: errors.New(s)} },
		} {
			answer := func(s string) *httptest.ResponseRecorder {
				rec := httptest.NewRecorder()
				writeError(rec, req, log, wrap(s))
				return rec
			}
			got, fixed := answer(detail), answer("x")
			checkProblem(t, got)
			if got.Code != fixed.Code || !bytes.Equal(got.Body.Bytes(), fixed.Body.Bytes()) || !reflect.DeepEqual(got.Header(), fixed.Header()) {
				t.Fatalf("the answer to %v depends on its text: %d %s %v, and for x %d %s %v",
					wrap(detail), got.Code, got.Body.Bytes(), got.Header(), fixed.Code, fixed.Body.Bytes(), fixed.Header())
			}
		}
	})
}
