package porttest

import (
	"crypto/sha256"
	"errors"
	"testing"
	"time"

	"github.com/heraldhq/herald/domain"
)

var mediaTests = []storeTest{
	{"RoundTrip", testMediaRoundTrip},
	{"OtherWorkspace", testMediaOtherWorkspace},
	{"FindBySHA256", testMediaFindBySHA256},
	{"FindBySource", testMediaFindBySource},
	{"Inbound", testMediaInbound},
	{"Uploads", testMediaUploads},
}

// NewMediaFile returns an uploaded PNG of the workspace, in the mode, with
// its bytes.
func NewMediaFile(t testing.TB, ws domain.WorkspaceID, mode domain.KeyMode) (domain.MediaFile, []byte) {
	t.Helper()
	content := append([]byte("\x89PNG\r\n\x1a\n"), []byte(NewID("png"))...)
	f, err := domain.NewUploadedMedia(domain.MediaID(NewID(domain.PrefixMedia)), domain.Principal{Workspace: ws, Mode: mode},
		"photo.png", content, sha256.Sum256(content), Now())
	if err != nil {
		t.Fatalf("NewUploadedMedia: %v", err)
	}
	return f, content
}

func (f *fixture) media(mode domain.KeyMode) (domain.MediaFile, []byte) {
	f.t.Helper()
	m, content := NewMediaFile(f.t, f.ws, mode)
	if err := f.s.CreateMedia(f.ctx, m, content); err != nil {
		f.t.Fatalf("CreateMedia: %v", err)
	}
	return m, content
}

// A file and its bytes read back as written; its id cannot be stored twice.
func testMediaRoundTrip(t *testing.T, s Store) {
	f := newFixture(t, s)
	m, content := f.media(domain.ModeLive)
	got, err := s.GetMedia(f.ctx, f.ws, m.ID)
	if err != nil {
		t.Fatalf("GetMedia: %v", err)
	}
	mustEqual(t, "media", m, got)
	bytes, err := s.GetMediaContent(f.ctx, f.ws, m.ID)
	if err != nil {
		t.Fatalf("GetMediaContent: %v", err)
	}
	mustEqual(t, "content", content, bytes)
	mustBe(t, "CreateMedia again", s.CreateMedia(f.ctx, m, content), domain.ErrConflict)
	_, err = s.GetMedia(f.ctx, f.ws, domain.MediaID(NewID(domain.PrefixMedia)))
	mustBe(t, "GetMedia of an unknown id", err, domain.ErrMediaNotFound)
}

// Another workspace's file is not found, its bytes neither.
func testMediaOtherWorkspace(t *testing.T, s Store) {
	f := newFixture(t, s)
	m, _ := f.media(domain.ModeLive)
	other := f.otherWorkspace()
	_, err := s.GetMedia(f.ctx, other, m.ID)
	mustBe(t, "GetMedia", err, domain.ErrMediaNotFound)
	_, err = s.GetMediaContent(f.ctx, other, m.ID)
	mustBe(t, "GetMediaContent", err, domain.ErrMediaNotFound)
	if _, found, err := s.FindUploadedMedia(f.ctx, other, domain.ModeLive, m.SHA256); err != nil || found {
		t.Fatalf("FindUploadedMedia in another workspace = found %v, %v; want none", found, err)
	}
}

// The same bytes are found in their workspace and mode, the oldest first;
// a file fetched from a link is not one sent to Herald.
func testMediaFindBySHA256(t *testing.T, s Store) {
	f := newFixture(t, s)
	first, content := f.media(domain.ModeLive)
	second := first
	second.ID, second.CreatedAt = domain.MediaID(NewID(domain.PrefixMedia)), first.CreatedAt.Add(time.Second)
	if err := s.CreateMedia(f.ctx, second, content); err != nil {
		t.Fatalf("CreateMedia: %v", err)
	}
	fetched := first
	fetched.ID, fetched.SourceURL = domain.MediaID(NewID(domain.PrefixMedia)), "https://cdn.example.com/a.png"
	if err := s.CreateMedia(f.ctx, fetched, content); err != nil {
		t.Fatalf("CreateMedia: %v", err)
	}
	got, found, err := s.FindUploadedMedia(f.ctx, f.ws, domain.ModeLive, first.SHA256)
	if err != nil || !found {
		t.Fatalf("FindUploadedMedia = found %v, %v", found, err)
	}
	mustEqual(t, "found media", first, got)
	if _, found, err := s.FindUploadedMedia(f.ctx, f.ws, domain.ModeTest, first.SHA256); err != nil || found {
		t.Fatalf("FindUploadedMedia in another mode = found %v, %v; want none", found, err)
	}
}

