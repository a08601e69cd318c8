package fakemeta

import (
	"cmp"
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"math/big"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Template is one message template the fake knows. Name, Language, Status,
// the header and the body's placeholders decide which sends it accepts; the
// other fields shape what the template list shows.
type Template struct {
	Name, Language string
	WABAID         string // the business account it belongs to; the fake's own (Server.WABAID) when empty
	Status         string // APPROVED, PAUSED, DISABLED, …
	Header         string // "", "image", "video", "document" (media headers only)
	BodyParams     int    // placeholders in the body; counted from Body when 0

	ID              string // Meta's template id; a random numeric id when empty
	Category        string // MARKETING, UTILITY (the default), AUTHENTICATION
	ParameterFormat string // POSITIONAL (the default) or NAMED
	HeaderFormat    string // overrides Header, e.g. "text" or "location"
	HeaderText      string // the text of a text header
	Body            string // the body text; made up from BodyParams when empty
	Footer          string
	Buttons         []Button
	// Raw, when set, are the components as submitted, listed as they are.
	Raw []map[string]any
}

// Button is one button of a template.
type Button struct {
	Type string // QUICK_REPLY, URL, PHONE_NUMBER, COPY_CODE, …
	Text string
	URL  string // for URL buttons; may hold a {{1}} placeholder
}

// Fault makes matching sends fail. A zero To matches every recipient; Times
// zero means every time.
type Fault struct {
	To    string
	HTTP  int    // status to answer
	Code  int    // Meta's error code; 0 sends a bare body (a proxy's answer)
	Title string // Meta's title
	// Hang never answers and does not accept the message: a timeout
	// before Meta took it.
	Hang bool
	// AfterAccept checks and accepts the message (it is listed by
	// Accepted) but never answers: a timeout after Meta took it.
	AfterAccept bool
	Times       int
	served      int
}

// Request is one recorded send.
type Request struct {
	Path  string
	Body  []byte
	WAMID string // the wamid given to an accepted send (Accepted only)
	// From and Token are the business number an accepted send left from
	// and the token it came with (Accepted only).
	From, Token string
}

// Server is the fake Cloud API. Set its exported fields before the first
// request.
type Server struct {
	URL           string // base, version included, as HERALD_WHATSAPP_API_URL
	Token         string
	PhoneNumberID string
	WABAID        string        // the business account whose templates are listed
	Latency       time.Duration // added to every send's answer, as Meta's own time
	// TemplatePageSize, when positive, caps the page size of template
	// lists below the limit the client asks for.
	TemplatePageSize int

	// WebhookURL, when set, receives the status webhooks of every accepted
	// send, each signed with AppSecret and posted on its own, in the order
	// of WebhookStatuses (nil means sent, delivered, read; repeats and any
	// order are allowed, "failed" reports 131026 and "failed:<code>"
	// another code). They carry the send's wamid and
	// biz_opaque_callback_data, and pricing on sent. They are posted in the
	// background once the send is answered (or accepted, for a fault that
	// never answers), a non-200 answer is tried again up to three times in
	// all, and only loopback addresses are reached. See WaitWebhooks and
	// WebhookDeliveries.
	WebhookURL      string
	AppSecret       string
	WebhookStatuses []string
	// WebhookParallel bounds the webhook POSTs in flight at once, over
	// every message, as Meta bounds its own (8 when zero). A message's
	// statuses still go one after the other.
	WebhookParallel int
	// WebhookGap is how long after one status of a message has been
	// answered the next one is posted (delivered after sent, read after
	// delivered); zero posts them back to back. A retry does not wait for
	// it.
	WebhookGap time.Duration
	// OnWebhookPost, when set, is called after every webhook POST of an
	// emission (each try), on the goroutine that posted it, so it must be
	// quick.
	OnWebhookPost func(WebhookPost)
	// Lean keeps counts instead of copies, for load runs of hundreds of
	// thousands of calls: Requests, Accepted, Answers and WebhookDeliveries
	// stay empty, while RequestCount, AcceptedCount, Connections and
	// WebhookBacklog count as always.
	Lean bool
	// WaIDs maps a recipient's number (digits, no "+") to the wa_id Meta
	// answers its send with and reports it under in status webhooks: Meta
	// writes some users' numbers in another form (a Brazilian mobile
	// without its ninth digit, a Mexican one with 521). A number not
	// listed is its own wa_id.
	WaIDs map[string]string
	// InstantVerdict, when set, is the status a template submission is
	// answered and listed with (APPROVED, as Meta may answer an
	// authentication template); otherwise PENDING until Review.
	InstantVerdict string
	// SubmitRefusal, when set, refuses every submission at once with this
	// title (Meta's code 100), as Meta refuses some templates outright.
	SubmitRefusal string

	numbers          []Number // business numbers beyond the fake's own (numbers.go)
	origin           string   // scheme and host, for paging links
	mu               sync.Mutex
	templates        map[string]Template
	faults           []*Fault
	requests         []Request
	accepted         []Request
	answers          []answer
	templateAnswers  []answer
	templateRequests int
	windows          map[string]time.Time // recipient (digits) → when they last wrote
	media            map[string]Media
	uploadOrder      []string
	urls             map[string]downloadURL // media URL tokens handed out
	downloads        int
	reads            []Read
	submissions      []Submission
	deleted          []string
	requestCount     int            // sends received, Lean or not
	acceptedCount    int            // sends accepted, Lean or not
	acceptedBy       map[string]int // sends accepted by sending number (Meta's id), Lean or not
	hang             chan struct{}
	arrived          chan struct{}
	conns            atomic.Int64 // TCP connections the Cloud API accepted

	webhookOnce   sync.Once
	webhookClient *http.Client  // set by webhookSetup
	emitSlots     chan struct{} // set by webhookSetup: bounds the POSTs in flight
	emitCtx       context.Context
	emissions     []chan struct{}      // closed when each emission is done
	deliveries    []WebhookDelivery    // every webhook POST, retries included
	pending       map[uint64]time.Time // statuses due and not yet answered or given up, with when they became due
	pendingSeq    uint64
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
	s := &Server{Token: "EAAtest" + randomString(24), PhoneNumberID: "106540352242922", WABAID: "102290129340398",
		templates: map[string]Template{}, windows: map[string]time.Time{},
		media: map[string]Media{}, urls: map[string]downloadURL{}, hang: make(chan struct{}), arrived: make(chan struct{}, 1),
		pending: map[uint64]time.Time{}}
	var stopEmitting context.CancelFunc
	s.emitCtx, stopEmitting = context.WithCancel(context.Background())
	srv := httptest.NewUnstartedServer(http.HandlerFunc(s.serve))
	srv.Config.ConnState = func(_ net.Conn, state http.ConnState) {
		if state == http.StateNew {
			s.conns.Add(1)
		}
	}
	srv.Start()
	t.Cleanup(func() {
		stopEmitting()
		close(s.hang)
		srv.Close()
		s.WaitWebhooks()
		client, _ := s.webhookSetup()
		client.CloseIdleConnections()
	})
	s.origin = srv.URL
	s.URL = srv.URL + "/v24.0"
	return s
}

// AddTemplate makes a template known, replacing one with the same name and
// language.
func (s *Server) AddTemplate(tmpl Template) {
	if tmpl.ID == "" {
		tmpl.ID = randomDigits(16)
	}
	if tmpl.Category == "" {
		tmpl.Category = "UTILITY"
	}
	if tmpl.ParameterFormat == "" {
		tmpl.ParameterFormat = "POSITIONAL"
	}
	if tmpl.BodyParams == 0 && tmpl.Body != "" {
		tmpl.BodyParams = len(placeholders(tmpl.Body))
	}
	tmpl.Buttons = slices.Clone(tmpl.Buttons)
	s.mu.Lock()
	defer s.mu.Unlock()
	tmpl.WABAID = cmp.Or(tmpl.WABAID, s.WABAID)
	s.templates[templateKey(tmpl.WABAID, tmpl.Name, tmpl.Language)] = tmpl
}

// templateKey is a template's key in Server.templates: templates belong to
// a business account.
func templateKey(wabaID, name, language string) string {
	return wabaID + "/" + name + "/" + language
}

// SetTemplateStatus changes the status of a known template of the fake's
// own account; it panics if the template is unknown.
func (s *Server) SetTemplateStatus(name, language, status string) {
	s.SetAccountTemplateStatus(s.WABAID, name, language, status)
}

// SetAccountTemplateStatus changes the status of a known template of the
// business account wabaID; it panics if the template is unknown.
func (s *Server) SetAccountTemplateStatus(wabaID, name, language, status string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	k := templateKey(wabaID, name, language)
	t, ok := s.templates[k]
	if !ok {
		panic("fakemeta: no template " + name + " in " + language + " in account " + wabaID)
	}
	t.Status = status
	s.templates[k] = t
}

// Inject adds a fault rule.
func (s *Server) Inject(f Fault) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.faults = append(s.faults, &f)
}

