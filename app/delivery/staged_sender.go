package delivery

import (
	"context"
	"errors"

	"github.com/heraldhq/herald/ports"
)

// stagedSender gives a live message's media Meta's ids (ports.MediaStager)
// right before the live sender sends it.
type stagedSender struct {
	ports.WhatsAppSender
	media ports.MediaStager
}

// Send stages the message's media, then sends it. A failure to stage is
// the send's failure, retried or final by its class.
func (s stagedSender) Send(ctx context.Context, m ports.OutboundMessage) (ports.SendResult, error) {
	m, err := s.media.StageMedia(ctx, m)
	if err != nil {
		var se *ports.SendError
		if !errors.As(err, &se) {
			err = &ports.SendError{Class: ports.ClassRetryable, Err: err}
		}
		return ports.SendResult{}, err
	}
	return s.WhatsAppSender.Send(ctx, m)
}

// MarkRead marks read through the live sender.
func (s stagedSender) MarkRead(ctx context.Context, wamid string, typing bool) error {
	marker, ok := s.WhatsAppSender.(ports.ReadMarker)
	if !ok {
		return errors.New("delivery: the live sender cannot mark messages read")
	}
	return marker.MarkRead(ctx, wamid, typing)
}

var _ ports.ReadMarker = stagedSender{}
