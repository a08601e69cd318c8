// Command herald is Herald's one binary: the HTTP server with its dispatcher
// (herald serve) and the operator CLI (migrate, workspaces, keys, campaigns).
// options.go is the one place that picks modules from configuration.
package main
