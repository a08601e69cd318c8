package fakemeta

import (
	"encoding/json"
	"net/http"
	"sync"
)

// numberHealth is what the fake's phone numbers endpoint says of a number.
type numberHealth struct{ quality, tier string }

// healthOf holds each server's numbers' health, apart from Server's own
// fields.
var healthOf sync.Map // *Server → *healthBook

type healthBook struct {
	mu      sync.Mutex
	numbers map[string]numberHealth
}

func (s *Server) healthBook() *healthBook {
	b, _ := healthOf.LoadOrStore(s, &healthBook{numbers: map[string]numberHealth{}})
	return b.(*healthBook)
}

// SetNumberHealth sets what GET /{phone-number-id} answers for the number:
// its quality_rating (GREEN, YELLOW, RED, UNKNOWN) and its business's
// messaging limit (TIER_*), as whatsapp_business_manager_messaging_limit
// and the deprecated messaging_limit_tier. A number never set answers
// GREEN and TIER_2K; the server's own number is always known.
func (s *Server) SetNumberHealth(phoneNumberID, quality, tier string) {
	b := s.healthBook()
	b.mu.Lock()
	b.numbers[phoneNumberID] = numberHealth{quality, tier}
	b.mu.Unlock()
}

// serveNumber answers GET /{phone-number-id}: the number's default fields
// and its health, for the server's number or one given health.
func (s *Server) serveNumber(w http.ResponseWriter, r *http.Request, id string) {
	if r.Header.Get("Authorization") != "Bearer "+s.Token {
		s.fail(w, sendLedger, http.StatusUnauthorized, 190, 0, "Invalid OAuth access token - Cannot parse access token", "OAuthException")
		return
	}
	b := s.healthBook()
	b.mu.Lock()
	h, ok := b.numbers[id]
	b.mu.Unlock()
	if !ok && id != s.PhoneNumberID {
		s.fail(w, sendLedger, http.StatusBadRequest, 100, 33, unknownObject("get", id), "GraphMethodException")
		return
	}
	if !ok {
		h = numberHealth{"GREEN", "TIER_2K"}
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(map[string]string{"id": id, "display_phone_number": "+1 555-078-3881",
		"verified_name": "Herald Test", "quality_rating": h.quality, "messaging_limit_tier": h.tier,
		"whatsapp_business_manager_messaging_limit": h.tier})
}
