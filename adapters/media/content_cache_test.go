package media_test

import (
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/heraldhq/herald/adapters/media"
	"github.com/heraldhq/herald/domain"
)

const (
	idA = domain.MediaID("med_01j9z3kq7m8n2p4r6t8v0w2y4a")
	idB = domain.MediaID("med_01j9z3kq7m8n2p4r6t8v0w2y4b")
	idC = domain.MediaID("med_01j9z3kq7m8n2p4r6t8v0w2y4c")
)

func read(t *testing.T, c *media.ContentCache, id domain.MediaID) (string, string, bool) {
	t.Helper()
	body, mimeType, size, ok := c.OpenMedia(id)
	if !ok {
		return "", "", false
	}
	defer body.Close()
	b, err := io.ReadAll(body)
	if err != nil || int64(len(b)) != size {
		t.Fatalf("reading %s: %d bytes of %d, %v", id, len(b), size, err)
	}
	return string(b), mimeType, true
}

// The cache gives back what it was given, forgets the least recently read
// file once past its bound, and keeps what the directory holds across a
// restart.
func TestContentCache(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	// Each entry is its type's line (11 bytes) and 20 bytes: three do not fit in 70.
	c, err := media.NewContentCache(media.CacheConfig{Dir: dir, MaxBytes: 70})
	if err != nil {
		t.Fatal(err)
	}
	file := func(s string) []byte { return []byte((s + "....................")[:20]) }
	for _, id := range []domain.MediaID{idA, idB} {
		if err := c.PutMedia(id, "image/jpeg", file(string(id[len(id)-1:]))); err != nil {
			t.Fatal(err)
		}
	}
	if body, mimeType, ok := read(t, c, idA); !ok || body != string(file("a")) || mimeType != "image/jpeg" {
		t.Fatalf("A: %q %q %v", body, mimeType, ok)
	}
	if err := c.PutMedia(idC, "image/jpeg", file("c")); err != nil { // B was read least recently
		t.Fatal(err)
	}
	if _, _, ok := read(t, c, idB); ok {
		t.Fatal("B is still cached past the bound")
	}
	if _, err := os.Stat(filepath.Join(dir, string(idB))); !os.IsNotExist(err) {
		t.Fatalf("B's file is still on disk: %v", err)
	}
	if c.Size() != 62 {
		t.Fatalf("the cache holds %d bytes, want 62", c.Size())
	}
	again, err := media.NewContentCache(media.CacheConfig{Dir: dir, MaxBytes: 70})
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range []domain.MediaID{idA, idC} {
		if _, _, ok := read(t, again, id); !ok {
			t.Fatalf("%s is lost across a restart", id)
		}
	}
	if err := again.PutMedia(idB, "image/jpeg", make([]byte, 100)); err != nil || again.Size() != 62 {
		t.Fatalf("a file larger than the bound: %v, %d bytes held", err, again.Size())
	}
}
