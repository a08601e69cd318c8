package delivery

import (
	"github.com/heraldhq/herald/domain"
	"github.com/heraldhq/herald/ports"
)

// Senders routes each message by its key's mode: live keys to Meta's Cloud
// API, test keys to the sandbox. Live is nil when the Cloud API is not
// configured: live messages then have nowhere to go, and are never sent to
// the sandbox instead (a sandbox "read" for a message that never left the
// machine would be a lie).
//
// Numbers, when set, are the stored business numbers: a live message
// leaves from its own number, with that number's token (Live is then the
// sender of the number HERALD_WHATSAPP_* defines). Without it, every live
// message goes through Live.
type Senders struct {
	Live    ports.WhatsAppSender
	Sandbox ports.WhatsAppSender
	Numbers *Numbers
}

// For returns the sender for a message sent with a key of mode: nil for a
// live message when no live sender is configured.
func (s Senders) For(mode domain.KeyMode) ports.WhatsAppSender {
	if mode == domain.ModeLive {
		return s.Live
	}
	return s.Sandbox
}