// Requests returns the sends received so far, accepted or not.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.requests...)
}

// RequestCount is how many sends arrived, accepted or not: len(Requests())
// without the copy, for loops that wait for sends to arrive, and counted
// when Lean too.
func (s *Server) RequestCount() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.requestCount
}

// AcceptedCount is how many sends the fake accepted, counted when Lean
// too.
func (s *Server) AcceptedCount() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.acceptedCount
}

// AcceptedByNumber is how many sends the fake accepted from each business
// number, by Meta's phone number id; counted when Lean too.
func (s *Server) AcceptedByNumber() map[string]int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return maps.Clone(s.acceptedBy)
}

// Connections is how many TCP connections the Cloud API has accepted:
// a client that keeps its connections open makes few, one that closes them
// after each call makes one per call.
func (s *Server) Connections() int { return int(s.conns.Load()) }

// Accepted returns the sends the fake accepted, with their wamids, whether
// or not the answer reached the client (Fault.AfterAccept).
func (s *Server) Accepted() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.accepted...)
}

// Arrived is signalled (coalesced) whenever a send arrives and whenever one
// is accepted.
func (s *Server) Arrived() <-chan struct{} { return s.arrived }

func (s *Server) signal() {
	select {
	case s.arrived <- struct{}{}:
	default:
	}
}

