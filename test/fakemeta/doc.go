// Package fakemeta is a loopback fake of Meta's WhatsApp Cloud API for tests:
// it checks requests as Meta does (bearer token, sender number, template,
// parameters), records them, answers with Meta's shapes, and injects faults
// on demand. Spec checks every request and answer against Meta's own OpenAPI
// document.
package fakemeta
