// Package whatsapp is the adapter for Meta's WhatsApp Cloud API: it posts
// template messages (ports.TemplatePayload) to /{phone-number-id}/messages
// with the bearer token, reads the business account's templates from
// /{waba-id}/message_templates (ports.TemplateSource), and classifies Meta's
// errors, in classify.go, the one place that knows Meta's error codes.
package whatsapp