// Answers returns the JSON bodies the fake answered sends with, by status.
func (s *Server) Answers() (statuses []int, bodies [][]byte) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return split(s.answers)
}

// TemplateRequests returns how many template list requests (pages)
// arrived.
func (s *Server) TemplateRequests() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.templateRequests
}

// TemplateAnswers returns the JSON bodies the fake answered template list
// requests with, by status.
func (s *Server) TemplateAnswers() (statuses []int, bodies [][]byte) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return split(s.templateAnswers)
}

func split(as []answer) (statuses []int, bodies [][]byte) {
	for _, a := range as {
		statuses = append(statuses, a.status)
		bodies = append(bodies, a.body)
	}
	return statuses, bodies
}

// ledger says which list an answer is recorded in.
type ledger int

const (
	sendLedger ledger = iota
	templateLedger
)

type payload struct {
	MessagingProduct string `json:"messaging_product"`
	To               string `json:"to"`
	Type             string `json:"type"`
	BizOpaque        string `json:"biz_opaque_callback_data"`
	// A mark-as-read call: status read, the message, and perhaps the
	// typing indicator.
	Status          string `json:"status"`
	MessageID       string `json:"message_id"`
	TypingIndicator *struct {
		Type string `json:"type"`
	} `json:"typing_indicator"`
	Template *struct {
		Name     string `json:"name"`
		Language struct {
			Code string `json:"code"`
		} `json:"language"`
		Components []struct {
			Type       string `json:"type"`
			SubType    string `json:"sub_type"`
			Index      string `json:"index"`
			Parameters []struct {
				Type string `json:"type"`
				Text string `json:"text"`
			} `json:"parameters"`
		} `json:"components"`
	} `json:"template"`
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	parts := strings.Split(strings.Trim(r.URL.Path, "/"), "/")
	if r.Method == http.MethodGet && r.URL.Path == "/whatsapp_business/attachments/" {
		s.serveDownload(w, r)
		return
	}
	if len(parts) == 2 && strings.HasPrefix(parts[0], "v") && r.Method == http.MethodGet {
		s.mu.Lock()
		_, isMedia := s.media[parts[1]]
		s.mu.Unlock()
		if isMedia {
			s.serveMediaURL(w, r, parts[1])
		} else {
			s.serveNumber(w, r, parts[1]) // phone_numbers_health.go
		}
		return
	}
	if len(parts) == 3 && strings.HasPrefix(parts[0], "v") {
		switch {
		case r.Method == http.MethodPost && parts[2] == "media":
			s.serveUpload(w, r, parts[1])
			return
		case r.Method == http.MethodPost && parts[2] == "messages":
			s.serveSend(w, r, parts[1])
			return
		case r.Method == http.MethodGet && parts[2] == "message_templates":
			s.serveTemplates(w, r, parts[1])
			return
		case r.Method == http.MethodPost && parts[2] == "message_templates":
			s.serveSubmit(w, r, parts[1])
			return
		case r.Method == http.MethodDelete && parts[2] == "message_templates":
			s.serveDelete(w, r, parts[1])
			return
		case r.Method == http.MethodGet && parts[2] == "phone_numbers":
			s.servePhoneNumbers(w, r, parts[1])
			return
		}
	}
	s.fail(w, sendLedger, http.StatusBadRequest, 100, 0, "Unsupported request - method type: "+strings.ToLower(r.Method), "GraphMethodException")
}

