package domain_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/heraldhq/herald/domain"
)

// ftyp returns the start of an ISO base media file whose leading box is
// "ftyp" with the given major brand.
func ftyp(brand string) []byte {
	return append([]byte{0, 0, 0, 0x18, 'f', 't', 'y', 'p'}, append([]byte(brand), 0, 0, 0, 0, 'i', 's', 'o', 'm')...)
}

func TestSniffMediaFormat(t *testing.T) {
	t.Parallel()
	png := []byte{0x89, 'P', 'N', 'G', '\r', '\n', 0x1A, '\n'}
	cases := []struct {
		name string
		head []byte
		want domain.MediaFormat
	}{
		{"JPEG JFIF", []byte{0xFF, 0xD8, 0xFF, 0xE0, 0, 0x10, 'J', 'F', 'I', 'F'}, domain.MediaJPEG},
		{"JPEG Exif", []byte{0xFF, 0xD8, 0xFF, 0xE1}, domain.MediaJPEG},
		{"JPEG signature only", []byte{0xFF, 0xD8, 0xFF}, domain.MediaJPEG},
		{"PNG", append(append([]byte{}, png...), 0, 0, 0, 13, 'I', 'H', 'D', 'R'), domain.MediaPNG},
		{"PNG signature only", png, domain.MediaPNG},
		{"PDF", []byte("%PDF-1.7\n"), domain.MediaPDF},
		{"PDF signature only", []byte("%PDF-"), domain.MediaPDF},
		{"MP4 isom", ftyp("isom"), domain.MediaMP4},
		{"MP4 iso2", ftyp("iso2"), domain.MediaMP4},
		{"MP4 mp41", ftyp("mp41"), domain.MediaMP4},
		{"MP4 mp42", ftyp("mp42"), domain.MediaMP4},
		{"MP4 avc1", ftyp("avc1"), domain.MediaMP4},
		{"MP4 M4V", ftyp("M4V "), domain.MediaMP4},
		{"MP4 dash", ftyp("dash"), domain.MediaMP4},
		{"3GPP 3gp4", ftyp("3gp4"), domain.Media3GPP},
		{"3GPP 3gp5", ftyp("3gp5"), domain.Media3GPP},
		{"3GPP2 3g2a", ftyp("3g2a"), domain.Media3GPP},
		{"ftyp box header only", ftyp("mp42")[:12], domain.MediaMP4},

		// Truncated signatures.
		{"empty", nil, domain.MediaFormat{}},
		{"JPEG cut", []byte{0xFF, 0xD8}, domain.MediaFormat{}},
		{"PNG cut", png[:7], domain.MediaFormat{}},
		{"PDF cut", []byte("%PDF"), domain.MediaFormat{}},
		{"ftyp brand cut", ftyp("isom")[:11], domain.MediaFormat{}},
		{"ftyp type cut", ftyp("isom")[:7], domain.MediaFormat{}},

		// Look-alikes and formats Meta does not take in headers.
		{"GIF87a", []byte("GIF87a\x01\x00"), domain.MediaFormat{}},
		{"GIF89a", []byte("GIF89a\x01\x00"), domain.MediaFormat{}},
		{"WebP", []byte("RIFF\x24\x00\x00\x00WEBPVP8 "), domain.MediaFormat{}},
		{"BMP", []byte("BM\x36\x00\x00\x00"), domain.MediaFormat{}},
		{"HTML", []byte("<!DOCTYPE html><html>"), domain.MediaFormat{}},
		{"PNG signature damaged", []byte{0x89, 'P', 'N', 'G', '\r', '\n', 0x1A, 0}, domain.MediaFormat{}},
		{"JPEG marker byte only", []byte{0xFF, 0xD9, 0xFF}, domain.MediaFormat{}},
		{"pdf lowercase", []byte("%pdf-1.7"), domain.MediaFormat{}},
		{"PDF signature not at the start", []byte("\n%PDF-1.7"), domain.MediaFormat{}},
		{"ftyp QuickTime", ftyp("qt  "), domain.MediaFormat{}},
		{"ftyp HEIC", ftyp("heic"), domain.MediaFormat{}},
		{"ftyp AVIF", ftyp("avif"), domain.MediaFormat{}},
		{"ftyp M4A audio", ftyp("M4A "), domain.MediaFormat{}},
		{"ftyp brand uppercase", ftyp("ISOM"), domain.MediaFormat{}},
		{"ftyp unknown brand", ftyp("zzzz"), domain.MediaFormat{}},
		{"ftyp not at offset 4", append([]byte{0}, ftyp("isom")...), domain.MediaFormat{}},
		{"moov box first", []byte("\x00\x00\x00\x18moovisom\x00\x00\x00\x00"), domain.MediaFormat{}},
	}
	for _, c := range cases {
		if got := domain.SniffMediaFormat(c.head); got != c.want {
			t.Errorf("%s: SniffMediaFormat(%q) = %v, want %v", c.name, c.head, got, c.want)
		}
	}
}

