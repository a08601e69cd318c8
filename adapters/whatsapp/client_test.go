package whatsapp_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/heraldhq/herald/adapters/whatsapp"
	"github.com/heraldhq/herald/domain"
	"github.com/heraldhq/herald/ports"
	"github.com/heraldhq/herald/ports/porttest"
	"github.com/heraldhq/herald/test/fakemeta"
)

func newFake(t *testing.T) (*fakemeta.Server, *whatsapp.Client) {
	t.Helper()
	fake := fakemeta.New(t)
	fake.AddTemplate(fakemeta.Template{Name: "welcome", Language: "en_US", Status: "APPROVED", BodyParams: 2})
	fake.AddTemplate(fakemeta.Template{Name: "promo", Language: "en", Status: "APPROVED", Header: "image", BodyParams: 1})
	fake.AddTemplate(fakemeta.Template{Name: "contract", Language: "pt_BR", Status: "APPROVED", Header: "document", BodyParams: 1})
	return fake, whatsapp.New(whatsapp.Config{APIURL: fake.URL, AccessToken: fake.Token, PhoneNumberID: fake.PhoneNumberID, Timeout: 2 * time.Second})
}

// metaErrors are Meta's answers to the failures of the sender contract.
var metaErrors = map[porttest.SenderFailure]fakemeta.Fault{
	porttest.FailUndeliverable: {HTTP: 400, Code: 131026, Title: "Message undeliverable"},
	porttest.FailThrottled:     {HTTP: 400, Code: 130429, Title: "Rate limit hit"},
	porttest.FailPairLimited:   {HTTP: 400, Code: 131056, Title: "(Business Account, Consumer Account) pair rate limit hit"},
}

func TestSenderContract(t *testing.T) {
	t.Parallel()
	porttest.RunSender(t, func(t *testing.T) porttest.SenderUnderTest {
		fake, c := newFake(t)
		return porttest.SenderUnderTest{
			Sender: c,
			// The fake answers the next send with Meta's error.
			Provoke: func(t *testing.T, f porttest.SenderFailure, m ports.OutboundMessage) (ports.OutboundMessage, bool) {
				fault, ok := metaErrors[f]
				if !ok {
					t.Fatalf("no Meta error for %s", f)
				}
				fault.Times = 1
				fake.Inject(fault)
				return m, true
			},
		}
	})
}

// TestRequestsAndAnswersMatchMetasSpec checks what the client sends and what
// the fake answers against Meta's OpenAPI document.
func TestRequestsAndAnswersMatchMetasSpec(t *testing.T) {
	t.Parallel()
	spec := fakemeta.LoadSpec(t)
	fake, c := newFake(t)
	ctx := context.Background()
	if _, err := c.Send(ctx, porttest.SenderMessage()); err != nil {
		t.Fatal(err)
	}
	media := ports.OutboundMessage{ID: "msg_01m80000000000000000000002", To: domain.MustPhoneNumber("+5511988887777"),
		TemplateName: "promo", Language: "en", HeaderFormat: domain.HeaderImage,
		MediaHeaderURL: "https://cdn.example.com/sale.jpg", Variables: []string{"Maria"}}
	if _, err := c.Send(ctx, media); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Send(ctx, documentMessage()); err != nil {
		t.Fatal(err)
	}
	fake.Inject(fakemeta.Fault{HTTP: 400, Code: 130429, Title: "Rate limit hit", Times: 1})
	c.Send(ctx, porttest.SenderMessage())
	for _, r := range fake.Requests() {
		if err := spec.Check("TemplateMessage", r.Body); err != nil {
			t.Errorf("request: %v", err)
		}
	}
	statuses, bodies := fake.Answers()
	for i, b := range bodies {
		name := "MessageResponse"
		if statuses[i] != 200 {
			name = "GraphAPIError_4"
		}
		if err := spec.Check(name, b); err != nil {
			t.Errorf("answer %d: %v", statuses[i], err)
		}
	}
}

