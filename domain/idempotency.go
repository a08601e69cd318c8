package domain

import (
	"crypto/sha256"
	"encoding/hex"
	"strconv"
	"time"
)

// MaxIdempotencyKeyLength bounds an Idempotency-Key.
const MaxIdempotencyKeyLength = 255

// IdempotencyRetention is how long a send's Idempotency-Key is kept: within
// it the same key replays the first answer, after it the key is new again.
const IdempotencyRetention = 24 * time.Hour

// IdempotencyKey is a client's name for one send, unique within its
// workspace and mode for IdempotencyRetention: a live key's send never
// replays a test key's, nor the other way round.
type IdempotencyKey string

// ParseIdempotencyKey checks a key: 1 to 255 printable ASCII characters
// (space to tilde), so it is safe to store, log and compare byte for byte.
func ParseIdempotencyKey(s string) (IdempotencyKey, error) {
	bad := func(why string) error {
		return &Error{Code: CodeInvalidIdempotencyKey, Param: "Idempotency-Key", Detail: why}
	}
	if s == "" {
		return "", bad("the Idempotency-Key header is empty; leave it out or give 1 to 255 characters, a UUID is a good choice")
	}
	if len(s) > MaxIdempotencyKeyLength {
		return "", bad("the Idempotency-Key is " + strconv.Itoa(len(s)) + " bytes long; at most 255 are allowed")
	}
	for i := 0; i < len(s); i++ {
		if s[i] < 0x20 || s[i] > 0x7e {
			return "", bad("the Idempotency-Key may hold only printable ASCII characters (space to ~); byte " +
				strconv.Itoa(i+1) + " is not one")
		}
	}
	return IdempotencyKey(s), nil
}

// Fingerprint identifies a request's content, so the same key sent with
// different content can be told apart from a retry.
type Fingerprint string

// FingerprintOf hashes the parts of a request in order. Each part is
// length-prefixed, so no two different lists of parts share a fingerprint by
// shifting bytes from one part to the next.
func FingerprintOf(parts ...string) Fingerprint {
	h := sha256.New()
	for _, p := range parts {
		h.Write([]byte(strconv.Itoa(len(p))))
		h.Write([]byte{':'})
		h.Write([]byte(p))
	}
	return Fingerprint(hex.EncodeToString(h.Sum(nil)))
}

// IdempotencyRecord is a claimed key: the accepted message it stands for,
// and the fingerprint of the request that claimed it.
type IdempotencyRecord struct {
	Workspace   WorkspaceID
	Mode        KeyMode // of the key that sent: live and test keys have a space each
	Key         IdempotencyKey
	Fingerprint Fingerprint
	Message     MessageID
	CreatedAt   time.Time
}

// Expired reports whether the record is past its retention at now, after
// which its key counts as new: it was created before IdempotencyStaleBefore.
func (r IdempotencyRecord) Expired(now time.Time) bool {
	return r.CreatedAt.Before(IdempotencyStaleBefore(now))
}

// IdempotencyStaleBefore is the creation time before which a record is
// expired at now.
func IdempotencyStaleBefore(now time.Time) time.Time { return now.Add(-IdempotencyRetention) }

// Replay checks a retried request against the record: the same fingerprint
// replays the first answer; a different one is the key reused for another
// request.
func (r IdempotencyRecord) Replay(fp Fingerprint) error {
	if fp != r.Fingerprint {
		return &Error{Code: CodeIdempotencyKeyReused, Param: "Idempotency-Key",
			Detail: "this Idempotency-Key was used in the last 24 hours for a request with a different body; use a new key for a new request"}
	}
	return nil
}

// ErrIdempotencyInFlight says the first request with this key is still being
// processed; a retry a second later finds its answer.
var ErrIdempotencyInFlight = &RetryableError{After: time.Second, Err: &Error{Code: CodeIdempotencyInFlight,
	Param: "Idempotency-Key", Detail: "a request with this Idempotency-Key is still being processed; retry after it finishes"}}
