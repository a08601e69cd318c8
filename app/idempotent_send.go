package app

import (
	"context"
	"errors"

	"github.com/heraldhq/herald/domain"
	"github.com/heraldhq/herald/ports"
)

// idempotentSend runs a send that carries an Idempotency-Key, for every
// kind of send: while this instance works on the key a second request with
// it is refused (in flight); a key already claimed replays the message its
// first request accepted (or refuses a request that differs from it);
// otherwise send runs with the request's fingerprint, and when another
// instance claimed the key meanwhile (errKeyClaimed) that instance's
// message is replayed. replayed makes the answer for a replayed message.
func idempotentSend[R any](ctx context.Context, f *inFlight, k inFlightKey, fp domain.Fingerprint,
	keys ports.IdempotencyRepository, messages ports.MessageRepository, clock ports.Clock,
	send func(domain.Fingerprint) (R, error), replayed func(domain.Message) R) (R, error) {
	var zero R
	release, ok := f.enter(k)
	if !ok {
		return zero, domain.ErrIdempotencyInFlight
	}
	defer release()
	replay := func() (R, bool, error) {
		rec, found, err := keys.FindIdempotencyRecord(ctx, k.ws, k.mode, k.key)
		if err != nil {
			return zero, true, err
		}
		if !found || rec.Expired(clock.Now()) {
			return zero, false, nil
		}
		if err := rec.Replay(fp); err != nil {
			return zero, true, err
		}
		msg, err := messages.GetMessage(ctx, k.ws, rec.Message)
		if err != nil {
			return zero, true, err
		}
		return replayed(msg), true, nil
	}
	if res, done, err := replay(); done {
		return res, err
	}
	res, err := send(fp)
	if errors.Is(err, errKeyClaimed) {
		if res, done, err := replay(); done {
			return res, err
		}
		return zero, domain.ErrIdempotencyInFlight
	}
	return res, err
}
