// Package app holds Herald's use cases, one type per use case and one file
// each. It is the only place that orchestrates: handlers take ports, call the
// domain for rules and the repositories for state, and return domain errors
// unchanged. It never imports an adapter.
package app
