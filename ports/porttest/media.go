package porttest

import (
	"context"
	"net/url"
	"path"

	"github.com/heraldhq/herald/domain"
	"github.com/heraldhq/herald/ports/portsmock"
)

// MediaSize is the size MediaByExtension reports for every resource.
const MediaSize = 1 << 20

// MediaByExtension is a media inspector for tests that do not fetch: it
// judges a URL's format by its extension (.jpg, .jpeg, .png, .mp4, .3gp,
// .pdf; anything else is unrecognised) and reports MediaSize bytes. The real
// inspector, in adapters/media, judges by the resource's bytes.
func MediaByExtension() *portsmock.MediaInspectorMock {
	formats := map[string]domain.MediaFormat{".jpg": domain.MediaJPEG, ".jpeg": domain.MediaJPEG, ".png": domain.MediaPNG,
		".mp4": domain.MediaMP4, ".3gp": domain.Media3GPP, ".pdf": domain.MediaPDF}
	return &portsmock.MediaInspectorMock{InspectMediaFunc: func(_ context.Context, _ domain.Principal, raw string, _ domain.HeaderFormat) (domain.MediaInfo, error) {
		u, err := url.Parse(raw)
		if err != nil {
			return domain.MediaInfo{}, &domain.Error{Code: domain.CodeInvalidMediaURL, Param: "mediaHeaderUrl", Detail: err.Error()}
		}
		return domain.MediaInfo{Format: formats[path.Ext(u.Path)], Size: MediaSize}, nil
	}}
}
