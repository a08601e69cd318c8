// Package test holds Herald's black-box tests: the import-rule check here,
// end-to-end tests of the built binary in e2e/, and (later) the fake Meta
// Cloud API and load tools.
package test
