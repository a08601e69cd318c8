package domain_test

import (
	"errors"
	"net/netip"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/heraldhq/herald/domain"
)

// tokenShape is DESIGN §2's token format, written independently of the
// domain package.
var tokenShape = regexp.MustCompile(`^sk_(live|test)_[0-9a-z]{16}[0-9A-Za-z]{38}$`)

// FuzzParseToken: ParseToken never panics, accepts exactly the tokens of the
// documented shape whose checksum matches, and an accepted token round-trips.
func FuzzParseToken(f *testing.F) {
	f.Add("sk_test_0123456789abcdefABCDEFGHIJKLMNOPQRSTUVWXYZabcdef4Dp5fo")
	f.Add("sk_live_zzzzzzzzzzzzzzzz000000000000000000000000000000002TBg8j")
	f.Add("sk_live_")
	f.Add("")
	f.Fuzz(func(t *testing.T, s string) {
		tok, err := domain.ParseToken(s)
		valid := tokenShape.MatchString(s) && s[56:] == checksumOf(s[:56])
		if err != nil {
			if valid {
				t.Fatalf("refused a well-formed token %q: %v", s, err)
			}
			if !errors.Is(err, domain.ErrInvalidAPIKey) {
				t.Fatalf("refused %q with %v, want invalid_api_key", s, err)
			}
			return
		}
		if !valid {
			t.Fatalf("accepted %q, which is not a well-formed token", s)
		}
		if tok.Plaintext() != s || tok.Identifier() != s[8:24] || tok.Mode().String() != s[3:7] {
			t.Fatalf("accepted %q but it reads back as %q, identifier %q, mode %v", s, tok.Plaintext(), tok.Identifier(), tok.Mode())
		}
		if strings.Contains(tok.String(), s[24:]) || tok.String() != s[:24]+"…" {
			t.Fatalf("String() = %q reveals the secret of %q", tok.String(), s)
		}
		if again, err := domain.ParseToken(tok.Plaintext()); err != nil || again != tok {
			t.Fatalf("%q does not parse again: %v", s, err)
		}
	})
}

// FuzzParsePhoneNumber: ParsePhoneNumber never panics; what it accepts is
// E.164 ("+" and 8 to 15 digits) and parses again to the same number; what
// it refuses is invalid_phone_number on phoneNumber.
func FuzzParsePhoneNumber(f *testing.F) {
	for _, s := range []string{"+14155552671", "+919876543210", "+447911123456", "+5511988887777", "14155552671",
		"+", "+0", "+999123456789", "+1 415", "+14155526"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		p, err := domain.ParsePhoneNumber(s)
		if err != nil {
			var de *domain.Error
			if !errors.As(err, &de) || de.Code != domain.CodeInvalidPhoneNumber || de.Param != "phoneNumber" || de.Detail == "" {
				t.Fatalf("refused %q with %#v, want invalid_phone_number on phoneNumber with a reason", s, err)
			}
			return
		}
		if p.String() != s || len(s) < 9 || len(s) > 16 || s[0] != '+' || strings.Trim(s[1:], "0123456789") != "" || s[1] == '0' {
			t.Fatalf("accepted %q, which is not E.164", s)
		}
		if again, err := domain.ParsePhoneNumber(p.String()); err != nil || again != p {
			t.Fatalf("%q does not parse again: %v", s, err)
		}
		if !libphonenumberAccepts(s) {
			t.Fatalf("accepted %q, which libphonenumber's parser refuses", s)
		}
	})
}

// placeholderRE finds placeholders for the reference rendering below.
var placeholderRE = regexp.MustCompile(`\{\{([0-9]+)\}\}`)

// FuzzRender: for any body NewTemplate accepts and variables that pass
// CheckVariables, Render never panics, agrees with a reference rendering,
// contains every variable and is valid UTF-8; a body without placeholders is
// left as it is.
func FuzzRender(f *testing.F) {
	f.Add("Hi {{1}}, your code is {{2}}", "Ana", "1234", "x")
	f.Add("{{1}}{{1}}{{2}}", "{{2}}", "x", "y")
	f.Add("{{3}} {{2}} {{1}}", "a", "b", "c")
	f.Add("no placeholders", "", "", "")
	f.Add("}}{{1}}}}", "é", "", "")
	f.Fuzz(func(t *testing.T, body, v1, v2, v3 string) {
		tmpl, err := domain.NewTemplate("t", "en", domain.HeaderNone, "", body, "", nil)
		if err != nil {
			return
		}
		n := len(tmpl.Placeholders)
		if n > 3 {
			return
		}
		vars := []string{v1, v2, v3}[:n]
		if tmpl.CheckVariables(vars) != nil {
			return
		}
		out := tmpl.Render(vars)
		want := placeholderRE.ReplaceAllStringFunc(body, func(m string) string {
			i, _ := strconv.Atoi(m[2 : len(m)-2])
			return vars[i-1]
		})
		if out != want {
			t.Fatalf("Render(%q, %q) = %q, want %q", body, vars, out, want)
		}
		for _, v := range vars {
			if !strings.Contains(out, v) {
				t.Fatalf("Render(%q, %q) = %q lacks %q", body, vars, out, v)
			}
		}
		if !utf8.ValidString(out) {
			t.Fatalf("Render(%q, %q) = %q is not valid UTF-8", body, vars, out)
		}
		if n == 0 && out != body {
			t.Fatalf("a body without placeholders changed: %q -> %q", body, out)
		}
	})
}

