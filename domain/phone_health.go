package domain

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// The messaging limit tiers Meta documents (business_number.go defines
// MessagingTier): TIER_1K is the older name of the step below 10K, TIER_2K
// the current one.
const (
	Tier50        MessagingTier = "TIER_50"
	Tier250       MessagingTier = "TIER_250"
	Tier1K        MessagingTier = "TIER_1K"
	Tier2K        MessagingTier = "TIER_2K"
	Tier10K       MessagingTier = "TIER_10K"
	Tier100K      MessagingTier = "TIER_100K"
	TierUnlimited MessagingTier = "TIER_UNLIMITED"
)

// tierLimits is how many unique recipients each tier allows in the moving
// 24 hours; 0 is no limit.
var tierLimits = []struct {
	tier  MessagingTier
	limit int
}{{Tier50, 50}, {Tier250, 250}, {Tier1K, 1000}, {Tier2K, 2000}, {Tier10K, 10000}, {Tier100K, 100000}, {TierUnlimited, 0}}

// ParseMessagingTier reads a tier as Meta writes it: a TIER_* name (any
// case), or the number of recipients it allows, which one of Meta's
// schemas types as an integer (250, 2000, …; -1 is unlimited). Anything
// else is invalid_parameter.
func ParseMessagingTier(s string) (MessagingTier, error) {
	s = strings.ToUpper(strings.Trim(strings.TrimSpace(s), `"`))
	n, numErr := strconv.Atoi(s)
	for _, t := range tierLimits {
		switch {
		case s == string(t.tier),
			numErr == nil && n < 0 && t.tier == TierUnlimited,
			numErr == nil && n > 0 && n == t.limit:
			return t.tier, nil
		}
	}
	return "", InvalidParameter("messagingLimitTier",
		"a messaging limit tier is TIER_250, TIER_2K, TIER_10K, TIER_100K or TIER_UNLIMITED")
}

// TierLimit is how many unique recipients tier allows in 24 hours, and
// false when it sets no limit Herald knows (unlimited, not read yet, or a
// tier Meta named that Herald does not know).
func TierLimit(tier MessagingTier) (int, bool) {
	for _, t := range tierLimits {
		if t.tier == tier {
			return t.limit, t.limit > 0
		}
	}
	return 0, false
}

// PhoneHealth is what Meta last said of a business number's health: its
// quality rating and its (portfolio's) messaging limit tier, each with the
// time it was learnt. Number is Meta's phone number id.
type PhoneHealth struct {
	Number    string
	Quality   QualityRating
	QualityAt time.Time
	Tier      MessagingTier
	TierAt    time.Time
}

// HealthSource is where a health reading came from: Meta's phone numbers
// endpoint (read at start and periodically) or one of its webhooks.
type HealthSource string

// The health sources.
const (
	HealthFromRead    HealthSource = "read"
	HealthFromWebhook HealthSource = "webhook"
)

// ParseHealthSource parses a stored source.
func ParseHealthSource(s string) (HealthSource, error) {
	switch h := HealthSource(s); h {
	case HealthFromRead, HealthFromWebhook:
		return h, nil
	}
	return "", fmt.Errorf("unknown health source %q", s)
}

func (s HealthSource) String() string { return string(s) }

// HealthChange is one change of a number's quality rating or tier, kept
// with its time: the number's health history. Previous values are zero
// when nothing was known before.
type HealthChange struct {
	Number          string
	Quality         QualityRating
	PreviousQuality QualityRating
	Tier            MessagingTier
	PreviousTier    MessagingTier
	Source          HealthSource
	// Event is Meta's name for what happened (a webhook's event, such as
	// FLAGGED or UPGRADE); empty for a read.
	Event string
	At    time.Time
}

// HealthReading is what Meta said of a number at one time: a quality
// rating, a tier, or both (a zero field was not said).
type HealthReading struct {
	Quality QualityRating
	Tier    MessagingTier
	Source  HealthSource
	Event   string
	At      time.Time
}

