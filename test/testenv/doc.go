// Package testenv gives tests the services they need: a fresh PostgreSQL
// database per test, dropped when the test ends, and the herald binary,
// built once and served on a free loopback port.
package testenv
