package whatsapp

import (
	"net/http"
	"time"

	"github.com/heraldhq/herald/domain"
	"github.com/heraldhq/herald/ports"
)

// Classify turns Meta's error code (0 when the answer carried none), the
// HTTP status and Meta's is_transient hint into a handling class and a
// minimum wait. It follows Meta's advice: decide on the code, and fall back
// to the HTTP status only when there is no code.
func Classify(code, status int, transient bool) (ports.SendErrorClass, time.Duration) {
	switch {
	case code == 130429: // throughput reached for this sender number
		return ports.ClassThrottled, time.Second
	case code == 131056: // pair rate limit: this recipient, too often
		return ports.ClassPairLimited, 4 * time.Second
	case code == 190, code == 3, code == 10, code == 131005, code >= 200 && code <= 299:
		return ports.ClassAuth, 0 // token or permission: no use retrying
	case code == 131057: // maintenance, e.g. a throughput upgrade
		return ports.ClassRetryable, 20 * time.Second
	case code == 1, code == 2, code == 4, code == 80007, code == 131000, code == 131016, code == 133004:
		return ports.ClassRetryable, 0
	case code != 0 && transient:
		return ports.ClassRetryable, 0
	case code != 0:
		return ports.ClassPermanent, 0
	}
	// No code: a proxy, a load balancer, a timeout.
	switch {
	case status == http.StatusUnauthorized, status == http.StatusForbidden:
		return ports.ClassAuth, 0
	case status == 0, status >= 500, status == http.StatusTooManyRequests, status == http.StatusRequestTimeout:
		return ports.ClassRetryable, 0
	}
	return ports.ClassPermanent, 0
}

// TemplateStatusFor says what an error code tells about the template: 132015
// is a paused template, 132016 a disabled one. Other codes say nothing (132001,
// "does not exist in this language", may be a typo in the campaign).
func TemplateStatusFor(code int) domain.TemplateStatus {
	switch code {
	case 132015:
		return domain.TemplatePaused
	case 132016:
		return domain.TemplateDisabled
	}
	return domain.TemplateStatus{}
}

// MarketingStopped says whether an error code is Meta's refusal of a
// marketing template to a user who stopped the business's marketing
// messages (131050): what the user_preferences webhook reports, told by a
// send instead.
func MarketingStopped(code int) bool { return code == 131050 }

// MediaRefused reports whether Meta's code says a message's media could
// not be used: 131053 (media upload error: among others, a media id Meta
// no longer has or that belongs to another number) and 131052 (media
// download error).
func MediaRefused(code int) bool { return code == 131053 || code == 131052 }
