package httpapi

import (
	"net/http"
	"net/netip"
	"slices"
	"strings"
)

// trustedProxies are the networks whose connections may say, in
// X-Forwarded-For or Forwarded, which client they carry.
type trustedProxies []netip.Prefix

func (tp trustedProxies) trusts(a netip.Addr) bool {
	for _, p := range tp {
		if p.Contains(a) {
			return true
		}
	}
	return false
}

// client is the address of the client behind r: the connection's peer,
// unless the peer is a trusted proxy, in which case it is the rightmost
// address of X-Forwarded-For that is not a trusted proxy (the leftmost, when
// every hop is one), or, without X-Forwarded-For, the same taken from
// Forwarded's for= parameters (RFC 7239). Each trusted proxy appends the
// address it received the request from, so everything to the right of the
// first untrusted address was written by proxies Herald trusts, and
// everything to its left by the client, which may have written anything:
// the header is read from the right and no further than that address, so
// nothing a client writes can change the answer. A header that cannot be
// read up to that address is ignored, and the peer is the client. ok is
// false when r.RemoteAddr is no address.
func (tp trustedProxies) client(r *http.Request) (client netip.AddrPort, ok bool) {
	peer, err := netip.ParseAddrPort(r.RemoteAddr)
	if err != nil {
		return netip.AddrPort{}, false
	}
	peer = netip.AddrPortFrom(peer.Addr().Unmap(), peer.Port())
	if !tp.trusts(peer.Addr()) {
		return peer, true
	}
	var (
		hops  []string
		parse func(string) (netip.AddrPort, bool)
	)
	if xff := r.Header.Values("X-Forwarded-For"); len(xff) > 0 {
		hops, parse = strings.Split(strings.Join(xff, ","), ","), parseHop
	} else if fwd := r.Header.Values("Forwarded"); len(fwd) > 0 {
		hops, parse = splitOutsideQuotes(strings.Join(fwd, ","), ','), parseForwardedElement
	}
	var last netip.AddrPort
	for i := len(hops) - 1; i >= 0; i-- {
		hop, ok := parse(strings.TrimSpace(hops[i]))
		if !ok {
			return peer, true
		}
		if !tp.trusts(hop.Addr()) {
			return hop, true
		}
		last = hop
	}
	if last.IsValid() {
		return last, true
	}
	return peer, true
}

// parseForwardedElement reads the for= parameter of one element of a
// Forwarded header (RFC 7239 §4): ";"-separated token=value pairs whose
// value is a token or a quoted string. An element without for=, or whose
// for= is "unknown" or an obfuscated identifier, names no address.
func parseForwardedElement(el string) (netip.AddrPort, bool) {
	var hop netip.AddrPort
	found := false
	for _, pair := range splitOutsideQuotes(el, ';') {
		name, value, ok := strings.Cut(strings.TrimSpace(pair), "=")
		if !ok || name == "" {
			return netip.AddrPort{}, false
		}
		if !strings.EqualFold(name, "for") {
			continue
		}
		value, ok = unquote(value)
		if !ok || found {
			return netip.AddrPort{}, false
		}
		if hop, ok = parseHop(value); !ok {
			return netip.AddrPort{}, false
		}
		found = true
	}
	return hop, found
}

// parseHop reads one address: "192.0.2.1", "2001:db8::1", "192.0.2.1:443",
// "[2001:db8::1]" or "[2001:db8::1]:443". A missing port is 0.
func parseHop(s string) (netip.AddrPort, bool) {
	if a, err := netip.ParseAddr(s); err == nil && a.Zone() == "" {
		return netip.AddrPortFrom(a.Unmap(), 0), true
	}
	if inner, ok := strings.CutPrefix(s, "["); ok {
		if v6, ok := strings.CutSuffix(inner, "]"); ok {
			if a, err := netip.ParseAddr(v6); err == nil && a.Is6() && a.Zone() == "" {
				return netip.AddrPortFrom(a.Unmap(), 0), true
			}
			return netip.AddrPort{}, false
		}
	}
	ap, err := netip.ParseAddrPort(s)
	if err != nil || ap.Addr().Zone() != "" {
		return netip.AddrPort{}, false
	}
	return netip.AddrPortFrom(ap.Addr().Unmap(), ap.Port()), true
}

// splitOutsideQuotes splits s at each sep that is not inside a quoted
// string. It scans from the right, so that the parts a proxy appended are
// found whatever the client wrote before them; an unbalanced quote only
// spoils the parts to its left.
func splitOutsideQuotes(s string, sep byte) []string {
	var parts []string
	end, quoted := len(s), false
	for i := len(s) - 1; i >= 0; i-- {
		switch c := s[i]; {
		case c == '"' && !(quoted && i > 0 && s[i-1] == '\\'):
			quoted = !quoted
		case !quoted && c == sep:
			parts = append(parts, s[i+1:end])
			end = i
		}
	}
	parts = append(parts, s[:end])
	slices.Reverse(parts)
	return parts
}

// unquote returns a token as it is, and a quoted string's content with its
// quoted-pairs (a backslash and the character it escapes) resolved.
func unquote(v string) (string, bool) {
	if !strings.HasPrefix(v, `"`) {
		return v, v != "" && !strings.ContainsAny(v, `" `)
	}
	if len(v) < 2 || !strings.HasSuffix(v, `"`) {
		return "", false
	}
	var b strings.Builder
	for i := 1; i < len(v)-1; i++ {
		c := v[i]
		switch c {
		case '\\':
			i++
			if i == len(v)-1 {
				return "", false
			}
			c = v[i]
		case '"':
			return "", false
		}
		b.WriteByte(c)
	}
	return b.String(), true
}
