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
	if host == "localhost" || strings.HasSuffix(host, ".localhost") {
		return bad("the media header URL must point to a public host")
	}
	if addr, err := netip.ParseAddr(host); err == nil {
		addr = addr.Unmap()
		if !addr.IsGlobalUnicast() || addr.IsPrivate() {
			return bad("the media header URL must point to a public address")
		}
	}
	return nil
}
