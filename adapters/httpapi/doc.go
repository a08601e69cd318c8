// Package httpapi is Herald's REST API (/v1): routes on the standard
// ServeMux, strict JSON decoding, X-API-KEY authentication, RFC 9457 problem
// details through one code-to-status table, request ids, an access log that
// never holds a key, and the OpenAPI 3.1 document of every route.
//
// A handler decodes, calls one use case and encodes; DTOs are separate from
// domain types.
package httpapi
