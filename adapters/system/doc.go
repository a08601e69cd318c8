// Package system implements the clock, identifier and password ports with
// the real clock, crypto/rand and argon2id.
package system
