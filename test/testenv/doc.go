// Package testenv gives tests the services they need: a fresh PostgreSQL
// database per test, dropped when the test ends.
package testenv
