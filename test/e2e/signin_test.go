package e2e

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"mime/multipart"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// answer is what the server said to one request.
type answer struct {
	status     int
	retryAfter string
	body       string
}

// signInFrom posts body to the sign-in from the loopback address
// 127.0.0.<host>, so each host is a client of its own to the limiters.
func signInFrom(t *testing.T, base string, host int, contentType string, body []byte) answer {
	t.Helper()
	c := &http.Client{Timeout: time.Minute, Transport: &http.Transport{
		DialContext: (&net.Dialer{LocalAddr: &net.TCPAddr{IP: net.IPv4(127, 0, 0, byte(host))}}).DialContext}}
	defer c.CloseIdleConnections()
	req, _ := http.NewRequest(http.MethodPost, base+"/dashboard/login", bytes.NewReader(body))
	req.Header.Set("Content-Type", contentType)
	res, err := c.Do(req)
	if errors.Is(err, syscall.EADDRNOTAVAIL) {
		t.Skipf("this system cannot send from 127.0.0.%d: %v", host, err)
	}
	if err != nil {
		t.Errorf("POST /dashboard/login from 127.0.0.%d: %v", host, err)
		return answer{}
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return answer{status: res.StatusCode, retryAfter: res.Header.Get("Retry-After"), body: string(b)}
}

// spooled lists the multipart parser's temporary files in dir.
func spooled(dir string) []string {
	files, _ := filepath.Glob(filepath.Join(dir, "multipart-*"))
	return files
}

// peakRSS is a process's peak resident set (VmHWM) in MiB, or -1 where
// /proc does not say.
func peakRSS(pid int) int {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return -1
	}
	for line := range strings.Lines(string(b)) {
		if f := strings.Fields(line); len(f) == 3 && f[0] == "VmHWM:" && f[2] == "kB" {
			kb, _ := strconv.Atoi(f[1])
			return kb >> 10
		}
	}
	return -1
}

// TestSignInRefusesBodiesItDoesNotNeed: a multipart sign-in with a 50 MiB
// part is refused with 415 and leaves no temporary file, during the run or
// after it stops; a 9 MiB url-encoded one is refused with 413.
func TestSignInRefusesBodiesItDoesNotNeed(t *testing.T) {
	t.Parallel()
	in := newInstance(t, "sqlite")
	tmp := filepath.Join(in.dir, "tmp")
	if err := os.Mkdir(tmp, 0o700); err != nil {
		t.Fatal(err)
	}
	srv := in.serve("TMPDIR=" + tmp)

	var form bytes.Buffer
	mw := multipart.NewWriter(&form)
	mw.WriteField("email", "ops@example.com")
	mw.WriteField("password", "a wrong password")
	part, _ := mw.CreateFormFile("upload", "big.bin")
	part.Write(make([]byte, 50<<20))
	mw.Close()
	if a := signInFrom(t, srv.Base, 2, mw.FormDataContentType(), form.Bytes()); a.status != http.StatusUnsupportedMediaType {
		t.Errorf("a multipart sign-in with a 50 MiB part answered %d:\n%s", a.status, a.body)
	}
	if files := spooled(tmp); len(files) != 0 {
		t.Errorf("after the answer the server's TMPDIR holds %v", files)
	}
	big := url.Values{"email": {"ops@example.com"}, "password": {"a wrong password"}, "pad": {strings.Repeat("a", 9<<20)}}.Encode()
	if a := signInFrom(t, srv.Base, 2, "application/x-www-form-urlencoded", []byte(big)); a.status != http.StatusRequestEntityTooLarge {
		t.Errorf("a 9 MiB url-encoded sign-in answered %d:\n%s", a.status, a.body)
	}
	srv.Stop(t)
	if files := spooled(tmp); len(files) != 0 {
		t.Errorf("after a graceful stop the server's TMPDIR holds %v", files)
	}
}

// TestParallelSignInsBeyondTheBoundAreRefused: with room for one password
// check at a time, 60 wrong sign-ins at once from 60 clients (so no limiter
// of attempts is involved) are answered 401 or, for those that found no
// room within a short wait, 429 with Retry-After; the server's memory stays
// near one check's 32 MiB, not 60 of them.
func TestParallelSignInsBeyondTheBoundAreRefused(t *testing.T) {
	t.Parallel()
	in := newInstance(t, "sqlite")
	srv := in.serve("HERALD_DASHBOARD_MAX_PASSWORD_CHECKS=1")
	const n = 60
	answers := make([]answer, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			form := url.Values{"email": {"guess" + strconv.Itoa(i) + "@example.com"}, "password": {"a wrong password " + strconv.Itoa(i)}}
			answers[i] = signInFrom(t, srv.Base, 2+i, "application/x-www-form-urlencoded", []byte(form.Encode()))
		})
	}
	wg.Wait()
	refused := 0
	for i, a := range answers {
		switch {
		case a.status == http.StatusUnauthorized:
		case a.status == http.StatusTooManyRequests && a.retryAfter == "1" && strings.Contains(a.body, "busy checking other sign-ins"):
			refused++
		default:
			t.Errorf("sign-in %d answered %d, Retry-After %q:\n%s", i, a.status, a.retryAfter, a.body)
		}
	}
	if refused == 0 {
		t.Errorf("all %d sign-ins were checked, one at a time; want those that waited too long refused", n)
	}
	if rss := peakRSS(srv.Cmd.Process.Pid); rss > 320 {
		t.Errorf("the server's peak resident set reached %d MiB; one check at a time needs about 32", rss)
	}
	t.Logf("%d of %d refused; peak resident set %d MiB", refused, n, peakRSS(srv.Cmd.Process.Pid))
	srv.Stop(t)
}

// TestStaticDirectoryIsNotListed: the dashboard's assets are served by
// name, and their directory answers 404 without naming them.
func TestStaticDirectoryIsNotListed(t *testing.T) {
	t.Parallel()
	srv := newInstance(t, "sqlite").serve()
	for path, want := range map[string]int{"/dashboard/static/": 404, "/dashboard/static/app.css": 200} {
		res, err := http.Get(srv.Base + path)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if res.StatusCode != want || (want == 404 && strings.Contains(string(b), `href="app.js"`)) {
			t.Errorf("GET %s answered %d:\n%s", path, res.StatusCode, b)
		}
	}
	srv.Stop(t)
}