func TestPayload(t *testing.T) {
	t.Parallel()
	fake, c := newFake(t)
	m := ports.OutboundMessage{ID: "msg_01m80000000000000000000003", To: domain.MustPhoneNumber("+5511988887777"),
		TemplateName: "promo", Language: "en", HeaderFormat: domain.HeaderImage,
		MediaHeaderURL: "https://cdn.example.com/sale.jpg", Variables: []string{"Maria"}}
	res, err := c.Send(context.Background(), m)
	if err != nil || res.WaID != "5511988887777" {
		t.Fatalf("%+v %v", res, err)
	}
	var got map[string]any
	json.Unmarshal(fake.Requests()[0].Body, &got)
	want := `{"biz_opaque_callback_data":"msg_01m80000000000000000000003","messaging_product":"whatsapp","recipient_type":"individual",` +
		`"template":{"components":[{"parameters":[{"image":{"link":"https://cdn.example.com/sale.jpg"},"type":"image"}],"type":"header"},` +
		`{"parameters":[{"text":"Maria","type":"text"}],"type":"body"}],"language":{"code":"en","policy":"deterministic"},"name":"promo"},"to":"+5511988887777","type":"template"}`
	if b, _ := json.Marshal(got); string(b) != want {
		t.Fatalf("payload\n got %s\nwant %s", b, want)
	}
}

// documentMessage has a document header with the file name the recipient
// sees.
func documentMessage() ports.OutboundMessage {
	return ports.OutboundMessage{ID: "msg_01m80000000000000000000004", To: domain.MustPhoneNumber("+5511988887777"),
		TemplateName: "contract", Language: "pt_BR", HeaderFormat: domain.HeaderDocument,
		MediaHeaderURL: "https://cdn.example.com/d/7f3a?sig=1", MediaFilename: "Contrato de serviço.pdf", Variables: []string{"Maria"}}
}

// A document header carries its file name, so the recipient sees
// "Contrato de serviço.pdf" rather than an unnamed file.
func TestPayloadNamesTheDocument(t *testing.T) {
	t.Parallel()
	fake, c := newFake(t)
	if _, err := c.Send(context.Background(), documentMessage()); err != nil {
		t.Fatal(err)
	}
	var got struct {
		Template struct {
			Components []struct {
				Type       string
				Parameters []map[string]any
			}
		}
	}
	json.Unmarshal(fake.Requests()[0].Body, &got)
	header := got.Template.Components[0]
	want := map[string]any{"type": "document",
		"document": map[string]any{"link": "https://cdn.example.com/d/7f3a?sig=1", "filename": "Contrato de serviço.pdf"}}
	if header.Type != "header" || len(header.Parameters) != 1 || fmt.Sprint(header.Parameters[0]) != fmt.Sprint(want) {
		t.Fatalf("header component %+v, want the document with its file name %v", header, want)
	}
}

func TestFailures(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name  string
		fault fakemeta.Fault
		msg   func(ports.OutboundMessage) ports.OutboundMessage
		class ports.SendErrorClass
		code  int
	}{
		{"throughput", fakemeta.Fault{HTTP: 400, Code: 130429, Title: "Rate limit hit"}, nil, ports.ClassThrottled, 130429},
		{"pair rate", fakemeta.Fault{HTTP: 400, Code: 131056, Title: "pair rate limit hit"}, nil, ports.ClassPairLimited, 131056},
		{"server error", fakemeta.Fault{HTTP: 500, Code: 131000, Title: "Something went wrong"}, nil, ports.ClassRetryable, 131000},
		{"bare 502", fakemeta.Fault{HTTP: 502}, nil, ports.ClassRetryable, 0},
		{"expired token", fakemeta.Fault{HTTP: 401, Code: 190, Title: "Error validating access token"}, nil, ports.ClassAuth, 190},
		{"unknown template", fakemeta.Fault{}, func(m ports.OutboundMessage) ports.OutboundMessage { m.TemplateName = "nope"; return m }, ports.ClassPermanent, 132001},
		{"parameter count", fakemeta.Fault{}, func(m ports.OutboundMessage) ports.OutboundMessage { m.Variables = m.Variables[:1]; return m }, ports.ClassPermanent, 132000},
		{"timeout", fakemeta.Fault{Hang: true}, nil, ports.ClassRetryable, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			fake, client := newFake(t)
			if c.fault != (fakemeta.Fault{}) {
				fake.Inject(c.fault)
			}
			m := porttest.SenderMessage()
			if c.msg != nil {
				m = c.msg(m)
			}
			_, err := client.Send(context.Background(), m)
			var se *ports.SendError
			if !errors.As(err, &se) || se.Class != c.class || se.Code != c.code {
				t.Fatalf("%v, want class %s code %d", err, c.class, c.code)
			}
			if strings.Contains(err.Error(), fake.Token) {
				t.Fatal("the error quotes the access token")
			}
		})
	}
}