// Apply records r on h. It returns the change it made and true, or false
// when r says nothing new (the same rating and tier, or nothing at all).
// A reading older than what h holds for a field does not change that
// field: a late webhook does not undo a newer read. Meta's webhooks give
// whole seconds, so a reading in the same second as the one held counts
// as newer.
func (h *PhoneHealth) Apply(r HealthReading) (HealthChange, bool) {
	at := r.At.UTC().Truncate(time.Microsecond)
	ch := HealthChange{Number: h.Number, Source: r.Source, Event: r.Event, At: at,
		Quality: h.Quality, PreviousQuality: h.Quality, Tier: h.Tier, PreviousTier: h.Tier}
	changed := false
	if r.Quality != "" && r.Quality != h.Quality && !at.Before(h.QualityAt.Truncate(time.Second)) {
		h.Quality, h.QualityAt, ch.Quality = r.Quality, at, r.Quality
		changed = true
	}
	if r.Tier != "" && r.Tier != h.Tier && !at.Before(h.TierAt.Truncate(time.Second)) {
		h.Tier, h.TierAt, ch.Tier = r.Tier, at, r.Tier
		changed = true
	}
	return ch, changed
}

// TurnedRed reports whether the change took the number's quality to RED
// from anything else: the moment the number's marketing campaigns pause.
func (c HealthChange) TurnedRed() bool {
	return c.Quality == QualityRed && c.PreviousQuality != QualityRed
}

// QualityChanged reports whether the change moved the quality rating.
func (c HealthChange) QualityChanged() bool { return c.Quality != c.PreviousQuality }

// MessagingWindow is the moving period over which Meta counts the unique
// recipients of a portfolio's business-initiated templates.
const MessagingWindow = 24 * time.Hour

// CodeMessagingLimitReached refuses a marketing send that would reach one
// more unique recipient than the portfolio's messaging limit tier allows
// in the moving 24 hours.
const CodeMessagingLimitReached Code = "messaging_limit_reached"

// ErrMessagingLimitReached matches every messaging_limit_reached refusal.
var ErrMessagingLimitReached = &Error{Code: CodeMessagingLimitReached}

// MessagingLimitError refuses a marketing send past the tier: the send may
// be made again from FreesAt, when the oldest recipient of the window
// leaves it. It unwraps to its RetryableError and *Error.
type MessagingLimitError struct {
	RetryableError
	Tier    MessagingTier
	FreesAt time.Time
}

// Unwrap returns the retryable error, which carries Retry-After.
func (e *MessagingLimitError) Unwrap() error { return &e.RetryableError }

// MessagingLimitReached refuses a marketing send: the portfolio has reached
// tier's count of unique recipients in the moving 24 hours, and a
// recipient's place frees up at freesAt (now when it is not known).
func MessagingLimitReached(tier MessagingTier, freesAt, now time.Time) *MessagingLimitError {
	if freesAt.Before(now) {
		freesAt = now
	}
	limit, _ := TierLimit(tier)
	freesAt = freesAt.UTC()
	if t := freesAt.Truncate(time.Second); t.Before(freesAt) {
		freesAt = t.Add(time.Second) // Retry-After is whole seconds, rounded up
	}
	return &MessagingLimitError{Tier: tier, FreesAt: freesAt, RetryableError: RetryableError{After: freesAt.Sub(now),
		Err: &Error{Code: CodeMessagingLimitReached, Param: "phoneNumber",
			Detail: fmt.Sprintf("the sending number's business has reached its messaging limit (%s: %d unique recipients in a moving 24 hours); marketing sends to new recipients resume at %s",
				tier, limit, freesAt.Format(time.RFC3339))}}}
}

// PauseReason is why Herald paused a campaign by itself; the empty reason
// is a pause by a person (or no pause).
type PauseReason string

// PausedQualityRed: the campaign is marketing and its number's quality
// rating turned RED (HERALD_PAUSE_ON_RED).
const PausedQualityRed PauseReason = "quality_red"

// ParsePauseReason parses a stored reason; the empty string is none.
func ParsePauseReason(s string) (PauseReason, error) {
	switch r := PauseReason(s); r {
	case "", PausedQualityRed:
		return r, nil
	}
	return "", fmt.Errorf("unknown pause reason %q", s)
}

func (r PauseReason) String() string { return string(r) }

// IsZero reports whether there is no reason.
func (r PauseReason) IsZero() bool { return r == "" }
