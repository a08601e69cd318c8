package app

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/heraldhq/herald/app/usecase"
	"github.com/heraldhq/herald/domain"
	"github.com/heraldhq/herald/ports"
)

// GetMedia reads a media file's metadata, or its content.
type GetMedia struct {
	Principal domain.Principal
	ID        string
}

// GetMediaHandler reads media files of the caller's workspace and mode:
// another's answers as a missing one.
type GetMediaHandler struct{ d MediaDeps }

// NewGetMediaHandler builds the handler.
func NewGetMediaHandler(d MediaDeps) *GetMediaHandler { return &GetMediaHandler{d: d} }

// Handle returns the file's metadata.
func (h *GetMediaHandler) Handle(ctx context.Context, q GetMedia) (domain.MediaFile, error) {
	return usecase.Observe(ctx, h.d.Obs, "get_media", func(ctx context.Context) (domain.MediaFile, error) {
		return h.file(ctx, q)
	})
}

func (h *GetMediaHandler) file(ctx context.Context, q GetMedia) (domain.MediaFile, error) {
	id, err := domain.ParseMediaID(q.ID)
	if err != nil {
		return domain.MediaFile{}, err
	}
	f, err := h.d.Media.GetMedia(ctx, q.Principal.Workspace, id)
	if err == nil && !q.Principal.Sees(f.Mode) {
		err = domain.NotFound(domain.ErrMediaNotFound)
	}
	return f, err
}

// MediaContent is a file's bytes to stream, which the caller closes.
type MediaContent struct {
	File     domain.MediaFile
	MimeType string
	Size     int64 // -1 when not known
	Body     io.ReadCloser
}

// Content returns the file's bytes: an uploaded file's from the store; a
// contact's from the local cache, or from Meta with the access token (and
// then kept in the cache).
func (h *GetMediaHandler) Content(ctx context.Context, q GetMedia) (MediaContent, error) {
	return usecase.Observe(ctx, h.d.Obs, "get_media_content", func(ctx context.Context) (MediaContent, error) {
		f, err := h.file(ctx, q)
		if err != nil {
			return MediaContent{}, err
		}
		if f.Origin == domain.MediaUploaded {
			b, err := h.d.Media.GetMediaContent(ctx, f.Workspace, f.ID)
			if err != nil {
				return MediaContent{}, err
			}
			return MediaContent{File: f, MimeType: f.MimeType, Size: int64(len(b)), Body: io.NopCloser(bytes.NewReader(b))}, nil
		}
		if h.d.Cache != nil {
			if body, mimeType, size, ok := h.d.Cache.OpenMedia(f.ID); ok {
				return MediaContent{File: f, MimeType: mimeType, Size: size, Body: body}, nil
			}
		}
		if h.d.Downloader == nil {
			return MediaContent{}, errWhatsAppNotConfigured
		}
		dl, err := h.d.Downloader.DownloadMedia(ctx, f.ProviderID)
		if err != nil {
			return MediaContent{}, downloadError(err)
		}
		mimeType := dl.MimeType
		if mimeType == "" {
			mimeType = f.MimeType
		}
		if h.d.Cache == nil {
			return MediaContent{File: f, MimeType: mimeType, Size: dl.Size, Body: dl.Body}, nil
		}
		defer dl.Body.Close()
		b, err := io.ReadAll(io.LimitReader(dl.Body, domain.MaxUploadSize+1))
		if err != nil {
			return MediaContent{}, fmt.Errorf("app: reading media from WhatsApp: %w: %w", ports.ErrUnavailable, err)
		}
		if err := h.d.Cache.PutMedia(f.ID, mimeType, b); err != nil {
			h.d.Obs.Logger("media").Warn("caching a media file failed", "media_id", string(f.ID), "error", err.Error())
		}
		return MediaContent{File: f, MimeType: mimeType, Size: int64(len(b)), Body: io.NopCloser(bytes.NewReader(b))}, nil
	})
}

// downloadError passes a file Meta no longer has as not found and any
// other failure as 503.
func downloadError(err error) error {
	var de *domain.Error
	if errors.As(err, &de) {
		return err
	}
	return fmt.Errorf("app: reading media from WhatsApp: %w: %w", ports.ErrUnavailable, err)
}