func (s *Server) serveSend(w http.ResponseWriter, r *http.Request, phoneNumberID string) {
	s.mu.Lock()
	from, known := s.numberLocked(phoneNumberID)
	tokenKnown := s.tokenKnownLocked(strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer "))
	s.mu.Unlock()
	// A token Meta does not know is refused first; a known token may
	// only send from its own number (another number is, to it, an object
	// it cannot see).
	if !tokenKnown {
		s.fail(w, sendLedger, http.StatusUnauthorized, 190, 0, "Invalid OAuth access token - Cannot parse access token", "OAuthException")
		return
	}
	if !known || r.Header.Get("Authorization") != "Bearer "+from.Token {
		s.fail(w, sendLedger, http.StatusBadRequest, 100, 33, unknownObject("post", phoneNumberID), "GraphMethodException")
		return
	}
	body, _ := io.ReadAll(io.LimitReader(r.Body, 1<<20))
	s.mu.Lock()
	s.requestCount++
	if !s.Lean {
		s.requests = append(s.requests, Request{Path: r.URL.Path, Body: body})
	}
	s.mu.Unlock()
	s.signal()

	var p payload
	if err := json.Unmarshal(body, &p); err == nil && p.MessagingProduct == "whatsapp" && p.Status == "read" {
		s.serveRead(w, p)
		return
	}
	session := p.Type != "template" && sessionBody(body, p.Type)
	if err := json.Unmarshal(body, &p); err != nil || p.MessagingProduct != "whatsapp" || p.To == "" ||
		(p.Type != "template" || p.Template == nil) && !session {
		s.fail(w, sendLedger, http.StatusBadRequest, 100, 0, "Invalid parameter", "OAuthException")
		return
	}
	if s.Latency > 0 {
		select {
		case <-time.After(s.Latency):
		case <-r.Context().Done():
			return
		}
	}
	if id := s.unknownMedia(body, phoneNumberID); id != "" {
		s.fail(w, sendLedger, http.StatusBadRequest, 131053, 0, "Media upload error", "OAuthException")
		return
	}
	f := s.fault(p.To)
	if f != nil && !f.AfterAccept {
		if f.Hang {
			s.wait(r)
			return
		}
		if f.Code == 0 {
			w.WriteHeader(f.HTTP)
			io.WriteString(w, "<html><body>upstream error</body></html>")
			return
		}
		s.fail(w, sendLedger, f.HTTP, f.Code, 0, f.Title, "OAuthException")
		return
	}
	if session {
		s.mu.Lock()
		wrote, ok := s.windows[strings.TrimPrefix(p.To, "+")]
		now := time.Now()
		s.mu.Unlock()
		if !ok || !now.Before(wrote.Add(24*time.Hour)) {
			s.fail(w, sendLedger, http.StatusBadRequest, 131047, 0,
				"Re-engagement message: more than 24 hours have passed since the recipient last replied", "OAuthException")
			return
		}
		s.accept(w, r, p, body, f, "service", from)
		return
	}
	s.mu.Lock()
	tmpl, ok := s.templates[templateKey(from.WABAID, p.Template.Name, p.Template.Language.Code)]
	s.mu.Unlock()
	switch {
	case !ok || tmpl.Status == "REJECTED" || tmpl.Status == "PENDING":
		s.fail(w, sendLedger, http.StatusNotFound, 132001, 0, "Template name does not exist in the translation", "OAuthException")
		return
	case tmpl.Status == "PAUSED":
		s.fail(w, sendLedger, http.StatusBadRequest, 132015, 0, "Template is paused", "OAuthException")
		return
	case tmpl.Status == "DISABLED":
		s.fail(w, sendLedger, http.StatusBadRequest, 132016, 0, "Template is disabled", "OAuthException")
		return
	}
	bodyParams, header := 0, ""
	for _, c := range p.Template.Components {
		switch c.Type {
		case "body":
			bodyParams = len(c.Parameters)
			for _, prm := range c.Parameters {
				if strings.ContainsAny(prm.Text, "\n\t") || strings.Contains(prm.Text, "     ") {
					s.fail(w, sendLedger, http.StatusBadRequest, 132018, 0, "There was an issue with the parameters in your template.", "OAuthException")
					return
				}
			}
		case "header":
			if len(c.Parameters) == 1 {
				header = c.Parameters[0].Type
			}
		}
	}
	// A button that takes a value (a URL ending in a placeholder, a copy
	// code, an authentication template's code) needs its parameter, as
	// Meta requires.
	buttonParams := map[string]int{}
	for _, c := range p.Template.Components {
		if c.Type == "button" {
			buttonParams[c.Index] += len(c.Parameters)
		}
	}
	for i, b := range tmpl.Buttons {
		typ := strings.ToUpper(b.Type)
		needs := typ == "COPY_CODE" || typ == "OTP" || typ == "URL" && strings.Contains(b.URL, "{{")
		if needs && buttonParams[strconv.Itoa(i)] != 1 {
			s.fail(w, sendLedger, http.StatusBadRequest, 132000, 0, "Number of parameters does not match the expected number of params", "OAuthException")
			return
		}
	}
	if bodyParams != tmpl.BodyParams {
		s.fail(w, sendLedger, http.StatusBadRequest, 132000, 0, "Number of parameters does not match the expected number of params", "OAuthException")
		return
	}
	if header != tmpl.headerParameter() {
		s.fail(w, sendLedger, http.StatusBadRequest, 132012, 0, "Parameter format does not match format in the created template", "OAuthException")
		return
	}
	s.accept(w, r, p, body, f, tmpl.Category, from)
}

// accept answers an accepted send with its wamid and starts its status
// webhooks.
func (s *Server) accept(w http.ResponseWriter, r *http.Request, p payload, body []byte, f *Fault, category string, from Number) {
	wamid := "wamid." + randomString(48)
	// The status webhooks are registered with the acceptance, in one step:
	// WaitWebhooks after Accepted (or after the client has the answer)
	// always waits for them.
	startWebhooks := func() {}
	s.mu.Lock()
	waID := strings.TrimPrefix(p.To, "+")
	if w, ok := s.WaIDs[waID]; ok {
		waID = w
	}
	s.acceptedCount++
	if s.acceptedBy == nil {
		s.acceptedBy = map[string]int{}
	}
	s.acceptedBy[from.PhoneNumberID]++
	if !s.Lean {
		s.accepted = append(s.accepted, Request{Path: r.URL.Path, Body: body, WAMID: wamid, From: from.PhoneNumberID,
			Token: from.Token})
	}
	if s.WebhookURL != "" {
		statuses := s.WebhookStatuses
		if statuses == nil {
			statuses = defaultWebhookStatuses
		}
		startWebhooks = s.emitLocked(emission{url: s.WebhookURL, secret: from.AppSecret, statuses: slices.Clone(statuses),
			wamid: wamid, biz: p.BizOpaque, recipient: waID, category: category, waba: from.WABAID, number: from.PhoneNumberID})
	}
	s.mu.Unlock()
	s.signal()
	if f != nil { // AfterAccept
		startWebhooks()
		s.wait(r)
		return
	}
	s.answer(w, sendLedger, http.StatusOK, map[string]any{
		"messaging_product": "whatsapp",
		"contacts":          []map[string]string{{"input": p.To, "wa_id": waID}},
		"messages":          []map[string]string{{"id": wamid}},
	})
	// The answer is complete (it has a Content-Length): flushed, the client
	// has it before any webhook is posted.
	if fl, ok := w.(http.Flusher); ok {
		fl.Flush()
	}
	startWebhooks()
}

// wait holds a request until the client gives up or the fake closes.
func (s *Server) wait(r *http.Request) {
	select {
	case <-r.Context().Done():
	case <-s.hang:
	}
}

// templateFields are the template fields the list can show, in Meta's names.
var templateFields = []string{"id", "name", "language", "status", "category", "parameter_format", "components"}

// serveTemplates lists the account's templates, sorted by name then
// language, a page at a time: query parameters fields, limit (25 by
// default, at most 100), after (a cursor from the previous page), and the
// filters name, status, category and language (status may list several,
// separated by commas).
func (s *Server) serveTemplates(w http.ResponseWriter, r *http.Request, wabaID string) {
	s.mu.Lock()
	s.templateRequests++
	s.mu.Unlock()
	if !s.accountCallAllowed(w, r, wabaID) {
		return
	}
	q := r.URL.Query()
	limit := 25
	if v := q.Get("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			s.fail(w, templateLedger, http.StatusBadRequest, 100, 0, "Invalid parameter", "OAuthException")
			return
		}
		limit = min(n, 100)
	}
	if s.TemplatePageSize > 0 {
		limit = min(limit, s.TemplatePageSize)
	}
	var after string
	if v := q.Get("after"); v != "" {
		b, err := base64.RawURLEncoding.DecodeString(v)
		if err != nil {
			s.fail(w, templateLedger, http.StatusBadRequest, 100, 0, "Invalid parameter", "OAuthException")
			return
		}
		after = string(b)
	}
	fields := templateFields
	if v := q.Get("fields"); v != "" {
		fields = []string{"id"} // Graph always returns the id
		for f := range strings.SplitSeq(v, ",") {
			if f = strings.TrimSpace(f); slices.Contains(templateFields, f) && !slices.Contains(fields, f) {
				fields = append(fields, f)
			}
		}
	}

	s.mu.Lock()
	var list []Template
	for _, t := range s.templates {
		if t.WABAID == wabaID && matches(q.Get("name"), t.Name) && matchesAny(q.Get("status"), t.Status) &&
			matchesAny(q.Get("category"), t.Category) && matches(q.Get("language"), t.Language) {
			list = append(list, t)
		}
	}
	s.mu.Unlock()
	slices.SortFunc(list, func(a, b Template) int { return strings.Compare(a.key(), b.key()) })

	start := 0
	for after != "" && start < len(list) && list[start].key() <= after {
		start++
	}
	page := list[start:min(start+limit, len(list))]
	data := make([]map[string]any, 0, len(page))
	for _, t := range page {
		data = append(data, t.listItem(fields))
	}
	out := map[string]any{"data": data}
	if len(page) > 0 {
		paging := map[string]any{"cursors": map[string]string{
			"before": cursor(page[0]), "after": cursor(page[len(page)-1]),
		}}
		if start+len(page) < len(list) {
			q.Set("after", cursor(page[len(page)-1]))
			paging["next"] = s.origin + r.URL.Path + "?" + q.Encode()
		}
		out["paging"] = paging
	}
	s.answer(w, templateLedger, http.StatusOK, out)
}

