package domain_test

import (
	"errors"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/nyaruka/phonenumbers"

	"github.com/heraldhq/herald/domain"
)

func TestParsePhoneNumberAccepts(t *testing.T) {
	t.Parallel()
	for _, in := range []string{
		"+14155552671",   // US
		"+919876543210",  // India
		"+447911123456",  // UK mobile
		"+5511988887777", // Brazil, São Paulo mobile
		"+4915112345678", // Germany mobile
	} {
		p, err := domain.ParsePhoneNumber(in)
		if err != nil {
			t.Errorf("ParsePhoneNumber(%q): %v", in, err)
			continue
		}
		if p.String() != in || p.IsZero() {
			t.Errorf("ParsePhoneNumber(%q) = %q", in, p)
		}
	}
}

func TestParsePhoneNumberRefuses(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, in, detail string
	}{
		{"empty", "", "the phone number is empty"},
		{"no plus", "14155552671", `must be in E.164 form, starting with "+"`},
		{"double plus", "++14155552671", "only digits"},
		{"spaces", "+1 415 555 2671", `only digits after the "+" (no spaces or punctuation)`},
		{"dashes", "+1-415-555-2671", "only digits"},
		{"parentheses", "+1(415)5552671", "only digits"},
		{"letters", "+1415555CALL", "only digits"},
		{"full-width digits", "+１４１５５５５２６７１", "only digits"},
		{"trailing newline", "+14155552671\n", "only digits"},
		{"plus only", "+", "8 to 15 digits; this one has 0"},
		{"too short", "+1415555", "8 to 15 digits; this one has 7"},
		{"too long", "+1234567890123456", "8 to 15 digits; this one has 16"},
		{"country code starting with 0", "+0123456789", "a country code never starts with 0"},
		{"unknown country code", "+9991234567", "does not start with a known country code"},
		{"too short for its country", "+14155526", "too short for country code +1"},
		{"ten digits for +1", "+1415555267", "too short for country code +1"},
		{"too long for its country", "+4479111234567", "too long for country code +44"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			p, err := domain.ParsePhoneNumber(c.in)
			if !errors.Is(err, domain.ErrInvalidPhoneNumber) {
				t.Fatalf("ParsePhoneNumber(%q) = %q, %v; want invalid_phone_number", c.in, p, err)
			}
			var de *domain.Error
			if !errors.As(err, &de) || de.Param != "phoneNumber" || !strings.Contains(de.Detail, c.detail) {
				t.Fatalf("ParsePhoneNumber(%q): %#v, want param phoneNumber and a detail containing %q", c.in, err, c.detail)
			}
			if !p.IsZero() {
				t.Fatalf("a refused number returned %q", p)
			}
		})
	}
}

func TestMustPhoneNumberPanicsOnBadInput(t *testing.T) {
	t.Parallel()
	defer func() {
		if r := recover(); r == nil {
			t.Fatal("MustPhoneNumber accepted a bad number")
		}
	}()
	domain.MustPhoneNumber("12345")
}

// libphonenumberAccepts is what ParsePhoneNumber decided through
// libphonenumber's parser alone, before it asked the length rules directly:
// the parse succeeds, the country code is assigned, and the number is
// possible for it.
func libphonenumberAccepts(s string) bool {
	num, err := phonenumbers.Parse(s, "")
	return err == nil && phonenumbers.GetRegionCodeForCountryCode(int(num.GetCountryCode())) != phonenumbers.UNKNOWN_REGION &&
		phonenumbers.IsPossibleNumberWithReason(num) == phonenumbers.IS_POSSIBLE
}

// ParsePhoneNumber accepts exactly the numbers libphonenumber's parser
// accepts, for every assigned country code and every length E.164 allows,
// national numbers starting with each digit included (national prefixes,
// Italian leading zeros). Three numbers per code and length keep the test
// quick under the race detector; the same comparison over 300 per code,
// length and leading digit (5.9 million numbers) found no difference either.
func TestParsePhoneNumberAgreesWithLibphonenumber(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(7, 11))
	codes := []int{}
	for cc := range phonenumbers.GetSupportedCallingCodes() {
		codes = append(codes, cc)
	}
	slices.Sort(codes)
	checked, accepted := 0, 0
	for _, cc := range codes {
		prefix := strconv.Itoa(cc)
		for total := 8; total <= 15; total++ {
			for k := range 3 {
				// Over a code's eight lengths, every leading digit of the
				// national number comes up at least twice.
				national := []byte{byte('0' + (3*total+k)%10)}
				for len(prefix)+len(national) < total {
					national = append(national, byte('0'+rng.IntN(10)))
				}
				in := "+" + prefix + string(national)
				_, err := domain.ParsePhoneNumber(in)
				if want := libphonenumberAccepts(in); (err == nil) != want {
					t.Errorf("ParsePhoneNumber(%q): %v; libphonenumber's parser accepts it: %v", in, err, want)
				}
				checked++
				if err == nil {
					accepted++
				}
			}
		}
	}
	// Both verdicts must have been exercised for the comparison to mean
	// anything.
	if accepted == 0 || accepted == checked {
		t.Fatalf("%d of %d numbers accepted", accepted, checked)
	}
}
