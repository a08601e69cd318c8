package memstore

import (
	"context"
	"slices"

	"github.com/heraldhq/herald/domain"
)

// storedMedia is a media file with its bytes (uploaded files only).
type storedMedia struct {
	file    domain.MediaFile
	content []byte
}

// uploadKey is one file's upload for one business number.
type uploadKey struct {
	media  domain.MediaID
	number string
}

// CreateMedia stores f and its bytes.
func (r *repos) CreateMedia(ctx context.Context, f domain.MediaFile, content []byte) error {
	defer r.enter(ctx)()
	if _, ok := r.st.media[f.ID]; ok {
		if f.Origin == domain.MediaInbound {
			return nil
		}
		return conflict("a media file with this id exists")
	}
	f.CreatedAt = utc(f.CreatedAt)
	put(r.st, r.st.media, f.ID, storedMedia{file: f, content: slices.Clone(content)})
	return nil
}

// GetMedia returns the workspace's file.
func (r *repos) GetMedia(ctx context.Context, ws domain.WorkspaceID, id domain.MediaID) (domain.MediaFile, error) {
	defer r.enter(ctx)()
	m, ok := r.st.media[id]
	if !ok || m.file.Workspace != ws {
		return domain.MediaFile{}, domain.NotFound(domain.ErrMediaNotFound)
	}
	return m.file, nil
}

// FindUploadedMedia returns the oldest file sent to Herald with the
// SHA-256.
func (r *repos) FindUploadedMedia(ctx context.Context, ws domain.WorkspaceID, mode domain.KeyMode, sha256 string) (domain.MediaFile, bool, error) {
	defer r.enter(ctx)()
	return r.oldestMedia(func(f domain.MediaFile) bool {
		return f.Workspace == ws && f.Mode == mode && f.Origin == domain.MediaUploaded && f.SourceURL == "" && f.SHA256 == sha256
	})
}

// FindMediaBySource returns the oldest file fetched from the link.
func (r *repos) FindMediaBySource(ctx context.Context, ws domain.WorkspaceID, mode domain.KeyMode, sourceURL string) (domain.MediaFile, bool, error) {
	defer r.enter(ctx)()
	return r.oldestMedia(func(f domain.MediaFile) bool {
		return f.Workspace == ws && f.Mode == mode && f.SourceURL != "" && f.SourceURL == sourceURL
	})
}

func (r *repos) oldestMedia(match func(domain.MediaFile) bool) (domain.MediaFile, bool, error) {
	var found *domain.MediaFile
	for _, m := range r.st.media {
		if match(m.file) && (found == nil || m.file.CreatedAt.Before(found.CreatedAt) ||
			m.file.CreatedAt.Equal(found.CreatedAt) && m.file.ID < found.ID) {
			f := m.file
			found = &f
		}
	}
	if found == nil {
		return domain.MediaFile{}, false, nil
	}
	return *found, true, nil
}

// GetMediaContent returns an uploaded file's bytes.
func (r *repos) GetMediaContent(ctx context.Context, ws domain.WorkspaceID, id domain.MediaID) ([]byte, error) {
	defer r.enter(ctx)()
	m, ok := r.st.media[id]
	if !ok || m.file.Workspace != ws || m.file.Origin != domain.MediaUploaded {
		return nil, domain.NotFound(domain.ErrMediaNotFound)
	}
	return slices.Clone(m.content), nil
}

// GetMediaUpload returns the file's upload for the number.
func (r *repos) GetMediaUpload(ctx context.Context, id domain.MediaID, number string) (domain.MediaUpload, bool, error) {
	defer r.enter(ctx)()
	u, ok := r.st.uploads[uploadKey{id, number}]
	return u, ok, nil
}

// SaveMediaUpload records the upload, replacing the previous one.
func (r *repos) SaveMediaUpload(ctx context.Context, u domain.MediaUpload) error {
	defer r.enter(ctx)()
	if _, ok := r.st.media[u.Media]; !ok {
		return domain.NotFound(domain.ErrMediaNotFound)
	}
	u.UploadedAt = utc(u.UploadedAt)
	put(r.st, r.st.uploads, uploadKey{u.Media, u.Number}, u)
	return nil
}
