package browser

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"

	"github.com/heraldhq/herald/test/testenv"
)

var binary string

func TestMain(m *testing.M) { testenv.RunWithHerald(m, &binary) }

// chromiumPath finds the browser to drive. Without one the test is skipped
// on a developer's machine and fails in CI, which installs Debian's.
func chromiumPath(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	const how = "no chromium, chromium-browser or google-chrome on PATH; install Debian's: " +
		"apt-get install --no-install-recommends chromium (.ci/run does)"
	if os.Getenv("CI") == "true" {
		t.Fatal(how)
	}
	t.Skip(how)
	return ""
}

// startHerald creates the operator with herald admin create (the password
// on stdin) and starts herald serve on a free loopback port. It stops the
// server with SIGTERM when the test ends, and prints its log if the test
// failed.
func startHerald(t *testing.T) *testenv.Herald {
	t.Helper()
	dir := t.TempDir()
	env := append(os.Environ(), "HERALD_DATABASE_URL=sqlite:"+filepath.Join(dir, "herald.db"), "HERALD_LOG_FORMAT=json")

	admin := exec.Command(binary, "admin", "create", "--email", operatorEmail, "--json")
	admin.Env = env
	admin.Stdin = strings.NewReader(operatorPassword + "\n")
	var stderr bytes.Buffer
	admin.Stderr = &stderr
	out, err := admin.Output()
	if err != nil {
		t.Fatalf("herald admin create: %v\n%s", err, stderr.String())
	}
	var op struct{ ID, Email, WorkspaceID string }
	if err := json.Unmarshal(out, &op); err != nil || op.Email != operatorEmail || op.ID == "" {
		t.Fatalf("herald admin create printed %q (%v)", out, err)
	}
	if bytes.Contains(out, []byte(operatorPassword)) || strings.Contains(stderr.String(), operatorPassword) {
		t.Fatalf("herald admin create printed the password")
	}

	srv := testenv.Serve(t, binary, append(env, "HERALD_SANDBOX_STEP_DELAY=50ms"))
	t.Cleanup(func() {
		srv.Stop(t)
		if t.Failed() {
			t.Logf("herald serve log:\n%s", srv.Logs())
		}
	})
	return srv
}

// browser is one headless Chromium tab on the server, with the helpers
// the scenario reads like.
type browser struct {
	t     *testing.T
	ctx   context.Context
	base  string
	shots string // the screenshots' directory
	n     int    // screenshots taken

	mu      sync.Mutex
	console []chromedp.ConsoleMessage
}

func newBrowser(ctx context.Context, t *testing.T, path, base string) *browser {
	t.Helper()
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(path),
		chromedp.NoSandbox, // the tests run as root, where Chromium's sandbox cannot start
		chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.WindowSize(1280, 900),
	)
	allocCtx, cancelAlloc := chromedp.NewExecAllocator(ctx, opts...)
	tabCtx, cancelTab := chromedp.NewContext(allocCtx)
	t.Cleanup(func() { cancelTab(); cancelAlloc() })
	if err := chromedp.Do(tabCtx); err != nil {
		t.Fatalf("starting %s: %v", path, err)
	}
	b := &browser{t: t, ctx: tabCtx, base: base, shots: screenshotDir(t)}
	messages := chromedp.Console(tabCtx)
	go func() {
		for m, err := range messages {
			if err != nil {
				return
			}
			b.mu.Lock()
			b.console = append(b.console, m)
			b.mu.Unlock()
		}
	}()
	return b
}

// screenshotDir is artifacts/screenshots/ under $HERALD_ARTIFACTS_DIR or
// the repository's root, emptied of an earlier run's pictures.
func screenshotDir(t *testing.T) string {
	t.Helper()
	root := os.Getenv("HERALD_ARTIFACTS_DIR")
	if root == "" {
		repo, err := filepath.Abs(filepath.Join("..", ".."))
		if err != nil {
			t.Fatal(err)
		}
		root = filepath.Join(repo, "artifacts")
	}
	dir := filepath.Join(root, "screenshots")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	old, _ := filepath.Glob(filepath.Join(dir, "[0-9][0-9]-*.png"))
	for _, f := range old {
		os.Remove(f)
	}
	return dir
}

// step runs actions that return nothing, bounded by stepTimeout.
func (b *browser) step(what string, actions ...chromedp.Action[chromedp.Void]) {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, stepTimeout)
	defer cancel()
	if err := chromedp.Do(ctx, actions...); err != nil {
		b.t.Fatalf("%s: %v (on %s)", what, err, b.location())
	}
}

// value runs one action and returns its value, bounded by stepTimeout.
func value[T any](b *browser, what string, action chromedp.Action[T]) T {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, stepTimeout)
	defer cancel()
	v, err := chromedp.Run(ctx, action)
	if err != nil {
		b.t.Fatalf("%s: %v (on %s)", what, err, b.location())
	}
	return v
}

func (b *browser) location() string {
	ctx, cancel := context.WithTimeout(b.ctx, 5*time.Second)
	defer cancel()
	loc, err := chromedp.Run(ctx, chromedp.Location())
	if err != nil {
		return "an unknown page: " + err.Error()
	}
	return loc
}