func TestWrongTokenIsAuth(t *testing.T) {
	t.Parallel()
	fake, _ := newFake(t)
	c := whatsapp.New(whatsapp.Config{APIURL: fake.URL, AccessToken: "wrong", PhoneNumberID: fake.PhoneNumberID})
	_, err := c.Send(context.Background(), porttest.SenderMessage())
	var se *ports.SendError
	if !errors.As(err, &se) || se.Class != ports.ClassAuth || se.Code != 190 {
		t.Fatalf("%v", err)
	}
}

// TestAmbiguousOutcomes checks that a send is ambiguous exactly when the
// request was written and no answer came back.
func TestAmbiguousOutcomes(t *testing.T) {
	t.Parallel()
	t.Run("timeout after accepting", func(t *testing.T) {
		t.Parallel()
		fake, c := newFake(t)
		fake.Inject(fakemeta.Fault{AfterAccept: true})
		ctx := cancelWhen(t, fake, func() bool { return len(fake.Accepted()) > 0 })
		_, err := c.Send(ctx, porttest.SenderMessage())
		requireSendError(t, err, true)
		if n := len(fake.Accepted()); n != 1 {
			t.Fatalf("%d sends accepted, want 1", n)
		}
	})
	t.Run("timeout before accepting", func(t *testing.T) {
		// Written but not accepted: the client cannot tell this from the
		// case above.
		t.Parallel()
		fake, c := newFake(t)
		fake.Inject(fakemeta.Fault{Hang: true})
		ctx := cancelWhen(t, fake, func() bool { return len(fake.Requests()) > 0 })
		_, err := c.Send(ctx, porttest.SenderMessage())
		requireSendError(t, err, true)
		if n := len(fake.Accepted()); n != 0 {
			t.Fatalf("%d sends accepted, want none", n)
		}
	})
	t.Run("cut after a 2xx status", func(t *testing.T) {
		t.Parallel()
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			io.Copy(io.Discard, r.Body)
			w.Header().Set("Content-Length", "200")
			w.WriteHeader(http.StatusOK)
			io.WriteString(w, `{"messaging_product":`)
		}))
		t.Cleanup(srv.Close)
		c := whatsapp.New(whatsapp.Config{APIURL: srv.URL, AccessToken: "token", PhoneNumberID: "1", Timeout: 10 * time.Second})
		_, err := c.Send(context.Background(), porttest.SenderMessage())
		requireSendError(t, err, true)
	})
	t.Run("connection refused", func(t *testing.T) {
		t.Parallel()
		c := whatsapp.New(whatsapp.Config{APIURL: refusingURL(t), AccessToken: "token", PhoneNumberID: "1", Timeout: 10 * time.Second})
		_, err := c.Send(context.Background(), porttest.SenderMessage())
		requireSendError(t, err, false)
	})
	t.Run("error answer", func(t *testing.T) {
		t.Parallel()
		fake, c := newFake(t)
		fake.Inject(fakemeta.Fault{HTTP: 500, Code: 131000, Title: "Something went wrong"})
		_, err := c.Send(context.Background(), porttest.SenderMessage())
		requireSendError(t, err, false)
	})
	t.Run("accepted", func(t *testing.T) {
		t.Parallel()
		fake, c := newFake(t)
		res, err := c.Send(context.Background(), porttest.SenderMessage())
		if err != nil {
			t.Fatal(err)
		}
		if acc := fake.Accepted(); len(acc) != 1 || acc[0].WAMID != res.ProviderID {
			t.Fatalf("accepted %+v, want one send with wamid %s", acc, res.ProviderID)
		}
	})
}

// requireSendError fails unless err is a retryable *ports.SendError with
// the given ambiguity.
func requireSendError(t *testing.T, err error, ambiguous bool) {
	t.Helper()
	se, ok := errors.AsType[*ports.SendError](err)
	if !ok || se.Class != ports.ClassRetryable || se.Ambiguous != ambiguous {
		t.Fatalf("%v (%#v), want a retryable send error with Ambiguous %v", err, se, ambiguous)
	}
}

