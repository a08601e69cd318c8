package httpapi

import (
	"net/http"
	"testing"
	"time"

	"github.com/heraldhq/herald/domain"
)

// BenchmarkDecodeAndValidate is the request-side work of send-campaign
// before storage: strict decoding, then the phone number and variables.
func BenchmarkDecodeAndValidate(b *testing.B) {
	body := []byte(`{"phoneNumber":"+14155552671","campaignId":"cmp_01m81bkykc0s1bgwft8hc4jsfp","variables":["Ana","1234"]}`)
	tmpl, err := domain.NewTemplate("welcome", "en_US", domain.HeaderNone, "", "Hi {{1}}, your code is {{2}}", "", nil)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		var in sendCampaignRequest
		if derr := decodeStrict(body, sendCampaignSpec, &in); derr != nil {
			b.Fatal(derr)
		}
		if _, err := domain.ParsePhoneNumber(in.PhoneNumber); err != nil {
			b.Fatal(err)
		}
		if err := tmpl.CheckVariables(in.Variables); err != nil {
			b.Fatal(err)
		}
		_ = tmpl.Render(in.Variables)
	}
}

// BenchmarkRateLimit is what the per-key bucket adds to every keyed
// request: finding the key's bucket, taking a token and writing the two
// RateLimit headers. Compare with BenchmarkDecodeAndValidate.
func BenchmarkRateLimit(b *testing.B) {
	keys := newBuckets(1e9, 1<<30)
	h := http.Header{}
	now := time.Now()
	b.ReportAllocs()
	for b.Loop() {
		wait, lim := keys.take("key_01m81bkykc0s1bgwft8hc4jsfp", now)
		keys.setRateLimitHeaders(h, lim, now, wait)
	}
}
