package domain

import (
	"net/netip"
	"net/url"
	"strings"
)

// MaxMediaURLLength bounds a media header URL.
const MaxMediaURLLength = 2048

// CheckMediaURL applies the rules that need no network: an absolute https URL
// without credentials whose host is not a loopback, private, link-local or
// unspecified address, nor localhost. What the URL points to is checked by
// inspecting the resource, which is I/O and lives in an adapter.
func CheckMediaURL(raw string) error {
	bad := func(why string) error {
		return &Error{Code: CodeInvalidMediaURL, Param: "mediaHeaderUrl", Detail: why}
	}
	if len(raw) > MaxMediaURLLength {
		return bad("the URL is longer than 2048 characters")
	}
	u, err := url.Parse(raw)
	if err != nil || !u.IsAbs() || u.Host == "" {
		return bad("the media header URL must be an absolute https URL")
	}
	if u.Scheme != "https" {
		return bad("the media header URL must use https")
	}
	if u.User != nil {
		return bad("the media header URL must not carry credentials")
	}
	host := strings.TrimSuffix(strings.ToLower(u.Hostname()), ".")
	if host == "" {
		return bad("the media header URL must be an absolute https URL")
	}
	if host == "localhost" || strings.HasSuffix(host, ".localhost") {
		return bad("the media header URL must point to a public host")
	}
	addr, err := netip.ParseAddr(host)
	if err != nil {
		// URL parsers that follow the WHATWG standard (browsers, most
		// fetchers) read a host whose last label is a number as an IPv4
		// address in any form: 127.1, 2130706433, 0x7f000001, 0177.0.0.1.
		// Only the standard dotted form is checked above, so refuse the
		// others rather than let them name a loopback or private address.
		if endsInNumber(host) {
			return bad("the media header URL must give an IP address in standard dotted form")
		}
		return nil
	}
	addr = addr.Unmap()
	if !addr.IsGlobalUnicast() || addr.IsPrivate() {
		return bad("the media header URL must point to a public address")
	}
	return nil
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