func TestMediaFormatString(t *testing.T) {
	t.Parallel()
	got := map[string]bool{}
	for _, f := range []domain.MediaFormat{domain.MediaJPEG, domain.MediaPNG, domain.MediaMP4, domain.Media3GPP, domain.MediaPDF, {}} {
		got[f.String()] = f.IsZero()
	}
	want := map[string]bool{"jpeg": false, "png": false, "mp4": false, "3gpp": false, "pdf": false, "unrecognised": true}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("String and IsZero (-want +got):\n%s", diff)
	}
}

func TestMaxMediaSize(t *testing.T) {
	t.Parallel()
	for f, want := range map[domain.HeaderFormat]int64{
		domain.HeaderImage:    5 << 20,
		domain.HeaderVideo:    16 << 20,
		domain.HeaderDocument: 100 << 20,
		domain.HeaderText:     0,
		domain.HeaderNone:     0,
		{}:                    0,
	} {
		if got := f.MaxMediaSize(); got != want {
			t.Errorf("%q.MaxMediaSize() = %d, want %d", f, got, want)
		}
	}
}

func TestCheckMedia(t *testing.T) {
	t.Parallel()
	type kind struct {
		header    domain.HeaderFormat
		allowed   []domain.MediaFormat
		forbidden domain.MediaFormat
		formatErr string // detail for the forbidden format
		sizeErr   string // detail for limit+1 bytes
	}
	kinds := []kind{
		{domain.HeaderImage, []domain.MediaFormat{domain.MediaJPEG, domain.MediaPNG}, domain.MediaPDF,
			"An image header must be JPEG or PNG; its first bytes are those of PDF",
			"the resource is larger than the 5 MB Meta allows for an image header"},
		{domain.HeaderVideo, []domain.MediaFormat{domain.MediaMP4, domain.Media3GPP}, domain.MediaJPEG,
			"A video header must be MP4 or 3GPP; its first bytes are those of JPEG",
			"the resource is larger than the 16 MB Meta allows for a video header"},
		{domain.HeaderDocument, []domain.MediaFormat{domain.MediaPDF}, domain.MediaPNG,
			"A document header must be PDF; its first bytes are those of PNG",
			"the resource is larger than the 100 MB Meta allows for a document header"},
	}
	wantErr := func(t *testing.T, what string, err error, want *domain.Error) {
		t.Helper()
		var got *domain.Error
		if !errors.As(err, &got) {
			t.Errorf("%s: CheckMedia = %v, want %v", what, err, want)
			return
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%s: CheckMedia (-want +got):\n%s", what, diff)
		}
	}
	for _, k := range kinds {
		limit := k.header.MaxMediaSize()
		for _, f := range k.allowed {
			for _, size := range []int64{0, 1, limit} {
				if err := k.header.CheckMedia(domain.MediaInfo{Format: f, Size: size}); err != nil {
					t.Errorf("%v %v of %d bytes: %v", k.header, f, size, err)
				}
			}
			wantErr(t, k.header.String()+" "+f.String()+" at limit+1", k.header.CheckMedia(domain.MediaInfo{Format: f, Size: limit + 1}),
				&domain.Error{Code: domain.CodeMediaUnreachable, Param: "mediaHeaderUrl", Detail: k.sizeErr})
		}
		for _, size := range []int64{limit, limit + 1} {
			// The format is judged first, whatever the size.
			wantErr(t, k.header.String()+" forbidden format", k.header.CheckMedia(domain.MediaInfo{Format: k.forbidden, Size: size}),
				&domain.Error{Code: domain.CodeUnsupportedMediaFormat, Param: "mediaHeaderUrl", Detail: k.formatErr})
		}
		unrecognised := strings.SplitAfter(k.formatErr, "; ")[0] + "its first bytes match none of these formats"
		wantErr(t, k.header.String()+" unrecognised", k.header.CheckMedia(domain.MediaInfo{Size: 10}),
			&domain.Error{Code: domain.CodeUnsupportedMediaFormat, Param: "mediaHeaderUrl", Detail: unrecognised})
	}
	for _, h := range []domain.HeaderFormat{domain.HeaderNone, domain.HeaderText, {}} {
		err := h.CheckMedia(domain.MediaInfo{Format: domain.MediaPNG, Size: 10})
		wantErr(t, "header "+h.String(), err, &domain.Error{Code: domain.CodeMediaHeaderNotAllowed, Param: "mediaHeaderUrl",
			Detail: "the template has no media header; leave mediaHeaderUrl out"})
		if !errors.Is(err, domain.ErrMediaHeaderNotAllowed) {
			t.Errorf("header %q: %v is not media_header_not_allowed", h, err)
		}
	}
}

