package httpapi

import (
	"net/http/httptest"
	"net/netip"
	"testing"
)

func prefixes(t *testing.T, ss ...string) trustedProxies {
	t.Helper()
	var out trustedProxies
	for _, s := range ss {
		out = append(out, netip.MustParsePrefix(s))
	}
	return out
}

// TestClientBehindTrustedProxies: the client is the peer unless the peer is
// trusted; then it is the rightmost untrusted hop of X-Forwarded-For, or of
// Forwarded when there is no X-Forwarded-For; a header that cannot be read
// is ignored.
func TestClientBehindTrustedProxies(t *testing.T) {
	t.Parallel()
	const proxy = "10.0.0.5:41000"
	lb := prefixes(t, "10.0.0.0/8")
	lbAndCDN := prefixes(t, "10.0.0.0/8", "198.51.100.0/24", "2001:db8:ffff::/48")
	cases := []struct {
		name    string
		trusted trustedProxies
		peer    string
		xff     []string // X-Forwarded-For lines
		fwd     []string // Forwarded lines
		want    string
	}{
		{"no proxies trusted: headers ignored", nil, proxy, []string{"203.0.113.9"}, nil, "10.0.0.5:41000"},
		{"untrusted peer: headers ignored", lb, "192.0.2.1:5000", []string{"203.0.113.9"}, nil, "192.0.2.1:5000"},
		{"trusted peer, no header", lb, proxy, nil, nil, "10.0.0.5:41000"},
		{"one hop", lb, proxy, []string{"203.0.113.9"}, nil, "203.0.113.9:0"},
		{"spoofed left part is skipped", lb, proxy, []string{"1.2.3.4, 203.0.113.9"}, nil, "203.0.113.9:0"},
		{"garbage left of the client is never read", lb, proxy, []string{"not-an-ip, 203.0.113.9"}, nil, "203.0.113.9:0"},
		{"trusted hops are skipped from the right", lbAndCDN, proxy, []string{"1.2.3.4, 203.0.113.9, 198.51.100.7"}, nil, "203.0.113.9:0"},
		{"lines are joined in order", lbAndCDN, proxy, []string{"1.2.3.4, 203.0.113.9", "198.51.100.7"}, nil, "203.0.113.9:0"},
		{"every hop trusted: the leftmost", lbAndCDN, proxy, []string{"10.1.1.1, 198.51.100.7"}, nil, "10.1.1.1:0"},
		{"IPv6 hop", lb, proxy, []string{"2001:db8::7"}, nil, "[2001:db8::7]:0"},
		{"hop with a port", lb, proxy, []string{"203.0.113.9:5555"}, nil, "203.0.113.9:5555"},
		{"bracketed IPv6 with a port", lb, proxy, []string{"[2001:db8::7]:443"}, nil, "[2001:db8::7]:443"},
		{"IPv4-mapped peer is trusted as IPv4", lb, "[::ffff:10.0.0.5]:41000", []string{"203.0.113.9"}, nil, "203.0.113.9:0"},
		{"IPv4-mapped hop", lb, proxy, []string{"::ffff:203.0.113.9"}, nil, "203.0.113.9:0"},
		{"malformed rightmost hop: ignored", lb, proxy, []string{"203.0.113.9, bogus"}, nil, "10.0.0.5:41000"},
		{"empty hop: ignored", lb, proxy, []string{"203.0.113.9, "}, nil, "10.0.0.5:41000"},
		{"empty header: ignored", lb, proxy, []string{""}, nil, "10.0.0.5:41000"},
		{"zone in a hop: ignored", lb, proxy, []string{"fe80::1%eth0"}, nil, "10.0.0.5:41000"},
		{"hostname: ignored", lb, proxy, []string{"client.example.com"}, nil, "10.0.0.5:41000"},

		{"Forwarded", lb, proxy, nil, []string{"for=203.0.113.9;proto=https;by=10.0.0.5"}, "203.0.113.9:0"},
		{"Forwarded, quoted IPv6 with port", lb, proxy, nil, []string{`for="[2001:db8:cafe::17]:4711"`}, "[2001:db8:cafe::17]:4711"},
		{"Forwarded, several elements", lbAndCDN, proxy, nil, []string{`for=1.2.3.4, for=203.0.113.9;proto=https, For="198.51.100.7"`}, "203.0.113.9:0"},
		{"Forwarded, several lines", lbAndCDN, proxy, nil, []string{"for=1.2.3.4, for=203.0.113.9", "for=198.51.100.7"}, "203.0.113.9:0"},
		{"Forwarded, comma inside quotes", lb, proxy, nil, []string{`for=203.0.113.9;ext="a,b"`}, "203.0.113.9:0"},
		{"Forwarded, quoted-pair", lb, proxy, nil, []string{`for="203.0.113.\9"`}, "203.0.113.9:0"},
		{"Forwarded, unknown: ignored", lb, proxy, nil, []string{"for=unknown"}, "10.0.0.5:41000"},
		{"Forwarded, obfuscated: ignored", lb, proxy, nil, []string{"for=_hidden"}, "10.0.0.5:41000"},
		{"Forwarded, element without for: ignored", lb, proxy, nil, []string{"for=203.0.113.9, proto=https"}, "10.0.0.5:41000"},
		{"Forwarded, unquoted IPv6: ignored", lb, proxy, nil, []string{"for=[2001:db8::7]:80 x"}, "10.0.0.5:41000"},
		{"Forwarded, the client's open quote left of it is never read", lb, proxy, nil, []string{`for="1.2.3.4, for=203.0.113.9`}, "203.0.113.9:0"},
		{"Forwarded, garbage left of the client is never read", lb, proxy, nil, []string{`for=unknown;;, for=203.0.113.9`}, "203.0.113.9:0"},
		{"Forwarded, open quote: ignored", lb, proxy, nil, []string{`for="203.0.113.9`}, "10.0.0.5:41000"},
		{"Forwarded, for twice: ignored", lb, proxy, nil, []string{"for=203.0.113.9;for=203.0.113.10"}, "10.0.0.5:41000"},
		{"Forwarded, pair without value: ignored", lb, proxy, nil, []string{"for"}, "10.0.0.5:41000"},
		{"X-Forwarded-For wins over Forwarded", lb, proxy, []string{"203.0.113.9"}, []string{"for=192.0.2.99"}, "203.0.113.9:0"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := httptest.NewRequest("GET", "/v1/campaigns", nil)
			r.RemoteAddr = c.peer
			for _, v := range c.xff {
				r.Header.Add("X-Forwarded-For", v)
			}
			for _, v := range c.fwd {
				r.Header.Add("Forwarded", v)
			}
			got, ok := c.trusted.client(r)
			if !ok || got.String() != c.want {
				t.Errorf("client = %v (ok %v), want %s", got, ok, c.want)
			}
		})
	}
}

// TestClientUnreadablePeer: a RemoteAddr that is no address (a Unix
// socket's) gives no client, and is left as it is.
func TestClientUnreadablePeer(t *testing.T) {
	t.Parallel()
	r := httptest.NewRequest("GET", "/", nil)
	r.RemoteAddr = "@"
	r.Header.Set("X-Forwarded-For", "203.0.113.9")
	if got, ok := prefixes(t, "0.0.0.0/0").client(r); ok {
		t.Fatalf("an unreadable peer gave the client %v", got)
	}
}
