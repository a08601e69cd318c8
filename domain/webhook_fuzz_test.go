package domain_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/heraldhq/herald/domain"
)

// FuzzCheckWebhookURL: CheckWebhookURL never panics and accepts what
// CheckMediaURL accepts under the same policy, fragments apart, so what it
// accepts has the properties FuzzCheckMediaURL checks; a refusal is
// invalid_webhook_url on url.
func FuzzCheckWebhookURL(f *testing.F) {
	for _, s := range []string{"https://hooks.example.com/herald", "http://hooks.example.com/h", "https://127.1/",
		"https://hooks.example.com/h#frag", "https://[::ffff:10.0.0.1]/", "https://u@example.com/", "https://８.８.８.８/"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		for _, allowHTTP := range []bool{false, true} {
			err := domain.CheckWebhookURL(raw, domain.WebhookPolicy{AllowHTTP: allowHTTP})
			media := domain.CheckMediaURL(raw, domain.MediaPolicy{AllowHTTP: allowHTTP})
			if err == nil {
				if media != nil || strings.Contains(raw, "#") {
					t.Fatalf("accepted %q (http %v), which a media header URL may not be (%v) or which has a fragment", raw, allowHTTP, media)
				}
				schemes := []string{"https"}
				if allowHTTP {
					schemes = append(schemes, "http")
				}
				checkAcceptedMediaURL(t, raw, schemes...)
				continue
			}
			var de *domain.Error
			if !errors.As(err, &de) || de.Code != domain.CodeInvalidWebhookURL || de.Param != "url" || de.Detail == "" {
				t.Fatalf("refused %q with %#v, want invalid_webhook_url on url with a reason", raw, err)
			}
			if media == nil && !strings.Contains(raw, "#") {
				t.Fatalf("refused %q (http %v), which a media header URL may be: %v", raw, allowHTTP, err)
			}
		}
	})
}
