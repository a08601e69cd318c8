package domain

import (
	"strconv"

	"github.com/nyaruka/phonenumbers"
)

// PhoneNumber is a phone number in E.164 form: "+", a country code and the
// national number, 8 to 15 digits in all, and possible for its country.
type PhoneNumber struct{ e164 string }

// ParsePhoneNumber checks E.164 syntax and then whether the number is possible
// for its country. The error says which check failed.
func ParsePhoneNumber(s string) (PhoneNumber, error) {
	bad := func(why string) error {
		return &Error{Code: CodeInvalidPhoneNumber, Param: "phoneNumber", Detail: why}
	}
	if s == "" {
		return PhoneNumber{}, bad("the phone number is empty")
	}
	if s[0] != '+' {
		return PhoneNumber{}, bad(`the phone number must be in E.164 form, starting with "+" and the country code`)
	}
	digits := s[1:]
	for i := 0; i < len(digits); i++ {
		if digits[i] < '0' || digits[i] > '9' {
			return PhoneNumber{}, bad("the phone number may contain only digits after the \"+\" (no spaces or punctuation)")
		}
	}
	if len(digits) < 8 || len(digits) > 15 {
		return PhoneNumber{}, bad("an E.164 number has 8 to 15 digits; this one has " + strconv.Itoa(len(digits)))
	}
	if digits[0] == '0' {
		return PhoneNumber{}, bad("a country code never starts with 0")
	}
	num, err := phonenumbers.Parse(s, "")
	if err != nil {
		return PhoneNumber{}, bad("the number does not start with a known country code")
	}
	if phonenumbers.GetRegionCodeForCountryCode(int(num.GetCountryCode())) == "ZZ" {
		return PhoneNumber{}, bad("the number does not start with a known country code")
	}
	switch phonenumbers.IsPossibleNumberWithReason(num) {
	case phonenumbers.IS_POSSIBLE:
	case phonenumbers.TOO_SHORT, phonenumbers.IS_POSSIBLE_LOCAL_ONLY:
		// A number dialable only from inside its area is not a whole
		// international number: WhatsApp cannot reach it.
		return PhoneNumber{}, bad("the number is too short for country code +" + strconv.Itoa(int(num.GetCountryCode())))
	case phonenumbers.TOO_LONG:
		return PhoneNumber{}, bad("the number is too long for country code +" + strconv.Itoa(int(num.GetCountryCode())))
	case phonenumbers.INVALID_COUNTRY_CODE:
		return PhoneNumber{}, bad("the number does not start with a known country code")
	default:
		return PhoneNumber{}, bad("the number is not a possible number for country code +" + strconv.Itoa(int(num.GetCountryCode())))
	}
	return PhoneNumber{e164: s}, nil
}

// MustPhoneNumber parses s or panics; for tests and fixtures only.
func MustPhoneNumber(s string) PhoneNumber {
	p, err := ParsePhoneNumber(s)
	if err != nil {
		panic(err)
	}
	return p
}

// UnmarshalPhoneNumberFromStore rebuilds a number read from storage, which was
// validated when it was written. It is not a constructor.
func UnmarshalPhoneNumberFromStore(s string) PhoneNumber { return PhoneNumber{e164: s} }

// String is the E.164 form, "+" included.
func (p PhoneNumber) String() string { return p.e164 }

// IsZero reports whether p is the zero value.
func (p PhoneNumber) IsZero() bool { return p.e164 == "" }
