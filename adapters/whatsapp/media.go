package whatsapp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"net/textproto"
	"net/url"
	"strings"

	"github.com/heraldhq/herald/domain"
	"github.com/heraldhq/herald/ports"
)

// Number is the business number media is uploaded for.
func (c *Client) Number() string { return c.cfg.PhoneNumberID }

// UploadMedia uploads the file to Meta's media store for the business
// number (POST /{phone-number-id}/media, multipart: the file with its
// name and type, the type again, and messaging_product) and returns
// Meta's media id.
func (c *Client) UploadMedia(ctx context.Context, f domain.MediaFile, content []byte) (string, error) {
	var body bytes.Buffer
	w := multipart.NewWriter(&body)
	_ = w.WriteField("messaging_product", "whatsapp")
	_ = w.WriteField("type", f.MimeType)
	name := f.Filename
	if name == "" {
		name = string(f.ID)
	}
	h := textproto.MIMEHeader{}
	h.Set("Content-Disposition", fmt.Sprintf(`form-data; name="file"; filename=%q`, strings.ReplaceAll(name, `"`, "")))
	h.Set("Content-Type", f.MimeType)
	part, _ := w.CreatePart(h)
	_, _ = part.Write(content)
	_ = w.Close()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.cfg.APIURL+"/"+c.cfg.PhoneNumberID+"/media", &body)
	if err != nil {
		return "", &ports.SendError{Class: ports.ClassPermanent, Err: err}
	}
	req.Header.Set("Content-Type", w.FormDataContentType())
	raw, err := c.call(req)
	if err != nil {
		return "", err
	}
	var ok struct {
		ID string `json:"id"`
	}
	if err := json.Unmarshal(raw, &ok); err != nil || ok.ID == "" {
		return "", &ports.SendError{Class: ports.ClassRetryable, Err: fmt.Errorf("whatsapp: unexpected media upload answer (%d bytes)", len(raw))}
	}
	return ok.ID, nil
}

// DownloadMedia asks Meta for the file's URL (GET /{media-id}, scoped to
// the business number), which is valid for five minutes, and fetches it
// with the access token.
func (c *Client) DownloadMedia(ctx context.Context, providerID string) (ports.DownloadedMedia, error) {
	if providerID == "" || strings.ContainsAny(providerID, "/?#") {
		return ports.DownloadedMedia{}, domain.NotFound(domain.ErrMediaNotFound)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet,
		c.cfg.APIURL+"/"+url.PathEscape(providerID)+"?phone_number_id="+url.QueryEscape(c.cfg.PhoneNumberID), nil)
	if err != nil {
		return ports.DownloadedMedia{}, &ports.SendError{Class: ports.ClassPermanent, Err: err}
	}
	raw, err := c.call(req)
	if err != nil {
		var se *ports.SendError
		if errors.As(err, &se) && se.Class == ports.ClassPermanent && se.Code == 100 {
			return ports.DownloadedMedia{}, domain.NotFound(domain.ErrMediaNotFound)
		}
		return ports.DownloadedMedia{}, err
	}
	var info struct {
		URL      string `json:"url"`
		MimeType string `json:"mime_type"`
	}
	if err := json.Unmarshal(raw, &info); err != nil || info.URL == "" {
		return ports.DownloadedMedia{}, &ports.SendError{Class: ports.ClassRetryable, Err: fmt.Errorf("whatsapp: unexpected media URL answer (%d bytes)", len(raw))}
	}
	u, err := url.Parse(info.URL)
	if err != nil || u.Scheme != "https" && u.Scheme != "http" {
		return ports.DownloadedMedia{}, &ports.SendError{Class: ports.ClassRetryable, Err: fmt.Errorf("whatsapp: media URL is not http(s)")}
	}
	get, err := http.NewRequestWithContext(ctx, http.MethodGet, info.URL, nil)
	if err != nil {
		return ports.DownloadedMedia{}, &ports.SendError{Class: ports.ClassPermanent, Err: err}
	}
	get.Header.Set("Authorization", "Bearer "+c.cfg.AccessToken)
	res, err := c.download.Do(get)
	if err != nil {
		return ports.DownloadedMedia{}, &ports.SendError{Class: ports.ClassRetryable, Err: redact(err, c.cfg.AccessToken)}
	}
	if res.StatusCode/100 != 2 {
		answer, _ := io.ReadAll(io.LimitReader(res.Body, 1<<20))
		res.Body.Close()
		if res.StatusCode == http.StatusNotFound {
			return ports.DownloadedMedia{}, domain.NotFound(domain.ErrMediaNotFound)
		}
		return ports.DownloadedMedia{}, metaError(res.StatusCode, answer)
	}
	mimeType := res.Header.Get("Content-Type")
	if mimeType == "" || mimeType == "application/octet-stream" {
		mimeType = info.MimeType
	}
	return ports.DownloadedMedia{MimeType: mimeType, Size: res.ContentLength, Body: res.Body}, nil
}

// call runs an authenticated Cloud API call and returns its body, or a
// *ports.SendError.
func (c *Client) call(req *http.Request) ([]byte, error) {
	req.Header.Set("Authorization", "Bearer "+c.cfg.AccessToken)
	res, err := c.http.Do(req)
	if err != nil {
		return nil, &ports.SendError{Class: ports.ClassRetryable, Err: redact(err, c.cfg.AccessToken)}
	}
	defer res.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(res.Body, 1<<20))
	if err != nil {
		return nil, &ports.SendError{Class: ports.ClassRetryable, Err: fmt.Errorf("whatsapp: reading the HTTP %d answer: %w", res.StatusCode, err)}
	}
	if res.StatusCode/100 != 2 {
		return nil, metaError(res.StatusCode, raw)
	}
	return raw, nil
}

var (
	_ ports.MediaUploader   = (*Client)(nil)
	_ ports.MediaDownloader = (*Client)(nil)
)
