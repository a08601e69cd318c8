package domain

import (
	"strings"
	"time"
	"unicode/utf8"
)

// WebhookEndpointID identifies a customer's webhook endpoint.
type WebhookEndpointID string

// PrefixWebhookEndpoint is the prefix of webhook endpoint ids.
const PrefixWebhookEndpoint = "whe"

// ParseWebhookEndpointID validates an endpoint id; malformed ids are not
// found.
func ParseWebhookEndpointID(s string) (WebhookEndpointID, error) {
	if !validID(PrefixWebhookEndpoint, s) {
		return "", NotFound(ErrWebhookEndpointNotFound)
	}
	return WebhookEndpointID(s), nil
}

// WebhookPolicy is what the operator allows in webhook endpoint URLs
// beyond the default of public https hosts.
type WebhookPolicy struct {
	// AllowHTTP accepts plain http URLs (tests, local receivers).
	AllowHTTP bool
	// AllowedHosts are "host" or "host:port" entries, lowercase, exempt
	// from the private-address block: a receiver on the same machine or
	// the intranet.
	AllowedHosts []string
}

// Allows reports whether hostport ("host:port", the port always given) is
// exempt from the private-address block.
func (p WebhookPolicy) Allows(hostport string) bool { return hostAllowed(p.AllowedHosts, hostport) }

// MaxWebhookURLLength bounds an endpoint's URL, as a media header URL is.
const MaxWebhookURLLength = MaxMediaURLLength

// CheckWebhookURL applies the rules that need no network to an endpoint's
// URL, the same as a media header URL's: absolute https (http too when the
// policy allows it), at most 2,048 characters, no credentials, a host that
// is not a loopback, private, link-local or unspecified address, nor
// localhost, unless the policy exempts it; and no fragment, which is never
// sent. Where a name leads is checked when it is dialed, by the adapter
// that delivers.
func CheckWebhookURL(raw string, p WebhookPolicy) error {
	why := checkPublicURL(raw, "the webhook URL", p.AllowHTTP, p.AllowedHosts)
	if why == "" && strings.Contains(raw, "#") {
		why = "the webhook URL must not have a fragment (#…): it is never sent"
	}
	if why != "" {
		return &Error{Code: CodeInvalidWebhookURL, Param: "url", Detail: why}
	}
	return nil
}

// EndpointStatus says whether an endpoint receives events.
type EndpointStatus struct{ s string }

// The endpoint statuses. Only enabled endpoints get new events and are
// tried; a disabled endpoint's pending deliveries wait until it is enabled
// again.
var (
	EndpointEnabled  = EndpointStatus{"enabled"}
	EndpointDisabled = EndpointStatus{"disabled"}
)

// ParseEndpointStatus parses a stored or requested status.
func ParseEndpointStatus(s string) (EndpointStatus, error) {
	switch s {
	case "enabled":
		return EndpointEnabled, nil
	case "disabled":
		return EndpointDisabled, nil
	}
	return EndpointStatus{}, InvalidParameter("status", `status must be "enabled" or "disabled"`)
}

func (s EndpointStatus) String() string { return s.s }

// IsZero reports whether s is the zero value.
func (s EndpointStatus) IsZero() bool { return s.s == "" }

// DisabledReason says why an endpoint is disabled.
type DisabledReason struct{ s string }

// The reasons an endpoint is disabled: someone asked (the API, the
// dashboard), it answered 410 Gone, or every attempt failed for the
// configured time (HERALD_WEBHOOK_DISABLE_AFTER).
var (
	DisabledManually = DisabledReason{"manual"}
	DisabledGone     = DisabledReason{"gone"}
	DisabledFailing  = DisabledReason{"failing"}
)

// ParseDisabledReason parses a stored reason.
func ParseDisabledReason(s string) (DisabledReason, error) {
	for _, r := range []DisabledReason{DisabledManually, DisabledGone, DisabledFailing} {
		if s == r.s {
			return r, nil
		}
	}
	return DisabledReason{}, InvalidParameter("disabledReason", "unknown disabled reason "+quote(s))
}

func (r DisabledReason) String() string { return r.s }

// IsZero reports whether r is the zero value: the endpoint is enabled.
func (r DisabledReason) IsZero() bool { return r.s == "" }

