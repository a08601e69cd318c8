package fakemeta

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"time"
)

// Submission is one template submission the fake received: the body as
// posted to POST /{WABA_ID}/message_templates.
type Submission struct {
	Name, Language, Category string
	Body                     []byte
}

// submitted is the part of a submission the fake reads.
type submitted struct {
	Name            string           `json:"name"`
	Language        string           `json:"language"`
	Category        string           `json:"category"`
	ParameterFormat string           `json:"parameter_format"`
	Components      []map[string]any `json:"components"`
}

// Submissions returns the template submissions received so far.
func (s *Server) Submissions() []Submission {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Submission(nil), s.submissions...)
}

// Deleted returns the names DELETE /{WABA_ID}/message_templates was called
// with, found or not.
func (s *Server) Deleted() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.deleted...)
}

// serveSubmit takes a new template: it answers as Meta does, with the id,
// PENDING (or InstantVerdict) and the category, and lists it from then on.
// A template with the same name and language is refused, as Meta refuses
// it.
func (s *Server) serveSubmit(w http.ResponseWriter, r *http.Request, wabaID string) {
	if !s.templateCallAllowed(w, r, wabaID) {
		return
	}
	raw, err := io.ReadAll(io.LimitReader(r.Body, 1<<20))
	var in submitted
	if err == nil {
		err = json.Unmarshal(raw, &in)
	}
	if err != nil || in.Name == "" || in.Language == "" || in.Category == "" || len(in.Components) == 0 {
		s.fail(w, templateLedger, http.StatusBadRequest, 100, 0, "Invalid parameter", "OAuthException")
		return
	}
	s.mu.Lock()
	s.submissions = append(s.submissions, Submission{Name: in.Name, Language: in.Language, Category: in.Category, Body: raw})
	_, exists := s.templates[templateKey(wabaID, in.Name, in.Language)]
	refusal := s.SubmitRefusal
	s.mu.Unlock()
	if exists {
		s.fail(w, templateLedger, http.StatusBadRequest, 100, 2388024,
			"Message template already exists: there is already "+in.Language+" content for this template", "OAuthException")
		return
	}
	if refusal != "" {
		s.fail(w, templateLedger, http.StatusBadRequest, 100, 2388299, refusal, "OAuthException")
		return
	}
	status := "PENDING"
	if s.InstantVerdict != "" {
		status = s.InstantVerdict
	}
	t := Template{Name: in.Name, Language: in.Language, WABAID: wabaID, Status: status, Category: strings.ToUpper(in.Category),
		ParameterFormat: strings.ToUpper(in.ParameterFormat), Raw: in.Components}
	if t.ParameterFormat == "" {
		t.ParameterFormat = "POSITIONAL"
	}
	for _, c := range in.Components {
		if strings.EqualFold(fmt.Sprint(c["type"]), "BODY") {
			t.Body, _ = c["text"].(string)
			t.BodyParams = len(placeholders(t.Body))
		}
	}
	if strings.EqualFold(t.Category, "AUTHENTICATION") {
		t.BodyParams = 1
	}
	s.AddTemplate(t)
	s.mu.Lock()
	t = s.templates[templateKey(wabaID, in.Name, in.Language)]
	s.mu.Unlock()
	s.answer(w, templateLedger, http.StatusOK, map[string]string{"id": t.ID, "status": t.Status, "category": t.Category})
}

// serveDelete deletes every language of the template named by ?name=.
func (s *Server) serveDelete(w http.ResponseWriter, r *http.Request, wabaID string) {
	if !s.templateCallAllowed(w, r, wabaID) {
		return
	}
	name := r.URL.Query().Get("name")
	s.mu.Lock()
	s.deleted = append(s.deleted, name)
	found := false
	for k, t := range s.templates {
		if t.WABAID == wabaID && t.Name == name {
			delete(s.templates, k)
			found = true
		}
	}
	s.mu.Unlock()
	if !found {
		s.fail(w, templateLedger, http.StatusBadRequest, 100, 2593002, "Message template not found", "OAuthException")
		return
	}
	s.answer(w, templateLedger, http.StatusOK, map[string]bool{"success": true})
}

