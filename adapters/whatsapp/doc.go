// Package whatsapp is the adapter for Meta's WhatsApp Cloud API: it posts
// template messages (ports.TemplatePayload) to /{phone-number-id}/messages
// with the bearer token, reads the business account's templates from
// /{waba-id}/message_templates (ports.TemplateSource), and classifies Meta's
// errors, in classify.go, the one place that knows Meta's error codes.
// signature.go authenticates Meta's webhook calls (the verification
// handshake, X-Hub-Signature-256 over the raw body with each configured app
// secret: ports.WebhookVerifier); decode.go and decode_marketing.go decode
// their payloads into status events, inbound messages, identity changes,
// template status and category changes and marketing preferences
// (ports.WebhookDecoder).
package whatsapp