// SecretRotationOverlap is how long a rotated-out secret keeps signing
// alongside the new one, so that receivers can switch without losing a
// delivery.
const SecretRotationOverlap = 24 * time.Hour

// EndpointSecret is one signing secret of an endpoint. Its String and
// GoString never reveal the key; Plaintext does, for the one answer that
// shows it.
type EndpointSecret struct {
	Key       []byte
	CreatedAt time.Time
	// ExpiresAt is when a rotated-out secret stops signing; nil for the
	// current one.
	ExpiresAt *time.Time
}

// ActiveAt reports whether the secret signs deliveries made at t.
func (s EndpointSecret) ActiveAt(t time.Time) bool {
	return s.ExpiresAt == nil || t.Before(*s.ExpiresAt)
}

// Plaintext is the secret as its owner configures it in a receiver:
// "whsec_" and the base64 of the key.
func (s EndpointSecret) Plaintext() string { return FormatWebhookSecret(s.Key) }

// String hides the key, so that logging an endpoint reveals no secret.
func (s EndpointSecret) String() string { return WebhookSecretPrefix + "…" }

// GoString hides the key from %#v too.
func (s EndpointSecret) GoString() string {
	return "domain.EndpointSecret{" + WebhookSecretPrefix + "…}"
}

// MaxEndpointDescription bounds an endpoint's description, in characters.
const MaxEndpointDescription = 500

// WebhookEndpoint is a URL of the customer's to which Herald delivers the
// events of one workspace and mode, signed with the endpoint's secrets.
type WebhookEndpoint struct {
	ID          WebhookEndpointID
	Workspace   WorkspaceID
	Mode        KeyMode // the mode of the key that made it: it gets that mode's events only
	URL         string
	Events      EventSubscription
	Description string
	Status      EndpointStatus
	// DisabledReason and DisabledAt say why and since when a disabled
	// endpoint is; zero while it is enabled.
	DisabledReason DisabledReason
	DisabledAt     *time.Time
	// FailingSince is the time of the first of an unbroken run of failed
	// attempts; nil after a success. It drives the disabling rule
	// (RecordAttempt).
	FailingSince *time.Time
	// Secrets sign every delivery, newest first; a rotated-out secret
	// keeps signing until its ExpiresAt.
	Secrets   []EndpointSecret
	CreatedAt time.Time
	UpdatedAt time.Time
}

// EndpointSpec is what a caller chooses of an endpoint.
type EndpointSpec struct {
	URL         string
	Events      EventSubscription
	Description string
}

// NewWebhookEndpoint makes an enabled endpoint signing with key (a fresh
// secret, see NewWebhookSecretKey) from spec, whose URL must pass
// CheckWebhookURL under p and whose description is at most
// MaxEndpointDescription characters.
func NewWebhookEndpoint(id WebhookEndpointID, ws WorkspaceID, mode KeyMode, spec EndpointSpec, key []byte, p WebhookPolicy, now time.Time) (WebhookEndpoint, error) {
	if mode.IsZero() {
		return WebhookEndpoint{}, InvalidParameter("mode", "an endpoint belongs to a mode, live or test")
	}
	if err := checkSecretKey(key); err != nil {
		return WebhookEndpoint{}, err
	}
	url, desc, err := checkSpec(spec, p)
	if err != nil {
		return WebhookEndpoint{}, err
	}
	now = now.UTC().Truncate(time.Microsecond)
	return WebhookEndpoint{ID: id, Workspace: ws, Mode: mode, URL: url, Events: spec.Events, Description: desc,
		Status: EndpointEnabled, Secrets: []EndpointSecret{{Key: append([]byte(nil), key...), CreatedAt: now}},
		CreatedAt: now, UpdatedAt: now}, nil
}

func checkSpec(spec EndpointSpec, p WebhookPolicy) (url, desc string, err error) {
	url = strings.TrimSpace(spec.URL)
	if err := CheckWebhookURL(url, p); err != nil {
		return "", "", err
	}
	if spec.Events.IsZero() {
		return "", "", &Error{Code: CodeInvalidEventType, Param: "events",
			Detail: `give at least one event type, or ["*"] for every type`}
	}
	desc, err = endpointDescription(spec.Description)
	return url, desc, err
}