// FuzzParseIdempotencyKey: ParseIdempotencyKey accepts exactly the keys of 1
// to 255 bytes, each printable ASCII (0x20 to 0x7e); an accepted key reads
// back byte for byte and parses again; a refusal is invalid_idempotency_key
// on the Idempotency-Key header with a reason.
func FuzzParseIdempotencyKey(f *testing.F) {
	for _, s := range []string{"0b6e2c1e-6f2a-4d3e-9a57-3c1d2b4a5e6f", "a", " ", "~", "", "key\x7f", "clé", strings.Repeat("k", 256)} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		valid := len(s) >= 1 && len(s) <= 255
		for i := 0; i < len(s); i++ {
			valid = valid && s[i] >= 0x20 && s[i] <= 0x7e
		}
		k, err := domain.ParseIdempotencyKey(s)
		if err != nil {
			if valid {
				t.Fatalf("refused the well-formed key %q: %v", s, err)
			}
			var de *domain.Error
			if !errors.As(err, &de) || de.Code != domain.CodeInvalidIdempotencyKey || de.Param != "Idempotency-Key" || de.Detail == "" {
				t.Fatalf("refused %q with %#v, want invalid_idempotency_key on Idempotency-Key with a reason", s, err)
			}
			return
		}
		if !valid {
			t.Fatalf("accepted %q, which is not 1 to 255 printable ASCII bytes", s)
		}
		if string(k) != s {
			t.Fatalf("accepted %q but it reads back as %q", s, k)
		}
		if again, err := domain.ParseIdempotencyKey(string(k)); err != nil || again != k {
			t.Fatalf("%q does not parse again: %v", s, err)
		}
	})
}

// FuzzFingerprintOf: a fingerprint is 64 lowercase hex digits, the same for
// the same parts, and different for different lists of parts: moving a byte
// from one part to its neighbour, joining two parts, adding an empty part or
// swapping two different parts all change it.
func FuzzFingerprintOf(f *testing.F) {
	f.Add("+14155552671", "cmp_01m81bkykc0s1bgwft8hc4jsfp")
	f.Add("", "")
	f.Add("1:a", "1:b")
	f.Add("ab", "c")
	f.Add("a", "bc")
	f.Fuzz(func(t *testing.T, a, b string) {
		fp := domain.FingerprintOf(a, b)
		if len(fp) != 64 || strings.Trim(string(fp), "0123456789abcdef") != "" {
			t.Fatalf("FingerprintOf(%q, %q) = %q, want 64 lowercase hex digits", a, b, fp)
		}
		if again := domain.FingerprintOf(a, b); again != fp {
			t.Fatalf("FingerprintOf(%q, %q) is %q then %q", a, b, fp, again)
		}
		differ := func(what string, other domain.Fingerprint) {
			t.Helper()
			if other == fp {
				t.Fatalf("FingerprintOf(%q, %q) equals the fingerprint of %s", a, b, what)
			}
		}
		if b != "" {
			differ("the first byte of b moved to a", domain.FingerprintOf(a+b[:1], b[1:]))
		}
		if a != "" {
			differ("the last byte of a moved to b", domain.FingerprintOf(a[:len(a)-1], a[len(a)-1:]+b))
		}
		differ("a and b joined", domain.FingerprintOf(a+b))
		differ("a, b and an empty part", domain.FingerprintOf(a, b, ""))
		differ("an empty part, a and b", domain.FingerprintOf("", a, b))
		if a != b {
			differ("b and a", domain.FingerprintOf(b, a))
		}
	})
}

// blockedRanges are the addresses CheckMediaURL promises to refuse
// (loopback, private, link-local, unspecified), plus multicast and
// broadcast, written independently of the domain package.
var blockedRanges = func() []netip.Prefix {
	var ps []netip.Prefix
	for _, s := range []string{"0.0.0.0/32", "10.0.0.0/8", "127.0.0.0/8", "169.254.0.0/16", "172.16.0.0/12",
		"192.168.0.0/16", "224.0.0.0/4", "255.255.255.255/32", "::/128", "::1/128", "fc00::/7", "fe80::/10", "ff00::/8"} {
		ps = append(ps, netip.MustParsePrefix(s))
	}
	return ps
}()

