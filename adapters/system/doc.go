// Package system implements the clock, identifier and password ports with
// the real clock, crypto/rand and argon2id (its checks within a memory
// budget).
package system
