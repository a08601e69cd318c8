// Package app holds Herald's use cases that answer a call, from the API,
// the dashboard or the CLI: one type per use case and one file each. It is
// where work is orchestrated: handlers take ports, call the domain for
// rules and the repositories for state, and return domain errors unchanged.
// What happens to a message after it is accepted is app/delivery's; what
// both share (the logging wrapper, the default workspace) is app/usecase's.
// It never imports an adapter.
package app
