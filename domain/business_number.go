package domain

import (
	"slices"
	"strings"
	"time"
	"unicode/utf8"
)

// BusinessNumberID identifies one of the WhatsApp business numbers Herald
// sends from ("pn_…"). It is Herald's id; Meta's id of the number is
// BusinessNumber.MetaID.
type BusinessNumberID string

// PrefixBusinessNumber is the prefix of business number ids.
const PrefixBusinessNumber = "pn"

// ParseBusinessNumberID validates a number id; a malformed id names no
// number.
func ParseBusinessNumberID(s string) (BusinessNumberID, error) {
	if !validID(PrefixBusinessNumber, s) {
		return "", NotFound(ErrPhoneNumberNotFound)
	}
	return BusinessNumberID(s), nil
}

// NumberStatus says whether Herald sends from a number.
type NumberStatus struct{ s string }

// The number statuses: an active number sends; a disabled one is kept (its
// campaigns, messages and webhook routing stay) but sends nothing and is
// offered to no workspace.
var (
	NumberActive   = NumberStatus{"active"}
	NumberDisabled = NumberStatus{"disabled"}
)

// ParseNumberStatus parses a stored or requested status.
func ParseNumberStatus(s string) (NumberStatus, error) {
	switch s {
	case "active":
		return NumberActive, nil
	case "disabled":
		return NumberDisabled, nil
	}
	return NumberStatus{}, InvalidParameter("status", `status must be "active" or "disabled"`)
}

func (s NumberStatus) String() string { return s.s }

// IsZero reports whether s is the zero value.
func (s NumberStatus) IsZero() bool { return s.s == "" }

// QualityRating is Meta's rating of a number's recent messages: GREEN,
// YELLOW, RED, or UNKNOWN (Meta also writes NA). The empty rating means
// Herald has not read it yet.
type QualityRating string

// The quality ratings Meta reports.
const (
	QualityGreen   QualityRating = "GREEN"
	QualityYellow  QualityRating = "YELLOW"
	QualityRed     QualityRating = "RED"
	QualityUnknown QualityRating = "UNKNOWN"
)

// ParseQualityRating reads a rating as Meta writes it; NA and anything
// Herald does not know are UNKNOWN, and the empty string stays empty (not
// read yet).
func ParseQualityRating(s string) QualityRating {
	switch q := QualityRating(strings.ToUpper(strings.TrimSpace(s))); q {
	case "":
		return ""
	case QualityGreen, QualityYellow, QualityRed:
		return q
	}
	return QualityUnknown
}

// MessagingTier is the messaging limit of a number's business portfolio as
// Meta reports it (TIER_250, TIER_2K, TIER_10K, TIER_100K, TIER_UNLIMITED;
// older answers TIER_50 and TIER_1K). The empty tier means Herald has not
// read it yet. It is kept as Meta writes it.
type MessagingTier string

// MaxNumberMPS is the highest pace a number may be given: Meta's high
// throughput level.
const MaxNumberMPS = 1000

// BusinessNumber is one WhatsApp business phone number Herald sends from:
// Meta's id for it, its WhatsApp Business Account and Meta app, its access
// token (sealed: never held in clear outside the use that sends), its pace
// and the workspaces that may use it. Quality and Tier are filled from
// Meta (the phone numbers endpoint and account webhooks).
type BusinessNumber struct {
	ID            BusinessNumberID
	MetaID        string // Meta's phone_number_id, digits
	DisplayNumber string // as Meta shows it, e.g. "+1 631-555-5555"
	VerifiedName  string
	WABAID        string // the WhatsApp Business Account, digits
	AppID         string // the Meta app the account is subscribed to, digits; "" when unknown
	// AccessToken is the Cloud API token, sealed; TokenHint is its last
	// four characters, the most that is ever shown.
	AccessToken SealedSecret
	TokenHint   string
	MPS         int // messages per second; 0 is the server's default (HERALD_WHATSAPP_MPS)
	// AllWorkspaces offers the number to every workspace; otherwise only
	// Workspaces may use it.
	AllWorkspaces bool
	Workspaces    []WorkspaceID
	Status        NumberStatus
	Quality       QualityRating
	Tier          MessagingTier
	// HealthCheckedAt is when Quality and Tier were last read from Meta;
	// zero when never.
	HealthCheckedAt time.Time
	CreatedAt       time.Time
	UpdatedAt       time.Time
}

// NumberSpec is what an operator says of a number. Token is the access
// token in clear, which the caller seals (it is never stored so).
type NumberSpec struct {
	MetaID        string
	DisplayNumber string
	VerifiedName  string
	WABAID        string
	AppID         string
	MPS           int
	AllWorkspaces bool
	Workspaces    []WorkspaceID
}