// key orders templates by name, then language ("\x00" sorts before any
// character of either).
func (t Template) key() string { return t.Name + "\x00" + t.Language }

func cursor(t Template) string { return base64.RawURLEncoding.EncodeToString([]byte(t.key())) }

func matches(filter, v string) bool { return filter == "" || filter == v }

func matchesAny(filter, v string) bool {
	if filter == "" {
		return true
	}
	for f := range strings.SplitSeq(filter, ",") {
		if strings.EqualFold(strings.TrimSpace(f), v) {
			return true
		}
	}
	return false
}

// headerFormat is the header's format as Meta spells it ("" for none).
func (t Template) headerFormat() string {
	if t.HeaderFormat != "" {
		return strings.ToUpper(t.HeaderFormat)
	}
	return strings.ToUpper(t.Header)
}

// headerParameter is the type of the header parameter a send must carry
// ("" for none).
func (t Template) headerParameter() string {
	switch f := t.headerFormat(); f {
	case "IMAGE", "VIDEO", "DOCUMENT", "LOCATION":
		return strings.ToLower(f)
	case "TEXT":
		if strings.Contains(t.HeaderText, "{{") {
			return "text"
		}
	}
	return ""
}

func (t Template) body() string {
	if t.Body != "" {
		return t.Body
	}
	var b strings.Builder
	b.WriteString("Hello")
	for i := range t.BodyParams {
		fmt.Fprintf(&b, " {{%d}}", i+1)
	}
	b.WriteString(".")
	return b.String()
}

