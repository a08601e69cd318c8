package whatsapp_test

import (
	"strings"
	"testing"

	"github.com/heraldhq/herald/adapters/whatsapp"
	"github.com/heraldhq/herald/domain"
	"github.com/heraldhq/herald/ports"
	"github.com/heraldhq/herald/test/fakemeta"
)

// TestReadNumberHealth reads a number's quality and its business's tier
// from the fake's phone numbers endpoint: the configured number with the
// configured token, another with its own; an unknown number or a wrong
// token is an error that never quotes the token.
func TestReadNumberHealth(t *testing.T) {
	t.Parallel()
	fake := fakemeta.New(t)
	c := whatsapp.New(whatsapp.Config{APIURL: fake.URL, AccessToken: fake.Token, PhoneNumberID: fake.PhoneNumberID})
	got, err := c.ReadNumberHealth(t.Context(), ports.NumberCredentials{PhoneNumberID: fake.PhoneNumberID})
	if err != nil || got != (domain.HealthReading{Quality: domain.QualityGreen, Tier: domain.Tier1K, Source: domain.HealthFromRead}) {
		t.Fatalf("the configured number: %+v %v", got, err)
	}
	fake.AddNumber(fakemeta.Number{PhoneNumberID: "1999", WABAID: "2999", Token: "EAAnumber1999", QualityRating: "GREEN",
		MessagingLimitTier: "TIER_2K"})
	fake.SetQuality("1999", "RED", "TIER_250")
	got, err = c.ReadNumberHealth(t.Context(), ports.NumberCredentials{PhoneNumberID: "1999", AccessToken: "EAAnumber1999"})
	if err != nil || got.Quality != domain.QualityRed || got.Tier != domain.Tier250 {
		t.Fatalf("another number: %+v %v", got, err)
	}
	if _, err := c.ReadNumberHealth(t.Context(), ports.NumberCredentials{PhoneNumberID: "1998", AccessToken: "EAAnumber1999"}); err == nil {
		t.Fatal("an unknown number read")
	}
	_, err = c.ReadNumberHealth(t.Context(), ports.NumberCredentials{PhoneNumberID: "1999", AccessToken: "EAAwrong-token"})
	if err == nil || strings.Contains(err.Error(), "EAAwrong-token") {
		t.Fatalf("a wrong token: %v", err)
	}
	if _, err := c.ReadNumberHealth(t.Context(), ports.NumberCredentials{PhoneNumberID: "1999"}); err == nil {
		t.Fatal("another number read with the configured token")
	}
}
