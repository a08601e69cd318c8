package app_test

import (
	"context"
	"errors"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/heraldhq/herald/adapters/memstore"
	"github.com/heraldhq/herald/adapters/system"
	"github.com/heraldhq/herald/app"
	"github.com/heraldhq/herald/app/usecase"
	"github.com/heraldhq/herald/domain"
	"github.com/heraldhq/herald/ports"
	"github.com/heraldhq/herald/ports/portsmock"
)

// mediaWorld is the media use cases over memstore, with Meta's upload
// counting its calls and the clock at t0.
type mediaWorld struct {
	st       *memstore.Store
	clock    *clock
	uploader *portsmock.MediaUploaderMock
	deps     app.MediaDeps
	live     domain.Principal
}

func newMediaWorld(t *testing.T) *mediaWorld {
	t.Helper()
	w := &mediaWorld{st: memstore.New(), clock: newClock()}
	var n atomic.Int64
	w.uploader = &portsmock.MediaUploaderMock{
		NumberFunc: func() string { return "106540352242922" },
		UploadMediaFunc: func(context.Context, domain.MediaFile, []byte) (string, error) {
			return strconv.FormatInt(1000+n.Add(1), 10), nil
		},
	}
	ws, err := app.NewEnsureDefaultWorkspaceHandler(w.st, w.clock, system.NewIDs()).Handle(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	w.live = domain.Principal{Workspace: ws.ID, Mode: domain.ModeLive}
	w.deps = app.MediaDeps{Tx: w.st, Media: w.st, Uploader: w.uploader, Clock: w.clock, IDs: system.NewIDs(), Obs: usecase.NewObserver(nil)}
	return w
}

func (w *mediaWorld) upload(t *testing.T, content []byte) domain.MediaFile {
	t.Helper()
	res, err := app.NewUploadMediaHandler(w.deps).Handle(context.Background(), app.UploadMedia{Principal: w.live, Filename: "a.png", Content: content})
	if err != nil {
		t.Fatal(err)
	}
	return res.File
}

// A message by Herald's id goes by its upload's id while the upload is
// fresh, and after 27 days by a new upload of the stored bytes.
func TestStageMediaReuploadsBeforeExpiry(t *testing.T) {
	t.Parallel()
	w := newMediaWorld(t)
	f := w.upload(t, []byte("\x89PNG\r\n\x1a\nstage"))
	stager := app.NewMediaStager(w.deps)
	m := ports.OutboundMessage{Workspace: w.live.Workspace, Mode: domain.ModeLive, Session: &domain.SessionContent{Type: domain.KindImage,
		Media: &domain.SessionMedia{MediaRef: domain.MediaRef{MediaID: string(f.ID)}}}}
	stage := func() string {
		t.Helper()
		out, err := stager.StageMedia(context.Background(), m, nil)
		if err != nil {
			t.Fatal(err)
		}
		return out.MediaIDs[string(f.ID)]
	}
	if got := stage(); got != "1001" {
		t.Fatalf("a fresh upload: %q, want the first upload's id", got)
	}
	w.clock.Advance(27*24*time.Hour - time.Second)
	if got := stage(); got != "1001" || len(w.uploader.UploadMediaCalls()) != 1 {
		t.Fatalf("just before 27 days: %q after %d uploads", got, len(w.uploader.UploadMediaCalls()))
	}
	w.clock.Advance(time.Second)
	if got := stage(); got != "1002" {
		t.Fatalf("at 27 days: %q, want a new upload", got)
	}
	calls := w.uploader.UploadMediaCalls()
	if len(calls) != 2 || string(calls[1].Content) != "\x89PNG\r\n\x1a\nstage" {
		t.Fatalf("uploads: %d, want the stored bytes again", len(calls))
	}
	if got := stage(); got != "1002" {
		t.Fatalf("after the new upload: %q", got)
	}
}

// Test keys' messages, and messages without media, are left alone; a file
// that is gone fails the message for good; Meta out of reach is retried.
func TestStageMediaFailures(t *testing.T) {
	t.Parallel()
	w := newMediaWorld(t)
	stager := app.NewMediaStager(w.deps)
	image := func(id string) *domain.SessionContent {
		return &domain.SessionContent{Type: domain.KindImage, Media: &domain.SessionMedia{MediaRef: domain.MediaRef{MediaID: id}}}
	}
	test := ports.OutboundMessage{Workspace: w.live.Workspace, Mode: domain.ModeTest, Session: image("med_01j9z3kq7m8n2p4r6t8v0w2y4a")}
	if out, err := stager.StageMedia(context.Background(), test, nil); err != nil || out.MediaIDs != nil {
		t.Fatalf("a test message: %+v, %v", out.MediaIDs, err)
	}
	gone := ports.OutboundMessage{Workspace: w.live.Workspace, Mode: domain.ModeLive, Session: image("med_01j9z3kq7m8n2p4r6t8v0w2y4a")}
	var se *ports.SendError
	if _, err := stager.StageMedia(context.Background(), gone, nil); !errors.As(err, &se) || se.Class != ports.ClassPermanent {
		t.Fatalf("a file that is gone: %v, want a permanent failure", err)
	}
	f := w.upload(t, []byte("\x89PNG\r\n\x1a\nretry"))
	w.clock.Advance(28 * 24 * time.Hour)
	w.uploader.UploadMediaFunc = func(context.Context, domain.MediaFile, []byte) (string, error) {
		return "", &ports.SendError{Class: ports.ClassRetryable, Err: errors.New("connection refused")}
	}
	out := ports.OutboundMessage{Workspace: w.live.Workspace, Mode: domain.ModeLive, Session: image(string(f.ID))}
	if _, err := stager.StageMedia(context.Background(), out, nil); !errors.As(err, &se) || se.Class != ports.ClassRetryable {
		t.Fatalf("Meta out of reach: %v, want a retryable failure", err)
	}
}

// Uploads Meta refused to send by are forgotten: the next staging uploads
// the file again.
func TestStageMediaForgetUploads(t *testing.T) {
	t.Parallel()
	w := newMediaWorld(t)
	f := w.upload(t, []byte("\x89PNG\r\n\x1a\nforget"))
	stager := app.NewMediaStager(w.deps)
	m := ports.OutboundMessage{Workspace: w.live.Workspace, Mode: domain.ModeLive, Session: &domain.SessionContent{Type: domain.KindImage,
		Media: &domain.SessionMedia{MediaRef: domain.MediaRef{MediaID: string(f.ID)}}}}
	staged, err := stager.StageMedia(context.Background(), m, nil)
	if err != nil || staged.MediaIDs[string(f.ID)] != "1001" {
		t.Fatalf("staged %v, %v", staged.MediaIDs, err)
	}
	if err := stager.ForgetUploads(context.Background(), staged, nil); err != nil {
		t.Fatal(err)
	}
	again, err := stager.StageMedia(context.Background(), m, nil)
	if err != nil || again.MediaIDs[string(f.ID)] != "1002" {
		t.Fatalf("after forgetting: %v, %v; want a new upload", again.MediaIDs, err)
	}
}

// A message leaving from another number is staged by that number's own
// upload: Meta's media ids belong to the number that uploaded them.
func TestStageMediaUploadsForTheSendingNumber(t *testing.T) {
	t.Parallel()
	w := newMediaWorld(t)
	f := w.upload(t, []byte("\x89PNG\r\n\x1a\nsecond number"))
	other := &portsmock.MediaUploaderMock{
		NumberFunc:      func() string { return "206540352242922" },
		UploadMediaFunc: func(context.Context, domain.MediaFile, []byte) (string, error) { return "2001", nil },
	}
	stager := app.NewMediaStager(w.deps)
	m := ports.OutboundMessage{Workspace: w.live.Workspace, Mode: domain.ModeLive, Session: &domain.SessionContent{Type: domain.KindImage,
		Media: &domain.SessionMedia{MediaRef: domain.MediaRef{MediaID: string(f.ID)}}}}
	for range 2 {
		out, err := stager.StageMedia(context.Background(), m, other)
		if err != nil {
			t.Fatal(err)
		}
		if got := out.MediaIDs[string(f.ID)]; got != "2001" {
			t.Fatalf("from the second number: %q, want its own upload's id", got)
		}
	}
	if n := len(other.UploadMediaCalls()); n != 1 {
		t.Errorf("the second number uploaded %d times, want once (then its upload is reused)", n)
	}
	out, err := stager.StageMedia(context.Background(), m, nil)
	if err != nil || out.MediaIDs[string(f.ID)] != "1001" {
		t.Errorf("from the configured number: %v %v, want its upload at POST /v1/media", out.MediaIDs, err)
	}
}
