package domain

import (
	"net"
	"net/netip"
	"net/url"
	"strings"

	"golang.org/x/text/width"
)

// The rules for a URL that Herald itself calls on someone's behalf (a media
// header it inspects, a webhook endpoint it delivers to) are the same, so
// that what one refuses the other refuses too: only the noun in the
// explanations differs.

// hostAllowed reports whether hostport ("host:port", the port always given)
// is one of allowed, lowercase "host" or "host:port" entries: an entry
// without a port allows every port.
func hostAllowed(allowed []string, hostport string) bool {
	host, _, err := net.SplitHostPort(hostport)
	if err != nil {
		return false
	}
	host = strings.TrimSuffix(strings.ToLower(host), ".")
	hostport = strings.ToLower(hostport)
	for _, a := range allowed {
		if a == hostport || a == host {
			return true
		}
	}
	return false
}

// checkPublicURL applies the rules that need no network to a URL Herald
// will call and returns why it refuses it, or "" when it does not: at most
// MaxMediaURLLength characters, absolute https (http too with allowHTTP),
// no credentials, and a host that is not a loopback, private, link-local
// or unspecified address, nor localhost, unless allowed lists it. noun is
// what the explanations call the URL ("the webhook URL").
func checkPublicURL(raw, noun string, allowHTTP bool, allowed []string) string {
	if len(raw) > MaxMediaURLLength {
		return "the URL is longer than 2048 characters"
	}
	u, err := url.Parse(raw)
	if err != nil || !u.IsAbs() || u.Host == "" {
		return noun + " must be an absolute https URL"
	}
	switch {
	case u.Scheme == "https":
	case u.Scheme == "http" && allowHTTP:
	default:
		return noun + " must use https"
	}
	if u.User != nil {
		return noun + " must not carry credentials"
	}
	host := strings.TrimSuffix(asDialed(strings.ToLower(u.Hostname())), ".")
	if host == "" {
		return noun + " must be an absolute https URL"
	}
	port := u.Port()
	if port == "" {
		port = map[string]string{"http": "80", "https": "443"}[u.Scheme]
	}
	if hostAllowed(allowed, net.JoinHostPort(host, port)) {
		return ""
	}
	if host == "localhost" || strings.HasSuffix(host, ".localhost") {
		return noun + " must point to a public host"
	}
	addr, err := netip.ParseAddr(host)
	if err != nil {
		// URL parsers that follow the WHATWG standard (browsers, most
		// fetchers) read a host whose last label is a number as an IPv4
		// address in any form: 127.1, 2130706433, 0x7f000001, 0177.0.0.1.
		// Only the standard dotted form is checked above, so refuse the
		// others rather than let them name a loopback or private address.
		if endsInNumber(host) {
			return noun + " must give an IP address in standard dotted form"
		}
		return ""
	}
	if !PublicAddr(addr) {
		return noun + " must point to a public address"
	}
	return ""
}

// ideographicStops are the full stops IDNA maps to ".", beyond the
// full-width one width.Fold already maps.
var ideographicStops = strings.NewReplacer("\u3002", ".", "\uff61", ".")

// asDialed is host as an HTTP client dials it: IDNA maps full-width
// characters and ideographic full stops to ASCII, so "１２７。０。０。１" is
// 127.0.0.1 and must be judged as such.
func asDialed(host string) string {
	for i := 0; i < len(host); i++ {
		if host[i] >= 0x80 {
			return ideographicStops.Replace(width.Fold.String(host))
		}
	}
	return host
}

// PublicAddr reports whether addr is a global unicast address outside the
// private ranges, looking through IPv4-mapped IPv6.
func PublicAddr(addr netip.Addr) bool {
	addr = addr.Unmap()
	return addr.IsGlobalUnicast() && !addr.IsPrivate()
}

// endsInNumber reports whether host's last label is a decimal or hex number,
// which makes the WHATWG URL parser read the host as an IPv4 address.
func endsInNumber(host string) bool {
	last := host[strings.LastIndexByte(host, '.')+1:]
	if hex, ok := strings.CutPrefix(last, "0x"); ok {
		return strings.Trim(hex, "0123456789abcdef") == ""
	}
	return last != "" && strings.Trim(last, "0123456789") == ""
}

// NormalizeHosts puts an operator's list of allowed hosts ("host" or
// "host:port", as HERALD_MEDIA_ALLOWED_HOSTS and
// HERALD_WEBHOOK_ALLOWED_HOSTS give them) in the form the policies compare:
// lowercase, without surrounding spaces, a trailing dot, or brackets
// around a bare IPv6 address; empty entries are dropped.
func NormalizeHosts(hosts []string) []string {
	var out []string
	for _, h := range hosts {
		h = strings.ToLower(strings.TrimSpace(h))
		if host, port, err := net.SplitHostPort(h); err == nil {
			h = net.JoinHostPort(strings.TrimSuffix(host, "."), port)
		} else {
			h = strings.TrimSuffix(strings.TrimSuffix(strings.TrimPrefix(h, "["), "]"), ".")
		}
		if h != "" {
			out = append(out, h)
		}
	}
	return out
}
