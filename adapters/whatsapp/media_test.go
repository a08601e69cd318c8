package whatsapp_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"testing"

	"github.com/heraldhq/herald/adapters/whatsapp"
	"github.com/heraldhq/herald/domain"
	"github.com/heraldhq/herald/ports"
)

// A file goes to Meta's media store for the sending number with its name
// and type; a type Meta refuses is a permanent failure with Meta's code.
func TestUploadMedia(t *testing.T) {
	t.Parallel()
	fake, c := newFake(t)
	content := []byte("%PDF-1.7 invoice")
	id, err := c.UploadMedia(context.Background(), domain.MediaFile{ID: "med_1", MimeType: "application/pdf", Filename: "invoice.pdf"}, content)
	if err != nil {
		t.Fatal(err)
	}
	ups := fake.Uploads()
	if c.Number() != fake.PhoneNumberID || len(ups) != 1 || ups[0].ID != id || ups[0].PhoneNumberID != fake.PhoneNumberID ||
		ups[0].Filename != "invoice.pdf" || ups[0].MimeType != "application/pdf" || !bytes.Equal(ups[0].Content, content) {
		t.Fatalf("Meta's store after upload %q: %+v", id, ups)
	}
	_, err = c.UploadMedia(context.Background(), domain.MediaFile{ID: "med_2", MimeType: "image/gif"}, []byte("GIF89a"))
	var se *ports.SendError
	if !errors.As(err, &se) || se.Class != ports.ClassPermanent || se.Code != 100 {
		t.Fatalf("a GIF: %v, want Meta's permanent refusal", err)
	}
}

// A contact's file is read through the URL Meta gives, with the token; a
// file Meta does not have is not found; a client with a wrong token is
// refused before any file is read.
func TestDownloadMedia(t *testing.T) {
	t.Parallel()
	fake, c := newFake(t)
	photo := []byte{0xFF, 0xD8, 0xFF, 0xE0, 'j', 'p', 'g'}
	id := fake.AddMedia(photo, "image/jpeg")
	got, err := c.DownloadMedia(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(got.Body)
	got.Body.Close()
	if !bytes.Equal(b, photo) || got.MimeType != "image/jpeg" || got.Size != int64(len(photo)) || fake.MediaDownloads() != 1 {
		t.Fatalf("download: %q %+v after %d downloads", b, got, fake.MediaDownloads())
	}
	fake.ForgetMedia(id)
	if _, err := c.DownloadMedia(context.Background(), id); !errors.Is(err, domain.ErrMediaNotFound) {
		t.Fatalf("a file Meta forgot: %v", err)
	}
	if _, err := c.DownloadMedia(context.Background(), "../x"); !errors.Is(err, domain.ErrMediaNotFound) {
		t.Fatalf("a malformed id: %v", err)
	}
	wrong := whatsapp.New(whatsapp.Config{APIURL: fake.URL, AccessToken: "wrong", PhoneNumberID: fake.PhoneNumberID})
	var se *ports.SendError
	if _, err := wrong.DownloadMedia(context.Background(), fake.AddMedia(photo, "image/jpeg")); !errors.As(err, &se) || se.Class != ports.ClassAuth {
		t.Fatalf("a wrong token: %v, want an auth failure", err)
	}
}
