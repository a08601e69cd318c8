// Package readme runs the README's five-minute tour against the built herald
// binary, so the README cannot drift from what the product does: each shell
// block of the tour is run in order, in one shell, against herald serve on a
// free loopback port with a temporary SQLite file and the sandbox; a block
// that fails, or an output the README shows as a # comment that does not
// come, fails the test.
package readme
