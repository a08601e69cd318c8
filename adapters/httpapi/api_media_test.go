package httpapi_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"mime/multipart"
	"net/http"
	"net/textproto"
	"regexp"
	"strings"
	"testing"
	"time"
)

// pngFile is a small file whose bytes are a PNG's.
func pngFile(tag string) []byte {
	return append([]byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"), []byte(tag)...)
}

// multipartBody is a multipart/form-data body with one part per file
// (field name, file name, declared type, bytes) and its Content-Type.
func multipartBody(t *testing.T, parts ...[4]string) (string, string) {
	t.Helper()
	var b bytes.Buffer
	w := multipart.NewWriter(&b)
	for _, p := range parts {
		h := textproto.MIMEHeader{}
		h.Set("Content-Disposition", `form-data; name="`+p[0]+`"; filename="`+p[1]+`"`)
		h.Set("Content-Type", p[2])
		part, err := w.CreatePart(h)
		if err != nil {
			t.Fatal(err)
		}
		part.Write([]byte(p[3]))
	}
	w.Close()
	return b.String(), w.FormDataContentType()
}

// upload posts one file with key and returns the answer.
func (e *apiEnv) upload(t *testing.T, key, name, declared string, content []byte) (*http.Response, string) {
	t.Helper()
	body, ct := multipartBody(t, [4]string{"file", name, declared, string(content)})
	return e.do(t, "POST", "/v1/media", map[string]string{"X-API-KEY": key, "Content-Type": ct}, body)
}

var mediaIDPattern = regexp.MustCompile(`^med_[0-7][0-9a-hjkmnp-tv-z]{25}$`)

// An upload answers 201 with the file's metadata, judged from its bytes;
// the metadata and the bytes read back; the same bytes again answer the
// first upload; a live key's file goes to Meta once.
func TestMediaUpload(t *testing.T) {
	onEveryEngine(t, func(t *testing.T, e *apiEnv) {
		content := pngFile("one")
		res, got := e.upload(t, e.key, "photo.jpg", "image/jpeg", content)
		if res.StatusCode != http.StatusCreated {
			t.Fatalf("upload: %d %s", res.StatusCode, got)
		}
		m := decode[map[string]any](t, got)
		id, _ := m["id"].(string)
		sum := sha256.Sum256(content)
		want := canonical(map[string]any{"id": id, "origin": "uploaded", "type": "image", "mimeType": "image/png",
			"size": len(content), "sha256": hex.EncodeToString(sum[:]), "filename": "photo.jpg", "createdAt": m["createdAt"]})
		if !mediaIDPattern.MatchString(id) || canonical(m) != want || res.Header.Get("Location") != "/v1/media/"+id {
			t.Fatalf("upload answered %s (Location %q), want %s", got, res.Header.Get("Location"), want)
		}
		res, got = e.do(t, "GET", "/v1/media/"+id, e.keyed(e.key), "")
		if res.StatusCode != 200 || canonical(decode[map[string]any](t, got)) != want {
			t.Fatalf("GET: %d %s", res.StatusCode, got)
		}
		res, got = e.do(t, "GET", "/v1/media/"+id+"/content", e.keyed(e.key), "")
		if res.StatusCode != 200 || got != string(content) || res.Header.Get("Content-Type") != "image/png" ||
			res.Header.Get("X-Content-Type-Options") != "nosniff" || !strings.HasPrefix(res.Header.Get("Content-Disposition"), "attachment") {
			t.Fatalf("content: %d %q %v", res.StatusCode, got, res.Header)
		}
		res, got = e.upload(t, e.key, "again.png", "image/png", content)
		if res.StatusCode != http.StatusCreated || decode[map[string]any](t, got)["id"] != id {
			t.Fatalf("same bytes again: %d %s, want %s", res.StatusCode, got, id)
		}
		if n := len(e.uploads.UploadMediaCalls()); n != 0 {
			t.Fatalf("a test key's file went to Meta %d times", n)
		}

		live := pngFile("live")
		for range 2 {
			if res, got := e.upload(t, e.liveKey, "live.png", "image/png", live); res.StatusCode != http.StatusCreated {
				t.Fatalf("live upload: %d %s", res.StatusCode, got)
			}
		}
		calls := e.uploads.UploadMediaCalls()
		if len(calls) != 1 || !bytes.Equal(calls[0].Content, live) || calls[0].F.MimeType != "image/png" {
			t.Fatalf("Meta got %d uploads, want the live file once", len(calls))
		}
		res, got = e.upload(t, e.liveKey, "photo.png", "image/png", content)
		if res.StatusCode != http.StatusCreated || decode[map[string]any](t, got)["id"] == id {
			t.Fatalf("the test key's bytes with a live key: %d %s; want a file of its own", res.StatusCode, got)
		}
	})
}

// Uploads Herald refuses, each with its exact problem.
func TestMediaUploadRefused(t *testing.T) {
	onEveryEngine(t, func(t *testing.T, e *apiEnv) {
		exe := append([]byte("MZ\x90\x00\x03\x00\x00\x00"), make([]byte, 64)...)
		bigPNG := append(pngFile("big"), make([]byte, 5<<20)...)
		two, twoCT := multipartBody(t, [4]string{"file", "a.png", "image/png", string(pngFile("a"))},
			[4]string{"file", "b.png", "image/png", string(pngFile("b"))})
		other, otherCT := multipartBody(t, [4]string{"caption", "a.png", "image/png", "hi"})
		none, noneCT := multipartBody(t)
		for _, tc := range []struct {
			name, ct, body string
			status         int
			want           string
		}{
			{"a program named like a picture", "", string(exe), 422, problemBody(422, "unsupported_media_format", "Unsupported media format", "file",
				"the file's bytes are of no type WhatsApp accepts (JPEG, PNG, WebP, MP4, 3GPP, AAC, AMR, MP3, M4A, OGG Opus, PDF, plain text, Word, Excel, PowerPoint); the name and Content-Type do not count")},
			{"an image over 5 MB", "", string(bigPNG), 422, problemBody(422, "media_too_large", "Media too large", "file",
				"the file is 5242899 bytes; WhatsApp takes image/png files of at most 5 MB")},
			{"two files", twoCT, two, 422, problemBody(422, "invalid_parameter", "Invalid parameter", "file", "send one file per request")},
			{"another field", otherCT, other, 422, problemBody(422, "invalid_parameter", "Invalid parameter", "caption",
				"unknown field; send only the file, in a part named file")},
			{"no file", noneCT, none, 400, problemBody(400, "missing_parameter", "Missing parameter", "file", "send the file in a part named file")},
			{"JSON", "application/json", `{"file":"x"}`, 415, problemBody(415, "unsupported_media_type", "Unsupported media type", "",
				"send the file as multipart/form-data, in a part named file")},
		} {
			t.Run(tc.name, func(t *testing.T) {
				var res *http.Response
				var got string
				if tc.ct == "" {
					res, got = e.upload(t, e.key, "photo.png", "image/png", []byte(tc.body))
				} else {
					res, got = e.do(t, "POST", "/v1/media", map[string]string{"X-API-KEY": e.key, "Content-Type": tc.ct}, tc.body)
				}
				if res.StatusCode != tc.status || canonicalString(normalize(got)) != tc.want {
					t.Fatalf("%d %s\nwant %d %s", res.StatusCode, got, tc.status, tc.want)
				}
			})
		}
	})
}

// Another workspace's file, or another mode's, answers as a missing one,
// to reads and to sends.
func TestMediaOtherWorkspace(t *testing.T) {
	onEveryEngine(t, func(t *testing.T, e *apiEnv) {
		res, got := e.upload(t, e.key, "photo.png", "image/png", pngFile("mine"))
		if res.StatusCode != http.StatusCreated {
			t.Fatalf("upload: %d %s", res.StatusCode, got)
		}
		id := decode[map[string]any](t, got)["id"].(string)
		notFound := problemBody(404, "media_not_found", "Media not found", "", "no media with this id")
		for _, key := range []string{e.otherKey, e.liveKey} {
			for _, url := range []string{"/v1/media/" + id, "/v1/media/" + id + "/content", "/v1/media/med_nope"} {
				res, got := e.do(t, "GET", url, e.keyed(key), "")
				if res.StatusCode != 404 || canonicalString(normalize(got)) != notFound {
					t.Fatalf("GET %s: %d %s", url, res.StatusCode, got)
				}
			}
		}
		phone := "+14155550188"
		contact := e.contactFor(t, e.key, phone)
		e.wrote(t, e.key, contact, time.Now().Add(-time.Hour))
		res, got = e.upload(t, e.otherKey, "photo.png", "image/png", pngFile("theirs"))
		if res.StatusCode != http.StatusCreated {
			t.Fatalf("upload: %d %s", res.StatusCode, got)
		}
		theirs := decode[map[string]any](t, got)["id"].(string)
		res, got = e.do(t, "POST", sessionURL, e.keyed(e.key), `{"to":"`+phone+`","type":"image","image":{"mediaId":"`+theirs+`"}}`)
		if want := problemBody(404, "media_not_found", "Media not found", "image.mediaId", "no media with this id"); res.StatusCode != 404 || canonicalString(normalize(got)) != want {
			t.Fatalf("send another workspace's file: %d %s", res.StatusCode, got)
		}
	})
}

// A session message names an uploaded file by id: as its own type, or any
// file as a document, and as an interactive header; a file of another type
// is refused naming the field.
func TestSessionMessageByMediaID(t *testing.T) {
	onEveryEngine(t, func(t *testing.T, e *apiEnv) {
		res, got := e.upload(t, e.key, "photo.png", "image/png", pngFile("send"))
		if res.StatusCode != http.StatusCreated {
			t.Fatalf("upload: %d %s", res.StatusCode, got)
		}
		id := decode[map[string]any](t, got)["id"].(string)
		phone := "+14155550199"
		contact := e.contactFor(t, e.key, phone)
		e.wrote(t, e.key, contact, time.Now().Add(-time.Hour))
		for _, tc := range []struct{ name, body, want string }{
			{"image", `{"type":"image","image":{"mediaId":"` + id + `","caption":"Your parcel"}}`, ""},
			{"document", `{"type":"document","document":{"mediaId":"` + id + `","filename":"parcel.png"}}`, ""},
			{"header", `{"type":"interactive","interactive":{"type":"button","header":{"type":"image","image":{"mediaId":"` + id + `"}},` +
				`"body":{"text":"Is this yours?"},"action":{"buttons":[{"id":"yes","title":"Yes"}]}}}`, ""},
			{"sticker", `{"type":"sticker","sticker":{"mediaId":"` + id + `"}}`, problemBody(422, "invalid_parameter", "Invalid parameter",
				"sticker.mediaId", "media "+id+" is image/png, which WhatsApp sends as an image message, not a sticker")},
		} {
			t.Run(tc.name, func(t *testing.T) {
				res, got := e.do(t, "POST", sessionURL, e.keyed(e.key), withRecipient(tc.body, "to", phone))
				switch {
				case tc.want == "" && res.StatusCode != http.StatusAccepted:
					t.Fatalf("%d %s", res.StatusCode, got)
				case tc.want != "" && (res.StatusCode != 422 || canonicalString(normalize(got)) != tc.want):
					t.Fatalf("%d %s\nwant %s", res.StatusCode, got, tc.want)
				}
			})
		}
	})
}

// uploadedID uploads content with key and returns the file's id.
func (e *apiEnv) uploadedID(t *testing.T, key string, content []byte) string {
	t.Helper()
	res, got := e.upload(t, key, "photo.png", "image/png", content)
	if res.StatusCode != http.StatusCreated {
		t.Fatalf("upload: %d %s", res.StatusCode, got)
	}
	return decode[map[string]any](t, got)["id"].(string)
}

// checkMediaHidden checks that key reads id's metadata and content as a
// missing file's.
func checkMediaHidden(t *testing.T, e *apiEnv, key, id, who string) {
	t.Helper()
	notFound := problemBody(404, "media_not_found", "Media not found", "", "no media with this id")
	for _, url := range []string{"/v1/media/" + id, "/v1/media/" + id + "/content"} {
		if res, got := e.do(t, "GET", url, e.keyed(key), ""); res.StatusCode != 404 || canonicalString(normalize(got)) != notFound {
			t.Errorf("%s: GET %s → %d %s, want media_not_found", who, url, res.StatusCode, got)
		}
	}
}

// checkModeMedia: each mode's uploads are its own: the same bytes are
// another file in the other mode, and each key reads the other's files as
// missing ones.
func checkModeMedia(t *testing.T, f *modeFixture) {
	content := pngFile("mode")
	var testID string
	f.asTest(t, func() { testID = f.e.uploadedID(t, f.test.key, content) })
	liveID := f.e.uploadedID(t, f.live.key, content)
	if liveID == testID {
		t.Fatalf("the live key's upload of the test key's bytes answered the test key's file %s", testID)
	}
	checkMediaHidden(t, f.e, f.live.key, testID, "the live key")
	f.asTest(t, func() { checkMediaHidden(t, f.e, f.test.key, liveID, "the test key") })
}

// checkMediaIsolation: another workspace's file, and the same bytes
// uploaded there, are not the viewer's.
func checkMediaIsolation(t *testing.T, f *isoFixture) {
	content := pngFile("isolation")
	theirs := f.e.uploadedID(t, f.b.key, content)
	checkMediaHidden(t, f.e, f.a.key, theirs, "another workspace's key")
	if mine := f.e.uploadedID(t, f.a.key, content); mine == theirs {
		t.Fatalf("the same bytes in another workspace answered its file %s", theirs)
	}
}