// Check validates the spec: Meta's ids are plain tokens that fit in a URL
// path (Meta's are digits; the account's and the app's may be absent), the names are plain text of a sensible length, the pace is
// within Meta's limits, and a number is offered to every workspace or to
// some.
func (s NumberSpec) Check() error {
	if !metaIDOK(s.MetaID) {
		return InvalidParameter("metaPhoneNumberId", "Meta's phone number id is 1 to 64 letters, digits, - or _ (Meta's are digits)")
	}
	if s.WABAID != "" && !metaIDOK(s.WABAID) {
		return InvalidParameter("wabaId", "the WhatsApp Business Account id is 1 to 64 letters, digits, - or _ (Meta's are digits)")
	}
	if s.AppID != "" && !metaIDOK(s.AppID) {
		return InvalidParameter("appId", "the Meta app id is 1 to 64 letters, digits, - or _ (Meta's are digits)")
	}
	for _, f := range []struct{ param, what, v string }{
		{"displayNumber", "the display number", s.DisplayNumber},
		{"verifiedName", "the verified name", s.VerifiedName},
	} {
		if err := CheckText(f.param, f.what, f.v); err != nil {
			return err
		}
		if utf8.RuneCountInString(f.v) > 200 {
			return InvalidParameter(f.param, f.what+" is at most 200 characters")
		}
	}
	if s.MPS < 0 || s.MPS > MaxNumberMPS {
		return InvalidParameter("mps", "the pace is 1 to 1,000 messages a second, or 0 for the server's default")
	}
	if !s.AllWorkspaces && len(s.Workspaces) == 0 {
		return InvalidParameter("workspaces", "a number is offered to every workspace or to at least one")
	}
	return nil
}

// NewBusinessNumber makes an active number from a checked spec and its
// sealed token.
func NewBusinessNumber(id BusinessNumberID, s NumberSpec, token SealedSecret, hint string, now time.Time) (BusinessNumber, error) {
	if err := s.Check(); err != nil {
		return BusinessNumber{}, err
	}
	now = now.UTC().Truncate(time.Microsecond)
	n := BusinessNumber{ID: id, Status: NumberActive, AccessToken: token, TokenHint: hint, CreatedAt: now, UpdatedAt: now}
	n.Apply(s)
	return n, nil
}

// Apply sets the operator's fields of s on n; the caller has checked s.
func (n *BusinessNumber) Apply(s NumberSpec) {
	n.MetaID, n.DisplayNumber, n.VerifiedName = s.MetaID, strings.TrimSpace(s.DisplayNumber), strings.TrimSpace(s.VerifiedName)
	n.WABAID, n.AppID, n.MPS = s.WABAID, s.AppID, s.MPS
	n.AllWorkspaces = s.AllWorkspaces
	n.Workspaces = nil
	if !s.AllWorkspaces {
		n.Workspaces = slices.Compact(slices.Sorted(slices.Values(s.Workspaces)))
	}
}

// Spec returns the operator's fields of n.
func (n BusinessNumber) Spec() NumberSpec {
	return NumberSpec{MetaID: n.MetaID, DisplayNumber: n.DisplayNumber, VerifiedName: n.VerifiedName, WABAID: n.WABAID,
		AppID: n.AppID, MPS: n.MPS, AllWorkspaces: n.AllWorkspaces, Workspaces: slices.Clone(n.Workspaces)}
}

// UsableBy reports whether workspace ws may send from n: n is active and
// offered to it.
func (n BusinessNumber) UsableBy(ws WorkspaceID) bool {
	return n.Status == NumberActive && (n.AllWorkspaces || slices.Contains(n.Workspaces, ws))
}

// TokenHint returns the last four characters of an access token, the most
// of it Herald ever shows; a token of eight characters or fewer shows
// nothing.
func TokenHint(token string) string {
	if len(token) <= 8 {
		return ""
	}
	return token[len(token)-4:]
}

// metaIDOK reports whether s can be one of Meta's ids: digits in practice;
// letters, - and _ are let through for test servers, nothing that would
// change a URL path.
func metaIDOK(s string) bool {
	if s == "" || len(s) > 64 {
		return false
	}
	return strings.Trim(s, "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ-_") == ""
}

// MetaApp is a Meta app whose webhooks Herald receives: its id and its app
// secret (sealed), which signs the app's webhook calls. Several business
// accounts may share one app; an account's numbers name their app.
type MetaApp struct {
	ID         string // Meta's app id, digits
	Secret     SealedSecret
	SecretHint string // the last four characters of the secret
	CreatedAt  time.Time
	UpdatedAt  time.Time
}

// CheckMetaAppID validates a Meta app id.
func CheckMetaAppID(id string) error {
	if !metaIDOK(id) {
		return InvalidParameter("appId", "the Meta app id is 1 to 64 letters, digits, - or _ (Meta's are digits)")
	}
	return nil
}

// SandboxNumberID is the id of test mode's simulated number: test keys'
// messages leave from it and never reach Meta.
const SandboxNumberID BusinessNumberID = "pn_00000000000000000000sandbx"

// SandboxNumber is test mode's simulated number, offered to every
// workspace's test keys. It is not stored.
func SandboxNumber() BusinessNumber {
	return BusinessNumber{ID: SandboxNumberID, MetaID: "100000000000001", DisplayNumber: "+1 555-000-0001",
		VerifiedName: "Herald Sandbox", WABAID: "100000000000002", AllWorkspaces: true, Status: NumberActive,
		Quality: QualityGreen, Tier: "TIER_UNLIMITED"}
}
