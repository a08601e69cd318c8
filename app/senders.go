package app

import (
	"github.com/heraldhq/herald/domain"
	"github.com/heraldhq/herald/ports"
)

// Senders routes each message by its key's mode: live keys to the live
// sender (Meta's Cloud API, or the sandbox when it is not configured), test
// keys always to the sandbox.
type Senders struct {
	Live    ports.WhatsAppSender
	Sandbox ports.WhatsAppSender
}

// For returns the sender for a message sent with a key of mode.
func (s Senders) For(mode domain.KeyMode) ports.WhatsAppSender {
	if mode == domain.ModeLive {
		return s.Live
	}
	return s.Sandbox
}
