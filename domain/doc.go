// Package domain holds Herald's model and rules: API key tokens, phone numbers,
// templates, campaigns, contacts, messages and their status machine, and the
// typed errors that carry the API's stable codes.
//
// The domain is pure: it does no I/O, takes no context and never reads the
// clock. Callers pass the current time in.
package domain
