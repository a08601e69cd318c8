package e2e

import (
	"bytes"
	"encoding/json"
	"io"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"net/textproto"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/heraldhq/herald/test/fakemeta"
)

// pngBytes is a small file whose bytes are a PNG's.
func pngBytes(tag string) []byte {
	return append([]byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"), []byte(tag)...)
}

// raw makes a request and returns the status, the body and the headers.
func (s *server) raw(t *testing.T, method, path, key, contentType string, body io.Reader) (int, []byte, http.Header) {
	t.Helper()
	req, _ := http.NewRequest(method, s.Base+path, body)
	req.Header.Set("X-API-KEY", key)
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res.StatusCode, b, res.Header
}

// uploadFile posts one file to POST /v1/media and returns its id.
func (s *server) uploadFile(t *testing.T, key, name string, content []byte) string {
	t.Helper()
	var b bytes.Buffer
	w := multipart.NewWriter(&b)
	h := textproto.MIMEHeader{}
	h.Set("Content-Disposition", `form-data; name="file"; filename="`+name+`"`)
	h.Set("Content-Type", "application/octet-stream")
	part, _ := w.CreatePart(h)
	part.Write(content)
	w.Close()
	code, body, _ := s.raw(t, "POST", "/v1/media", key, w.FormDataContentType(), &b)
	if code != http.StatusCreated {
		t.Fatalf("upload: %d %s", code, body)
	}
	var m struct{ ID string }
	if err := json.Unmarshal(body, &m); err != nil {
		t.Fatal(err)
	}
	return m.ID
}

// TestMediaUploadSendByIDEndToEnd: with the binary and the fake Cloud API,
// a live key's upload reaches Meta's media store for the sending number
// once (the same bytes again are the same file), and a session image
// named by Herald's id goes to Meta by the id of that upload, and is read;
// when Meta has lost the file, Herald uploads it again and the send goes
// through.
func TestMediaUploadSendByIDEndToEnd(t *testing.T) {
	t.Parallel()
	for _, engine := range []string{"sqlite", "postgres"} {
		t.Run(engine, func(t *testing.T) {
			t.Parallel()
			in := newInstance(t, engine)
			var key struct{ Token string }
			in.cli(&key, "keys", "create", "--name", "live", "--mode", "live")
			fake := webhookFake(t, []string{"sent", "delivered", "read"})
			srv := serveWithWebhooks(t, in, fake)

			content := pngBytes("parcel")
			id := srv.uploadFile(t, key.Token, "parcel.png", content)
			if again := srv.uploadFile(t, key.Token, "again.png", content); again != id {
				t.Fatalf("the same bytes again: %s, want %s", again, id)
			}
			uploads := fake.Uploads()
			if len(uploads) != 1 || uploads[0].PhoneNumberID != fake.PhoneNumberID || uploads[0].MimeType != "image/png" ||
				!bytes.Equal(uploads[0].Content, content) {
				t.Fatalf("Meta's media store holds %d uploads: %+v", len(uploads), uploads)
			}

			const phone = "+14155552691"
			at := time.Now().Truncate(time.Second)
			postInbound(t, fake, fakemeta.Inbound{From: phone[1:], Type: "text", Text: "Where is my parcel?", At: at})
			fake.Wrote(phone, at)
			var accepted struct{ ID string }
			if code := srv.call(t, "POST", "/v1/messages", key.Token, map[string]any{"to": phone, "type": "image",
				"image": map[string]any{"mediaId": id, "caption": "Here it is"}}, &accepted); code != 202 {
				t.Fatalf("send by id: %d %+v", code, accepted)
			}
			srv.awaitStatus(t, key.Token, accepted.ID, "read")
			sent := fake.Accepted()
			if len(sent) != 1 || !slices.Equal(fakemeta.MediaIDsIn(sent[0].Body), []string{uploads[0].ID}) ||
				strings.Contains(string(sent[0].Body), `"link"`) {
				t.Fatalf("Meta got %d sends; want the image by the upload's id %s: %s", len(sent), uploads[0].ID, sent)
			}
			if n := len(fake.Uploads()); n != 1 {
				t.Errorf("the send uploaded the file again: %d uploads", n)
			}

			// Meta loses the file: its 131053 makes Herald upload the
			// stored bytes again and send by the new id, once.
			fake.ForgetMedia(uploads[0].ID)
			if code := srv.call(t, "POST", "/v1/messages", key.Token, map[string]any{"to": phone, "type": "image",
				"image": map[string]any{"mediaId": id}}, &accepted); code != 202 {
				t.Fatalf("second send by id: %d %+v", code, accepted)
			}
			srv.awaitStatus(t, key.Token, accepted.ID, "read")
			again := fake.Uploads()
			sent = fake.Accepted()
			if len(again) != 1 || again[0].ID == uploads[0].ID || !bytes.Equal(again[0].Content, content) || len(sent) != 2 ||
				!slices.Equal(fakemeta.MediaIDsIn(sent[1].Body), []string{again[0].ID}) {
				t.Fatalf("after Meta lost the file: uploads %+v, sends %s", again, sent)
			}
			srv.Stop(t)
		})
	}
}

// TestMediaAutoUploadEndToEnd: with HERALD_MEDIA_UPLOAD=auto a template's
// header link is downloaded from the customer's host once, uploaded to
// Meta and sent by id, for every message naming it: Meta is never given
// the link.
func TestMediaAutoUploadEndToEnd(t *testing.T) {
	t.Parallel()
	banner := pngBytes("banner")
	var downloads, inspections atomic.Int32
	files := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/banner.png" {
			http.NotFound(w, r)
			return
		}
		if r.Header.Get("Range") != "" {
			inspections.Add(1)
		} else {
			downloads.Add(1)
		}
		w.Header().Set("Content-Type", "image/png")
		w.Write(banner)
	}))
	t.Cleanup(files.Close)

	in := newInstance(t, "sqlite")
	var key struct{ Token string }
	in.cli(&key, "keys", "create", "--name", "live", "--mode", "live")
	var camp struct{ ID string }
	in.cli(&camp, "campaigns", "create", "--name", "Banner", "--template-name", "banner", "--language", "en_US",
		"--body", "Hi {{1}}", "--header-format", "image", "--activate")
	fake := webhookFake(t, []string{"sent"})
	fake.AddTemplate(fakemeta.Template{Name: "banner", Language: "en_US", Status: "APPROVED", Header: "image", BodyParams: 1})
	srv := in.serve("HERALD_WHATSAPP_API_URL="+fake.URL, "HERALD_WHATSAPP_ACCESS_TOKEN="+fake.Token,
		"HERALD_WHATSAPP_PHONE_NUMBER_ID="+fake.PhoneNumberID, "HERALD_MEDIA_UPLOAD=auto",
		"HERALD_WHATSAPP_APP_SECRET="+fake.AppSecret, "HERALD_WHATSAPP_VERIFY_TOKEN="+verifyToken,
		"HERALD_MEDIA_ALLOW_HTTP=true", "HERALD_MEDIA_ALLOWED_HOSTS="+strings.TrimPrefix(files.URL, "http://"))
	fake.WebhookURL = srv.Base + "/v1/webhooks/whatsapp"

	var ids []string
	for _, phone := range []string{"+14155552692", "+14155552693"} {
		var accepted struct{ ID string }
		if code := srv.call(t, "POST", "/v1/messages/send-campaign", key.Token, map[string]any{"phoneNumber": phone,
			"campaignId": camp.ID, "variables": []string{"Ana"}, "mediaHeaderUrl": files.URL + "/banner.png"}, &accepted); code != 202 {
			t.Fatalf("send-campaign: %d", code)
		}
		ids = append(ids, accepted.ID)
	}
	for _, id := range ids {
		srv.awaitStatus(t, key.Token, id, "sent")
	}
	uploads := fake.Uploads()
	if len(uploads) != 1 || !bytes.Equal(uploads[0].Content, banner) {
		t.Fatalf("Meta's media store holds %d uploads, want the banner once", len(uploads))
	}
	for _, s := range fake.Accepted() {
		if got := fakemeta.MediaIDsIn(s.Body); !slices.Equal(got, []string{uploads[0].ID}) || strings.Contains(string(s.Body), files.URL) {
			t.Fatalf("a send names media %v, want the upload %s by id and no link: %s", got, uploads[0].ID, s.Body)
		}
	}
	if n := downloads.Load(); n != 1 {
		t.Errorf("the customer's host served the whole file %d times, want once", n)
	}
	if n := inspections.Load(); n > 1 {
		t.Errorf("the link was inspected %d times, want at most once (inspections are cached)", n)
	}
	srv.Stop(t)
}