func TestMediaPolicyAllows(t *testing.T) {
	t.Parallel()
	p := domain.MediaPolicy{AllowedHosts: []string{"media.intranet", "cdn.example:8443", "10.0.0.7", "::1", "[fd00::1]:9000"}}
	cases := map[string]bool{
		"media.intranet:443":     true,
		"media.intranet:80":      true,
		"MEDIA.Intranet:8080":    true,
		"media.intranet.:443":    true,
		"cdn.example:8443":       true,
		"CDN.example:8443":       true,
		"cdn.example:443":        false,
		"10.0.0.7:80":            true,
		"10.0.0.8:80":            false,
		"[::1]:8080":             true,
		"[fd00::1]:9000":         true,
		"[fd00::1]:9001":         false,
		"sub.media.intranet:443": false,
		"intranet:443":           false,
		"media.intranet":         false, // no port: not a host:port
		"":                       false,
	}
	for hostport, want := range cases {
		if got := p.Allows(hostport); got != want {
			t.Errorf("Allows(%q) = %v, want %v", hostport, got, want)
		}
	}
	if (domain.MediaPolicy{}).Allows("media.intranet:443") {
		t.Error("the empty policy allows a host")
	}
}

// TestCheckMediaURLWithPolicy covers what a policy changes; the default
// policy is TestCheckMediaURL's.
func TestCheckMediaURLWithPolicy(t *testing.T) {
	t.Parallel()
	httpOnly := domain.MediaPolicy{AllowHTTP: true}
	loopback := domain.MediaPolicy{AllowHTTP: true, AllowedHosts: []string{"127.0.0.1", "localhost", "::1"}}
	onePort := domain.MediaPolicy{AllowHTTP: true, AllowedHosts: []string{"127.0.0.1:8080", "10.0.0.7:443"}}
	cases := []struct {
		policy      domain.MediaPolicy
		url, detail string // empty detail: accepted
	}{
		{httpOnly, "http://cdn.example.com/a.png", ""},
		{httpOnly, "HTTP://cdn.example.com:8080/a.png", ""},
		{httpOnly, "https://cdn.example.com/a.png", ""},
		{httpOnly, "ftp://cdn.example.com/a.png", "must use https"},
		{httpOnly, "gopher://cdn.example.com/a.png", "must use https"},
		{httpOnly, "http://127.0.0.1/a.png", "public address"},
		{httpOnly, "http://localhost:8080/a.png", "public host"},
		{httpOnly, "http://user:pass@cdn.example.com/a.png", "credentials"},
		{httpOnly, "http://[::ffff:127.0.0.1]/a.png", "public address"},
		{httpOnly, "http://2130706433/a.png", "standard dotted form"},

		// Allowed hosts without a port: any port.
		{loopback, "http://127.0.0.1/a.png", ""},
		{loopback, "http://127.0.0.1:8080/a.png", ""},
		{loopback, "https://127.0.0.1:8443/a.png", ""},
		{loopback, "http://LOCALHOST.:8080/a.png", ""},
		{loopback, "http://[::1]:9000/a.png", ""},
		// Another spelling of an allowed address is not allowed.
		{loopback, "http://[::ffff:127.0.0.1]/a.png", "public address"},
		{loopback, "http://127.0.0.2/a.png", "public address"},
		{loopback, "http://2130706433/a.png", "standard dotted form"},
		{loopback, "http://0x7f.1/a.png", "standard dotted form"},
		{loopback, "http://017700000001/a.png", "standard dotted form"},
		{loopback, "http://127.1/a.png", "standard dotted form"},
		// The other rules still hold for allowed hosts.
		{loopback, "http://user:pass@127.0.0.1/a.png", "credentials"},
		{loopback, "ftp://127.0.0.1/a.png", "must use https"},
		{loopback, "http://127.0.0.1/" + strings.Repeat("a", 2048), "longer than 2048"},
		{domain.MediaPolicy{AllowedHosts: []string{"127.0.0.1"}}, "http://127.0.0.1/a.png", "must use https"},

		// Allowed hosts with a port: that port only, the scheme's default
		// when the URL gives none.
		{onePort, "http://127.0.0.1:8080/a.png", ""},
		{onePort, "http://127.0.0.1:8081/a.png", "public address"},
		{onePort, "http://127.0.0.1/a.png", "public address"},
		{onePort, "https://10.0.0.7/a.png", ""},
		{onePort, "https://10.0.0.7:443/a.png", ""},
		{onePort, "http://10.0.0.7/a.png", "public address"},
	}
	for _, c := range cases {
		err := domain.CheckMediaURL(c.url, c.policy)
		if c.detail == "" {
			if err != nil {
				t.Errorf("CheckMediaURL(%q, %+v): %v", c.url, c.policy, err)
			}
			continue
		}
		var de *domain.Error
		if !errors.As(err, &de) || de.Code != domain.CodeInvalidMediaURL || de.Param != "mediaHeaderUrl" || !strings.Contains(de.Detail, c.detail) {
			t.Errorf("CheckMediaURL(%q, %+v): %v, want invalid_media_url saying %q", c.url, c.policy, err, c.detail)
		}
	}
}

// TestCheckMediaURLFullWidth: hosts written with full-width digits or
// ideographic full stops are judged as the ASCII address a client dials.
func TestCheckMediaURLFullWidth(t *testing.T) {
	t.Parallel()
	for _, raw := range []string{"https://１２７.０.０.１/a.jpg", "https://127。0。0。1/a.jpg", "https://127｡0｡0｡1/a.jpg",
		"https://１０.０.０.１/a.jpg", "https://０ｘ７ｆ.１/a.jpg", "https://ｌｏｃａｌｈｏｓｔ/a.jpg"} {
		if err := domain.CheckMediaURL(raw, domain.MediaPolicy{}); !errors.Is(err, domain.ErrInvalidMediaURL) {
			t.Errorf("CheckMediaURL(%q) = %v, want invalid_media_url", raw, err)
		}
	}
	if err := domain.CheckMediaURL("https://bücher.example/a.jpg", domain.MediaPolicy{}); err != nil {
		t.Errorf("an internationalised name: %v", err)
	}
}
