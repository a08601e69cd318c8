package media

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strconv"
	"time"

	"github.com/heraldhq/herald/domain"
	"github.com/heraldhq/herald/ports"
)

// fetchTimeout bounds one whole fetch of a file for automatic upload.
const fetchTimeout = 2 * time.Minute

// FetchMedia fetches the whole file at a media header link through the
// address guard, for automatic upload: a 2xx answer whose bytes are of a
// kind the header takes and within Meta's size limit, and the file name
// the server gave.
func (i *Inspector) FetchMedia(ctx context.Context, rawURL string, header domain.HeaderFormat) ([]byte, string, error) {
	if err := domain.CheckMediaURL(rawURL, i.policy); err != nil {
		return nil, "", err
	}
	limit := header.MaxMediaSize()
	if limit == 0 {
		return nil, "", &domain.Error{Code: domain.CodeMediaHeaderNotAllowed, Param: "mediaHeaderUrl", Detail: "not a media header"}
	}
	ctx, cancel := context.WithTimeout(ctx, fetchTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, rawURL, nil)
	if err != nil {
		return nil, "", err
	}
	req.Header.Set("User-Agent", "Herald media upload")
	resp, err := i.fetcher.Do(req)
	if err != nil {
		if errors.Is(err, errRefused) {
			return nil, "", &domain.Error{Code: domain.CodeInvalidMediaURL, Param: "mediaHeaderUrl",
				Detail: "the media header URL resolves to an address that may not be fetched"}
		}
		return nil, "", err
	}
	defer resp.Body.Close()
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return nil, "", unreachable("the media server answered " + strconv.Itoa(resp.StatusCode) + " " + http.StatusText(resp.StatusCode))
	}
	content, err := io.ReadAll(io.LimitReader(resp.Body, limit+1))
	if err != nil {
		return nil, "", err
	}
	info := domain.MediaInfo{Format: domain.SniffMediaFormat(content), Size: int64(len(content))}
	if err := header.CheckMedia(info); err != nil {
		return nil, "", err
	}
	return content, dispositionFilename(resp.Header.Get("Content-Disposition")), nil
}

var _ ports.MediaFetcher = (*Inspector)(nil)
