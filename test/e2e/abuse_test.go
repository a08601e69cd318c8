package e2e

import (
	"bytes"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
)

// TestMediaHeaderInspected: the binary fetches the start of a media header
// before accepting the send, judges the format by its bytes, and never
// connects to an address outside HERALD_MEDIA_ALLOWED_HOSTS.
func TestMediaHeaderInspected(t *testing.T) {
	t.Parallel()
	png := append([]byte{0x89, 'P', 'N', 'G', '\r', '\n', 0x1A, '\n'}, bytes.Repeat([]byte{0}, 4096)...)
	gif := append([]byte("GIF89a"), bytes.Repeat([]byte{0}, 4096)...)
	files := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/banner.png":
			w.Write(png)
		case "/banner.jpg": // a GIF under a JPEG's name and type
			w.Header().Set("Content-Type", "image/jpeg")
			w.Write(gif)
		case "/moved.png":
			http.Redirect(w, r, r.URL.Query().Get("to"), http.StatusFound)
		default:
			http.NotFound(w, r)
		}
	}))
	defer files.Close()
	trap, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer trap.Close()
	var trapped atomic.Int32
	go func() {
		for {
			c, err := trap.Accept()
			if err != nil {
				return
			}
			trapped.Add(1)
			c.Close()
		}
	}()

	in := newInstance(t, "sqlite")
	var key struct{ Token string }
	in.cli(&key, "keys", "create", "--name", "e2e", "--mode", "test")
	var camp struct{ ID string }
	in.cli(&camp, "campaigns", "create", "--name", "Banner", "--template-name", "banner", "--language", "en_US",
		"--body", "Hi {{1}}", "--header-format", "image", "--activate")
	filesHost := strings.TrimPrefix(files.URL, "http://")
	srv := in.serve("HERALD_MEDIA_ALLOW_HTTP=true", "HERALD_MEDIA_ALLOWED_HOSTS="+filesHost)

	send := func(url string) (int, string) {
		var p struct{ Code, Detail string }
		code := srv.call(t, "POST", "/v1/messages/send-campaign", key.Token, map[string]any{"phoneNumber": "+14155552671",
			"campaignId": camp.ID, "variables": []string{"Ana"}, "mediaHeaderUrl": url}, &p)
		return code, p.Code
	}
	trapURL := "http://" + trap.Addr().String() + "/x.png"
	cases := []struct {
		url      string
		status   int
		code     string
		scenario string
	}{
		{files.URL + "/banner.png", 202, "", "a PNG on an allowed host"},
		{files.URL + "/banner.jpg", 422, "unsupported_media_format", "a GIF named and typed as JPEG"},
		{files.URL + "/missing.png", 422, "media_unreachable", "a 404"},
		{trapURL, 422, "invalid_media_url", "loopback, not allowed"},
		{"http://localhost:" + strconv.Itoa(trap.Addr().(*net.TCPAddr).Port) + "/x.png", 422, "invalid_media_url", "localhost"},
		{"http://2130706433:" + strconv.Itoa(trap.Addr().(*net.TCPAddr).Port) + "/x.png", 422, "invalid_media_url", "loopback in decimal"},
		{files.URL + "/moved.png?to=" + trapURL, 422, "invalid_media_url", "a redirect from the allowed host to loopback"},
	}
	for _, c := range cases {
		if status, code := send(c.url); status != c.status || code != c.code {
			t.Errorf("%s: %d %q, want %d %q", c.scenario, status, code, c.status, c.code)
		}
	}
	if n := trapped.Load(); n != 0 {
		t.Fatalf("the trap listener accepted %d connections", n)
	}
	srv.Stop(t)
}

// TestRateLimitFromSettings: HERALD_RATE_LIMIT and HERALD_RATE_BURST set the
// key's bucket; the first request over it is 429 with Retry-After.
func TestRateLimitFromSettings(t *testing.T) {
	t.Parallel()
	in := newInstance(t, "sqlite")
	var key struct{ Token string }
	in.cli(&key, "keys", "create", "--name", "e2e", "--mode", "test")
	srv := in.serve("HERALD_RATE_LIMIT=0.01", "HERALD_RATE_BURST=3")
	for i := range 3 {
		if code := srv.call(t, "GET", "/v1/campaigns", key.Token, nil, nil); code != 200 {
			t.Fatalf("request %d of a burst of 3: %d", i+1, code)
		}
	}
	req, _ := http.NewRequest("GET", srv.Base+"/v1/campaigns", nil)
	req.Header.Set("X-API-KEY", key.Token)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	// 0.01 tokens a second: the next one is 100 s away.
	if res.StatusCode != 429 || res.Header.Get("Retry-After") != "100" || res.Header.Get("RateLimit-Policy") != `"key";q=3;w=300` {
		t.Fatalf("fourth request: %d Retry-After %q RateLimit-Policy %q", res.StatusCode, res.Header.Get("Retry-After"), res.Header.Get("RateLimit-Policy"))
	}
	srv.Stop(t)
}
