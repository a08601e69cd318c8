// Package sandbox is the test-mode WhatsApp sender (DESIGN §5). Messages never
// leave the process: the sandbox accepts each send as Meta would, with a
// made-up wamid, and then reports sent → delivered → read through the same
// status pipeline Meta's webhooks use.
//
// Magic recipient numbers, by their last four digits:
//
//	0001  fails with Meta's 131026 (message undeliverable)
//	0002  stops at sent
//	0003  stops at delivered
package sandbox