// listItem is the template as the list shows it, with the given fields.
func (t Template) listItem(fields []string) map[string]any {
	all := map[string]any{
		"id": t.ID, "name": t.Name, "language": t.Language, "status": t.Status,
		"category": t.Category, "parameter_format": t.ParameterFormat, "components": t.components(),
	}
	out := make(map[string]any, len(fields))
	for _, f := range fields {
		out[f] = all[f]
	}
	return out
}

func (t Template) components() []map[string]any {
	if t.Raw != nil {
		return t.raw()
	}
	var cs []map[string]any
	if f := t.headerFormat(); f != "" {
		h := map[string]any{"type": "HEADER", "format": f}
		switch f {
		case "TEXT":
			h["text"] = t.HeaderText
			if names := placeholders(t.HeaderText); len(names) > 0 {
				h["example"] = t.examples("header_text", names)
			}
		case "IMAGE", "VIDEO", "DOCUMENT":
			h["example"] = map[string]any{"header_handle": []string{"https://scontent.whatsapp.net/v/t61.29466-34/sample"}}
		}
		cs = append(cs, h)
	}
	body := t.body()
	b := map[string]any{"type": "BODY", "text": body}
	if names := placeholders(body); len(names) > 0 {
		b["example"] = t.examples("body_text", names)
	}
	cs = append(cs, b)
	if t.Footer != "" {
		cs = append(cs, map[string]any{"type": "FOOTER", "text": t.Footer})
	}
	if len(t.Buttons) > 0 {
		var bs []map[string]any
		for _, btn := range t.Buttons {
			m := map[string]any{"type": btn.Type, "text": btn.Text}
			if btn.URL != "" {
				m["url"] = btn.URL
			}
			bs = append(bs, m)
		}
		cs = append(cs, map[string]any{"type": "BUTTONS", "buttons": bs})
	}
	return cs
}

