package domain_test

import (
	"crypto/sha256"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/heraldhq/herald/domain"
)

func pad(head string, size int) []byte {
	b := make([]byte, size)
	copy(b, head)
	return b
}

// Every type WhatsApp takes is recognised from its bytes, whatever the
// name says; Office files take their kind from the name within the
// container their bytes show; anything else is refused.
func TestSniffMediaType(t *testing.T) {
	t.Parallel()
	ftyp := func(brand string) string { return "\x00\x00\x00\x18ftyp" + brand }
	ogg := "OggS" + strings.Repeat("\x00", 24)
	for _, tc := range []struct {
		name, file, head string
		mime, kind       string
	}{
		{"JPEG named PNG", "a.png", "\xFF\xD8\xFF\xE0", "image/jpeg", domain.KindImage},
		{"PNG", "a", "\x89PNG\r\n\x1a\n", "image/png", domain.KindImage},
		{"WebP", "s.webp", "RIFF\x00\x00\x00\x00WEBPVP8 ", "image/webp", domain.KindSticker},
		{"MP4", "v.mov", ftyp("isom"), "video/mp4", domain.KindVideo},
		{"3GPP", "v", ftyp("3gp5"), "video/3gpp", domain.KindVideo},
		{"M4A", "a", ftyp("M4A "), "audio/mp4", domain.KindAudio},
		{"AMR", "a", "#!AMR\n", "audio/amr", domain.KindAudio},
		{"MP3 with a tag", "a", "ID3\x04", "audio/mpeg", domain.KindAudio},
		{"MP3 frame", "a", "\xFF\xFB\x90", "audio/mpeg", domain.KindAudio},
		{"AAC", "a", "\xFF\xF1\x50", "audio/aac", domain.KindAudio},
		{"Opus", "a.ogg", ogg + "OpusHead", "audio/ogg", domain.KindAudio},
		{"PDF", "x.jpg", "%PDF-1.7", "application/pdf", domain.KindDocument},
		{"text", "notes", "Order 1234\nshipped\n", "text/plain", domain.KindDocument},
		{"Word", "a.doc", "\xD0\xCF\x11\xE0\xA1\xB1\x1A\xE1", "application/msword", domain.KindDocument},
		{"Excel 2007", "a.XLSX", "PK\x03\x04", "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet", domain.KindDocument},
		{"Vorbis", "a.ogg", ogg + "\x01vorbis", "", ""},
		{"ZIP", "a.zip", "PK\x03\x04", "", ""},
		{"OLE named docx", "a.docx", "\xD0\xCF\x11\xE0\xA1\xB1\x1A\xE1", "", ""},
		{"GIF", "a.png", "GIF89a\x01\x00\x01\x00\x80\x00\x00", "", ""},
		{"program", "a.pdf", "MZ\x90\x00\x03\x00", "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := domain.SniffMediaType(tc.file, []byte(tc.head))
			if ok != (tc.mime != "") || got.MimeType != tc.mime || got.Kind != tc.kind {
				t.Fatalf("SniffMediaType(%q) = %+v, %v; want %s as %s", tc.name, got, ok, tc.mime, tc.kind)
			}
		})
	}
}

// Meta's size limits hold at their edges, per type.
func TestUploadedMediaSizes(t *testing.T) {
	t.Parallel()
	p := domain.Principal{Workspace: "wsp_1", Mode: domain.ModeLive}
	vp8x := func(animated bool) string {
		flags := "\x00"
		if animated {
			flags = "\x02"
		}
		return "RIFF\x00\x00\x00\x00WEBPVP8X\x0a\x00\x00\x00" + flags
	}
	for _, tc := range []struct {
		name, head string
		size       int
		ok         bool
	}{
		{"image at 5 MB", "\xFF\xD8\xFF", 5 << 20, true},
		{"image over 5 MB", "\xFF\xD8\xFF", 5<<20 + 1, false},
		{"video at 16 MB", "\x00\x00\x00\x18ftypmp42", 16 << 20, true},
		{"video over 16 MB", "\x00\x00\x00\x18ftypmp42", 16<<20 + 1, false},
		{"sticker at 100 KB", vp8x(false), 100 << 10, true},
		{"sticker over 100 KB", vp8x(false), 100<<10 + 1, false},
		{"animated sticker at 500 KB", vp8x(true), 500 << 10, true},
		{"animated sticker over 500 KB", vp8x(true), 500<<10 + 1, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			content := pad(tc.head, tc.size)
			_, err := domain.NewUploadedMedia("med_1", p, "f", content, sha256.Sum256(content), time.Now())
			if tc.ok && err != nil || !tc.ok && !errors.Is(err, &domain.Error{Code: domain.CodeMediaTooLarge}) {
				t.Fatalf("NewUploadedMedia(%s) = %v", tc.name, err)
			}
		})
	}
	if _, err := domain.NewUploadedMedia("med_1", p, "f", nil, [32]byte{}, time.Now()); !errors.Is(err, &domain.Error{Code: domain.CodeUnsupportedMediaFormat}) {
		t.Fatalf("an empty file: %v", err)
	}
}

