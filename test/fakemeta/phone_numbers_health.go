package fakemeta

import "net/http"

// serveNumber answers GET /{phone-number-id}: a known number's default
// fields and its health (quality_rating, and its business's messaging
// limit as whatsapp_business_manager_messaging_limit and the deprecated
// messaging_limit_tier; SetQuality changes them). The token must be the
// number's own.
func (s *Server) serveNumber(w http.ResponseWriter, r *http.Request, id string) {
	s.mu.Lock()
	n, ok := s.numberLocked(id)
	s.mu.Unlock()
	switch {
	case !ok:
		s.fail(w, templateLedger, http.StatusBadRequest, 100, 33, unknownObject("get", id), "GraphMethodException")
		return
	case r.Header.Get("Authorization") != "Bearer "+n.Token:
		s.fail(w, templateLedger, http.StatusUnauthorized, 190, 0, "Invalid OAuth access token - Cannot parse access token", "OAuthException")
		return
	}
	s.answer(w, templateLedger, http.StatusOK, map[string]any{"id": n.PhoneNumberID, "display_phone_number": n.DisplayPhoneNumber,
		"verified_name": n.VerifiedName, "quality_rating": n.QualityRating, "messaging_limit_tier": n.MessagingLimitTier,
		"whatsapp_business_manager_messaging_limit": n.MessagingLimitTier})
}
