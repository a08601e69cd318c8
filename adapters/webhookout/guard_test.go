package webhookout_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/heraldhq/herald/adapters/webhookout"
	"github.com/heraldhq/herald/domain"
)

const refusedAddress = "the URL's host resolves to an address that may not be called"

// TestGuardInstruments proves the instruments of TestPostRefusesInwardAddresses
// work: with the fake name allowed, the poster resolves it to 127.0.0.1
// and the trap counts the connection.
func TestGuardInstruments(t *testing.T) {
	t.Parallel()
	tr := newTrap(t)
	p := webhookout.New(webhookout.Config{AllowHTTP: true, AllowedHosts: []string{"hooks.example.test"}, Timeout: 2 * time.Second})
	p.SetResolver(fakeResolver(t))
	if _, err := p.Post(context.Background(), request(t, "http://hooks.example.test:"+tr.port()+"/hook")); err == nil {
		t.Fatal("the trap answered HTTP")
	}
	tr.accepted(t)
}

// TestPostRefusesInwardAddresses (T18, T25): with http allowed and no
// allowed hosts, no attempt connects to a loopback, private or
// special-purpose address: the URL rules refuse the literal addresses,
// and the dial guard refuses what a name resolves to, at the attempt
// (a name that pointed outward when the endpoint was saved and now points
// inward).
func TestPostRefusesInwardAddresses(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, url, because string // %s in url is the trap's port
	}{
		{"loopback", "http://127.0.0.1:%s/hook", "the URL may not be called: the webhook URL must point to a public address"},
		{"localhost", "http://localhost:%s/hook", "the URL may not be called: the webhook URL must point to a public host"},
		{"a mapped loopback", "http://[::ffff:127.0.0.1]:%s/hook", "must point to a public address"},
		{"a decimal loopback", "http://2130706433:%s/hook", "standard dotted form"},
		{"a name that resolves inward", "http://hooks.example.test:%s/hook", refusedAddress},
		{"a documentation address", "http://192.0.2.10:%s/hook", refusedAddress},
		{"shared address space", "http://100.64.0.1:%s/hook", refusedAddress},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			tr := newTrap(t)
			p := webhookout.New(webhookout.Config{AllowHTTP: true, Timeout: 2 * time.Second})
			p.SetResolver(fakeResolver(t))
			res, err := p.Post(context.Background(), request(t, strings.Replace(c.url, "%s", tr.port(), 1)))
			if err == nil || !strings.Contains(err.Error(), c.because) || res.Status != 0 {
				t.Errorf("Post = %+v, %v; want refused because %q", res, err, c.because)
			}
			if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
				t.Errorf("a refusal reads as the caller's context ending: %v", err)
			}
			tr.assertUntouched(t)
		})
	}
}

// TestCheckURL: saving an endpoint refuses a URL whose host resolves to an
// address the guard would refuse, as invalid_webhook_url; an allowed host,
// a public one and a name that does not resolve now are accepted.
func TestCheckURL(t *testing.T) {
	t.Parallel()
	p := webhookout.New(webhookout.Config{AllowHTTP: true, AllowedHosts: []string{"receiver.internal", "10.0.0.7:8080"}})
	p.SetResolver(fakeResolver(t))
	dead := webhookout.New(webhookout.Config{})
	dead.SetResolver(deadResolver())
	cases := []struct {
		poster *webhookout.Poster
		url    string
		detail string // empty: accepted
	}{
		{p, "https://hooks.example.test/h", "resolves to an address that may not be called"},
		{p, "http://receiver.internal/h", ""}, // allowed: resolves to 127.0.0.1, not looked at
		{p, "http://10.0.0.7:8080/h", ""},
		{p, "http://10.0.0.7:8081/h", "must point to a public address"},
		{p, "https://127.0.0.1/h", "must point to a public address"},
		{p, "https://192.0.2.10/h", "resolves to an address that may not be called"},
		{p, "https://93.184.215.14/h", ""},
		{p, "https://hooks.example.test/h#x", "must not have a fragment"},
		{dead, "https://hooks.example.test/h", ""},
		{dead, "http://hooks.example.test/h", "must use https"},
	}
	for _, c := range cases {
		err := c.poster.CheckURL(context.Background(), c.url)
		if c.detail == "" {
			if err != nil {
				t.Errorf("CheckURL(%q): %v", c.url, err)
			}
			continue
		}
		var de *domain.Error
		if !errors.As(err, &de) || de.Code != domain.CodeInvalidWebhookURL || de.Param != "url" || !strings.Contains(de.Detail, c.detail) {
			t.Errorf("CheckURL(%q) = %v, want invalid_webhook_url on url saying %q", c.url, err, c.detail)
		}
	}
}

// TestPostAllowedHost: an allowed host is dialed without the guard, on any
// port.
func TestPostAllowedHost(t *testing.T) {
	t.Parallel()
	tr := newTrap(t)
	p := webhookout.New(webhookout.Config{AllowHTTP: true, AllowedHosts: []string{"127.0.0.1"}, Timeout: 2 * time.Second})
	_, err := p.Post(context.Background(), request(t, "http://127.0.0.1:"+tr.port()+"/hook"))
	if err == nil || strings.Contains(err.Error(), refusedAddress) {
		t.Fatalf("the trap closes without answering: %v", err)
	}
	tr.accepted(t)
}
