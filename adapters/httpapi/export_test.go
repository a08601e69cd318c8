package httpapi

import "github.com/heraldhq/herald/domain"

// StatusFor exposes the status table to the tests.
func StatusFor(code domain.Code) int {
	s, _ := statusFor(code)
	return s
}