// examples are sample values for placeholders, in Meta's shape for the
// template's parameter format: header_text is a list, body_text a list of
// lists, and named parameters a list of name and example.
func (t Template) examples(field string, names []string) map[string]any {
	if strings.EqualFold(t.ParameterFormat, "NAMED") {
		var named []map[string]string
		for _, n := range names {
			named = append(named, map[string]string{"param_name": n, "example": "sample " + n})
		}
		return map[string]any{field + "_named_params": named}
	}
	var values []string
	for _, n := range names {
		values = append(values, "sample "+n)
	}
	if field == "body_text" {
		return map[string]any{field: [][]string{values}}
	}
	return map[string]any{field: values}
}

// placeholders returns the distinct names inside {{…}} in text, in order.
func placeholders(text string) []string {
	var names []string
	for {
		i := strings.Index(text, "{{")
		if i < 0 {
			return names
		}
		j := strings.Index(text[i:], "}}")
		if j < 0 {
			return names
		}
		if n := text[i+2 : i+j]; !slices.Contains(names, n) {
			names = append(names, n)
		}
		text = text[i+j+2:]
	}
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

func unknownObject(method, id string) string {
	return "Unsupported " + method + " request. Object with ID '" + id +
		"' does not exist, cannot be loaded due to missing permissions, or does not support this operation"
}

// fail answers with Meta's error shape; a zero subcode is left out.
func (s *Server) fail(w http.ResponseWriter, l ledger, status, code, subcode int, title, typ string) {
	e := map[string]any{
		"message":    fmt.Sprintf("(#%d) %s", code, title),
		"type":       typ,
		"code":       code,
		"error_data": map[string]any{"messaging_product": "whatsapp", "details": title},
		"fbtrace_id": randomString(23),
	}
	if subcode != 0 {
		e["error_subcode"] = subcode
	}
	s.answer(w, l, status, map[string]any{"error": e})
}

func (s *Server) answer(w http.ResponseWriter, l ledger, status int, v any) {
	b, _ := json.Marshal(v)
	s.mu.Lock()
	switch {
	case l == templateLedger:
		s.templateAnswers = append(s.templateAnswers, answer{status: status, body: b})
	case !s.Lean:
		s.answers = append(s.answers, answer{status: status, body: b})
	}
	s.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", strconv.Itoa(len(b)))
	w.WriteHeader(status)
	w.Write(b)
}

func randomString(n int) string {
	b := make([]byte, n)
	rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)[:n]
}

