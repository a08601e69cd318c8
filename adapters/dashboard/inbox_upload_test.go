package dashboard_test

import (
	"bytes"
	"context"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/heraldhq/herald/adapters/dashboard"
	"github.com/heraldhq/herald/domain"
	"github.com/heraldhq/herald/ports"
)

// pngBytes is the start of a PNG file: enough for its type.
var pngBytes = append([]byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"), bytes.Repeat([]byte{1}, 64)...)

// uploadThread opens a test contact's thread with its window open and
// returns its path and contact id.
func uploadThread(t *testing.T, b *browser, from string) (string, domain.ContactID) {
	t.Helper()
	b.login()
	b.get("/dashboard/inbox")
	res, body := b.post("/dashboard/inbox/simulate", url.Values{"from": {from}, "text": {"Send me the photo"}})
	mustStatus(t, "simulating a customer", res, body, http.StatusSeeOther)
	_, body = b.get("/dashboard/inbox")
	thread := threadLink.FindStringSubmatch(body)[1]
	return thread, domain.ContactID(strings.TrimPrefix(thread, "/dashboard/inbox/"))
}

// A file attached to the reply box is checked and kept as POST /v1/media
// keeps it, then sent by its id as the message type its bytes make it,
// with the message box's text as its caption; pressed twice, sent once.
func TestInboxReplyUpload(t *testing.T) {
	t.Parallel()
	e := newEnv(t, dashboard.Config{})
	b := e.browser(t)
	thread, contact := uploadThread(t, b, "+447700900131")

	_, body := b.get(thread)
	mustShow(t, "the thread", body, `enctype="multipart/form-data"`, `type="file"`, "up to 16 MB")
	key := sendKey.FindStringSubmatch(body)[1]
	form := url.Values{"type": {"text"}, "text": {"Here is the photo"}, "key": {key}}
	res, body := b.postFile(thread+"/reply", form, "shelf.png", pngBytes)
	mustStatus(t, "replying with a file", res, body, http.StatusSeeOther)
	res, body = b.postFile(thread+"/reply", form, "shelf.png", pngBytes) // pressed twice
	mustStatus(t, "replying again with the same form", res, body, http.StatusSeeOther)

	ctx := context.Background()
	ws := e.defaultWorkspace(t)
	es, _, err := e.store.ListEntries(ctx, ws, contact, domain.KeyMode{}, ports.Page{})
	if err != nil {
		t.Fatal(err)
	}
	var sent []domain.Entry
	for _, en := range es {
		if en.Direction == domain.Outbound {
			sent = append(sent, en)
		}
	}
	if len(sent) != 1 {
		t.Fatalf("the thread has %d sent messages, want 1: %+v", len(sent), sent)
	}
	m, err := e.store.GetMessage(ctx, ws, sent[0].MessageID)
	if err != nil {
		t.Fatal(err)
	}
	s := m.Session
	if s == nil || s.Type != domain.KindImage || s.Media == nil || !strings.HasPrefix(s.Media.MediaID, "med_") ||
		s.Media.Link != "" || s.Media.Caption != "Here is the photo" || m.Mode != domain.ModeTest {
		t.Fatalf("the reply went out as %+v (session %+v), want a test image by media id with the text as caption", m, s)
	}
	f, err := e.store.GetMedia(ctx, ws, domain.MediaID(s.Media.MediaID))
	if err != nil {
		t.Fatal(err)
	}
	if f.Origin != domain.MediaUploaded || f.MimeType != "image/png" || f.Filename != "shelf.png" || f.Mode != domain.ModeTest {
		t.Fatalf("the file was kept as %+v", f)
	}
	_, body = b.get(thread)
	mustShow(t, "the thread", body, "Here is the photo")
}

// A file of a type WhatsApp does not take is refused in the form, keeping
// what was typed; a file kept by an earlier refused send goes with the
// next one without being chosen again.
func TestInboxReplyUploadRefused(t *testing.T) {
	t.Parallel()
	e := newEnv(t, dashboard.Config{})
	b := e.browser(t)
	thread, _ := uploadThread(t, b, "+447700900132")

	_, body := b.get(thread)
	key := sendKey.FindStringSubmatch(body)[1]
	res, body := b.postFile(thread+"/reply", url.Values{"type": {"text"}, "text": {"Our price list"}, "key": {key}},
		"prices.exe", []byte("MZ\x90\x00\x03\x00\x00\x00\x04\x00"))
	mustStatus(t, "replying with an executable", res, body, http.StatusUnprocessableEntity)
	mustShow(t, "the refused form", body, "Nothing was sent.", "are of no type WhatsApp accepts", ">Our price list</textarea>")
	if strings.Contains(body, `name="mediaId"`) {
		t.Fatalf("the refused file is kept in the form:\n%s", body)
	}

	// An audio has no caption: refused after the file was kept, which the
	// form then carries.
	mp3 := append([]byte("ID3\x04\x00\x00\x00\x00\x00\x00"), bytes.Repeat([]byte{0}, 32)...)
	_, body = b.get(thread)
	key = sendKey.FindStringSubmatch(body)[1]
	res, body = b.postFile(thread+"/reply", url.Values{"type": {"text"}, "text": {"listen"}, "key": {key}}, "note.mp3", mp3)
	mustStatus(t, "replying with an audio and text", res, body, http.StatusUnprocessableEntity)
	mustShow(t, "the refused form", body, "text: an audio has no caption", "Attached: <bdi>note.mp3</bdi> (audio)", ">listen</textarea>")
	id := regexpMediaID.FindStringSubmatch(body)
	if id == nil {
		t.Fatalf("the refused form does not carry the kept file:\n%s", body)
	}
	key = sendKey.FindStringSubmatch(body)[1]
	res, body = b.postFile(thread+"/reply", url.Values{"type": {"text"}, "text": {""}, "key": {key},
		"mediaId": {id[1]}, "mediaKind": {"audio"}, "mediaName": {"note.mp3"}}, "", nil)
	mustStatus(t, "sending the kept audio", res, body, http.StatusSeeOther)
}

// The multipart reply form needs the session's form token as the others
// do, and refuses a file over the dashboard's limit before reading it.
func TestInboxReplyUploadForm(t *testing.T) {
	t.Parallel()
	e := newEnv(t, dashboard.Config{})
	b := e.browser(t)
	thread, _ := uploadThread(t, b, "+447700900133")

	_, body := b.get(thread)
	key := sendKey.FindStringSubmatch(body)[1]
	res, body := b.postFile(thread+"/reply", url.Values{"csrf": {""}, "text": {"hi"}, "key": {key}}, "a.png", pngBytes)
	mustStatus(t, "a form without its token", res, body, http.StatusForbidden)
	res, body = b.postFile(thread+"/reply", url.Values{"csrf": {"forged"}, "text": {"hi"}, "key": {key}}, "a.png", pngBytes)
	mustStatus(t, "a form with a forged token", res, body, http.StatusForbidden)

	big := make([]byte, 16<<20+1)
	copy(big, pngBytes)
	res, body = b.postFile(thread+"/reply", url.Values{"text": {"hi"}, "key": {key}}, "big.png", big)
	mustStatus(t, "a file over 16 MB", res, body, http.StatusRequestEntityTooLarge)
	mustShow(t, "the refusal", body, "16 MB at most")

	_, body = b.get(thread)
	if strings.Contains(body, "Sent ·") {
		t.Fatalf("a refused form sent a message:\n%s", body)
	}
}

// regexpMediaID finds the file a refused reply form carries.
var regexpMediaID = regexp.MustCompile(`name="mediaId" value="(med_[0-9a-z]+)"`)
