package domain_test

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"strings"
	"testing"
	"testing/iotest"
	"time"

	"github.com/heraldhq/herald/domain"
)

// specSign is the Standard Webhooks signature computed here, from the
// specification, for checking SignWebhook: "v1," and the base64 of the
// HMAC-SHA256 of "{id}.{timestamp}.{body}" keyed with the secret's bytes.
func specSign(key []byte, id string, unix int64, body string) string {
	mac := hmac.New(sha256.New, key)
	fmt.Fprintf(mac, "%s.%d.%s", id, unix, body)
	return "v1," + base64.StdEncoding.EncodeToString(mac.Sum(nil))
}

// TestSignWebhookSpecVector: the specification's libraries' published
// vector.
func TestSignWebhookSpecVector(t *testing.T) {
	t.Parallel()
	key, err := domain.ParseWebhookSecret("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw")
	if err != nil {
		t.Fatal(err)
	}
	got := domain.SignWebhook([]domain.EndpointSecret{{Key: key}}, "msg_p5jXN8AQM9LWM0D4loKWxJek",
		time.Unix(1614265330, 0), []byte(`{"test": 2432232314}`))
	if want := "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE="; got != want {
		t.Fatalf("SignWebhook = %q, want %q", got, want)
	}
}

func TestSignWebhookRotation(t *testing.T) {
	t.Parallel()
	oldest, old, current := bytes.Repeat([]byte{1}, 32), bytes.Repeat([]byte{2}, 32), bytes.Repeat([]byte{3}, 32)
	ts := time.Date(2026, 11, 22, 10, 0, 30, 900_000_000, time.UTC) // the fraction is not signed
	unix := ts.Unix()
	at := func(d time.Duration) *time.Time { x := ts.Add(d); return &x }
	id := domain.EventID("evt_01jd8x0000000000000000000a")
	body := `{"type":"message.read","timestamp":"2026-11-22T10:00:00Z","data":{"text":"héllo & <b>"}}`
	cases := []struct {
		name    string
		secrets []domain.EndpointSecret
		want    []string
	}{
		{"one secret", []domain.EndpointSecret{{Key: current, CreatedAt: ts}}, []string{specSign(current, string(id), unix, body)}},
		{"rotation: both sign, newest first, whatever the stored order",
			[]domain.EndpointSecret{
				{Key: old, CreatedAt: ts.Add(-48 * time.Hour), ExpiresAt: at(time.Hour)},
				{Key: current, CreatedAt: ts.Add(-time.Hour)},
			},
			[]string{specSign(current, string(id), unix, body), specSign(old, string(id), unix, body)}},
		{"an expired secret no longer signs",
			[]domain.EndpointSecret{
				{Key: current, CreatedAt: ts.Add(-time.Hour)},
				{Key: old, CreatedAt: ts.Add(-48 * time.Hour), ExpiresAt: at(-time.Second)},
			},
			[]string{specSign(current, string(id), unix, body)}},
		{"a secret stops signing at its expiry",
			[]domain.EndpointSecret{
				{Key: current, CreatedAt: ts.Add(-time.Hour)},
				{Key: old, CreatedAt: ts.Add(-48 * time.Hour), ExpiresAt: at(0)},
			},
			[]string{specSign(current, string(id), unix, body)}},
		{"two rotations in a day: three sign",
			[]domain.EndpointSecret{
				{Key: oldest, CreatedAt: ts.Add(-72 * time.Hour), ExpiresAt: at(2 * time.Hour)},
				{Key: current, CreatedAt: ts.Add(-time.Minute)},
				{Key: old, CreatedAt: ts.Add(-3 * time.Hour), ExpiresAt: at(23 * time.Hour)},
			},
			[]string{specSign(current, string(id), unix, body), specSign(old, string(id), unix, body), specSign(oldest, string(id), unix, body)}},
		{"none active", []domain.EndpointSecret{{Key: old, ExpiresAt: at(-time.Hour)}}, nil},
		{"none at all", nil, nil},
	}
	for _, c := range cases {
		got := domain.SignWebhook(c.secrets, id, ts, []byte(body))
		if want := strings.Join(c.want, " "); got != want {
			t.Errorf("%s:\n got %q\nwant %q", c.name, got, want)
		}
	}
	// Every byte is covered: another id, time or body signs differently.
	secrets := []domain.EndpointSecret{{Key: current}}
	base := domain.SignWebhook(secrets, id, ts, []byte(body))
	for name, sig := range map[string]string{
		"id":   domain.SignWebhook(secrets, id+"x", ts, []byte(body)),
		"time": domain.SignWebhook(secrets, id, ts.Add(time.Second), []byte(body)),
		"body": domain.SignWebhook(secrets, id, ts, []byte(body+" ")),
	} {
		if sig == base {
			t.Errorf("another %s gives the same signature", name)
		}
	}
}

