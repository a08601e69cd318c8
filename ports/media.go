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
	// bytes. caller is who asks, so that one workspace or key cannot take
	// every fetch there is. Errors are domain errors: invalid_media_url when
	// the URL or a redirect leads to an address that may not be fetched,
	// media_unreachable when the fetch fails, times out (ctx's deadline
	// included), is answered with anything but success, or cannot start
	// soon because too many fetches are running. Outcomes may be cached per
	// URL.
	InspectMedia(ctx context.Context, caller domain.Principal, rawURL string, header domain.HeaderFormat) (domain.MediaInfo, error)
}
