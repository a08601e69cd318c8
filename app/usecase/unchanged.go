package usecase

import "errors"

// ErrUnchanged aborts an update that would write nothing: an update
// function returns it, and its caller takes it as success.
var ErrUnchanged = errors.New("unchanged")