func TestWebhookSecretText(t *testing.T) {
	t.Parallel()
	key, err := domain.NewWebhookSecretKey(bytes.NewReader(bytes.Repeat([]byte{0xfb}, 40)))
	if err != nil || len(key) != 32 {
		t.Fatalf("NewWebhookSecretKey = %x, %v; want 32 bytes", key, err)
	}
	text := domain.FormatWebhookSecret(key)
	if want := "whsec_" + base64.StdEncoding.EncodeToString(key); text != want {
		t.Fatalf("FormatWebhookSecret = %q, want %q", text, want)
	}
	back, err := domain.ParseWebhookSecret(text)
	if err != nil || !bytes.Equal(back, key) {
		t.Fatalf("ParseWebhookSecret(%q) = %x, %v", text, back, err)
	}
	if _, err := domain.NewWebhookSecretKey(iotest.ErrReader(errors.New("no entropy"))); err == nil {
		t.Error("a failing random source makes a key")
	}
	if _, err := domain.NewWebhookSecretKey(bytes.NewReader(make([]byte, 31))); err == nil {
		t.Error("a short random source makes a key")
	}

	b64 := func(n int) string { return base64.StdEncoding.EncodeToString(bytes.Repeat([]byte{7}, n)) }
	for _, ok := range []string{"whsec_" + b64(24), "whsec_" + b64(32), "whsec_" + b64(64)} {
		if _, err := domain.ParseWebhookSecret(ok); err != nil {
			t.Errorf("ParseWebhookSecret(%q): %v", ok, err)
		}
	}
	for _, bad := range []string{
		"", "whsec_", b64(32), "WHSEC_" + b64(32), "whsk_" + b64(32),
		"whsec_" + b64(23), "whsec_" + b64(65),
		"whsec_" + strings.TrimRight(b64(32), "="), // padding is part of the format
		"whsec_" + b64(32) + " ", " whsec_" + b64(32),
		"whsec_" + strings.ReplaceAll(b64(32), "B", "-"), // URL alphabet
	} {
		_, err := domain.ParseWebhookSecret(bad)
		var de *domain.Error
		if !errors.As(err, &de) || de.Code != domain.CodeInvalidParameter || de.Param != "secret" {
			t.Errorf("ParseWebhookSecret(%q) = %v, want invalid_parameter on secret", bad, err)
		}
	}
}

// TestEndpointSecretHidden: printing a secret, or an endpoint holding
// one, in any form shows no key.
func TestEndpointSecretHidden(t *testing.T) {
	t.Parallel()
	key := bytes.Repeat([]byte{0xab}, 32)
	s := domain.EndpointSecret{Key: key, CreatedAt: t0}
	ep := domain.WebhookEndpoint{ID: "whe_1", Secrets: []domain.EndpointSecret{s}}
	plain := s.Plaintext()
	for _, format := range []string{"%v", "%+v", "%#v", "%s"} {
		for _, v := range []any{s, ep, &ep} {
			out := fmt.Sprintf(format, v)
			if strings.Contains(out, plain[len("whsec_"):]) || strings.Contains(out, "171 171") || strings.Contains(out, "abab") {
				t.Errorf("%s of %T shows the key: %s", format, v, out)
			}
		}
	}
	if plain != "whsec_"+base64.StdEncoding.EncodeToString(key) {
		t.Errorf("Plaintext = %q", plain)
	}
}
