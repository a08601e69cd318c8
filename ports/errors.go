package ports

import "errors"

// ErrUnavailable means the store cannot be reached or did not answer in time.
// Nothing was half-written; the request can be retried. The HTTP adapter
// answers 503 unavailable.
var ErrUnavailable = errors.New("store unavailable")

// ErrLeaseLost means a dispatcher's lease on a message ended and another
// dispatcher claimed it; the first must not record anything about it.
var ErrLeaseLost = errors.New("message lease lost")

// ErrAppNotFound means no Meta app with the id is stored.
var ErrAppNotFound = errors.New("meta app not found")

// ErrSecretKeyUnknown means a sealed secret names a key the server does
// not hold: HERALD_SECRET_KEY (or its file) is missing or another one.
var ErrSecretKeyUnknown = errors.New("the secret was sealed under a key this server does not hold")

// ErrSecretUnreadable means a sealed secret does not open under its key:
// altered, or moved onto another row.
var ErrSecretUnreadable = errors.New("the sealed secret does not open under its key")

// ErrNoSecretKey means a secret must be stored and the server has no key
// to seal it with (HERALD_SECRET_KEY or HERALD_SECRET_KEY_FILE).
var ErrNoSecretKey = errors.New("no secret key is configured: set HERALD_SECRET_KEY or HERALD_SECRET_KEY_FILE")
