package media_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/heraldhq/herald/adapters/media"
	"github.com/heraldhq/herald/domain"
)

// holdingServer serves a PNG at /fast/… at once and holds every request
// for /slow/… until its client goes away or release is closed; arrived
// receives one value per slow request, and slow counts them.
type holdingServer struct {
	*httptest.Server
	arrived chan struct{}
	release chan struct{}
	slow    atomic.Int32
}

func newHoldingServer(t *testing.T) *holdingServer {
	s := &holdingServer{arrived: make(chan struct{}, 1000), release: make(chan struct{})}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasPrefix(r.URL.Path, "/slow/") {
			s.slow.Add(1)
			s.arrived <- struct{}{}
			select {
			case <-r.Context().Done():
				return
			case <-s.release:
			}
		}
		http.ServeContent(w, r, "", time.Time{}, bytes.NewReader(file(pngSig, 1000)))
	}))
	t.Cleanup(s.Close)
	t.Cleanup(func() {
		select {
		case <-s.release:
		default:
			close(s.release)
		}
	})
	return s
}

// TestFairShares: with a pool of 8, a workspace holds at most 4 fetches
// and a key at most 2, however many it asks for; another workspace's
// inspection runs at once meanwhile; whoever waits for a slot longer than
// SlotWait gets a retryable media_unreachable, which is not cached.
func TestFairShares(t *testing.T) {
	t.Parallel()
	srv := newHoldingServer(t)
	in := media.New(media.Config{AllowHTTP: true, AllowedHosts: []string{hostOf(t, srv.Server)}, MaxConcurrent: 8,
		Timeout: time.Minute, SlotWait: 200 * time.Millisecond})
	a1 := domain.Principal{Workspace: "ws_a", Key: "key_a1", Mode: domain.ModeTest}
	a2 := domain.Principal{Workspace: "ws_a", Key: "key_a2", Mode: domain.ModeLive}
	a3 := domain.Principal{Workspace: "ws_a", Key: "key_a3", Mode: domain.ModeLive}
	b := domain.Principal{Workspace: "ws_b", Key: "key_b", Mode: domain.ModeLive}

	results := make(chan error, 30)
	inspect := func(who domain.Principal, n int) {
		for k := range n {
			go func() {
				_, err := in.InspectMedia(context.Background(), who, fmt.Sprintf("%s/slow/%s-%d.png", srv.URL, who.Key, k), domain.HeaderImage)
				results <- err
			}()
		}
	}
	// Workspace A asks for 30 fetches through three keys: the first two
	// keys take 2 each, and the workspace's 4 are gone.
	inspect(a1, 10)
	inspect(a2, 10)
	for range 4 {
		<-srv.arrived
	}
	inspect(a3, 10)

	// Workspace B is not kept waiting by A.
	got, err := in.InspectMedia(context.Background(), b, srv.URL+"/fast/b.png", domain.HeaderImage)
	if err != nil || got.Format != domain.MediaPNG {
		t.Fatalf("workspace B while A holds its share: %+v, %v", got, err)
	}

	// A's other 26 give up after SlotWait, while its 4 are still held.
	for range 26 {
		err := <-results
		var re *domain.RetryableError
		if !errors.As(err, &re) || re.After != time.Second {
			t.Fatalf("an inspection of A beyond its share: %v, want a retryable refusal", err)
		}
		wantCode(t, err, domain.CodeMediaUnreachable, "too many media checks are running; retry shortly")
	}
	if n := srv.slow.Load(); n != 4 {
		t.Fatalf("%d of A's fetches reached the server, want 4", n)
	}
	close(srv.release)
	for range 4 {
		if err := <-results; err != nil {
			t.Fatalf("a held inspection, released: %v", err)
		}
	}

	// A refusal for want of a slot is not cached: the same URL is fetched
	// when asked again.
	if _, err := in.InspectMedia(context.Background(), a3, srv.URL+"/slow/key_a3-0.png", domain.HeaderImage); err != nil {
		t.Fatalf("the refused URL again: %v", err)
	}
	if n := srv.slow.Load(); n != 5 {
		t.Fatalf("the refused URL was not fetched again: %d fetches", n)
	}
}

// TestDeadlineIsMediaUnreachable: an inspection cut short by the caller's
// deadline is media_unreachable, not the context's error, and is not
// cached; so is a caller sharing another's fetch when its own deadline
// passes.
func TestDeadlineIsMediaUnreachable(t *testing.T) {
	t.Parallel()
	srv := newHoldingServer(t)
	in := media.New(media.Config{AllowHTTP: true, AllowedHosts: []string{hostOf(t, srv.Server)}, Timeout: time.Minute})
	url := srv.URL + "/slow/a.png"

	leader := make(chan error, 1)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		_, err := in.InspectMedia(ctx, caller, url, domain.HeaderImage)
		leader <- err
	}()
	<-srv.arrived
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	_, err := in.InspectMedia(ctx, domain.Principal{Workspace: "ws_2", Key: "key_2"}, url, domain.HeaderImage)
	wantCode(t, err, domain.CodeMediaUnreachable, "could not be checked in time")
	if n := in.CacheLen(); n != 0 {
		t.Fatalf("%d outcomes cached", n)
	}

	ctx, cancel = context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	_, err = in.InspectMedia(ctx, caller, srv.URL+"/slow/b.png", domain.HeaderImage)
	wantCode(t, err, domain.CodeMediaUnreachable, "could not be checked in time")
	if n := in.CacheLen(); n != 0 {
		t.Fatalf("%d outcomes cached", n)
	}
	close(srv.release)
	if err := <-leader; err != nil {
		t.Fatalf("the first caller, released: %v", err)
	}
}
