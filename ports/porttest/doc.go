// Package porttest holds the contract suites that every implementation of the
// ports must pass, in the spirit of net/http/httptest and testing/fstest.
//
// RunStore checks the repository ports and the transactor; each store adapter
// calls it once from its own tests. The fixture helpers build valid domain
// values with the domain's constructors.
//
// Import it only from _test.go files and from test/.
package porttest
