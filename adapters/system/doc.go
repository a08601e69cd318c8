// Package system implements the clock and identifier ports with the real
// clock and crypto/rand.
package system