func endpointDescription(d string) (string, error) {
	if err := CheckText("description", "the description", d); err != nil {
		return "", err
	}
	d = strings.TrimSpace(d)
	if utf8.RuneCountInString(d) > MaxEndpointDescription {
		return "", InvalidParameter("description", "the description is at most 500 characters")
	}
	return d, nil
}

// EndpointChange is a partial update of an endpoint: nil fields are kept.
type EndpointChange struct {
	URL         *string
	Events      *EventSubscription
	Description *string
}

// Change applies c with the rules of NewWebhookEndpoint; nothing changes
// unless every given field is valid.
func (e *WebhookEndpoint) Change(c EndpointChange, p WebhookPolicy, now time.Time) error {
	spec := EndpointSpec{URL: e.URL, Events: e.Events, Description: e.Description}
	if c.URL != nil {
		spec.URL = *c.URL
	}
	if c.Events != nil {
		spec.Events = *c.Events
	}
	if c.Description != nil {
		spec.Description = *c.Description
	}
	url, desc, err := checkSpec(spec, p)
	if err != nil {
		return err
	}
	e.URL, e.Events, e.Description = url, spec.Events, desc
	e.UpdatedAt = now.UTC().Truncate(time.Microsecond)
	return nil
}

// Rotate makes key the endpoint's current secret. Every secret still
// signing at now keeps signing for SecretRotationOverlap more (an earlier
// expiry is kept), and those that stopped signing are dropped.
func (e *WebhookEndpoint) Rotate(key []byte, now time.Time) error {
	if err := checkSecretKey(key); err != nil {
		return err
	}
	now = now.UTC().Truncate(time.Microsecond)
	until := now.Add(SecretRotationOverlap)
	kept := []EndpointSecret{{Key: append([]byte(nil), key...), CreatedAt: now}}
	for _, s := range e.Secrets {
		if !s.ActiveAt(now) {
			continue
		}
		if s.ExpiresAt == nil || s.ExpiresAt.After(until) {
			u := until
			s.ExpiresAt = &u
		}
		kept = append(kept, s)
	}
	e.Secrets = kept
	e.UpdatedAt = now
	return nil
}

// Disable stops deliveries to the endpoint at someone's request. An
// endpoint already disabled keeps its first reason; it reports whether
// anything changed.
func (e *WebhookEndpoint) Disable(now time.Time) bool { return e.disable(DisabledManually, now) }

func (e *WebhookEndpoint) disable(why DisabledReason, now time.Time) bool {
	if e.Status == EndpointDisabled {
		return false
	}
	now = now.UTC().Truncate(time.Microsecond)
	e.Status, e.DisabledReason, e.DisabledAt, e.UpdatedAt = EndpointDisabled, why, &now, now
	return true
}

// Enable lets the endpoint receive events again, whatever disabled it,
// with a clean record: the failures before do not count towards disabling
// it again. It reports whether anything changed.
func (e *WebhookEndpoint) Enable(now time.Time) bool {
	if e.Status == EndpointEnabled {
		return false
	}
	e.Status, e.DisabledReason, e.DisabledAt, e.FailingSince = EndpointEnabled, DisabledReason{}, nil, nil
	e.UpdatedAt = now.UTC().Truncate(time.Microsecond)
	return true
}

// RecordAttempt applies the outcome of an attempt made at `at` that the
// endpoint answered with status (0: no answer) to the disabling rule. A
// success (2xx) ends a run of failures. A 410 Gone disables the endpoint
// at once: its owner says it is gone for good. Otherwise a failure starts
// a run of failures, or, when the run began at least disableAfter before
// (every attempt since has failed), disables the endpoint; disableAfter
// zero or less never disables for failing. A disabled endpoint stays
// disabled for its first reason. It reports whether this attempt disabled
// the endpoint.
func (e *WebhookEndpoint) RecordAttempt(status int, at time.Time, disableAfter time.Duration) bool {
	at = at.UTC().Truncate(time.Microsecond)
	if SuccessfulWebhookStatus(status) {
		if e.FailingSince != nil {
			e.FailingSince, e.UpdatedAt = nil, at
		}
		return false
	}
	if e.FailingSince == nil {
		e.FailingSince, e.UpdatedAt = &at, at
	}
	switch {
	case status == 410:
		return e.disable(DisabledGone, at)
	case disableAfter > 0 && at.Sub(*e.FailingSince) >= disableAfter:
		return e.disable(DisabledFailing, at)
	}
	return false
}
