package domain_test

import (
	"errors"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/heraldhq/herald/domain"
)

func TestErrorsCompareByCode(t *testing.T) {
	t.Parallel()
	err := fmt.Errorf("sqlstore: get campaign: %w",
		&domain.Error{Code: domain.CodeCampaignNotFound, Param: "campaignId", Detail: "something else entirely"})
	if !errors.Is(err, domain.ErrCampaignNotFound) {
		t.Error("errors.Is does not match the same code with another param and detail")
	}
	if errors.Is(err, domain.ErrContactNotFound) || errors.Is(err, domain.ErrInvalidParameter) {
		t.Error("errors.Is matches another code")
	}
	if errors.Is(err, errors.New(string(domain.CodeCampaignNotFound))) {
		t.Error("errors.Is matches a plain error with the code as text")
	}
	var de *domain.Error
	if !errors.As(err, &de) || de.Param != "campaignId" {
		t.Error("errors.As does not reach the domain error")
	}
}

func TestErrorText(t *testing.T) {
	t.Parallel()
	cases := []struct {
		err  *domain.Error
		want string
	}{
		{&domain.Error{Code: domain.CodeConflict}, "conflict"},
		{&domain.Error{Code: domain.CodeConflict, Detail: "taken"}, "conflict: taken"},
		{domain.InvalidParameter("limit", "too big"), "invalid_parameter (limit): too big"},
	}
	for _, c := range cases {
		if got := c.err.Error(); got != c.want {
			t.Errorf("Error() = %q, want %q", got, c.want)
		}
	}
}

func TestVariablesMismatchWording(t *testing.T) {
	t.Parallel()
	cases := []struct {
		want, got int
		detail    string
	}{
		{2, 1, "the template has 2 placeholders but 1 variable was given"},
		{1, 2, "the template has 1 placeholder but 2 variables were given"},
		{1, 0, "the template has 1 placeholder but 0 variables were given"},
		{0, 1, "the template has 0 placeholders but 1 variable was given"},
		{3, 5, "the template has 3 placeholders but 5 variables were given"},
	}
	for _, c := range cases {
		err := domain.VariablesMismatch(c.want, c.got)
		if err.Code != domain.CodeVariablesMismatch || err.Param != "variables" || err.Detail != c.detail {
			t.Errorf("VariablesMismatch(%d, %d) = %+v, want variables_mismatch on variables saying %q", c.want, c.got, err, c.detail)
		}
	}
	if d := domain.VariableInvalid(3, "is empty").Detail; d != "variable {{3}} is empty" {
		t.Errorf("VariableInvalid detail %q", d)
	}
}

func TestCodes(t *testing.T) {
	t.Parallel()
	snake := regexp.MustCompile(`^[a-z]+(_[a-z]+)*$`)
	seen := map[domain.Code]bool{}
	for _, c := range domain.Codes() {
		if seen[c] {
			t.Errorf("code %s listed twice", c)
		}
		seen[c] = true
		if !snake.MatchString(string(c)) {
			t.Errorf("code %q is not snake_case", c)
		}
	}
	// Every sentinel's code is listed, so the HTTP adapter maps each.
	for _, s := range []*domain.Error{
		domain.ErrInvalidAPIKey, domain.ErrInvalidPhoneNumber, domain.ErrCampaignNotFound, domain.ErrContactNotFound,
		domain.ErrMessageNotFound, domain.ErrKeyNotFound, domain.ErrWorkspaceNotFound, domain.ErrCampaignNotActive,
		domain.ErrContactOptedOut, domain.ErrVariablesMismatch, domain.ErrMediaHeaderRequired, domain.ErrMediaHeaderNotAllowed,
		domain.ErrInvalidMediaURL, domain.ErrUnsupportedMediaFmt, domain.ErrMediaUnreachable, domain.ErrInvalidParameter,
		domain.ErrInvalidTransition, domain.ErrConflict, domain.ErrWebhookEndpointNotFound, domain.ErrEventNotFound,
		domain.ErrInvalidWebhookURL, domain.ErrInvalidEventType,
	} {
		if !seen[s.Code] {
			t.Errorf("sentinel code %s is missing from Codes()", s.Code)
		}
	}
	// The design's wire codes that the domain owns (issue 26's included).
	for _, c := range []domain.Code{"invalid_api_key", "invalid_phone_number", "campaign_not_found", "contact_not_found",
		"message_not_found", "campaign_not_active", "contact_opted_out", "variables_mismatch", "media_header_required",
		"media_header_not_allowed", "invalid_media_url", "unsupported_media_format", "media_unreachable",
		"webhook_endpoint_not_found", "event_not_found", "invalid_webhook_url"} {
		if !seen[c] {
			t.Errorf("DESIGN's code %s is missing from Codes()", c)
		}
	}
}

func TestNotFoundKeepsTheSentinelDetail(t *testing.T) {
	t.Parallel()
	err := domain.NotFound(domain.ErrMessageNotFound)
	if err == domain.ErrMessageNotFound || *err != *domain.ErrMessageNotFound {
		t.Fatalf("NotFound = %+v, want a copy of the sentinel", err)
	}
	err.Param = "id" // a copy: the sentinel is untouched
	if domain.ErrMessageNotFound.Param != "" {
		t.Fatal("NotFound returned the sentinel itself")
	}
}

func TestKeyAuthErrorIsInvalidAPIKeyOnTheWire(t *testing.T) {
	t.Parallel()
	_, err := domain.ParseToken("sk_live_short")
	var de *domain.Error
	if !errors.As(err, &de) || de.Code != domain.CodeInvalidAPIKey || de.Detail != "the API key is not valid" {
		t.Fatalf("errors.As(%v) = %+v, want the invalid_api_key sentinel with its generic detail", err, de)
	}
	if err.Error() != "invalid api key: token has the wrong length" {
		t.Fatalf("Error() = %q, want the reason for the log", err.Error())
	}
}

// TestIsNotFound: every code that names a missing object is a not-found
// error, wrapped or not, whatever its detail; no other code is.
func TestIsNotFound(t *testing.T) {
	t.Parallel()
	for _, c := range domain.Codes() {
		err := fmt.Errorf("reading: %w", &domain.Error{Code: c, Detail: "any"})
		if want := strings.HasSuffix(string(c), "_not_found"); domain.IsNotFound(err) != want {
			t.Errorf("IsNotFound(%s) = %v, want %v", c, !want, want)
		}
	}
	for _, err := range []error{nil, errors.New("campaign_not_found"), domain.ErrConflict} {
		if domain.IsNotFound(err) {
			t.Errorf("IsNotFound(%v) = true, want false", err)
		}
	}
}
