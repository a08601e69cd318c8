package domain_test

import (
	"bytes"
	"testing"

	"github.com/heraldhq/herald/domain"
)

// signatures are the leading bytes of each format, written independently
// of the domain package. ISO base media files (MP4, 3GPP) are told apart by
// their box type and brand, checked separately.
var signatures = map[domain.MediaFormat][]byte{
	domain.MediaJPEG: {0xFF, 0xD8, 0xFF},
	domain.MediaPNG:  {0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A},
	domain.MediaPDF:  []byte("%PDF-"),
}

var brands = map[string]domain.MediaFormat{
	"isom": domain.MediaMP4, "iso2": domain.MediaMP4, "mp41": domain.MediaMP4, "mp42": domain.MediaMP4,
	"avc1": domain.MediaMP4, "M4V ": domain.MediaMP4, "dash": domain.MediaMP4,
}

// FuzzSniffMediaFormat: SniffMediaFormat never panics; a recognised
// format's signature starts the input; only the first MediaSniffLength
// bytes count; and appending bytes never changes a recognised format.
func FuzzSniffMediaFormat(f *testing.F) {
	f.Add([]byte("\x89PNG\r\n\x1a\n"), []byte("IHDR"))
	f.Add([]byte("\x00\x00\x00\x18ftyp3gp4"), []byte{})
	f.Add([]byte("GIF89a"), []byte("\xff\xd8\xff"))
	f.Fuzz(func(t *testing.T, head, tail []byte) {
		got := domain.SniffMediaFormat(head)
		if n := domain.MediaSniffLength; len(head) > n {
			if cut := domain.SniffMediaFormat(head[:n]); cut != got {
				t.Fatalf("SniffMediaFormat(%q) = %v but %v on its first %d bytes", head, got, cut, n)
			}
		}
		if got.IsZero() {
			return
		}
		if sig, ok := signatures[got]; ok {
			if !bytes.HasPrefix(head, sig) {
				t.Fatalf("SniffMediaFormat(%q) = %v without the signature %q", head, got, sig)
			}
		} else {
			if len(head) < 12 || string(head[4:8]) != "ftyp" {
				t.Fatalf("SniffMediaFormat(%q) = %v without a leading ftyp box", head, got)
			}
			brand := string(head[8:12])
			want, known := brands[brand]
			if brand[:3] == "3gp" || brand[:3] == "3g2" {
				want, known = domain.Media3GPP, true
			}
			if !known || got != want {
				t.Fatalf("SniffMediaFormat(%q) = %v for the brand %q", head, got, brand)
			}
		}
		longer := append(append([]byte{}, head...), tail...)
		if again := domain.SniffMediaFormat(longer); again != got {
			t.Fatalf("SniffMediaFormat(%q) = %v but %v once %q is appended", head, got, again, tail)
		}
	})
}
