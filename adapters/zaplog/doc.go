// Package zaplog builds Herald's structured logger and routes fx's own events
// through it.
package zaplog
