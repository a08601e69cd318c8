package domain_test

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/heraldhq/herald/domain"
)

// A document header carries a name the recipient sees: the server's, else
// the URL's, else one from the file's type; always safe and a .pdf.
func TestDocumentFilename(t *testing.T) {
	t.Parallel()
	const url = "https://cdn.example.com/docs/terms.pdf?X-Amz-Signature=abc"
	for _, c := range []struct {
		name, served, url, want string
	}{
		{"the server's name", "Terms of service.pdf", url, "Terms of service.pdf"},
		{"the URL's last segment", "", url, "terms.pdf"},
		{"an escaped URL segment", "", "https://cdn.example.com/Terms%20and%20Conditions.pdf", "Terms and Conditions.pdf"},
		{"no name anywhere", "", "https://cdn.example.com/", "document.pdf"},
		{"no path", "", "https://cdn.example.com", "document.pdf"},
		{"a segment without extension", "", "https://cdn.example.com/download?id=7", "download.pdf"},
		{"a name without extension", "contract", url, "contract.pdf"},
		{"another extension", "contract.docx", url, "contract.docx.pdf"},
		{"the extension in capitals", "CONTRACT.PDF", url, "CONTRACT.PDF"},
		{"a path in the name", "../../etc/passwd", url, "passwd.pdf"},
		{"a Windows path", `C:\Users\ana\invoice 12.pdf`, url, "invoice 12.pdf"},
		{"a name ending in a separator", "docs/", url, "terms.pdf"},
		{"control characters", "in\x00voice\r\n.pdf", url, "invoice.pdf"},
		{"a right-to-left override", "invoice\u202efdp.exe", url, "invoicefdp.exe.pdf"},
		{"isolates and marks", "\u2067a\u2069\u200e.pdf", url, "a.pdf"},
		{"only dots", "..", url, "terms.pdf"},
		{"only the extension", ".PDF", url, "terms.pdf"},
		{"a file named like the extension", "pdf", url, "pdf.pdf"},
		{"a hidden file", ".terms.pdf", url, "terms.pdf"},
		{"spaces and dots around", "  terms .pdf. ", url, "terms.pdf"},
		{"invalid UTF-8", "t\xffe\xc3rms.pdf", url, "terms.pdf"},
		{"non-Latin", "Договор №5.pdf", url, "Договор №5.pdf"},
	} {
		if got := domain.DocumentFilename(c.served, c.url, domain.MediaPDF); got != c.want {
			t.Errorf("%s: DocumentFilename(%q, %q) = %q, want %q", c.name, c.served, c.url, got, c.want)
		}
	}
}

func TestDocumentFilenameIsBounded(t *testing.T) {
	t.Parallel()
	for _, served := range []string{strings.Repeat("a", 300) + ".pdf", strings.Repeat("é", 300), strings.Repeat("😀", 100) + ".PDF"} {
		got := domain.DocumentFilename(served, "https://cdn.example.com/x.pdf", domain.MediaPDF)
		if len(got) > domain.MaxMediaFilenameLength || !utf8.ValidString(got) || !strings.HasSuffix(strings.ToLower(got), ".pdf") {
			t.Errorf("DocumentFilename of %d bytes = %q (%d bytes); want at most %d bytes of UTF-8 ending in .pdf",
				len(served), got, len(got), domain.MaxMediaFilenameLength)
		}
		if len(got) < domain.MaxMediaFilenameLength-4 {
			t.Errorf("DocumentFilename cut %q to %d bytes, more than it needed", served[:8], len(got))
		}
	}
}

// Only documents carry a name; images and videos are sent by link alone.
func TestMediaFilenameOnlyForDocuments(t *testing.T) {
	t.Parallel()
	info := domain.MediaInfo{Format: domain.MediaPDF, Size: 1000, Filename: "terms.pdf"}
	if got := domain.HeaderDocument.MediaFilename("https://cdn.example.com/t", info); got != "terms.pdf" {
		t.Errorf("document header: %q, want terms.pdf", got)
	}
	for _, f := range []domain.HeaderFormat{domain.HeaderImage, domain.HeaderVideo, domain.HeaderText, domain.HeaderNone} {
		if got := f.MediaFilename("https://cdn.example.com/a.jpg", domain.MediaInfo{Format: domain.MediaJPEG, Filename: "a.jpg"}); got != "" {
			t.Errorf("%s header: %q, want no file name", f, got)
		}
	}
}
