package whatsapp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptrace"
	"strings"
	"sync/atomic"
	"time"

	"github.com/heraldhq/herald/ports"
)

// Client sends template messages through the Cloud API and reads the
// business account's templates.
type Client struct {
	cfg  Config
	http *http.Client
	// download fetches media files, which may be large: bounded by the
	// caller's context rather than the API calls' timeout.
	download *http.Client
}

// New returns a client; a zero Timeout is 20 s, zero Connections 32.
func New(cfg Config) *Client {
	if cfg.Timeout == 0 {
		cfg.Timeout = 20 * time.Second
	}
	if cfg.Connections <= 0 {
		cfg.Connections = 32
	}
	cfg.APIURL = strings.TrimRight(cfg.APIURL, "/")
	// Meta never redirects an API call: a redirect means a wrong API URL or
	// something in the way, and following it would carry the request (and
	// its token, to the same host) somewhere else. The 3xx is the answer.
	noRedirects := func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	// Go's default transport keeps two idle connections per host, so all
	// but two of the sends in flight would end by closing theirs. HTTP/2,
	// where the server offers it, is asked for as the default transport
	// asks (ForceAttemptHTTP2 is set on its clone).
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.MaxIdleConnsPerHost = cfg.Connections
	tr.MaxIdleConns = max(tr.MaxIdleConns, cfg.Connections)
	return &Client{cfg: cfg, http: &http.Client{Timeout: cfg.Timeout, CheckRedirect: noRedirects, Transport: tr},
		download: &http.Client{CheckRedirect: noRedirects, Transport: tr}}
}

// ForNumber returns a client that acts for another business number with
// its own token, sharing c's connections.
func (c *Client) ForNumber(n ports.NumberCredentials) ports.NumberClient {
	cfg := c.cfg
	cfg.PhoneNumberID, cfg.WABAID, cfg.AccessToken = n.PhoneNumberID, n.WABAID, n.AccessToken
	return &Client{cfg: cfg, http: c.http}
}

type sendResponse struct {
	Contacts []struct {
		Input string `json:"input"`
		WaID  string `json:"wa_id"`
	} `json:"contacts"`
	Messages []struct {
		ID string `json:"id"`
	} `json:"messages"`
}

type errorResponse struct {
	Error struct {
		Message     string          `json:"message"`
		Code        json.Number     `json:"code"`
		IsTransient bool            `json:"is_transient"`
		FBTraceID   string          `json:"fbtrace_id"`
		ErrorData   json.RawMessage `json:"error_data"`
	} `json:"error"`
}

// Send posts m's template payload and returns Meta's wamid and wa_id, or a
// *ports.SendError with the class, code and title of the failure.
func (c *Client) Send(ctx context.Context, m ports.OutboundMessage) (ports.SendResult, error) {
	body, err := json.Marshal(m.Body())
	if err != nil {
		return ports.SendResult{}, &ports.SendError{Class: ports.ClassPermanent, Err: err}
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.cfg.APIURL+"/"+c.cfg.PhoneNumberID+"/messages", bytes.NewReader(body))
	if err != nil {
		return ports.SendResult{}, &ports.SendError{Class: ports.ClassPermanent, Err: err}
	}
	req.Header.Set("Authorization", "Bearer "+c.cfg.AccessToken)
	req.Header.Set("Content-Type", "application/json")
	// written tells a failure before the request left (nothing reached Meta)
	// from one after it (Meta may have accepted the message). The transport
	// has run the trace's callbacks by the time Do returns an error.
	var written atomic.Bool
	req = req.WithContext(httptrace.WithClientTrace(ctx, &httptrace.ClientTrace{
		GotConn:      func(httptrace.GotConnInfo) { written.Store(false) }, // a new attempt
		WroteRequest: func(info httptrace.WroteRequestInfo) { written.Store(info.Err == nil) },
	}))
	res, err := c.http.Do(req)
	if err != nil {
		// Statuses carry our id in biz_opaque_callback_data, so an
		// ambiguous send can still be matched.
		return ports.SendResult{}, &ports.SendError{Class: ports.ClassRetryable, Ambiguous: written.Load(),
			Err: redact(err, c.cfg.AccessToken)}
	}
	defer res.Body.Close()
	accepted := res.StatusCode/100 == 2
	raw, err := io.ReadAll(io.LimitReader(res.Body, 1<<20))
	if err != nil {
		return ports.SendResult{}, &ports.SendError{Class: ports.ClassRetryable, Ambiguous: accepted,
			Err: fmt.Errorf("whatsapp: reading the HTTP %d answer: %w", res.StatusCode, err)}
	}
	if accepted {
		var ok sendResponse
		if err := json.Unmarshal(raw, &ok); err != nil || len(ok.Messages) == 0 || ok.Messages[0].ID == "" {
			return ports.SendResult{}, &ports.SendError{Class: ports.ClassRetryable, Ambiguous: true,
				Err: fmt.Errorf("whatsapp: unexpected success body (%d bytes)", len(raw))}
		}
		out := ports.SendResult{ProviderID: ok.Messages[0].ID}
		if len(ok.Contacts) > 0 {
			out.WaID = ok.Contacts[0].WaID
		}
		return out, nil
	}
	return ports.SendResult{}, metaError(res.StatusCode, raw)
}

