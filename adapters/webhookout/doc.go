// Package webhookout delivers events to the customer's webhook endpoints
// over HTTP (ports.EventPoster): one POST per attempt, with the Standard
// Webhooks headers (webhook-id, webhook-timestamp, webhook-signature),
// Content-Type application/json and User-Agent Herald-Webhooks/<version>.
//
// An endpoint URL is the customer's choice of an address Herald connects
// to, so the client is built against server-side request forgery, as
// adapters/media's is: every dial checks the address actually dialed,
// after DNS resolution, with code.dny.dev/ssrf in net.Dialer.Control
// (which defeats DNS rebinding: a name that pointed outward when the
// endpoint was saved and now points inward is refused at the attempt);
// every URL is checked again with domain.CheckWebhookURL before it is
// posted to; no proxy is taken from the environment; https only unless
// Config.AllowHTTP. Hosts in Config.AllowedHosts (a receiver on the same
// machine or network) are dialed without the guard. Redirects are never
// followed: a 3xx is the attempt's answer, and a failure.
//
// An attempt waits at most Config.Timeout (15 s) for the answer; the first
// domain.MaxResponseHead bytes of the answer's body are kept for the
// attempt's record, and at most Config.MaxDrain more are read and
// discarded so that the connection can serve the next attempt (a longer
// answer closes it).
//
// The transport is sized for thousands of deliveries a second to a few
// hosts: a delivery worker posts many attempts at once, mostly to the same
// handful of endpoints, so connections are kept and reused instead of
// being dialed (and TLS-negotiated) per attempt. Go's default keeps 2 idle
// connections per host, which at that rate means a new connection for
// almost every attempt and sockets piling up in TIME_WAIT; the poster keeps
// up to Config.MaxIdleConnsPerHost (default 256) idle connections per host
// and MaxIdleConnsPerHost × 4 in all, for 90 s, and negotiates HTTP/2 where
// the endpoint offers it, so that one connection carries many concurrent
// attempts. The number of attempts in flight is bounded by the worker's
// concurrency, not here: a per-host connection cap would queue attempts
// inside the transport, on the clock of their 15 s.
package webhookout
