// Package usecase holds what Herald's use cases share, in app and in
// app/delivery alike: the logging wrapper (observe.go: a use case's
// outcome, and named loggers for the workers), the loop of periodic work
// (every.go), the sentinel that aborts an update that would change nothing
// (unchanged.go) and the default workspace (default_workspace.go). It
// imports neither app nor app/delivery, so both can import it.
package usecase
