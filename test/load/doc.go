// Command load measures send-campaign throughput and latency on loopback.
//
// It builds the herald binary, runs it on a fresh SQLite file with the
// sandbox, creates a test key and an active campaign with the CLI, and drives
// POST /v1/messages/send-campaign from a fixed number of connections for a
// bounded time. In the same run it drives a floor: a minimal net/http handler
// that does the same key check, strict decoding and phone validation with no
// storage, so Herald's figures are also reported as a ratio to the floor.
//
//	go run ./test/load -duration 10s -connections 64
package main