// numericLabel reports whether a label is a number a WHATWG URL parser
// reads as (part of) an IPv4 address: decimal digits, or 0x and hex digits.
func numericLabel(l string) bool {
	if h, ok := strings.CutPrefix(l, "0x"); ok {
		return strings.Trim(h, "0123456789abcdef") == ""
	}
	return l != "" && strings.Trim(l, "0123456789") == ""
}

// checkAcceptedMediaURL fails unless raw, which CheckMediaURL accepted,
// parses, uses one of schemes, carries no credentials and names no blocked
// address in any form.
func checkAcceptedMediaURL(t *testing.T, raw string, schemes ...string) {
	t.Helper()
	u, err := url.Parse(raw)
	if err != nil || !u.IsAbs() || len(raw) > domain.MaxMediaURLLength {
		t.Fatalf("accepted %q, which is not an absolute URL: %v", raw, err)
	}
	okScheme := false
	for _, s := range schemes {
		okScheme = okScheme || u.Scheme == s
	}
	if !okScheme {
		t.Fatalf("accepted %q with scheme %q, want one of %q", raw, u.Scheme, schemes)
	}
	if u.User != nil {
		t.Fatalf("accepted %q, which carries credentials", raw)
	}
	host := strings.ToLower(u.Hostname())
	if host == "" {
		t.Fatalf("accepted %q, which has no host", raw)
	}
	trimmed := strings.TrimSuffix(host, ".")
	if trimmed == "localhost" || strings.HasSuffix(trimmed, ".localhost") {
		t.Fatalf("accepted %q, which names localhost", raw)
	}
	for _, h := range []string{host, trimmed} {
		addr, err := netip.ParseAddr(h)
		if err != nil {
			continue
		}
		if !domain.PublicAddr(addr) {
			t.Fatalf("accepted %q, whose host %s is not a public address", raw, addr)
		}
		for _, p := range blockedRanges {
			if p.Contains(addr.Unmap().WithZone("")) {
				t.Fatalf("accepted %q, whose host %s is in the blocked range %s", raw, addr, p)
			}
		}
	}
	// A WHATWG parser ignores one trailing dot and reads a host whose last
	// label is a number as IPv4 in any notation (127.1, 0x7f000001): only a
	// public address in standard dotted form may pass.
	if !strings.HasPrefix(u.Host, "[") && numericLabel(trimmed[strings.LastIndexByte(trimmed, '.')+1:]) {
		addr, err := netip.ParseAddr(trimmed)
		if err != nil || !addr.Is4() || !domain.PublicAddr(addr) {
			t.Fatalf("accepted %q, whose host %q ends in a number but is not a public dotted IPv4 address", raw, host)
		}
	}
}

// FuzzCheckMediaURL: CheckMediaURL never panics; what it accepts by default
// is an https URL that net/url parses, without credentials, whose host is a
// name or a public address, never a number in another notation; with
// AllowHTTP, http is accepted too but no other scheme; a refusal is
// invalid_media_url on mediaHeaderUrl.
func FuzzCheckMediaURL(f *testing.F) {
	for _, s := range []string{"https://cdn.example.com/header.jpg", "http://cdn.example.com/a.png", "https://127.1/",
		"https://0x7f000001/", "https://[::ffff:10.0.0.1]/", "https://user:pw@example.com/", "https://8.8.8.8./a.pdf",
		"HTTPS://Example.COM.:8443/a.mp4", "ftp://example.com/a.jpg", "//example.com/a.jpg"} {
		f.Add(s)
	}
	allowHTTP := domain.MediaPolicy{AllowHTTP: true}
	f.Fuzz(func(t *testing.T, raw string) {
		refusal := func(err error) {
			t.Helper()
			var de *domain.Error
			if !errors.As(err, &de) || de.Code != domain.CodeInvalidMediaURL || de.Param != "mediaHeaderUrl" || de.Detail == "" {
				t.Fatalf("refused %q with %#v, want invalid_media_url on mediaHeaderUrl with a reason", raw, err)
			}
		}
		strictErr := domain.CheckMediaURL(raw, domain.MediaPolicy{})
		if strictErr == nil {
			checkAcceptedMediaURL(t, raw, "https")
		} else {
			refusal(strictErr)
		}
		err := domain.CheckMediaURL(raw, allowHTTP)
		if err != nil {
			refusal(err)
			if strictErr == nil {
				t.Fatalf("%q is accepted by default but refused when http is allowed: %v", raw, err)
			}
			return
		}
		checkAcceptedMediaURL(t, raw, "http", "https")
	})
}