// randomDigits returns n random decimal digits, the first not 0.
func randomDigits(n int) string {
	b := make([]byte, n)
	for i := range b {
		d, _ := rand.Int(rand.Reader, big.NewInt(10))
		b[i] = byte('0' + d.Int64())
	}
	if b[0] == '0' {
		b[0] = '1'
	}
	return string(b)
}

// Wrote records that the user of number (E.164 or digits) wrote to the
// business at the given time: session messages to them are accepted for
// 24 hours after it, and refused with 131047 outside that window.
func (s *Server) Wrote(number string, at time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.windows[strings.TrimPrefix(number, "+")] = at
}

// sessionBody reports whether body is a session message of type t: a
// known type with its object.
func sessionBody(body []byte, t string) bool {
	switch t {
	case "text", "image", "video", "audio", "document", "sticker", "location", "contacts", "interactive", "reaction":
	default:
		return false
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(body, &m) != nil {
		return false
	}
	obj, ok := m[t]
	return ok && len(obj) > 2
}

// Read is one mark-as-read call: the wamid marked, and whether the typing
// indicator was asked for.
type Read struct {
	MessageID string
	Typing    bool
}

// Reads returns the mark-as-read calls received, in order.
func (s *Server) Reads() []Read {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.reads)
}

// serveRead answers a mark-as-read call as Meta does: {"success": true},
// or 100 without a message id or with an indicator type other than text.
func (s *Server) serveRead(w http.ResponseWriter, p payload) {
	if p.MessageID == "" || p.TypingIndicator != nil && p.TypingIndicator.Type != "text" {
		s.fail(w, sendLedger, http.StatusBadRequest, 100, 0, "Invalid parameter", "OAuthException")
		return
	}
	s.mu.Lock()
	s.reads = append(s.reads, Read{MessageID: p.MessageID, Typing: p.TypingIndicator != nil})
	s.mu.Unlock()
	s.answer(w, sendLedger, http.StatusOK, map[string]any{"success": true})
}