// MarkRead marks the contact's message wamid read, and shows the typing
// indicator when typing is set (Meta hides it after 25 s or at our next
// message). A failure is a *ports.SendError.
func (c *Client) MarkRead(ctx context.Context, wamid string, typing bool) error {
	body := map[string]any{"messaging_product": "whatsapp", "status": "read", "message_id": wamid}
	if typing {
		body["typing_indicator"] = map[string]string{"type": "text"}
	}
	raw, _ := json.Marshal(body)
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.cfg.APIURL+"/"+c.cfg.PhoneNumberID+"/messages", bytes.NewReader(raw))
	if err != nil {
		return &ports.SendError{Class: ports.ClassPermanent, Err: err}
	}
	req.Header.Set("Authorization", "Bearer "+c.cfg.AccessToken)
	req.Header.Set("Content-Type", "application/json")
	res, err := c.http.Do(req)
	if err != nil {
		return &ports.SendError{Class: ports.ClassRetryable, Err: redact(err, c.cfg.AccessToken)}
	}
	defer res.Body.Close()
	answer, _ := io.ReadAll(io.LimitReader(res.Body, 1<<20))
	if res.StatusCode/100 != 2 {
		return metaError(res.StatusCode, answer)
	}
	return nil
}

// metaError classifies a non-2xx answer of any Cloud API call from Meta's
// error body (or its absence).
func metaError(status int, raw []byte) *ports.SendError {
	var e errorResponse
	_ = json.Unmarshal(raw, &e)
	code, _ := e.Error.Code.Int64()
	class, retryAfter := Classify(int(code), status, e.Error.IsTransient)
	return &ports.SendError{Class: class, Code: int(code), Title: title(e.Error.Message),
		RetryAfter: retryAfter, TemplateStatus: TemplateStatusFor(int(code)), MarketingStopped: MarketingStopped(int(code)),
		MediaRefused: MediaRefused(int(code)),
		Err:          fmt.Errorf("whatsapp: HTTP %d, fbtrace_id %s", status, e.Error.FBTraceID)}
}

// title strips Meta's "(#code) " prefix from an error message.
func title(msg string) string {
	if strings.HasPrefix(msg, "(#") {
		if i := strings.Index(msg, ") "); i > 0 {
			return msg[i+2:]
		}
	}
	return msg
}

// redact keeps the token out of errors that quote the request.
func redact(err error, token string) error {
	if token == "" || !strings.Contains(err.Error(), token) {
		return err
	}
	return errors.New(strings.ReplaceAll(err.Error(), token, "****"))
}

var (
	_ ports.WhatsAppSender = (*Client)(nil)
	_ ports.ReadMarker     = (*Client)(nil)
	_ ports.CloudClients   = (*Client)(nil)
	_ ports.NumberClient   = (*Client)(nil)
)
