// Package whatsapp is the sender for Meta's WhatsApp Cloud API: it posts
// template messages (ports.TemplatePayload) to /{phone-number-id}/messages
// with the bearer token, and classifies Meta's errors, in classify.go, the
// one place that knows Meta's error codes.
package whatsapp
