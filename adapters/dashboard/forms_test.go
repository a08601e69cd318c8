package dashboard_test

import (
	"bytes"
	"context"
	"io"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/heraldhq/herald/adapters/dashboard"
	"github.com/heraldhq/herald/app"
	"github.com/heraldhq/herald/app/usecase"
	"github.com/heraldhq/herald/ports"
	"github.com/heraldhq/herald/ports/portsmock"
)

// countingBody is a request body that counts the bytes read from it.
type countingBody struct {
	r    io.Reader
	read int
}

func (c *countingBody) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.read += n
	return n, err
}

func (c *countingBody) Close() error { return nil }

func multipartSignIn(t *testing.T, part int) (string, []byte) {
	t.Helper()
	var b bytes.Buffer
	w := multipart.NewWriter(&b)
	w.WriteField("email", email)
	w.WriteField("password", password)
	f, _ := w.CreateFormFile("upload", "big.bin")
	f.Write(make([]byte, part))
	w.Close()
	return w.FormDataContentType(), b.Bytes()
}

// TestFormsAreRefusedBeforeTheirBodyIsRead: a sign-in or a signed-in form
// in another type than url-encoded, or larger than the form needs, is
// refused without a byte of its body read; one that grows past the limit
// while read is refused when it does.
func TestFormsAreRefusedBeforeTheirBodyIsRead(t *testing.T) {
	t.Parallel()
	e := newEnv(t, dashboard.Config{})
	h := dashboard.NewHandler(e.deps, dashboard.Config{}, nil)
	b := e.browser(t)
	b.login()
	u, _ := url.Parse(e.srv.URL + "/dashboard/keys")
	cookies := b.c.Jar.Cookies(u)
	if len(cookies) != 1 {
		t.Fatalf("after signing in the browser holds %v", cookies)
	}
	mpType, mpBody := multipartSignIn(t, 1<<20)
	big := url.Values{"email": {email}, "password": {password}, "pad": {strings.Repeat("a", 64<<10)}}.Encode()
	for _, tc := range []struct {
		name, path, contentType string
		body                    []byte
		length                  int64 // -1: unknown, as when chunked
		signedIn                bool
		status, mostRead        int
	}{
		{"a multipart sign-in", "/dashboard/login", mpType, mpBody, int64(len(mpBody)), false, 415, 0},
		{"a JSON sign-in", "/dashboard/login", "application/json", []byte(`{"email":"x"}`), 13, false, 415, 0},
		{"a sign-in without a type", "/dashboard/login", "", []byte("email=x"), 7, false, 415, 0},
		{"a sign-in larger than it says", "/dashboard/login", "application/x-www-form-urlencoded", []byte(big), int64(len(big)), false, 413, 0},
		{"a sign-in of unknown length, too large", "/dashboard/login", "application/x-www-form-urlencoded", []byte(big), -1, false, 413, 8<<10 + 4096},
		{"a multipart key", "/dashboard/keys", mpType, mpBody, int64(len(mpBody)), true, 415, 0},
		{"a multipart key without a session", "/dashboard/keys", mpType, mpBody, int64(len(mpBody)), false, 303, 0},
	} {
		body := &countingBody{r: bytes.NewReader(tc.body)}
		req := httptest.NewRequest(http.MethodPost, "/dashboard"+strings.TrimPrefix(tc.path, "/dashboard"), nil)
		req.Body, req.ContentLength = body, tc.length
		if tc.contentType != "" {
			req.Header.Set("Content-Type", tc.contentType)
		}
		if tc.signedIn {
			req.AddCookie(cookies[0])
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code != tc.status || body.read > tc.mostRead {
			t.Errorf("%s: %d after reading %d bytes; want %d after at most %d", tc.name, rec.Code, body.read, tc.status, tc.mostRead)
		}
		if req.MultipartForm != nil {
			t.Errorf("%s: the body was parsed as multipart", tc.name)
		}
	}
	ks, err := e.deps.ListKeys.Handle(context.Background(), app.ListKeys{})
	if err != nil || len(ks) != 0 {
		t.Fatalf("refused forms made keys: %v, %v", ks, err)
	}
}

// TestTheLargestFormsFitTheirLimit: a new campaign and a mapping edit with
// every field at its longest, in characters of four bytes where the field
// takes them, are within the campaign form's limit.
func TestTheLargestFormsFitTheirLimit(t *testing.T) {
	t.Parallel()
	e := newEnv(t, dashboard.Config{})
	const wide = "😀" // four bytes, twelve once url-encoded
	var body strings.Builder
	for i := range 100 {
		body.WriteString("{{" + strconv.Itoa(i+1) + "}} ")
	}
	body.WriteString(strings.Repeat(wide, 1024-utf8.RuneCountInString(body.String())))
	labels := make([]string, 100)
	for i := range labels {
		labels[i] = strings.Repeat(wide, 200)
	}
	b := e.browser(t)
	b.login()
	b.get("/dashboard/campaigns/new")
	res, page := b.post("/dashboard/campaigns", url.Values{"name": {strings.Repeat(wide, 200)}, "source": {"local"},
		"templateName": {strings.Repeat("a", 512)}, "language": {"en_US"}, "headerFormat": {"text"},
		"headerText": {strings.Repeat(wide, 60)}, "body": {body.String()}, "footer": {strings.Repeat(wide, 60)},
		"labels": {strings.Join(labels, "\r\n")}})
	if res.StatusCode != http.StatusSeeOther {
		t.Fatalf("the largest new campaign answered %d:\n%.600s", res.StatusCode, page)
	}
	path := res.Header.Get("Location")
	b.get(path)
	res, page = b.post(path, url.Values{"name": {strings.Repeat(wide, 200)}, "label": labels})
	if res.StatusCode != http.StatusSeeOther {
		t.Fatalf("the largest mapping edit answered %d:\n%.600s", res.StatusCode, page)
	}
}

func TestStaticFilesAreServedButNotListed(t *testing.T) {
	t.Parallel()
	e := newEnv(t, dashboard.Config{})
	b := e.browser(t)
	res, body := b.get("/dashboard/static/")
	if res.StatusCode != http.StatusNotFound || strings.Contains(body, `href="app.css"`) {
		t.Errorf("the static directory answered %d:\n%s", res.StatusCode, body)
	}
	res, body = b.get("/dashboard/static/app.css")
	if res.StatusCode != http.StatusOK || !strings.Contains(res.Header.Get("Content-Type"), "text/css") || body == "" {
		t.Errorf("app.css answered %d %q", res.StatusCode, res.Header.Get("Content-Type"))
	}
}

// TestSignInWhileThePasswordChecksAreFull: when the hasher has no room,
// the sign-in answers 429 with Retry-After and says to try again, and no
// session starts.
func TestSignInWhileThePasswordChecksAreFull(t *testing.T) {
	t.Parallel()
	e := newEnv(t, dashboard.Config{})
	full := &portsmock.PasswordHasherMock{CheckPasswordFunc: func(context.Context, string, string) (bool, error) {
		return false, ports.ErrTooManyPasswordChecks
	}}
	deps := e.deps
	deps.LogIn = app.NewLogInHandler(e.store, full, nil, nil, usecase.NewObserver(nil))
	srv := httptest.NewServer(dashboard.NewHandler(deps, dashboard.Config{}, nil))
	defer srv.Close()
	b := e.browser(t)
	b.base = srv.URL
	res, body := b.post("/dashboard/login", url.Values{"email": {email}, "password": {password}})
	wantStatus(t, res, body, http.StatusTooManyRequests)
	if res.Header.Get("Retry-After") != "1" || !strings.Contains(body, "busy checking other sign-ins") || len(res.Cookies()) != 0 {
		t.Errorf("a sign-in refused for a full hasher: Retry-After %q, cookies %v:\n%s", res.Header.Get("Retry-After"), res.Cookies(), body)
	}
}