// templateCallAllowed counts a template call and checks its token and
// business account, answering Meta's error when either is wrong.
func (s *Server) templateCallAllowed(w http.ResponseWriter, r *http.Request, wabaID string) bool {
	s.mu.Lock()
	s.templateRequests++
	s.mu.Unlock()
	return s.accountCallAllowed(w, r, wabaID)
}

// accountCallAllowed checks a call to the business account wabaID: the
// account must be known (the fake's own, or an added number's) and the
// token one of its numbers'. An unknown token is 190, a known token of
// another account Meta's "does not exist or no permission" (100, 33).
func (s *Server) accountCallAllowed(w http.ResponseWriter, r *http.Request, wabaID string) bool {
	token := strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")
	s.mu.Lock()
	known := s.tokenKnownLocked(token)
	own, _ := s.numberLocked(s.PhoneNumberID)
	ok := slices.ContainsFunc(append([]Number{own}, s.numbers...), func(n Number) bool { return n.WABAID == wabaID && n.Token == token })
	s.mu.Unlock()
	if !known {
		s.fail(w, templateLedger, http.StatusUnauthorized, 190, 0, "Invalid OAuth access token - Cannot parse access token", "OAuthException")
		return false
	}
	if !ok {
		s.fail(w, templateLedger, http.StatusBadRequest, 100, 33, unknownObject(strings.ToLower(r.Method), wabaID), "GraphMethodException")
		return false
	}
	return true
}

// Review gives a known template Meta's verdict, event being APPROVED,
// REJECTED (with reason, e.g. INVALID_FORMAT), PAUSED, DISABLED, …: the
// template's status changes and, when WebhookURL is set, the
// message_template_status_update webhook is posted, signed, and its
// answer's status returned (0 when no webhook was posted).
func (s *Server) Review(name, language, event, reason string) (int, error) {
	return s.ReviewAccount(s.WABAID, name, language, event, reason)
}

// ReviewAccount is Review for a template of the business account wabaID:
// the webhook's entry is that account's.
func (s *Server) ReviewAccount(wabaID, name, language, event, reason string) (int, error) {
	s.SetAccountTemplateStatus(wabaID, name, language, event)
	if s.WebhookURL == "" {
		return 0, nil
	}
	res, err := s.PostWebhook(TemplateStatusPayload(wabaID, name, language, event, reason, time.Now()))
	if err != nil {
		return 0, err
	}
	io.Copy(io.Discard, res.Body)
	res.Body.Close()
	return res.StatusCode, nil
}

// raw is a submitted template's components as Meta lists them: an
// authentication template's body gets Meta's text and its OTP button is
// listed as a URL button.
func (t Template) raw() []map[string]any {
	out := make([]map[string]any, 0, len(t.Raw))
	auth := strings.EqualFold(t.Category, "AUTHENTICATION")
	for _, c := range t.Raw {
		c = shallowCopy(c)
		switch typ := strings.ToUpper(fmt.Sprint(c["type"])); {
		case auth && typ == "BODY":
			c["text"] = "{{1}} is your verification code."
			if c["add_security_recommendation"] == true {
				c["text"] = "{{1}} is your verification code. For your security, do not share this code."
			}
		case auth && typ == "BUTTONS":
			var bs []any
			for _, b := range asSlice(c["buttons"]) {
				m := shallowCopy(asMap(b))
				if strings.EqualFold(fmt.Sprint(m["type"]), "OTP") {
					m = map[string]any{"type": "URL", "text": "Copy code", "url": "https://www.whatsapp.com/otp/code/?otp_type=COPY_CODE&code_expiration_minutes=10&code=otp{{1}}"}
				}
				bs = append(bs, m)
			}
			c["buttons"] = bs
		}
		out = append(out, c)
	}
	return out
}