// open navigates to a path on the server and returns the final response.
func (b *browser) open(path string) *network.Response {
	b.t.Helper()
	return value(b, "opening "+path, chromedp.NavigateResponse(b.base+path))
}

// press clicks a button that submits a form and returns the response of
// the page it leads to, after any redirects.
func (b *browser) press(what, button string) *network.Response {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, stepTimeout)
	defer cancel()
	res, err := chromedp.RunResponse(ctx, chromedp.Click(chromedp.CSS(button)))
	if err != nil {
		b.t.Fatalf("%s: pressing %s: %v (on %s)", what, button, err, b.location())
	}
	return res
}

// fill replaces a field's value by typing.
func (b *browser) fill(field, text string) {
	b.t.Helper()
	q, _ := json.Marshal(field)
	// SetValue cannot set "" (it reads the value back and takes "" for
	// no answer), so the field is emptied by a script.
	b.step("filling "+field, chromedp.WaitVisible(chromedp.CSS(field)),
		chromedp.Evaluate[chromedp.Void](`document.querySelector(`+string(q)+`).value = ""`),
		chromedp.SendKeys(chromedp.CSS(field), text))
}

func (b *browser) text(sel string) string {
	b.t.Helper()
	return strings.TrimSpace(value(b, "reading "+sel, chromedp.Text(chromedp.CSS(sel))))
}

// texts is the visible text of every element sel matches, none waited for.
func (b *browser) texts(sel string) []string {
	b.t.Helper()
	q, _ := json.Marshal(sel)
	return value(b, "reading every "+sel, chromedp.Evaluate[[]string](
		`Array.from(document.querySelectorAll(`+string(q)+`), e => e.innerText.trim())`))
}

// html is the whole document as the browser has it.
func (b *browser) html() string {
	b.t.Helper()
	return value(b, "reading the page", chromedp.OuterHTML(chromedp.CSS("html")))
}

// at fails unless the page's address is want (a path on the server).
func (b *browser) at(want string) {
	b.t.Helper()
	if got := b.location(); got != b.base+want {
		b.t.Fatalf("the browser is on %s, want %s%s", got, b.base, want)
	}
}

// shot writes a screenshot of the whole page as NN-name.png.
func (b *browser) shot(name string) {
	b.t.Helper()
	png := value(b, "screenshot "+name, chromedp.FullScreenshot(100))
	b.n++
	if err := os.WriteFile(filepath.Join(b.shots, fmt.Sprintf("%02d-%s.png", b.n, name)), png, 0o644); err != nil {
		b.t.Fatal(err)
	}
}

// wantStatus fails unless res, a page's response, has the status want.
func wantStatus(t *testing.T, what string, res *network.Response, want int64) {
	t.Helper()
	if res == nil {
		t.Fatalf("%s: no response, want status %d", what, want)
	}
	if res.Status != want {
		t.Fatalf("%s: %s answered %d, want %d", what, res.URL, res.Status, want)
	}
}

// sessionCookie is the browser's dashboard session cookie, or nil.
func (b *browser) sessionCookie() *network.Cookie {
	b.t.Helper()
	jar := value(b, "reading the browser's cookies", func(ctx context.Context, tg *chromedp.Target) (network.GetCookiesResult, error) {
		return cdp.Call(ctx, tg, network.GetCookies, network.GetCookiesParams{URLs: []string{b.base + "/dashboard/"}})
	})
	for _, c := range jar.Cookies {
		if c.Name == "herald_session" {
			return c
		}
	}
	return nil
}

// checkConsole fails on an uncaught exception or a content security
// policy violation in any page so far; other console messages (such as a
// 401 page's status) are only logged.
func (b *browser) checkConsole() {
	b.t.Helper()
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, m := range b.console {
		if m.IsException() || strings.Contains(m.Text, "Content Security Policy") {
			b.t.Errorf("browser console: %s (%s:%d)", m, m.URL, m.Line+1)
		} else {
			b.t.Logf("browser console: %s (%s)", m, m.URL)
		}
	}
}

// call makes a request with Go's client, not the browser: a JSON body or a
// form, the given headers, redirects not followed. It returns the status,
// the headers and the body.
func call(t *testing.T, method, u string, body any, header map[string]string) (int, http.Header, string) {
	t.Helper()
	var rd io.Reader
	ctype := ""
	switch b := body.(type) {
	case nil:
	case url.Values:
		rd, ctype = strings.NewReader(b.Encode()), "application/x-www-form-urlencoded"
	default:
		j, _ := json.Marshal(b)
		rd, ctype = bytes.NewReader(j), "application/json"
	}
	req, err := http.NewRequest(method, u, rd)
	if err != nil {
		t.Fatal(err)
	}
	if ctype != "" {
		req.Header.Set("Content-Type", ctype)
	}
	for k, v := range header {
		req.Header.Set(k, v)
	}
	client := &http.Client{Timeout: stepTimeout, CheckRedirect: func(*http.Request, []*http.Request) error {
		return http.ErrUseLastResponse
	}}
	res, err := client.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, u, err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res.StatusCode, res.Header, string(b)
}
