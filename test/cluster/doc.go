// Package cluster tests several Herald dispatchers sharing one PostgreSQL
// database, as several herald serve instances do in production.
package cluster