// A file's metadata keeps the name's last element, the hash in hex, the
// key's workspace and mode.
func TestNewUploadedMedia(t *testing.T) {
	t.Parallel()
	content := []byte("%PDF-1.7 invoice")
	sum := sha256.Sum256(content)
	at := time.Date(2026, 11, 26, 8, 0, 0, 123456789, time.UTC)
	f, err := domain.NewUploadedMedia("med_1", domain.Principal{Workspace: "wsp_1", Mode: domain.ModeTest}, "C:\\files\\inv\x01oice.pdf", content, sum, at)
	if err != nil {
		t.Fatal(err)
	}
	want := domain.MediaFile{ID: "med_1", Workspace: "wsp_1", Mode: domain.ModeTest, Origin: domain.MediaUploaded, Kind: domain.KindDocument,
		MimeType: "application/pdf", Size: int64(len(content)), SHA256: hexOf(sum),
		Filename: "invoice.pdf", CreatedAt: at.Truncate(time.Microsecond)}
	if f != want {
		t.Fatalf("NewUploadedMedia = %+v\nwant %+v", f, want)
	}
}

func hexOf(sum [32]byte) string {
	const digits = "0123456789abcdef"
	b := make([]byte, 64)
	for i, c := range sum {
		b[2*i], b[2*i+1] = digits[c>>4], digits[c&15]
	}
	return string(b)
}

// An upload is used until MediaReuploadAfter, three days before Meta's 30
// days run out.
func TestMediaUploadFresh(t *testing.T) {
	t.Parallel()
	at := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	u := domain.MediaUpload{Media: "med_1", Number: "1", ProviderID: "9", UploadedAt: at}
	for _, tc := range []struct {
		after time.Duration
		fresh bool
	}{{0, true}, {27*24*time.Hour - time.Nanosecond, true}, {27 * 24 * time.Hour, false}, {31 * 24 * time.Hour, false}} {
		if got := u.Fresh(at.Add(tc.after)); got != tc.fresh {
			t.Errorf("Fresh after %v = %v, want %v", tc.after, got, tc.fresh)
		}
	}
}

// A contact's file is named after its thread entry; Meta's base64 hash is
// kept in hex.
func TestNewInboundMedia(t *testing.T) {
	t.Parallel()
	e := domain.Entry{ID: "ent_01j9z3kq7m8n2p4r6t8v0w2y4a", Workspace: "wsp_1", Mode: domain.ModeLive, Kind: domain.KindImage,
		Media: &domain.Attachment{ID: "1566", MimeType: "image/jpeg", SHA256: "n4vDDd2Q4MGyX2OVGj3iGFVnMXw10RrBgIBfXGDnE6k="}}
	f, ok := domain.NewInboundMedia(e)
	if !ok || f.ID != "med_01j9z3kq7m8n2p4r6t8v0w2y4a" || f.Origin != domain.MediaInbound || f.ProviderID != "1566" ||
		f.SHA256 != "9f8bc30ddd90e0c1b25f63951a3de2185567317c35d11ac180805f5c60e713a9" {
		t.Fatalf("NewInboundMedia = %+v, %v", f, ok)
	}
	if _, err := domain.ParseMediaID(string(f.ID)); err != nil {
		t.Fatalf("the id does not parse: %v", err)
	}
}
