package e2e

import (
	"bytes"
	"encoding/json"
	"io"
	"maps"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// TestMediaChecksShareFairly replays the attack of issue 23: a test key of
// workspace A sends 48 media headers at once from a server that never
// answers. Before, they took every media fetch there was, and workspace B's
// sends waited until their time ran out (500 or 503 after 8–10 s). Now A's
// key holds its quarter of the fetches, the rest of its sends are refused
// after a short wait with a retryable 422 media_unreachable, those whose
// fetch outlasts the request get 422 media_unreachable too, and B's sends
// are accepted while A's fetches are still hanging. Requests get 3 s, less
// than the media fetch's own time, so that the hanging fetches outlast
// their requests. It logs how long B's sends took; HERALD_E2E_BINARY=<an
// earlier build> measures that build, and HERALD_REQUEST_TIMEOUT in the
// environment (10s, the default) replays the attack as it was made.
func TestMediaChecksShareFairly(t *testing.T) {
	t.Parallel()
	png := append([]byte{0x89, 'P', 'N', 'G', '\r', '\n', 0x1A, '\n'}, bytes.Repeat([]byte{0}, 4096)...)
	arrived := make(chan struct{}, 100)
	var hanging, ended atomic.Int32
	files := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasPrefix(r.URL.Path, "/slow/") {
			hanging.Add(1)
			arrived <- struct{}{}
			<-r.Context().Done() // until herald gives up
			ended.Add(1)
			return
		}
		w.Write(png)
	}))
	defer files.Close()

	in := newInstance(t, "sqlite")
	var keyA, keyB struct{ Token string }
	var campA, campB, wsB struct{ ID string }
	in.cli(&keyA, "keys", "create", "--name", "ci", "--mode", "test")
	in.cli(&campA, "campaigns", "create", "--name", "Banner", "--template-name", "banner", "--language", "en_US",
		"--body", "Hi {{1}}", "--header-format", "image", "--activate")
	in.cli(&wsB, "workspaces", "create", "--name", "B")
	in.cli(&keyB, "keys", "create", "--name", "b", "--mode", "test", "--workspace", wsB.ID)
	in.cli(&campB, "campaigns", "create", "--name", "Banner", "--template-name", "banner", "--language", "en_US",
		"--body", "Hi {{1}}", "--header-format", "image", "--activate", "--workspace", wsB.ID)
	timeout := "HERALD_REQUEST_TIMEOUT=3s"
	if v := os.Getenv("HERALD_REQUEST_TIMEOUT"); v != "" {
		timeout = "HERALD_REQUEST_TIMEOUT=" + v
	}
	srv := in.serve("HERALD_MEDIA_ALLOW_HTTP=true", "HERALD_MEDIA_ALLOWED_HOSTS="+strings.TrimPrefix(files.URL, "http://"), timeout)

	type answer struct {
		status     int
		code       string
		retryAfter string
		took       time.Duration
	}
	send := func(key, campaign, url string) answer {
		b, _ := json.Marshal(map[string]any{"phoneNumber": "+14155552671", "campaignId": campaign,
			"variables": []string{"Ana"}, "mediaHeaderUrl": url})
		req, _ := http.NewRequest("POST", srv.Base+"/v1/messages/send-campaign", bytes.NewReader(b))
		req.Header.Set("X-API-KEY", key)
		req.Header.Set("Content-Type", "application/json")
		start := time.Now()
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Errorf("send: %v", err)
			return answer{}
		}
		defer res.Body.Close()
		body, _ := io.ReadAll(res.Body)
		var p struct{ Code string }
		json.Unmarshal(body, &p)
		return answer{res.StatusCode, p.Code, res.Header.Get("Retry-After"), time.Since(start)}
	}

	const attack = 48
	fromA := make(chan answer, attack)
	for i := range attack {
		go func() { fromA <- send(keyA.Token, campA.ID, files.URL+"/slow/"+strconv.Itoa(i)+".png") }()
	}
	for range 4 { // A's key's share of the 16 fetches is hanging
		<-arrived
	}

	const sendsB = 10
	fromB := make(chan answer, sendsB)
	for i := range sendsB {
		go func() { fromB <- send(keyB.Token, campB.ID, files.URL+"/fast/"+strconv.Itoa(i)+".png") }()
	}
	var took []time.Duration
	for range sendsB {
		a := <-fromB
		took = append(took, a.took)
		if a.status != 202 {
			t.Errorf("workspace B's send under the attack: %d %s after %v", a.status, a.code, a.took)
		}
	}
	slices.Sort(took)
	t.Logf("workspace B's %d sends under the attack took %v (median %v, max %v)", sendsB, took, took[sendsB/2], took[sendsB-1])
	if n := ended.Load(); n != 0 {
		t.Errorf("%d of A's hanging fetches ended before B's sends were answered: B waited for them", n)
	}
	if n := hanging.Load(); n != 4 {
		t.Errorf("%d of A's fetches reached the media server, want 4 (a key's share of 16)", n)
	}

	counts := map[string]int{}
	for range attack {
		a := <-fromA
		counts[strconv.Itoa(a.status)+" "+a.code+" Retry-After:"+a.retryAfter]++
	}
	want := map[string]int{
		"422 media_unreachable Retry-After:1": attack - 4, // no fetch slot within 2 s
		"422 media_unreachable Retry-After:":  4,          // the fetch outlasted the request (or the media server's time)
	}
	if !maps.Equal(counts, want) {
		t.Errorf("workspace A's answers %v, want %v", counts, want)
	}
	if logs := srv.Logs(); strings.Contains(logs, "internal error") || strings.Contains(logs, "store unavailable") {
		t.Errorf("the attack was logged as a failure of herald:\n%s", logs)
	}
	srv.Stop(t)
}
