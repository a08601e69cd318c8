package whatsapp

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"

	"github.com/heraldhq/herald/domain"
	"github.com/heraldhq/herald/ports"
)

// numberHealthFields are what ReadNumberHealth asks of a number:
// messaging_limit_tier is deprecated for the portfolio's
// whatsapp_business_manager_messaging_limit, which is read first.
const numberHealthFields = "quality_rating,messaging_limit_tier,whatsapp_business_manager_messaging_limit"

// ReadNumberHealth reads a number's quality rating and tier from Meta's
// phone numbers endpoint (GET /{phone-number-id}). A credential without a
// token uses the client's own, for the client's own number only. A tier
// Herald does not know is left out, as is a missing rating.
func (c *Client) ReadNumberHealth(ctx context.Context, n ports.NumberCredentials) (domain.HealthReading, error) {
	token := n.AccessToken
	if token == "" && n.PhoneNumberID == c.cfg.PhoneNumberID {
		token = c.cfg.AccessToken
	}
	if token == "" || n.PhoneNumberID == "" {
		return domain.HealthReading{}, errors.New("whatsapp: reading a number's health needs its id and an access token")
	}
	u := c.cfg.APIURL + "/" + url.PathEscape(n.PhoneNumberID) + "?" + url.Values{"fields": {numberHealthFields}}.Encode()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return domain.HealthReading{}, err
	}
	req.Header.Set("Authorization", "Bearer "+token)
	res, err := c.http.Do(req)
	if err != nil {
		return domain.HealthReading{}, redact(fmt.Errorf("whatsapp: reading number %s: %w", n.PhoneNumberID, err), token)
	}
	defer res.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(res.Body, 1<<20))
	if err != nil {
		return domain.HealthReading{}, fmt.Errorf("whatsapp: reading number %s: %w", n.PhoneNumberID, err)
	}
	if res.StatusCode != http.StatusOK {
		return domain.HealthReading{}, fmt.Errorf("whatsapp: reading number %s: %w", n.PhoneNumberID, metaError(res.StatusCode, raw))
	}
	var v struct {
		Quality   string `json:"quality_rating"`
		Tier      string `json:"messaging_limit_tier"`
		Portfolio string `json:"whatsapp_business_manager_messaging_limit"`
	}
	if err := json.Unmarshal(raw, &v); err != nil {
		return domain.HealthReading{}, fmt.Errorf("whatsapp: reading number %s: %w", n.PhoneNumberID, err)
	}
	r := domain.HealthReading{Quality: domain.ParseQualityRating(v.Quality), Source: domain.HealthFromRead}
	r.Tier, _ = domain.ParseMessagingTier(cmp.Or(v.Portfolio, v.Tier))
	return r, nil
}

var _ ports.NumberHealthReader = (*Client)(nil)
