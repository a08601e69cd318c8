package app

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/heraldhq/herald/domain"
	"github.com/heraldhq/herald/ports"
)

// MediaStager gives a live message's media Meta's ids right before its
// send (ports.MediaStager): Herald's files by their upload for the sending
// number, uploaded again when the last upload is older than
// domain.MediaReuploadAfter; and, with automatic upload, each media header
// link by the upload of its file, fetched once per workspace and mode. A
// link whose fetch or upload fails goes by link, as without automatic
// upload.
//
// Within one server the staging of one file or link runs once at a time,
// so concurrent sends of it share one fetch and one upload.
type MediaStager struct {
	d     MediaDeps
	mu    sync.Mutex
	locks map[string]*keyLock
}

// keyLock is one file's or link's lock, with the callers holding or
// waiting for it.
type keyLock struct {
	sync.Mutex
	users int
}

// NewMediaStager builds the stager.
func NewMediaStager(d MediaDeps) *MediaStager {
	return &MediaStager{d: d, locks: map[string]*keyLock{}}
}

// lock takes key's lock and returns its release.
func (s *MediaStager) lock(key string) func() {
	s.mu.Lock()
	l := s.locks[key]
	if l == nil {
		l = &keyLock{}
		s.locks[key] = l
	}
	l.users++
	s.mu.Unlock()
	l.Lock()
	return func() {
		l.Unlock()
		s.mu.Lock()
		if l.users--; l.users == 0 {
			delete(s.locks, key)
		}
		s.mu.Unlock()
	}
}

// StageMedia fills m.MediaIDs with uploads made by up, the sending
// number's client (the configured number's when nil).
func (s *MediaStager) StageMedia(ctx context.Context, m ports.OutboundMessage, up ports.MediaUploader) (ports.OutboundMessage, error) {
	if up == nil {
		up = s.d.Uploader
	}
	if m.Mode != domain.ModeLive || up == nil {
		return m, nil
	}
	ids := map[string]string{}
	for _, ref := range sessionMediaIDs(m.Session) {
		id, err := s.staged(ctx, m, up, ref)
		if err != nil {
			return m, err
		}
		ids[ref] = id
	}
	if s.d.AutoUpload && m.Session == nil && s.d.Fetcher != nil {
		for link, format := range headerLinks(m) {
			id, err := s.link(ctx, m, up, link, format)
			if err != nil {
				s.d.Obs.Logger("media").Warn("automatic upload of a media header failed; the message goes by link",
					"message_id", string(m.ID), "error", err.Error())
				continue
			}
			ids[link] = id
		}
	}
	if len(ids) > 0 {
		m.MediaIDs = ids
	}
	return m, nil
}

// staged is Meta's id of Herald's file ref: a failure to upload waits for
// a retry; a file that is gone fails the message.
func (s *MediaStager) staged(ctx context.Context, m ports.OutboundMessage, up ports.MediaUploader, ref string) (string, error) {
	defer s.lock("file " + ref)()
	f, err := s.d.Media.GetMedia(ctx, m.Workspace, domain.MediaID(ref))
	if err == nil {
		var id string
		if id, err = uploadFor(ctx, s.d, up, f, nil); err == nil {
			return id, nil
		}
	}
	var se *ports.SendError
	switch {
	case errors.As(err, &se):
		return "", err
	case errors.Is(err, domain.ErrMediaNotFound):
		return "", &ports.SendError{Class: ports.ClassPermanent, Title: "media " + ref + " is no longer stored", Err: err}
	}
	return "", &ports.SendError{Class: ports.ClassRetryable, Err: fmt.Errorf("app: staging media %s: %w", ref, err)}
}

// link is Meta's id of the file at a header link: fetched the first time
// through the media guard and kept, uploaded as any file.
func (s *MediaStager) link(ctx context.Context, m ports.OutboundMessage, up ports.MediaUploader, link string, format domain.HeaderFormat) (string, error) {
	defer s.lock("link " + string(m.Workspace) + " " + m.Mode.String() + " " + link)()
	f, found, err := s.d.Media.FindMediaBySource(ctx, m.Workspace, m.Mode, link)
	if err != nil {
		return "", err
	}
	var content []byte
	if !found {
		var name string
		if content, name, err = s.d.Fetcher.FetchMedia(ctx, link, format); err != nil {
			return "", err
		}
		p := domain.Principal{Workspace: m.Workspace, Mode: m.Mode}
		if f, err = domain.NewUploadedMedia(domain.MediaID(s.d.IDs.NewID(domain.PrefixMedia)), p, name, content,
			sha256.Sum256(content), s.d.Clock.Now()); err != nil {
			return "", err
		}
		f.SourceURL = link
		if err := s.d.Media.CreateMedia(ctx, f, content); err != nil {
			return "", err
		}
	}
	return uploadFor(ctx, s.d, up, f, content)
}

// ForgetUploads makes the uploads m was staged with stale, for files named
// by Herald's id and for header links alike, for up's number (the
// configured number's when nil).
func (s *MediaStager) ForgetUploads(ctx context.Context, m ports.OutboundMessage, up ports.MediaUploader) error {
	if up == nil {
		up = s.d.Uploader
	}
	if up == nil {
		return nil
	}
	number := up.Number()
	for ref := range m.MediaIDs {
		var f domain.MediaFile
		var err error
		if strings.HasPrefix(ref, domain.PrefixMedia+"_") {
			f, err = s.d.Media.GetMedia(ctx, m.Workspace, domain.MediaID(ref))
		} else {
			var found bool
			if f, found, err = s.d.Media.FindMediaBySource(ctx, m.Workspace, m.Mode, ref); err == nil && !found {
				continue
			}
		}
		if errors.Is(err, domain.ErrMediaNotFound) {
			continue
		}
		if err != nil {
			return err
		}
		if err := s.d.Media.SaveMediaUpload(ctx, domain.MediaUpload{Media: f.ID, Number: number}); err != nil {
			return err
		}
	}
	return nil
}

// sessionMediaIDs are the Herald media ids a session message names.
func sessionMediaIDs(s *domain.SessionContent) []string {
	if s == nil {
		return nil
	}
	var ids []string
	if s.Media != nil && s.Media.MediaID != "" {
		ids = append(ids, s.Media.MediaID)
	}
	if s.Interactive != nil && s.Interactive.Header != nil && s.Interactive.Header.Media != nil && s.Interactive.Header.Media.MediaID != "" {
		ids = append(ids, s.Interactive.Header.Media.MediaID)
	}
	return ids
}

// headerLinks are a template message's media header links with their
// kinds: the message's header and its carousel cards' headers.
func headerLinks(m ports.OutboundMessage) map[string]domain.HeaderFormat {
	links := map[string]domain.HeaderFormat{}
	if m.Values == nil && m.MediaHeaderURL != "" {
		links[m.MediaHeaderURL] = m.HeaderFormat
	}
	for _, v := range m.Values {
		if v.Slot.Kind == domain.SlotHeaderMedia && v.Value != "" {
			links[v.Value] = v.Slot.Media
		}
	}
	return links
}

var _ ports.MediaStager = (*MediaStager)(nil)
