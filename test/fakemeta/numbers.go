package fakemeta

import (
	"net/http"
	"slices"
)

// Number is a business number the fake serves beside its own
// (PhoneNumberID, WABAID, Token, AppSecret): in its own business account,
// of its own Meta app, with its own token. Sends from it need its token;
// their status webhooks name it and its account, and are signed with its
// app's secret.
type Number struct {
	PhoneNumberID      string
	WABAID             string
	AppID              string
	AppSecret          string
	Token              string
	DisplayPhoneNumber string // as Meta formats it, e.g. "+1 631-555-0100"
	VerifiedName       string
	QualityRating      string // GREEN, YELLOW, RED, UNKNOWN
	MessagingLimitTier string // TIER_250 … TIER_UNLIMITED
}

// AddNumber makes another business number known.
func (s *Server) AddNumber(n Number) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.numbers = append(s.numbers, n)
}

// SetQuality changes a known number's quality rating and tier, as
// GET /{waba-id}/phone_numbers then lists them.
func (s *Server) SetQuality(phoneNumberID, rating, tier string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for i := range s.numbers {
		if s.numbers[i].PhoneNumberID == phoneNumberID {
			s.numbers[i].QualityRating, s.numbers[i].MessagingLimitTier = rating, tier
		}
	}
}

// number returns the business number with Meta's id: one added, or the
// fake's own. The caller holds mu.
func (s *Server) numberLocked(phoneNumberID string) (Number, bool) {
	if phoneNumberID == s.PhoneNumberID {
		return Number{PhoneNumberID: s.PhoneNumberID, WABAID: s.WABAID, AppSecret: s.AppSecret, Token: s.Token,
			DisplayPhoneNumber: "+1 555-010-0000", VerifiedName: "Herald Test", QualityRating: "GREEN",
			MessagingLimitTier: "TIER_1K"}, true
	}
	i := slices.IndexFunc(s.numbers, func(n Number) bool { return n.PhoneNumberID == phoneNumberID })
	if i < 0 {
		return Number{}, false
	}
	return s.numbers[i], true
}

// tokenKnownLocked reports whether token is one Meta issued: the fake's or
// an added number's. The caller holds mu.
func (s *Server) tokenKnownLocked(token string) bool {
	return token != "" && (token == s.Token || slices.ContainsFunc(s.numbers, func(n Number) bool { return n.Token == token }))
}

// servePhoneNumbers answers GET /{waba-id}/phone_numbers: the account's
// numbers with their display number, verified name, quality rating and
// messaging-limit tier. The token must be one of the account's numbers'.
func (s *Server) servePhoneNumbers(w http.ResponseWriter, r *http.Request, wabaID string) {
	s.mu.Lock()
	all := append([]Number{}, s.numbers...)
	own, _ := s.numberLocked(s.PhoneNumberID)
	s.mu.Unlock()
	all = append([]Number{own}, all...)
	var data []map[string]any
	authorized := false
	for _, n := range all {
		if n.WABAID != wabaID {
			continue
		}
		if r.Header.Get("Authorization") == "Bearer "+n.Token {
			authorized = true
		}
		data = append(data, map[string]any{"id": n.PhoneNumberID, "display_phone_number": n.DisplayPhoneNumber,
			"verified_name": n.VerifiedName, "quality_rating": n.QualityRating, "messaging_limit_tier": n.MessagingLimitTier,
			"status": "CONNECTED", "throughput": map[string]string{"level": "STANDARD"}})
	}
	if !authorized {
		if data == nil {
			s.fail(w, templateLedger, http.StatusBadRequest, 100, 33, unknownObject("get", wabaID), "GraphMethodException")
			return
		}
		s.fail(w, templateLedger, http.StatusUnauthorized, 190, 0, "Invalid OAuth access token - Cannot parse access token", "OAuthException")
		return
	}
	s.answer(w, templateLedger, http.StatusOK, map[string]any{"data": data, "paging": map[string]any{"cursors": map[string]string{}}})
}
