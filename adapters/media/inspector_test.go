package media_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/heraldhq/herald/adapters/media"
	"github.com/heraldhq/herald/domain"
)

// caller is who asks for the inspections of a test that does not care.
var caller = domain.Principal{Workspace: "ws_1", Key: "key_1", Mode: domain.ModeTest}

// Leading bytes of each format, padded by file to any size.
var (
	pngSig  = []byte{0x89, 'P', 'N', 'G', '\r', '\n', 0x1A, '\n', 0, 0, 0, 13, 'I', 'H', 'D', 'R'}
	jpegSig = []byte{0xFF, 0xD8, 0xFF, 0xE0, 0, 16, 'J', 'F', 'I', 'F', 0}
	gifSig  = []byte("GIF89a\x01\x00\x01\x00")
	mp4Sig  = []byte("\x00\x00\x00\x20ftypisom\x00\x00\x02\x00isomiso2avc1mp41")
	gppSig  = []byte("\x00\x00\x00\x18ftyp3gp4\x00\x00\x00\x00isom3gp4")
	pdfSig  = []byte("%PDF-1.7\n%\xE2\xE3\xCF\xD3\n")
)

// file returns size bytes starting with sig.
func file(sig []byte, size int) []byte {
	b := make([]byte, size)
	copy(b, sig)
	return b
}

// fiveMiB1 is a PNG one byte over the image limit; its first 5 MiB are a
// PNG at the limit.
var fiveMiB1 = file(pngSig, 5<<20+1)

// wantCode fails t unless err is a domain error with code on mediaHeaderUrl
// whose detail contains detail.
func wantCode(t *testing.T, err error, code domain.Code, detail string) {
	t.Helper()
	var de *domain.Error
	if !errors.As(err, &de) || de.Code != code || de.Param != "mediaHeaderUrl" || !strings.Contains(de.Detail, detail) {
		t.Fatalf("error = %v, want %s on mediaHeaderUrl saying %q", err, code, detail)
	}
}

// hostOf is the host:port of an httptest server.
func hostOf(t *testing.T, srv *httptest.Server) string {
	t.Helper()
	u, err := url.Parse(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	return u.Host
}

// trap is a loopback listener that records every connection it accepts.
// Nothing in these tests may reach it.
type trap struct {
	ln    net.Listener
	conns chan net.Addr
}

func newTrap(t *testing.T, network, addr string) *trap {
	t.Helper()
	ln, err := net.Listen(network, addr)
	if err != nil {
		t.Fatal(err)
	}
	tr := &trap{ln: ln, conns: make(chan net.Addr, 64)}
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			tr.conns <- c.RemoteAddr()
			c.Close()
		}
	}()
	t.Cleanup(func() { ln.Close() })
	return tr
}

func (tr *trap) port() string {
	_, port, _ := net.SplitHostPort(tr.ln.Addr().String())
	return port
}

// accepted returns the address of the next connection the trap accepts.
func (tr *trap) accepted(t *testing.T) net.Addr {
	t.Helper()
	select {
	case a := <-tr.conns:
		return a
	case <-time.After(5 * time.Second):
		t.Fatal("the trap accepted no connection")
		return nil
	}
}