// cancelWhen returns a context that is cancelled once cond holds, checked
// whenever the fake signals a send.
func cancelWhen(t *testing.T, fake *fakemeta.Server, cond func() bool) context.Context {
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	go func() {
		defer cancel()
		for !cond() {
			select {
			case <-fake.Arrived():
			case <-ctx.Done():
				return
			}
		}
	}()
	return ctx
}

// refusingURL returns a loopback base URL on which nothing listens.
func refusingURL(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return "http://" + addr + "/v24.0"
}

// TestRefusedTemplateSaysSo: Meta's answers for a paused or disabled
// template carry that status, so campaigns on it stop at once.
func TestRefusedTemplateSaysSo(t *testing.T) {
	t.Parallel()
	for status, want := range map[string]struct {
		code int
		st   domain.TemplateStatus
	}{"PAUSED": {132015, domain.TemplatePaused}, "DISABLED": {132016, domain.TemplateDisabled}, "APPROVED": {}} {
		fake, client := newFake(t)
		fake.SetTemplateStatus("welcome", "en_US", status)
		_, err := client.Send(context.Background(), porttest.SenderMessage())
		var se *ports.SendError
		if want.code == 0 {
			if err != nil {
				t.Fatalf("%s: %v", status, err)
			}
			continue
		}
		if !errors.As(err, &se) || se.Class != ports.ClassPermanent || se.Code != want.code || se.TemplateStatus != want.st {
			t.Fatalf("%s template: %v (template status %v), want permanent %d with %s", status, err, se, want.code, want.st)
		}
	}
}

// TestRedirectIsNotFollowed: an API URL that redirects is answered by the
// redirect itself, a permanent failure; the token never reaches the
// redirect's target.
func TestRedirectIsNotFollowed(t *testing.T) {
	t.Parallel()
	var reached int
	elsewhere := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { reached++ }))
	t.Cleanup(elsewhere.Close)
	redirecting := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, elsewhere.URL+r.URL.Path, http.StatusTemporaryRedirect)
	}))
	t.Cleanup(redirecting.Close)
	c := whatsapp.New(whatsapp.Config{APIURL: redirecting.URL, AccessToken: "token", PhoneNumberID: "1", Timeout: 10 * time.Second})
	_, err := c.Send(context.Background(), porttest.SenderMessage())
	var se *ports.SendError
	if !errors.As(err, &se) || se.Class != ports.ClassPermanent {
		t.Fatalf("send through a redirect: %v, want a permanent failure", err)
	}
	if reached != 0 {
		t.Fatalf("the redirect was followed %d times", reached)
	}
}

// TestSendsInFlightReuseTheirConnections: the client keeps an idle
// connection for each of the sends it is configured to have in flight, so
// a second wave of as many concurrent sends opens no connection.
func TestSendsInFlightReuseTheirConnections(t *testing.T) {
	t.Parallel()
	const inFlight = 64
	var mu sync.Mutex
	opened, arrived := 0, 0
	wave := make(chan struct{})
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		mu.Lock()
		arrived++
		release := wave
		if arrived%inFlight == 0 {
			close(wave) // every send of the wave is in flight at once
			wave = make(chan struct{})
		}
		mu.Unlock()
		<-release
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"messaging_product":"whatsapp","contacts":[{"input":"+14155552671","wa_id":"14155552671"}],"messages":[{"id":"wamid.X"}]}`)
	}))
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			mu.Lock()
			opened++
			mu.Unlock()
		}
	}
	srv.Start()
	t.Cleanup(srv.Close)
	c := whatsapp.New(whatsapp.Config{APIURL: srv.URL, AccessToken: "token", PhoneNumberID: "1", Timeout: 5 * time.Second, Connections: inFlight})
	for w := range 2 {
		var sends sync.WaitGroup
		errs := make(chan error, inFlight)
		for range inFlight {
			sends.Go(func() {
				if _, err := c.Send(context.Background(), porttest.SenderMessage()); err != nil {
					errs <- err
				}
			})
		}
		sends.Wait()
		close(errs)
		for err := range errs {
			t.Fatalf("wave %d: %v", w+1, err)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if opened != inFlight {
		t.Errorf("two waves of %d concurrent sends opened %d connections, want %d (the second reuses the first's)", inFlight, opened, inFlight)
	}
}
