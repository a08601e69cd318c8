package fakemeta_test

import (
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/heraldhq/herald/test/fakemeta"
)

// holdingReceiver answers webhook calls only when released, and says how
// many it holds at most at once.
type holdingReceiver struct {
	release chan struct{}
	arrived chan string // each call's body, as it arrives

	mu          sync.Mutex
	holding, at int
}

func newHoldingReceiver(t *testing.T) (*holdingReceiver, string) {
	t.Helper()
	h := &holdingReceiver{release: make(chan struct{}), arrived: make(chan string, 100)}
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return h, srv.URL + "/v1/webhooks/whatsapp"
}

func (h *holdingReceiver) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h.mu.Lock()
	h.holding++
	h.at = max(h.at, h.holding)
	h.mu.Unlock()
	h.arrived <- r.URL.Path
	<-h.release
	h.mu.Lock()
	h.holding--
	h.mu.Unlock()
}

func (h *holdingReceiver) most() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.at
}

// waitBacklog waits until the fake owes n statuses. Nothing signals a
// status's becoming due, so this polls, for at most 10s.
func waitBacklog(t *testing.T, fake *fakemeta.Server, n int) time.Time {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		got, oldest := fake.WebhookBacklog()
		if got == n {
			return oldest
		}
		if time.Now().After(deadline) {
			t.Fatalf("webhook backlog %d, want %d", got, n)
		}
		time.Sleep(time.Millisecond)
	}
}

// TestEmitterBoundsPostsInFlight: with WebhookParallel 2 and a receiver
// that does not answer, two statuses are posted and the third waits, owed,
// in the backlog; once answered, it goes.
func TestEmitterBoundsPostsInFlight(t *testing.T) {
	t.Parallel()
	h, url := newHoldingReceiver(t)
	fake := fakemeta.New(t)
	fake.AddTemplate(fakemeta.Template{Name: "welcome", Language: "en_US", Status: "APPROVED", BodyParams: 1})
	fake.WebhookURL, fake.AppSecret, fake.WebhookStatuses = url, "s3cret", []string{"sent"}
	fake.WebhookParallel = 2
	before := time.Now()
	for _, id := range []string{"msg_01m80000000000000000000011", "msg_01m80000000000000000000012", "msg_01m80000000000000000000013"} {
		sendOne(t, fake, id)
	}
	<-h.arrived
	<-h.arrived
	oldest := waitBacklog(t, fake, 3)
	if oldest.Before(before) || oldest.After(time.Now()) {
		t.Errorf("the oldest status became due at %v, not during the test", oldest)
	}
	if got := h.most(); got != 2 {
		t.Errorf("%d posts in flight, want 2", got)
	}
	close(h.release)
	fake.WaitWebhooks()
	if got := h.most(); got != 2 {
		t.Errorf("at most %d posts in flight, want 2", got)
	}
	if n, oldest := fake.WebhookBacklog(); n != 0 || !oldest.IsZero() {
		t.Errorf("backlog %d (oldest %v) after every status was answered", n, oldest)
	}
}

// TestEmitterWaitsTheGap: the next status of a message is posted no
// sooner than WebhookGap after the previous one was answered.
func TestEmitterWaitsTheGap(t *testing.T) {
	t.Parallel()
	const gap = 50 * time.Millisecond
	var mu sync.Mutex
	var posts []fakemeta.WebhookPost
	fake, _ := emitter(t, []string{"sent", "delivered", "read"})
	fake.WebhookGap = gap
	fake.OnWebhookPost = func(p fakemeta.WebhookPost) {
		mu.Lock()
		defer mu.Unlock()
		posts = append(posts, p)
	}
	sendOne(t, fake, "msg_01m80000000000000000000014")
	fake.WaitWebhooks()
	mu.Lock()
	defer mu.Unlock()
	if len(posts) != 3 {
		t.Fatalf("%d posts, want 3", len(posts))
	}
	for i, next := range []string{"delivered", "read"} {
		prev := posts[i] // no other message waits for a slot: its POST began at Due
		if got := posts[i+1].Due.Sub(prev.Due.Add(prev.Took)); got < gap {
			t.Errorf("%s became due %v after %s was answered, want at least %v", next, got, prev.Status, gap)
		}
	}
}

// TestLeanCounts: a lean fake keeps no copies but counts sends, accepted
// sends and connections, and reports every webhook post.
func TestLeanCounts(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var got []fakemeta.WebhookPost
	fake, rc := emitter(t, nil)
	fake.Lean = true
	fake.OnWebhookPost = func(p fakemeta.WebhookPost) {
		mu.Lock()
		defer mu.Unlock()
		p.Due, p.Took = time.Time{}, 0
		got = append(got, p)
	}
	sendOne(t, fake, "msg_01m80000000000000000000015")
	fake.WaitWebhooks()
	sendOne(t, fake, "msg_01m80000000000000000000016")
	fake.WaitWebhooks()
	if len(fake.Requests()) != 0 || len(fake.Accepted()) != 0 || len(fake.WebhookDeliveries()) != 0 {
		t.Errorf("a lean fake kept %d requests, %d accepted, %d deliveries",
			len(fake.Requests()), len(fake.Accepted()), len(fake.WebhookDeliveries()))
	}
	if statuses, _ := fake.Answers(); len(statuses) != 0 {
		t.Errorf("a lean fake kept %d answers", len(statuses))
	}
	if fake.RequestCount() != 2 || fake.AcceptedCount() != 2 {
		t.Errorf("counted %d requests, %d accepted, want 2 and 2", fake.RequestCount(), fake.AcceptedCount())
	}
	if d := cmp.Diff(map[string]int{fake.PhoneNumberID: 2}, fake.AcceptedByNumber()); d != "" {
		t.Errorf("accepted by number (-want +got):\n%s", d)
	}
	if n := len(rc.got()); n != 6 {
		t.Errorf("the receiver got %d calls, want 6", n)
	}
	var want []fakemeta.WebhookPost
	for _, biz := range []string{"msg_01m80000000000000000000015", "msg_01m80000000000000000000016"} {
		for _, st := range []string{"sent", "delivered", "read"} {
			want = append(want, fakemeta.WebhookPost{Status: st, Number: fake.PhoneNumberID, BizOpaque: biz, Answered: 200, Attempt: 1, Last: true})
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("posts (-want +got):\n%s", d)
	}
}

// TestConnectionsCounted: a client that keeps its connection open makes
// one for several sends; one that does not makes one per send.
func TestConnectionsCounted(t *testing.T) {
	t.Parallel()
	fake := fakemeta.New(t)
	fake.AddTemplate(fakemeta.Template{Name: "welcome", Language: "en_US", Status: "APPROVED", BodyParams: 1})
	keeping := &http.Client{Transport: &http.Transport{}}
	t.Cleanup(keeping.CloseIdleConnections)
	for range 3 {
		sendWith(t, keeping, fake, "msg_01m80000000000000000000017")
	}
	if got := fake.Connections(); got != 1 {
		t.Errorf("%d connections for three sends over a kept connection, want 1", got)
	}
	closing := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
	for range 2 {
		sendWith(t, closing, fake, "msg_01m80000000000000000000018")
	}
	if got := fake.Connections(); got != 3 {
		t.Errorf("%d connections after two more sends that close theirs, want 3", got)
	}
}
