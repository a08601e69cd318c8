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
	if isPossibleE164(digits) {
		return PhoneNumber{e164: s}, nil
	}
	// Not possible as written: libphonenumber's parser decides (it strips a
	// national prefix written after the country code) and says why it refuses.
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

// isPossibleE164 reports whether digits, an E.164 number without its "+"
// that has passed the syntax checks, is possible for its country, asking
// libphonenumber's length rules directly rather than through its parser.
// The parser takes free text (spaces, letters, extensions, national forms)
// and costs over thirty times as much; a strict E.164 number needs none of
// that. Country calling codes are a prefix code, so at most one of the first
// one to three digits is an assigned code, and the rest is the national
// significant number, its leading zeros kept as the parser keeps them.
//
// A number this accepts, the parser accepts too (the tests compare the two
// over every country code); a number it refuses goes through the parser,
// which may still accept it (a national prefix written after the country
// code, say) and otherwise says why it is refused.
func isPossibleE164(digits string) bool {
	for n := 1; n <= 3; n++ {
		cc, _ := strconv.Atoi(digits[:n])
		if phonenumbers.GetRegionCodeForCountryCode(cc) == phonenumbers.UNKNOWN_REGION {
			continue
		}
		national := digits[n:]
		nn, _ := strconv.ParseUint(national, 10, 64)
		cc32 := int32(cc)
		num := &phonenumbers.PhoneNumber{CountryCode: &cc32, NationalNumber: &nn}
		if national[0] == '0' {
			zeros := int32(1)
			for int(zeros) < len(national)-1 && national[zeros] == '0' {
				zeros++
			}
			leading := true
			num.ItalianLeadingZero, num.NumberOfLeadingZeros = &leading, &zeros
		}
		return phonenumbers.IsPossibleNumberWithReason(num) == phonenumbers.IS_POSSIBLE
	}
	return false
}
