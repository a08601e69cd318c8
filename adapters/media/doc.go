// Package media inspects the resource a media header URL names before a
// message that carries it is accepted (ports.MediaInspector): it fetches the
// first bytes with a range request, identifies the format from those bytes
// only, and learns the size from Content-Range or Content-Length, counting
// the body only when the server gives neither, and never past the largest
// size the header allows plus one byte.
//
// The fetch is the one place where a client of Herald chooses an address
// Herald connects to, so the HTTP client is built against server-side
// request forgery: every dial, redirects included, checks the address
// actually dialed (after DNS resolution) with code.dny.dev/ssrf in
// net.Dialer.Control, which defeats DNS rebinding; every redirect is checked
// again with domain.CheckMediaURL, at most three of them; no proxy is taken
// from the environment. Hosts in Config.AllowedHosts (tests, intranet media
// servers) are dialed without the guard.
//
// Outcomes are cached per URL and header kind (successes for
// Config.CacheTTL, refusals and failures for Config.FailureTTL), concurrent
// inspections of one URL share one fetch, and at most Config.MaxConcurrent
// fetches run at once, of which one workspace's callers may run
// Config.MaxConcurrentPerWorkspace and one key's Config.MaxConcurrentPerKey;
// a fetch waits for a slot at most Config.SlotWait.
package media