// TestInboundMediaEndToEnd: a contact's image (Meta's inbound webhook)
// shows in the thread with Herald's media id; GET /v1/media/{id}/content
// reads it from Meta with the token Herald keeps, and the second read comes
// from the local cache without reaching Meta.
func TestInboundMediaEndToEnd(t *testing.T) {
	t.Parallel()
	in := newInstance(t, "sqlite")
	var key struct{ Token string }
	in.cli(&key, "keys", "create", "--name", "live", "--mode", "live")
	fake := webhookFake(t, []string{"sent"})
	srv := in.serve("HERALD_WHATSAPP_API_URL="+fake.URL, "HERALD_WHATSAPP_ACCESS_TOKEN="+fake.Token,
		"HERALD_WHATSAPP_PHONE_NUMBER_ID="+fake.PhoneNumberID,
		"HERALD_WHATSAPP_APP_SECRET="+fake.AppSecret, "HERALD_WHATSAPP_VERIFY_TOKEN="+verifyToken,
		"HERALD_MEDIA_CACHE_DIR="+filepath.Join(in.dir, "media-cache"), "HERALD_MEDIA_CACHE_MAX=1MiB")
	fake.WebhookURL = srv.Base + "/v1/webhooks/whatsapp"

	photo := append([]byte{0xFF, 0xD8, 0xFF, 0xE0}, []byte("a photo of the parcel")...)
	metaID := fake.AddMedia(photo, "image/jpeg")
	const phone = "+14155552694"
	postInbound(t, fake, fakemeta.Inbound{From: phone[1:], Type: "image", MediaID: metaID, Caption: "Damaged!"})

	var c struct{ ID string }
	if code := srv.call(t, "GET", "/v1/contacts/by-phone/"+phone, key.Token, nil, &c); code != 200 {
		t.Fatalf("contact: %d", code)
	}
	var th struct {
		Data []struct {
			Media *struct{ ID, MediaID, MimeType string }
		}
	}
	srv.call(t, "GET", "/v1/contacts/"+c.ID+"/conversation", key.Token, nil, &th)
	if len(th.Data) != 1 || th.Data[0].Media == nil || th.Data[0].Media.ID != metaID || !strings.HasPrefix(th.Data[0].Media.MediaID, "med_") {
		t.Fatalf("thread: %+v", th.Data)
	}
	id := th.Data[0].Media.MediaID
	var meta struct{ Origin, Type, MimeType string }
	if code := srv.call(t, "GET", "/v1/media/"+id, key.Token, nil, &meta); code != 200 ||
		meta != (struct{ Origin, Type, MimeType string }{"inbound", "image", "image/jpeg"}) {
		t.Fatalf("metadata: %d %+v", code, meta)
	}
	for i := range 2 {
		code, body, h := srv.raw(t, "GET", "/v1/media/"+id+"/content", key.Token, "", nil)
		if code != 200 || !bytes.Equal(body, photo) || h.Get("Content-Type") != "image/jpeg" {
			t.Fatalf("read %d: %d %q %v", i+1, code, body, h)
		}
		if n := fake.MediaDownloads(); n != 1 {
			t.Fatalf("after read %d Meta served the file %d times, want once", i+1, n)
		}
	}
	srv.Stop(t)
}
