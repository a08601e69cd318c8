package whatsapp

// IsOurs reports whether phoneNumberID is one of the business numbers Herald
// sends from (WebhookConfig.PhoneNumberIDs). With none configured (a server
// that only sends to the sandbox) no number is: Meta's events are stored,
// and applied by a replay once the number is configured.
func (w *Webhooks) IsOurs(phoneNumberID string) bool {
	return phoneNumberID != "" && w.numbers[phoneNumberID]
}
