package app

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"

	"github.com/heraldhq/herald/app/usecase"
	"github.com/heraldhq/herald/domain"
	"github.com/heraldhq/herald/ports"
)

// UploadMedia stores a file to send by id (decision 0025).
type UploadMedia struct {
	Principal domain.Principal
	Filename  string
	Content   []byte
}

// UploadMediaResult is the stored file; Reused says the same bytes were
// uploaded before in the workspace and mode, and File is that upload.
type UploadMediaResult struct {
	File   domain.MediaFile
	Reused bool
}

// MediaDeps are what the media use cases need. Uploader and Downloader
// are Meta's (nil when the Cloud API is not configured); Cache is the
// local cache of inbound files (nil when off); Fetcher fetches header
// links for automatic upload.
type MediaDeps struct {
	Tx         ports.Transactor
	Media      ports.MediaRepository
	Uploader   ports.MediaUploader
	Downloader ports.MediaDownloader
	Cache      ports.MediaCache
	Fetcher    ports.MediaFetcher
	Clock      ports.Clock
	IDs        ports.IDGenerator
	Obs        *usecase.Observer
	// AutoUpload uploads media header links and sends them by id.
	AutoUpload bool
}

// UploadMediaHandler checks a file against Meta's types and sizes, keeps
// it, and for a live key uploads it to Meta for the sending number at
// once, so that Meta's refusal is the caller's answer. The same bytes
// uploaded again in the workspace and mode are the first file.
type UploadMediaHandler struct{ d MediaDeps }

// NewUploadMediaHandler builds the handler.
func NewUploadMediaHandler(d MediaDeps) *UploadMediaHandler { return &UploadMediaHandler{d: d} }

// Handle stores the file.
func (h *UploadMediaHandler) Handle(ctx context.Context, cmd UploadMedia) (UploadMediaResult, error) {
	return usecase.Observe(ctx, h.d.Obs, "upload_media", func(ctx context.Context) (UploadMediaResult, error) {
		p := cmd.Principal
		live := p.Mode == domain.ModeLive
		if live && h.d.Uploader == nil {
			return UploadMediaResult{}, errWhatsAppNotConfigured
		}
		now := h.d.Clock.Now()
		sum := sha256.Sum256(cmd.Content)
		f, err := domain.NewUploadedMedia(domain.MediaID(h.d.IDs.NewID(domain.PrefixMedia)), p, cmd.Filename, cmd.Content, sum, now)
		if err != nil {
			return UploadMediaResult{}, err
		}
		old, found, err := h.d.Media.FindUploadedMedia(ctx, p.Workspace, p.Mode, hex.EncodeToString(sum[:]))
		if err != nil {
			return UploadMediaResult{}, err
		}
		if found {
			if live {
				if _, err := uploadFor(ctx, h.d, h.d.Uploader, old, cmd.Content); err != nil {
					return UploadMediaResult{}, uploadError(err)
				}
			}
			return UploadMediaResult{File: old, Reused: true}, nil
		}
		var up domain.MediaUpload
		if live {
			id, err := h.d.Uploader.UploadMedia(ctx, f, cmd.Content)
			if err != nil {
				return UploadMediaResult{}, uploadError(err)
			}
			up = domain.MediaUpload{Media: f.ID, Number: h.d.Uploader.Number(), ProviderID: id, UploadedAt: now}
		}
		err = h.d.Tx.WithinTx(ctx, func(ctx context.Context, r ports.Repos) error {
			if err := r.Media.CreateMedia(ctx, f, cmd.Content); err != nil {
				return err
			}
			if up.ProviderID == "" {
				return nil
			}
			return r.Media.SaveMediaUpload(ctx, up)
		})
		if err != nil {
			return UploadMediaResult{}, err
		}
		return UploadMediaResult{File: f}, nil
	})
}

// uploadFor returns Meta's id of the file for up's number: its last upload
// while fresh, or a new upload of its bytes (content, or read from the
// store when nil), recorded.
func uploadFor(ctx context.Context, d MediaDeps, up ports.MediaUploader, f domain.MediaFile, content []byte) (string, error) {
	number := up.Number()
	now := d.Clock.Now()
	u, found, err := d.Media.GetMediaUpload(ctx, f.ID, number)
	if err != nil {
		return "", err
	}
	if found && u.Fresh(now) {
		return u.ProviderID, nil
	}
	if content == nil {
		if content, err = d.Media.GetMediaContent(ctx, f.Workspace, f.ID); err != nil {
			return "", err
		}
	}
	id, err := up.UploadMedia(ctx, f, content)
	if err != nil {
		return "", err
	}
	u = domain.MediaUpload{Media: f.ID, Number: number, ProviderID: id, UploadedAt: now}
	if err := d.Media.SaveMediaUpload(ctx, u); err != nil {
		return "", err
	}
	return id, nil
}

// uploadError answers Meta's refusal of an upload as the caller's 422, and
// an unreachable Meta as 503.
func uploadError(err error) error {
	var se *ports.SendError
	if !errors.As(err, &se) {
		return err
	}
	if se.Class != ports.ClassPermanent {
		return fmt.Errorf("app: uploading to WhatsApp: %w: %w", ports.ErrUnavailable, err)
	}
	detail := se.Title
	if detail == "" {
		detail = err.Error()
	}
	return &domain.Error{Code: domain.CodeInvalidParameter, Param: "file", Detail: "WhatsApp refused the file: " + detail}
}
