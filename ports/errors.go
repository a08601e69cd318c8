package ports

import "errors"

// ErrUnavailable means the store cannot be reached or did not answer in time.
// Nothing was half-written; the request can be retried. The HTTP adapter
// answers 503 unavailable.
var ErrUnavailable = errors.New("store unavailable")