// A file fetched from a link is found by the link in its workspace and
// mode.
func testMediaFindBySource(t *testing.T, s Store) {
	f := newFixture(t, s)
	m, content := NewMediaFile(t, f.ws, domain.ModeLive)
	m.SourceURL = "https://cdn.example.com/" + NewID("img") + ".png"
	if err := s.CreateMedia(f.ctx, m, content); err != nil {
		t.Fatalf("CreateMedia: %v", err)
	}
	got, found, err := s.FindMediaBySource(f.ctx, f.ws, domain.ModeLive, m.SourceURL)
	if err != nil || !found {
		t.Fatalf("FindMediaBySource = found %v, %v", found, err)
	}
	mustEqual(t, "found media", m, got)
	for name, find := range map[string]func() (bool, error){
		"another mode": func() (bool, error) {
			_, found, err := s.FindMediaBySource(f.ctx, f.ws, domain.ModeTest, m.SourceURL)
			return found, err
		},
		"another link": func() (bool, error) {
			_, found, err := s.FindMediaBySource(f.ctx, f.ws, domain.ModeLive, m.SourceURL+"?v=2")
			return found, err
		},
		"no link": func() (bool, error) {
			_, found, err := s.FindMediaBySource(f.ctx, f.ws, domain.ModeLive, "")
			return found, err
		},
	} {
		if found, err := find(); err != nil || found {
			t.Errorf("%s: found %v, %v; want none", name, found, err)
		}
	}
}

// A contact's file is stored without bytes, once however often its message
// is delivered.
func testMediaInbound(t *testing.T, s Store) {
	f := newFixture(t, s)
	ct := f.contact()
	e := domain.InboundEntry(domain.EntryID(NewID(domain.PrefixEntry)), ct, domain.InboundMessage{ProviderID: NewWamid(),
		Kind: domain.KindImage, Media: &domain.Attachment{ID: "1566743960735849", MimeType: "image/jpeg",
			SHA256: "n4vDDd2Q4MGyX2OVGj3iGFVnMXw10RrBgIBfXGDnE6k="}, At: Now()}, "")
	m, ok := domain.NewInboundMedia(e)
	if !ok {
		t.Fatal("NewInboundMedia: no file")
	}
	for range 2 {
		if err := s.CreateMedia(f.ctx, m, nil); err != nil {
			t.Fatalf("CreateMedia: %v", err)
		}
	}
	got, err := s.GetMedia(f.ctx, f.ws, m.ID)
	if err != nil {
		t.Fatalf("GetMedia: %v", err)
	}
	mustEqual(t, "inbound media", m, got)
	_, err = s.GetMediaContent(f.ctx, f.ws, m.ID)
	mustBe(t, "GetMediaContent of an inbound file", err, domain.ErrMediaNotFound)
}

// An upload is kept per number, the latest replacing the one before; a
// file that is not stored has none.
func testMediaUploads(t *testing.T, s Store) {
	f := newFixture(t, s)
	m, _ := f.media(domain.ModeLive)
	at := Now().Add(-28 * 24 * time.Hour)
	first := domain.MediaUpload{Media: m.ID, Number: "106540352242922", ProviderID: "1013859600285441", UploadedAt: at}
	other := domain.MediaUpload{Media: m.ID, Number: "106540352242923", ProviderID: "2013859600285441", UploadedAt: at}
	for _, u := range []domain.MediaUpload{first, other} {
		if err := s.SaveMediaUpload(f.ctx, u); err != nil {
			t.Fatalf("SaveMediaUpload: %v", err)
		}
	}
	again := domain.MediaUpload{Media: m.ID, Number: first.Number, ProviderID: "3013859600285441", UploadedAt: Now()}
	if err := s.SaveMediaUpload(f.ctx, again); err != nil {
		t.Fatalf("SaveMediaUpload: %v", err)
	}
	for _, want := range []domain.MediaUpload{again, other} {
		got, found, err := s.GetMediaUpload(f.ctx, m.ID, want.Number)
		if err != nil || !found {
			t.Fatalf("GetMediaUpload(%s) = found %v, %v", want.Number, found, err)
		}
		mustEqual(t, "upload", want, got)
	}
	if _, found, err := s.GetMediaUpload(f.ctx, m.ID, "999"); err != nil || found {
		t.Fatalf("GetMediaUpload of another number = found %v, %v; want none", found, err)
	}
	err := s.SaveMediaUpload(f.ctx, domain.MediaUpload{Media: domain.MediaID(NewID(domain.PrefixMedia)), Number: "1", ProviderID: "1", UploadedAt: Now()})
	if !errors.Is(err, domain.ErrMediaNotFound) {
		t.Fatalf("SaveMediaUpload of an unknown file: %v, want media_not_found", err)
	}
}
