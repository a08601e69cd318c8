package whatsapp

import "time"

// Config says where the Cloud API is and who Herald sends as.
type Config struct {
	APIURL        string // e.g. https://graph.facebook.com/v24.0, version included
	AccessToken   string // never logged
	PhoneNumberID string // the sender number
	WABAID        string // the WhatsApp Business Account, for template sync
	Timeout       time.Duration
	// Connections is how many idle connections to the Cloud API the
	// client keeps for reuse: the sends the dispatcher has in flight at
	// once, so that a steady pace reuses them instead of opening (against
	// Meta: a TLS handshake) a connection per send. Zero is 32.
	Connections int
}

// Configured reports whether live sends are possible.
func (c Config) Configured() bool { return c.AccessToken != "" && c.PhoneNumberID != "" }

// TemplatesConfigured reports whether template sync is possible.
func (c Config) TemplatesConfigured() bool { return c.AccessToken != "" && c.WABAID != "" }
