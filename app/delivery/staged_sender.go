package delivery

import (
	"context"
	"errors"

	"github.com/heraldhq/herald/ports"
)

// stagedSender gives a live message's media Meta's ids (ports.MediaStager)
// right before a number's sender sends it, uploading with that sender when
// it can upload (the Cloud API client can), so each number has its own
// uploads.
type stagedSender struct {
	ports.WhatsAppSender
	media ports.MediaStager
}

// Send stages the message's media, then sends it. A failure to stage is
// the send's failure, retried or final by its class. When Meta refuses a
// message sent by media ids with a media error (it lost the file, or never
// had it for this number), the uploads are forgotten and the message is
// staged and sent once more, by new uploads: the refusal came back with
// the call, so nothing was delivered.
func (s stagedSender) Send(ctx context.Context, m ports.OutboundMessage) (ports.SendResult, error) {
	res, staged, err := s.stagedSend(ctx, m)
	var se *ports.SendError
	if len(staged.MediaIDs) == 0 || !errors.As(err, &se) || !se.MediaRefused {
		return res, err
	}
	if ferr := s.media.ForgetUploads(ctx, staged, s.uploader()); ferr != nil {
		return res, err
	}
	res, _, err = s.stagedSend(ctx, m)
	return res, err
}

// stagedSend stages m's media and sends it, returning what was sent.
func (s stagedSender) stagedSend(ctx context.Context, m ports.OutboundMessage) (ports.SendResult, ports.OutboundMessage, error) {
	staged, err := s.media.StageMedia(ctx, m, s.uploader())
	if err != nil {
		var se *ports.SendError
		if !errors.As(err, &se) {
			err = &ports.SendError{Class: ports.ClassRetryable, Err: err}
		}
		return ports.SendResult{}, m, err
	}
	res, err := s.WhatsAppSender.Send(ctx, staged)
	return res, staged, err
}

// uploader is the sender as an uploader, nil when it cannot upload.
func (s stagedSender) uploader() ports.MediaUploader {
	up, _ := s.WhatsAppSender.(ports.MediaUploader)
	return up
}

// MarkRead marks read through the live sender.
func (s stagedSender) MarkRead(ctx context.Context, wamid string, typing bool) error {
	marker, ok := s.WhatsAppSender.(ports.ReadMarker)
	if !ok {
		return errors.New("delivery: the sender cannot mark messages read")
	}
	return marker.MarkRead(ctx, wamid, typing)
}

var _ ports.ReadMarker = stagedSender{}
