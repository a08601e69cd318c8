// Package fakemeta is a loopback fake of Meta's WhatsApp Cloud API for tests:
// it checks sends as Meta does (bearer token, sender number, template,
// parameters), lists the business account's templates page by page, records
// requests and answers, answers with Meta's shapes, and injects faults on
// demand, including timeouts before and after a message is accepted. Spec
// checks requests and answers against Meta's own OpenAPI document.
//
// webhooks.go builds Meta's webhook payloads byte for byte (non-ASCII
// escaped, as Meta signs it), signs them, and emits status webhooks for
// accepted sends to a receiver on loopback, in any order, with repeats, a
// bounded number in flight and a pause between a message's statuses. For
// load runs a lean fake keeps counts instead of copies, reports each
// webhook POST as it is answered, says how many statuses it still owes,
// and counts the TCP connections its clients open.
package fakemeta
