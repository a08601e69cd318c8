package fakemeta

import (
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"time"
)

// Template is one message template the fake knows.
type Template struct {
	Name, Language string
	Status         string // APPROVED, PAUSED, DISABLED, …
	Header         string // "", "image", "video", "document" (media headers only)
	BodyParams     int
}

// Fault makes matching sends fail. A zero To matches every recipient; Times
// zero means every time.
type Fault struct {
	To     string
	HTTP   int    // status to answer
	Code   int    // Meta's error code; 0 sends a bare body (a proxy's answer)
	Title  string // Meta's title
	Hang   bool   // never answer: the client must time out
	Times  int
	served int
}

// Request is one recorded send.
type Request struct {
	Path string
	Body []byte
}

// Server is the fake Cloud API.
type Server struct {
	URL           string // base, version included, as HERALD_WHATSAPP_API_URL
	Token         string
	PhoneNumberID string
	Latency       time.Duration // added to every send's answer, as Meta's own time

	mu        sync.Mutex
	templates map[string]Template
	faults    []*Fault
	requests  []Request
	answers   []answer
	hang      chan struct{}
	arrived   chan struct{}
}

type answer struct {
	status int
	body   []byte
}

// Cleaner is what New needs of its caller: a *testing.T or *testing.B, or
// anything that runs functions when it is done.
type Cleaner interface{ Cleanup(func()) }

// New starts a fake on a loopback port, closed when the test ends.
func New(t Cleaner) *Server {
	s := &Server{Token: "EAAtest" + randomString(24), PhoneNumberID: "106540352242922",
		templates: map[string]Template{}, hang: make(chan struct{}), arrived: make(chan struct{}, 1)}
	srv := httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(func() { close(s.hang); srv.Close() })
	s.URL = srv.URL + "/v24.0"
	return s
}

// AddTemplate makes a template known.
func (s *Server) AddTemplate(tmpl Template) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.templates[tmpl.Name+"/"+tmpl.Language] = tmpl
}

// Inject adds a fault rule.
func (s *Server) Inject(f Fault) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.faults = append(s.faults, &f)
}

// Requests returns the sends received so far.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.requests...)
}

// Arrived is signalled (coalesced) whenever a send arrives.
func (s *Server) Arrived() <-chan struct{} { return s.arrived }

// Answers returns the JSON bodies the fake answered sends with, by status.
func (s *Server) Answers() (statuses []int, bodies [][]byte) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, a := range s.answers {
		statuses = append(statuses, a.status)
		bodies = append(bodies, a.body)
	}
	return statuses, bodies
}

