package ports

import "errors"

// ErrUnavailable means the store cannot be reached or did not answer in time.
// Nothing was half-written; the request can be retried. The HTTP adapter
// answers 503 unavailable.
var ErrUnavailable = errors.New("store unavailable")

// ErrLeaseLost means a dispatcher's lease on a message ended and another
// dispatcher claimed it; the first must not record anything about it.
var ErrLeaseLost = errors.New("message lease lost")
