package media

import "mime"

// dispositionFilename is the file name a Content-Disposition header gives
// (RFC 6266: filename, or filename* in RFC 8187's encoding, which wins),
// as sent; "" when there is none or the header cannot be read. The domain
// cleans it before anyone sees it (domain.DocumentFilename).
func dispositionFilename(header string) string {
	if header == "" {
		return ""
	}
	_, params, err := mime.ParseMediaType(header)
	if err != nil {
		return ""
	}
	return params["filename"]
}
