package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"
)

// Set at build time by make build: -ldflags "-X main.version=… -X
// main.commit=… -X main.buildTime=…". Empty ones are taken from the build
// information Go records in the binary (version.go).
var version, commit, buildTime string

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Getenv, os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}