type payload struct {
	MessagingProduct string `json:"messaging_product"`
	To               string `json:"to"`
	Type             string `json:"type"`
	Template         *struct {
		Name     string `json:"name"`
		Language struct {
			Code string `json:"code"`
		} `json:"language"`
		Components []struct {
			Type       string `json:"type"`
			Parameters []struct {
				Type string `json:"type"`
				Text string `json:"text"`
			} `json:"parameters"`
		} `json:"components"`
	} `json:"template"`
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	parts := strings.Split(strings.Trim(r.URL.Path, "/"), "/")
	if r.Method != http.MethodPost || len(parts) != 3 || parts[2] != "messages" || !strings.HasPrefix(parts[0], "v") {
		s.fail(w, http.StatusBadRequest, 100, "Unsupported request - method type: "+strings.ToLower(r.Method), "GraphMethodException")
		return
	}
	if r.Header.Get("Authorization") != "Bearer "+s.Token {
		s.fail(w, http.StatusUnauthorized, 190, "Invalid OAuth access token - Cannot parse access token", "OAuthException")
		return
	}
	if parts[1] != s.PhoneNumberID {
		s.fail(w, http.StatusBadRequest, 100, "Unsupported post request. Object with ID '"+parts[1]+"' does not exist", "GraphMethodException")
		return
	}
	body, _ := io.ReadAll(io.LimitReader(r.Body, 1<<20))
	s.mu.Lock()
	s.requests = append(s.requests, Request{Path: r.URL.Path, Body: body})
	s.mu.Unlock()
	select {
	case s.arrived <- struct{}{}:
	default:
	}

	var p payload
	if err := json.Unmarshal(body, &p); err != nil || p.MessagingProduct != "whatsapp" || p.To == "" || p.Type != "template" || p.Template == nil {
		s.fail(w, http.StatusBadRequest, 100, "Invalid parameter", "OAuthException")
		return
	}
	if s.Latency > 0 {
		select {
		case <-time.After(s.Latency):
		case <-r.Context().Done():
			return
		}
	}
	if f := s.fault(p.To); f != nil {
		if f.Hang {
			select {
			case <-r.Context().Done():
			case <-s.hang:
			}
			return
		}
		if f.Code == 0 {
			w.WriteHeader(f.HTTP)
			io.WriteString(w, "<html><body>upstream error</body></html>")
			return
		}
		s.fail(w, f.HTTP, f.Code, f.Title, "OAuthException")
		return
	}
	s.mu.Lock()
	tmpl, ok := s.templates[p.Template.Name+"/"+p.Template.Language.Code]
	s.mu.Unlock()
	switch {
	case !ok || tmpl.Status == "REJECTED" || tmpl.Status == "PENDING":
		s.fail(w, http.StatusNotFound, 132001, "Template name does not exist in the translation", "OAuthException")
		return
	case tmpl.Status == "PAUSED":
		s.fail(w, http.StatusBadRequest, 132015, "Template is paused", "OAuthException")
		return
	case tmpl.Status == "DISABLED":
		s.fail(w, http.StatusBadRequest, 132016, "Template is disabled", "OAuthException")
		return
	}
	bodyParams, header := 0, ""
	for _, c := range p.Template.Components {
		switch c.Type {
		case "body":
			bodyParams = len(c.Parameters)
			for _, prm := range c.Parameters {
				if strings.ContainsAny(prm.Text, "\n\t") || strings.Contains(prm.Text, "     ") {
					s.fail(w, http.StatusBadRequest, 132018, "There was an issue with the parameters in your template.", "OAuthException")
					return
				}
			}
		case "header":
			if len(c.Parameters) == 1 {
				header = c.Parameters[0].Type
			}
		}
	}
	if bodyParams != tmpl.BodyParams {
		s.fail(w, http.StatusBadRequest, 132000, "Number of parameters does not match the expected number of params", "OAuthException")
		return
	}
	if header != tmpl.Header {
		s.fail(w, http.StatusBadRequest, 132012, "Parameter format does not match format in the created template", "OAuthException")
		return
	}
	s.answer(w, http.StatusOK, map[string]any{
		"messaging_product": "whatsapp",
		"contacts":          []map[string]string{{"input": p.To, "wa_id": strings.TrimPrefix(p.To, "+")}},
		"messages":          []map[string]string{{"id": "wamid." + randomString(48)}},
	})
}

func (s *Server) fault(to string) *Fault {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, f := range s.faults {
		if (f.To == "" || f.To == to) && (f.Times == 0 || f.served < f.Times) {
			f.served++
			return f
		}
	}
	return nil
}

// fail answers with Meta's error shape.
func (s *Server) fail(w http.ResponseWriter, status, code int, title, typ string) {
	s.answer(w, status, map[string]any{"error": map[string]any{
		"message":    fmt.Sprintf("(#%d) %s", code, title),
		"type":       typ,
		"code":       code,
		"error_data": map[string]any{"messaging_product": "whatsapp", "details": title},
		"fbtrace_id": randomString(23),
	}})
}

func (s *Server) answer(w http.ResponseWriter, status int, v any) {
	b, _ := json.Marshal(v)
	s.mu.Lock()
	s.answers = append(s.answers, answer{status: status, body: b})
	s.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	w.Write(b)
}

func randomString(n int) string {
	b := make([]byte, n)
	rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)[:n]
}
