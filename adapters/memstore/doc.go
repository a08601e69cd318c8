// Package memstore keeps every repository port in memory: fast, dependency
// free, and held to the same contract suite (porttest.RunStore) as the SQL
// stores, so app and HTTP tests can use it in place of a database.
//
// One mutex guards the whole store. Values are deep-copied on the way in and
// out, so callers never share maps, slices or pointers with stored state, and
// times are kept in UTC at microsecond precision, as the SQL stores keep them.
// A transaction holds the mutex until it ends and undoes its writes if its
// function fails or panics.
package memstore
