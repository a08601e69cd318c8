package domain_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/heraldhq/herald/domain"
)

func TestParsePhoneNumber(t *testing.T) {
	t.Parallel()
	for _, ok := range []string{"+14155552671", "+919876543210", "+447911123456", "+5511988887777"} {
		p, err := domain.ParsePhoneNumber(ok)
		if err != nil || p.String() != ok {
			t.Errorf("%s: %v", ok, err)
		}
	}
	for in, why := range map[string]string{
		"":                  "empty",
		"14155552671":       `starting with "+"`,
		"+1 415 555 2671":   "only digits",
		"+1-415-555-2671":   "only digits",
		"+1415555CALL":      "only digits",
		"+1415":             "8 to 15 digits",
		"+1234567890123456": "8 to 15 digits",
		"+0123456789":       "never starts with 0",
		"+9991234567":       "known country code",
		"+14155526":         "too short for country code +1",
	} {
		_, err := domain.ParsePhoneNumber(in)
		if !errors.Is(err, domain.ErrInvalidPhoneNumber) || !strings.Contains(err.Error(), why) {
			t.Errorf("%q: %v, want a reason containing %q", in, err, why)
		}
	}
}
