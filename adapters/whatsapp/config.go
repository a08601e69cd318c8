package whatsapp

import "time"

// Config says where the Cloud API is and who Herald sends as.
type Config struct {
	APIURL        string // e.g. https://graph.facebook.com/v24.0, version included
	AccessToken   string // never logged
	PhoneNumberID string // the sender number
	WABAID        string // the WhatsApp Business Account, for template sync
	Timeout       time.Duration
}

// Configured reports whether live sends are possible.
func (c Config) Configured() bool { return c.AccessToken != "" && c.PhoneNumberID != "" }

// TemplatesConfigured reports whether template sync is possible.
func (c Config) TemplatesConfigured() bool { return c.AccessToken != "" && c.WABAID != "" }
