package ports

import (
	"context"
	"io"

	"github.com/heraldhq/herald/domain"
)

//go:generate go tool moq -rm -pkg portsmock -out portsmock/media_uploader.go . MediaUploader
//go:generate go tool moq -rm -pkg portsmock -out portsmock/media_downloader.go . MediaDownloader

// MediaRepository stores media files (decision 0025): their metadata, the
// bytes of those uploaded to Herald, and their uploads to Meta per
// business number.
type MediaRepository interface {
	// CreateMedia stores f, with content for an uploaded file (nil for an
	// inbound one). An id already stored is domain.ErrConflict; an inbound
	// file whose id is stored (a redelivered message) is left as it is.
	CreateMedia(ctx context.Context, f domain.MediaFile, content []byte) error
	// GetMedia returns the workspace's file, or domain.ErrMediaNotFound.
	GetMedia(ctx context.Context, ws domain.WorkspaceID, id domain.MediaID) (domain.MediaFile, error)
	// FindUploadedMedia returns the workspace's file of mode sent to
	// Herald (with no source URL) whose SHA-256 (hex) is sha256, the
	// oldest when there are several; found is false when there is none.
	FindUploadedMedia(ctx context.Context, ws domain.WorkspaceID, mode domain.KeyMode, sha256 string) (f domain.MediaFile, found bool, err error)
	// FindMediaBySource returns the workspace's file of mode fetched from
	// the link sourceURL, the oldest when there are several.
	FindMediaBySource(ctx context.Context, ws domain.WorkspaceID, mode domain.KeyMode, sourceURL string) (f domain.MediaFile, found bool, err error)
	// GetMediaContent returns an uploaded file's bytes, or
	// domain.ErrMediaNotFound (an inbound file has none stored).
	GetMediaContent(ctx context.Context, ws domain.WorkspaceID, id domain.MediaID) ([]byte, error)
	// GetMediaUpload returns the latest upload of the file for the number;
	// found is false when it was never uploaded for it.
	GetMediaUpload(ctx context.Context, id domain.MediaID, number string) (u domain.MediaUpload, found bool, err error)
	// SaveMediaUpload records an upload, replacing the file's previous one
	// for the same number.
	SaveMediaUpload(ctx context.Context, u domain.MediaUpload) error
}

// MediaUploader puts files in Meta's media store for the business number
// it sends from. The Cloud API client implements it.
type MediaUploader interface {
	// Number is the business number's id (Meta's phone_number_id).
	Number() string
	// UploadMedia uploads the file and returns Meta's media id. A refusal
	// is a *SendError with Meta's code and title.
	UploadMedia(ctx context.Context, f domain.MediaFile, content []byte) (string, error)
}

// DownloadedMedia is a file read from Meta: its type, its length when Meta
// gave it (-1 otherwise) and its bytes, which the caller closes.
type DownloadedMedia struct {
	MimeType string
	Size     int64
	Body     io.ReadCloser
}

// MediaDownloader reads a file a contact sent from Meta: it asks for the
// file's short-lived URL and fetches it with the access token, which never
// leaves the adapter.
type MediaDownloader interface {
	// DownloadMedia returns the file Meta knows as providerID. A file Meta
	// no longer has (or never had) is domain.ErrMediaNotFound; other
	// failures are *SendError.
	DownloadMedia(ctx context.Context, providerID string) (DownloadedMedia, error)
}

// MediaCache keeps inbound files fetched from Meta on local disk, bounded
// in size, so a second read does not reach Meta.
type MediaCache interface {
	// OpenMedia returns the cached file and its type, or found false.
	OpenMedia(id domain.MediaID) (body io.ReadCloser, mimeType string, size int64, found bool)
	// PutMedia stores a file read whole from r; a failure leaves nothing
	// cached and is not the caller's concern beyond its log.
	PutMedia(id domain.MediaID, mimeType string, content []byte) error
}

// MediaFetcher fetches a media header link's whole file, through the same
// guard that inspects links (no private addresses, bounded time and size).
type MediaFetcher interface {
	FetchMedia(ctx context.Context, rawURL string, header domain.HeaderFormat) (content []byte, filename string, err error)
}

// MediaStager gives the media a live message names Meta's ids right
// before its send: Herald's files by their upload for the sending number
// (uploaded again when the last upload is about to expire), and, when
// automatic upload is on, a template's media header link by the upload of
// its file, fetched once. up is the sending number's uploader (its Cloud
// API client); nil means the configured number's.
type MediaStager interface {
	StageMedia(ctx context.Context, m OutboundMessage, up MediaUploader) (OutboundMessage, error)
	// ForgetUploads marks the uploads a staged message named as unusable
	// (Meta refused to send by them: it lost or never had the file), so
	// the next staging uploads the files again.
	ForgetUploads(ctx context.Context, m OutboundMessage, up MediaUploader) error
}