// assertUntouched connects to the trap itself and checks that its own
// connection is the first the trap accepted: connections are accepted in
// the order they were established, so any earlier one would show first.
func (tr *trap) assertUntouched(t *testing.T) {
	t.Helper()
	c, err := net.Dial(tr.ln.Addr().Network(), tr.ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if got := tr.accepted(t); got.String() != c.LocalAddr().String() {
		t.Errorf("the trap accepted a connection from %v", got)
	}
}

// fakeResolver returns a resolver whose DNS server, on 127.0.0.1, answers
// every A query with 127.0.0.1 and every other query with no records. It
// stands for a public name whose owner points it at Herald's own host.
func fakeResolver(t *testing.T) *net.Resolver {
	t.Helper()
	pc, err := net.ListenPacket("udp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { pc.Close() })
	go func() {
		buf := make([]byte, 1500)
		for {
			n, from, err := pc.ReadFrom(buf)
			if err != nil {
				return
			}
			if resp := dnsAnswer(buf[:n]); resp != nil {
				_, _ = pc.WriteTo(resp, from)
			}
		}
	}()
	return &net.Resolver{
		PreferGo: true,
		Dial: func(ctx context.Context, _, _ string) (net.Conn, error) {
			var d net.Dialer
			return d.DialContext(ctx, "udp4", pc.LocalAddr().String())
		},
	}
}

// dnsAnswer builds the response to a one-question DNS query (RFC 1035 §4):
// the question echoed, and for type A one answer, 127.0.0.1.
func dnsAnswer(q []byte) []byte {
	if len(q) < 12 {
		return nil
	}
	end := 12
	for end < len(q) && q[end] != 0 {
		end += 1 + int(q[end])
	}
	end += 1 + 4 // the root label, QTYPE and QCLASS
	if end > len(q) {
		return nil
	}
	isA := q[end-4] == 0 && q[end-3] == 1
	resp := []byte{q[0], q[1], 0x85, 0x80, 0, 1, 0, 0, 0, 0, 0, 0} // QR AA RD RA, NOERROR, 1 question
	resp = append(resp, q[12:end]...)
	if isA {
		resp[7] = 1 // ANCOUNT
		resp = append(resp,
			0xC0, 12, // the name in the question
			0, 1, 0, 1, // A, IN
			0, 0, 0, 60, // TTL
			0, 4, 127, 0, 0, 1)
	}
	return resp
}

// fakeClock is a settable clock for cache expiry.
type fakeClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

func ipv6Loopback() bool {
	ln, err := net.Listen("tcp6", "[::1]:0")
	if err != nil {
		return false
	}
	ln.Close()
	return true
}

// TestControlTrapAndResolver proves the instruments of TestRefusesPrivate
// work: with the fake name allowed, the inspector resolves it to 127.0.0.1
// and the trap counts the connection.
func TestControlTrapAndResolver(t *testing.T) {
	t.Parallel()
	tr := newTrap(t, "tcp4", "127.0.0.1:0")
	in := media.New(media.Config{AllowHTTP: true, AllowedHosts: []string{"media.example.test"}, Timeout: 2 * time.Second})
	in.SetResolver(fakeResolver(t))
	_, err := in.InspectMedia(context.Background(), caller, "http://media.example.test:"+tr.port()+"/x.png", domain.HeaderImage)
	wantCode(t, err, domain.CodeMediaUnreachable, "could not be fetched")
	if got := tr.accepted(t); got == nil {
		t.Fatal("no connection")
	}
}

// TestRefusesPrivate (T18, T19): with http allowed and no allowed hosts,
// every URL naming or leading to a loopback, private or special-purpose
// address is refused as invalid_media_url, and nothing connects to the
// trap: the domain rules refuse the literal addresses, the dial guard
// refuses what a name resolves to, and every redirect is checked again.
func TestRefusesPrivate(t *testing.T) {
	t.Parallel()
	v6 := ipv6Loopback()
	cases := []struct {
		name    string
		v6      bool   // needs IPv6: the trap listens on [::1]
		url     string // %s is the trap's port
		via     string // when set, an allowed server redirects here (%s the trap's port) and url is ignored
		because string
	}{
		{name: "loopback", url: "http://127.0.0.1:%s/x.png", because: "public address"},
		{name: "localhost", url: "http://localhost:%s/", because: "public host"},
		{name: "IPv6 loopback", v6: true, url: "http://[::1]:%s/", because: "public address"},
		{name: "IPv4-mapped loopback", url: "http://[::ffff:127.0.0.1]:%s/", because: "public address"},
		{name: "decimal", url: "http://2130706433:%s/", because: "standard dotted form"},
		{name: "hex", url: "http://0x7f.1:%s/", because: "standard dotted form"},
		{name: "octal", url: "http://017700000001:%s/", because: "standard dotted form"},
		{name: "unspecified", url: "http://0.0.0.0:%s/", because: "public address"},
		{name: "private 10/8", url: "http://10.0.0.1/", because: "public address"},
		{name: "private 172.16/12", url: "http://172.16.0.1/", because: "public address"},
		{name: "private 192.168/16", url: "http://192.168.1.1/", because: "public address"},
		{name: "metadata", url: "http://169.254.169.254/latest/meta-data/", because: "public address"},
		{name: "unique local IPv6", url: "http://[fd00:ec2::254]/", because: "public address"},
		{name: "file", url: "file:///etc/passwd", because: "absolute https URL"},
		{name: "gopher", url: "gopher://127.0.0.1:%s/", because: "must use https"},
		{name: "credentials", url: "http://user:pass@example.com/x.png", because: "credentials"},
		// The domain rules pass these; the guard refuses the dialed address.
		{name: "name resolving to loopback", url: "http://media.example.test:%s/x.png", because: "resolves to an address"},
		{name: "shared address space", url: "http://100.64.0.1:%s/", because: "resolves to an address"},
		{name: "benchmarking range", url: "http://198.18.0.1:%s/", because: "resolves to an address"},
		{name: "NAT64 of loopback", v6: true, url: "http://[64:ff9b::7f00:1]:%s/", because: "resolves to an address"},
		// Redirects from an allowed server.
		{name: "redirect to loopback", via: "http://127.0.0.1:%s/x.png", because: "redirects to a URL that may not be fetched: the media header URL must point to a public address"},
		{name: "redirect to localhost", via: "http://localhost:%s/x.png", because: "redirects to a URL that may not be fetched"},
		{name: "redirect to a name resolving to loopback", via: "http://media.example.test:%s/x.png", because: "resolves to an address"},
		{name: "redirect to file", via: "file:///etc/passwd", because: "redirects to"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			if c.v6 && !v6 {
				t.Skip("no IPv6 loopback")
			}
			network, addr := "tcp4", "127.0.0.1:0"
			if c.v6 {
				network, addr = "tcp6", "[::1]:0"
			}
			tr := newTrap(t, network, addr)
			cfg := media.Config{AllowHTTP: true, Timeout: 2 * time.Second}
			raw := strings.ReplaceAll(c.url, "%s", tr.port())
			if c.via != "" {
				target := strings.ReplaceAll(c.via, "%s", tr.port())
				redirector := httptest.NewServer(http.RedirectHandler(target, http.StatusFound))
				t.Cleanup(redirector.Close)
				cfg.AllowedHosts = []string{hostOf(t, redirector)}
				raw = redirector.URL + "/x.png"
			}
			in := media.New(cfg)
			in.SetResolver(fakeResolver(t))
			_, err := in.InspectMedia(context.Background(), caller, raw, domain.HeaderImage)
			tr.assertUntouched(t)
			wantCode(t, err, domain.CodeInvalidMediaURL, c.because)
		})
	}
}

// mediaServer serves the resources of the media probe (T20) on loopback.
type mediaServer struct {
	*httptest.Server
	endlessWritten atomic.Int64
	endlessDone    chan struct{}
}

func newMediaServer(t *testing.T, tls bool) *mediaServer {
	t.Helper()
	s := &mediaServer{endlessDone: make(chan struct{})}
	serve := func(body []byte, contentType string) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", contentType)
			http.ServeContent(w, r, "", time.Time{}, bytes.NewReader(body))
		}
	}
	mux := http.NewServeMux()
	mux.Handle("/big.png", serve(fiveMiB1[:5<<20], "image/png"))
	mux.Handle("/big1.png", serve(fiveMiB1, "image/png"))
	mux.Handle("/x.jpg", serve(file(gifSig, 4000), "image/jpeg"))
	mux.Handle("/page.html", serve(file(pngSig, 3000), "text/html"))
	mux.Handle("/clip.mp4", serve(file(mp4Sig, 9<<20), "video/mp4"))
	mux.Handle("/clip.3gp", serve(file(gppSig, 70000), "video/3gpp"))
	mux.Handle("/doc.pdf", serve(file(pdfSig, 120000), "application/pdf"))
	mux.Handle("/doc-as-image.pdf", serve(file(pdfSig, 120000), "application/pdf"))
	mux.Handle("/tiny.jpg", serve(jpegSig[:3], "image/jpeg"))
	mux.HandleFunc("/full.jpg", func(w http.ResponseWriter, r *http.Request) {
		// Ignores Range: 200 with the whole body and its length.
		w.Header().Set("Content-Length", "200000")
		_, _ = w.Write(file(jpegSig, 200000))
	})
	mux.HandleFunc("/range.png", func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Range") != "bytes=0-63" {
			http.Error(w, "want a range", http.StatusBadRequest)
			return
		}
		w.Header().Set("Content-Range", "bytes 0-63/4321")
		w.WriteHeader(http.StatusPartialContent)
		_, _ = w.Write(file(pngSig, 64))
	})
	mux.HandleFunc("/range-unknown.png", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Range", "bytes 0-63/*")
		w.WriteHeader(http.StatusPartialContent)
		_, _ = w.Write(file(pngSig, 64))
	})
	mux.HandleFunc("/chunked.png", func(w http.ResponseWriter, r *http.Request) {
		// Ignores Range and gives no length: the inspector counts.
		_, _ = w.Write(file(pngSig, 10000))
		w.(http.Flusher).Flush()
		_, _ = w.Write(make([]byte, 2345))
	})
	mux.HandleFunc("/endless.png", func(w http.ResponseWriter, r *http.Request) {
		defer close(s.endlessDone)
		chunk := file(pngSig, 32<<10)
		for {
			n, err := w.Write(chunk)
			s.endlessWritten.Add(int64(n))
			if err != nil {
				return
			}
			w.(http.Flusher).Flush()
			chunk = make([]byte, 32<<10)
		}
	})
	mux.HandleFunc("/empty.png", func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "", http.StatusRequestedRangeNotSatisfiable)
	})
	mux.HandleFunc("/hop/{n}", func(w http.ResponseWriter, r *http.Request) {
		n, _ := strconv.Atoi(r.PathValue("n"))
		if n == 0 {
			http.Redirect(w, r, "/big.png", http.StatusFound)
			return
		}
		http.Redirect(w, r, "/hop/"+strconv.Itoa(n-1), http.StatusMovedPermanently)
	})
	if tls {
		s.Server = httptest.NewTLSServer(mux)
	} else {
		s.Server = httptest.NewServer(mux)
	}
	t.Cleanup(s.Close)
	return s
}

// TestInspectMedia (T20): the format comes from the first bytes only, the
// size from Content-Range, Content-Length or counting, and failures are
// media_unreachable.
func TestInspectMedia(t *testing.T) {
	t.Parallel()
	srv := newMediaServer(t, false)
	in := media.New(media.Config{AllowHTTP: true, AllowedHosts: []string{hostOf(t, srv.Server)}, Timeout: 5 * time.Second})
	cases := []struct {
		name   string
		path   string
		header domain.HeaderFormat
		want   domain.MediaInfo
		check  domain.Code // what header.CheckMedia says of want; empty: accepted
		code   domain.Code // InspectMedia's error; empty: none
		detail string
	}{
		{name: "5 MiB PNG", path: "/big.png", header: domain.HeaderImage, want: domain.MediaInfo{Format: domain.MediaPNG, Size: 5 << 20}},
		{name: "5 MiB + 1 PNG", path: "/big1.png", header: domain.HeaderImage, want: domain.MediaInfo{Format: domain.MediaPNG, Size: 5<<20 + 1}, check: domain.CodeMediaUnreachable},
		{name: "GIF named x.jpg", path: "/x.jpg", header: domain.HeaderImage, want: domain.MediaInfo{Size: 4000}, check: domain.CodeUnsupportedMediaFormat},
		{name: "PNG served as text/html", path: "/page.html", header: domain.HeaderImage, want: domain.MediaInfo{Format: domain.MediaPNG, Size: 3000}},
		{name: "shorter than the sniff length", path: "/tiny.jpg", header: domain.HeaderImage, want: domain.MediaInfo{Format: domain.MediaJPEG, Size: 3}},
		{name: "200 with Content-Length", path: "/full.jpg", header: domain.HeaderImage, want: domain.MediaInfo{Format: domain.MediaJPEG, Size: 200000}},
		{name: "206 with Content-Range", path: "/range.png", header: domain.HeaderImage, want: domain.MediaInfo{Format: domain.MediaPNG, Size: 4321}},
		{name: "no length: counted", path: "/chunked.png", header: domain.HeaderImage, want: domain.MediaInfo{Format: domain.MediaPNG, Size: 12345}},
		{name: "MP4 video", path: "/clip.mp4", header: domain.HeaderVideo, want: domain.MediaInfo{Format: domain.MediaMP4, Size: 9 << 20}},
		{name: "3GPP video", path: "/clip.3gp", header: domain.HeaderVideo, want: domain.MediaInfo{Format: domain.Media3GPP, Size: 70000}},
		{name: "PDF document", path: "/doc.pdf", header: domain.HeaderDocument, want: domain.MediaInfo{Format: domain.MediaPDF, Size: 120000}},
		{name: "PDF for an image header", path: "/doc-as-image.pdf", header: domain.HeaderImage, want: domain.MediaInfo{Format: domain.MediaPDF, Size: 120000}, check: domain.CodeUnsupportedMediaFormat},
		{name: "three redirects", path: "/hop/2", header: domain.HeaderImage, want: domain.MediaInfo{Format: domain.MediaPNG, Size: 5 << 20}},
		{name: "four redirects", path: "/hop/3", header: domain.HeaderImage, code: domain.CodeMediaUnreachable, detail: "redirected more than 3 times"},
		{name: "not found", path: "/missing.png", header: domain.HeaderImage, code: domain.CodeMediaUnreachable, detail: "answered 404 Not Found"},
		{name: "range not satisfiable", path: "/empty.png", header: domain.HeaderImage, code: domain.CodeMediaUnreachable, detail: "answered 416 Requested Range Not Satisfiable"},
		{name: "206 without the size", path: "/range-unknown.png", header: domain.HeaderImage, code: domain.CodeMediaUnreachable, detail: "without the resource's size"},
		{name: "not a media header", path: "/big.png", header: domain.HeaderText, code: domain.CodeMediaHeaderNotAllowed},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			got, err := in.InspectMedia(context.Background(), caller, srv.URL+c.path, c.header)
			if c.code != "" {
				wantCode(t, err, c.code, c.detail)
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(c.want, got, cmp.Comparer(func(a, b domain.MediaFormat) bool { return a == b })); diff != "" {
				t.Fatalf("InspectMedia (-want +got):\n%s", diff)
			}
			err = c.header.CheckMedia(got)
			if c.check == "" {
				if err != nil {
					t.Fatalf("CheckMedia: %v", err)
				}
				return
			}
			wantCode(t, err, c.check, "")
		})
	}
}

// TestEndlessStream: a server that ignores Range and streams without a
// length is read up to the limit plus one byte, then cut off.
func TestEndlessStream(t *testing.T) {
	t.Parallel()
	srv := newMediaServer(t, false)
	in := media.New(media.Config{AllowHTTP: true, AllowedHosts: []string{hostOf(t, srv.Server)}, Timeout: 5 * time.Second})
	got, err := in.InspectMedia(context.Background(), caller, srv.URL+"/endless.png", domain.HeaderImage)
	if err != nil {
		t.Fatal(err)
	}
	limit := domain.HeaderImage.MaxMediaSize()
	if want := (domain.MediaInfo{Format: domain.MediaPNG, Size: limit + 1}); got != want {
		t.Fatalf("InspectMedia = %+v, want %+v", got, want)
	}
	wantCode(t, domain.HeaderImage.CheckMedia(got), domain.CodeMediaUnreachable, "larger than the 5 MB")
	<-srv.endlessDone // the server's writes fail once the inspector hangs up
	// What the server wrote beyond the limit sat in loopback socket buffers.
	if n := srv.endlessWritten.Load(); n > limit+8<<20 {
		t.Fatalf("the server wrote %d bytes before the inspector hung up", n)
	}
}

// TestTLS: an allowed https server is inspected with https only.
func TestTLS(t *testing.T) {
	t.Parallel()
	srv := newMediaServer(t, true)
	in := media.New(media.Config{AllowedHosts: []string{hostOf(t, srv.Server)}, Timeout: 5 * time.Second})
	in.SetRootCAs(srv.Client().Transport.(*http.Transport).TLSClientConfig.RootCAs)
	got, err := in.InspectMedia(context.Background(), caller, srv.URL+"/range.png", domain.HeaderImage)
	if err != nil {
		t.Fatal(err)
	}
	if want := (domain.MediaInfo{Format: domain.MediaPNG, Size: 4321}); got != want {
		t.Fatalf("InspectMedia = %+v, want %+v", got, want)
	}
	_, err = in.InspectMedia(context.Background(), caller, "http://"+hostOf(t, srv.Server)+"/range.png", domain.HeaderImage)
	wantCode(t, err, domain.CodeInvalidMediaURL, "must use https")
}

// TestHungServer: a server that never answers is media_unreachable after
// the timeout.
func TestHungServer(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		<-r.Context().Done()
	}))
	t.Cleanup(srv.Close)
	const timeout = 200 * time.Millisecond
	in := media.New(media.Config{AllowHTTP: true, AllowedHosts: []string{hostOf(t, srv)}, Timeout: timeout})
	start := time.Now()
	_, err := in.InspectMedia(context.Background(), caller, srv.URL+"/x.png", domain.HeaderImage)
	wantCode(t, err, domain.CodeMediaUnreachable, "could not be fetched")
	if took := time.Since(start); took > timeout+2*time.Second {
		t.Fatalf("gave up after %v, want about %v", took, timeout)
	}
}

// countingServer serves a PNG and counts requests per path; failN makes the
// first n requests of a path answer 404.
type countingServer struct {
	*httptest.Server
	mu    sync.Mutex
	hits  map[string]int
	failN int
}

func newCountingServer(t *testing.T, failN int) *countingServer {
	t.Helper()
	s := &countingServer{hits: map[string]int{}, failN: failN}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.hits[r.URL.Path]++
		n := s.hits[r.URL.Path]
		s.mu.Unlock()
		if n <= s.failN {
			http.NotFound(w, r)
			return
		}
		http.ServeContent(w, r, "", time.Time{}, bytes.NewReader(file(pngSig, 1000)))
	}))
	t.Cleanup(s.Close)
	return s
}

func (s *countingServer) count(path string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.hits[path]
}

func newCachedInspector(t *testing.T, srv *httptest.Server, cfg media.Config) (*media.Inspector, *fakeClock) {
	t.Helper()
	cfg.AllowHTTP = true
	cfg.AllowedHosts = []string{hostOf(t, srv)}
	cfg.Timeout = 5 * time.Second
	in := media.New(cfg)
	clock := &fakeClock{now: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)}
	in.SetNow(clock.Now)
	return in, clock
}

// TestCacheSuccess: a success is reused for CacheTTL, per URL and header
// kind, and fetched again after it.
func TestCacheSuccess(t *testing.T) {
	t.Parallel()
	srv := newCountingServer(t, 0)
	in, clock := newCachedInspector(t, srv.Server, media.Config{})
	ctx := context.Background()
	inspect := func(header domain.HeaderFormat) {
		t.Helper()
		if got, err := in.InspectMedia(ctx, caller, srv.URL+"/a.png", header); err != nil || got.Format != domain.MediaPNG {
			t.Fatalf("InspectMedia = %+v, %v", got, err)
		}
	}
	inspect(domain.HeaderImage)
	inspect(domain.HeaderImage)
	clock.Advance(media.DefaultCacheTTL - time.Second)
	inspect(domain.HeaderImage)
	if n := srv.count("/a.png"); n != 1 {
		t.Fatalf("%d requests within the TTL, want 1", n)
	}
	inspect(domain.HeaderDocument) // another kind, another entry
	if n := srv.count("/a.png"); n != 2 {
		t.Fatalf("%d requests after another header kind, want 2", n)
	}
	clock.Advance(time.Second)
	inspect(domain.HeaderImage)
	if n := srv.count("/a.png"); n != 3 {
		t.Fatalf("%d requests after the TTL, want 3", n)
	}
}

// TestCacheFailure: a failure is reused for FailureTTL, then fetched again.
func TestCacheFailure(t *testing.T) {
	t.Parallel()
	srv := newCountingServer(t, 1)
	in, clock := newCachedInspector(t, srv.Server, media.Config{FailureTTL: 30 * time.Second})
	ctx := context.Background()
	for range 2 {
		_, err := in.InspectMedia(ctx, caller, srv.URL+"/a.png", domain.HeaderImage)
		wantCode(t, err, domain.CodeMediaUnreachable, "404")
	}
	clock.Advance(29 * time.Second)
	_, err := in.InspectMedia(ctx, caller, srv.URL+"/a.png", domain.HeaderImage)
	wantCode(t, err, domain.CodeMediaUnreachable, "404")
	if n := srv.count("/a.png"); n != 1 {
		t.Fatalf("%d requests within the failure TTL, want 1", n)
	}
	clock.Advance(time.Second)
	if got, err := in.InspectMedia(ctx, caller, srv.URL+"/a.png", domain.HeaderImage); err != nil || got.Format != domain.MediaPNG {
		t.Fatalf("after the failure TTL: %+v, %v", got, err)
	}
	if n := srv.count("/a.png"); n != 2 {
		t.Fatalf("%d requests after the failure TTL, want 2", n)
	}
}

// TestCacheBounded: the cache holds CacheSize entries and forgets the
// oldest first.
func TestCacheBounded(t *testing.T) {
	t.Parallel()
	srv := newCountingServer(t, 0)
	in, _ := newCachedInspector(t, srv.Server, media.Config{CacheSize: 2})
	for _, p := range []string{"/a.png", "/b.png", "/c.png", "/c.png", "/a.png"} {
		if _, err := in.InspectMedia(context.Background(), caller, srv.URL+p, domain.HeaderImage); err != nil {
			t.Fatal(err)
		}
	}
	got := map[string]int{"/a.png": srv.count("/a.png"), "/b.png": srv.count("/b.png"), "/c.png": srv.count("/c.png")}
	if diff := cmp.Diff(map[string]int{"/a.png": 2, "/b.png": 1, "/c.png": 1}, got); diff != "" {
		t.Fatalf("requests per path (-want +got):\n%s", diff)
	}
	if n := in.CacheLen(); n != 2 {
		t.Fatalf("%d cached entries, want 2", n)
	}
}

// TestCancelledNotCached: when the caller gives up the outcome is its
// context's error and nothing is cached; concurrent callers of one URL
// share one fetch.
func TestCancelledNotCached(t *testing.T) {
	t.Parallel()
	arrived := make(chan struct{}, 10)
	release := make(chan struct{})
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if hits.Add(1) == 1 {
			arrived <- struct{}{}
			<-r.Context().Done() // the first caller gives up
			return
		}
		arrived <- struct{}{}
		<-release
		http.ServeContent(w, r, "", time.Time{}, bytes.NewReader(file(pngSig, 1000)))
	}))
	t.Cleanup(srv.Close)
	in, _ := newCachedInspector(t, srv, media.Config{})

	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() {
		_, err := in.InspectMedia(ctx, caller, srv.URL+"/a.png", domain.HeaderImage)
		errc <- err
	}()
	<-arrived
	cancel()
	if err := <-errc; !errors.Is(err, context.Canceled) {
		t.Fatalf("error = %v, want context.Canceled", err)
	}

	var wg sync.WaitGroup
	results := make(chan error, 10)
	for range 10 {
		wg.Go(func() {
			got, err := in.InspectMedia(context.Background(), caller, srv.URL+"/a.png", domain.HeaderImage)
			if err == nil && got.Format != domain.MediaPNG {
				err = fmt.Errorf("format %v", got.Format)
			}
			results <- err
		})
	}
	<-arrived
	close(release)
	wg.Wait()
	close(results)
	for err := range results {
		if err != nil {
			t.Fatal(err)
		}
	}
	if n := hits.Load(); n != 2 {
		t.Fatalf("%d requests, want 2: one given up, one shared by ten callers", n)
	}
}

// TestConcurrencyBound (T20): 100 inspections of distinct URLs never have
// more than MaxConcurrent requests at the server at once.
func TestConcurrencyBound(t *testing.T) {
	t.Parallel()
	const maxConcurrent, callers = 4, 100
	var inFlight, peak, started atomic.Int32
	full := make(chan struct{})
	var fullOnce sync.Once
	allStarted := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := inFlight.Add(1)
		defer inFlight.Add(-1)
		for p := peak.Load(); n > p && !peak.CompareAndSwap(p, n); p = peak.Load() {
		}
		if n >= maxConcurrent {
			fullOnce.Do(func() { close(full) })
		}
		// Hold every request until the limit is reached and every caller
		// has started, so that an unbounded inspector would show here.
		<-full
		<-allStarted
		http.ServeContent(w, r, "", time.Time{}, bytes.NewReader(file(pngSig, 1000)))
	}))
	t.Cleanup(srv.Close)
	in := media.New(media.Config{AllowHTTP: true, AllowedHosts: []string{hostOf(t, srv)}, MaxConcurrent: maxConcurrent,
		Timeout: 5 * time.Second, SlotWait: time.Minute})
	var wg sync.WaitGroup
	errs := make(chan error, callers)
	for k := range callers {
		wg.Go(func() {
			if started.Add(1) == callers {
				close(allStarted)
			}
			// Callers of ten workspaces, a key each: the shares of one
			// workspace and one key are not what this test is about.
			who := domain.Principal{Workspace: domain.WorkspaceID(fmt.Sprint("ws_", k%10)), Key: domain.KeyID(fmt.Sprint("key_", k%10))}
			_, err := in.InspectMedia(context.Background(), who, fmt.Sprintf("%s/%d.png", srv.URL, k), domain.HeaderImage)
			errs <- err
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	if p := peak.Load(); p != maxConcurrent {
		t.Fatalf("at most %d requests at once, want %d", p, maxConcurrent)
	}
}

// TestWaitForSlotEndsWithContext: a caller waiting for a slot gives up
// when its context ends.
func TestWaitForSlotEndsWithContext(t *testing.T) {
	t.Parallel()
	arrived := make(chan struct{})
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		close(arrived)
		<-release
		http.ServeContent(w, r, "", time.Time{}, bytes.NewReader(file(pngSig, 1000)))
	}))
	t.Cleanup(srv.Close)
	in := media.New(media.Config{AllowHTTP: true, AllowedHosts: []string{hostOf(t, srv)}, MaxConcurrent: 1, Timeout: 5 * time.Second})
	done := make(chan error, 1)
	go func() {
		_, err := in.InspectMedia(context.Background(), caller, srv.URL+"/first.png", domain.HeaderImage)
		done <- err
	}()
	<-arrived // the only slot is taken
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := in.InspectMedia(ctx, caller, srv.URL+"/second.png", domain.HeaderImage); !errors.Is(err, context.Canceled) {
		t.Fatalf("error = %v, want context.Canceled", err)
	}
	close(release)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

// TestNoBodyLeftOpen: the body is closed even when only its start is read,
// so the server sees the client go away.
func TestNoBodyLeftOpen(t *testing.T) {
	t.Parallel()
	gone := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Length", strconv.Itoa(64<<20))
		_, _ = w.Write(file(pngSig, 64))
		w.(http.Flusher).Flush()
		<-r.Context().Done()
		close(gone)
	}))
	t.Cleanup(srv.Close)
	in := media.New(media.Config{AllowHTTP: true, AllowedHosts: []string{hostOf(t, srv)}, Timeout: 5 * time.Second})
	got, err := in.InspectMedia(context.Background(), caller, srv.URL+"/a.png", domain.HeaderImage)
	if err != nil {
		t.Fatal(err)
	}
	if want := (domain.MediaInfo{Format: domain.MediaPNG, Size: 64 << 20}); got != want {
		t.Fatalf("InspectMedia = %+v, want %+v", got, want)
	}
	<-gone
}
