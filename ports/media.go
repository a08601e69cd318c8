package ports

import (
	"context"

	"github.com/heraldhq/herald/domain"
)

//go:generate go tool moq -rm -pkg portsmock -out portsmock/media_inspector.go . MediaInspector

// MediaInspector looks at the resource a media header URL names before a
// message that carries it is accepted.
type MediaInspector interface {
	// InspectMedia fetches the start of the resource at rawURL, which has
	// passed domain.CheckMediaURL, and reports its format, judged from its
	// bytes, its size, and the file name the server gave it, if any. It reads no more than header.MaxMediaSize()+1
	// bytes. Errors are domain errors: invalid_media_url when the URL or a
	// redirect leads to an address that may not be fetched,
	// media_unreachable when the fetch fails, times out or is answered with
	// anything but success. Outcomes may be cached per URL.
	InspectMedia(ctx context.Context, rawURL string, header domain.HeaderFormat) (domain.MediaInfo, error)
}
