package whatsapp_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
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
	return fake, whatsapp.New(whatsapp.Config{APIURL: fake.URL, AccessToken: fake.Token, PhoneNumberID: fake.PhoneNumberID, Timeout: 2 * time.Second})
}

func TestSenderContract(t *testing.T) {
	t.Parallel()
	porttest.RunSender(t, func(t *testing.T) ports.WhatsAppSender {
		_, c := newFake(t)
		return c
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
