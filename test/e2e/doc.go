// Package e2e tests the built herald binary end to end: the CLI makes a key
// and a campaign, herald serve runs on a free loopback port with a temporary
// SQLite file, and a message sent over HTTP is followed to read.
package e2e
