package whatsapp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"

	"github.com/heraldhq/herald/domain"
	"github.com/heraldhq/herald/ports"
)

// createTemplate is the body of POST /{waba-id}/message_templates.
type createTemplate struct {
	Name            string            `json:"name"`
	Language        string            `json:"language"`
	Category        string            `json:"category"`
	ParameterFormat string            `json:"parameter_format,omitempty"`
	Components      []createComponent `json:"components"`
}

type createComponent struct {
	Type                      string         `json:"type"`
	Format                    string         `json:"format,omitempty"`
	Text                      string         `json:"text,omitempty"`
	Example                   *createExample `json:"example,omitempty"`
	Buttons                   []createButton `json:"buttons,omitempty"`
	Cards                     []createCard   `json:"cards,omitempty"`
	AddSecurityRecommendation bool           `json:"add_security_recommendation,omitempty"`
	CodeExpirationMinutes     int            `json:"code_expiration_minutes,omitempty"`
	LimitedTimeOffer          *createOffer   `json:"limited_time_offer,omitempty"`
}

type createExample struct {
	HeaderText            []string       `json:"header_text,omitempty"`
	HeaderHandle          []string       `json:"header_handle,omitempty"`
	BodyText              [][]string     `json:"body_text,omitempty"`
	HeaderTextNamedParams []namedExample `json:"header_text_named_params,omitempty"`
	BodyTextNamedParams   []namedExample `json:"body_text_named_params,omitempty"`
}

type namedExample struct {
	ParamName string `json:"param_name"`
	Example   string `json:"example"`
}

type createButton struct {
	Type                 string         `json:"type"`
	Text                 string         `json:"text,omitempty"`
	URL                  string         `json:"url,omitempty"`
	PhoneNumber          string         `json:"phone_number,omitempty"`
	Example              any            `json:"example,omitempty"` // []string for a URL, a string for a copy code
	OTPType              string         `json:"otp_type,omitempty"`
	SupportedApps        []supportedApp `json:"supported_apps,omitempty"`
	ZeroTapTermsAccepted bool           `json:"zero_tap_terms_accepted,omitempty"`
}

type supportedApp struct {
	PackageName   string `json:"package_name"`
	SignatureHash string `json:"signature_hash"`
}

type createCard struct {
	Components []createComponent `json:"components"`
}

type createOffer struct {
	Text          string `json:"text"`
	HasExpiration bool   `json:"has_expiration"`
}

type createResponse struct {
	ID       string `json:"id"`
	Status   string `json:"status"`
	Category string `json:"category"`
}

// toCreateTemplate is d as Meta's create call takes it.
func toCreateTemplate(d domain.TemplateDraft) createTemplate {
	out := createTemplate{Name: d.Name, Language: domain.CanonicalLanguage(d.Language),
		Category: strings.ToUpper(d.Category), ParameterFormat: strings.ToUpper(d.ParameterFormat)}
	out.Components = toCreateComponents(d.Components)
	return out
}

func toCreateComponents(in []domain.DraftComponent) []createComponent {
	out := make([]createComponent, 0, len(in))
	for _, c := range in {
		typ := strings.ToUpper(c.Type)
		cc := createComponent{Type: typ, Format: strings.ToUpper(c.Format), Text: c.Text,
			AddSecurityRecommendation: c.AddSecurityRecommendation, CodeExpirationMinutes: c.CodeExpirationMinutes}
		ex := createExample{HeaderHandle: c.Example.HeaderHandle}
		named := make([]namedExample, 0, len(c.Example.NamedParams))
		for _, n := range c.Example.NamedParams {
			named = append(named, namedExample{ParamName: n.Name, Example: n.Example})
		}
		switch typ {
		case "HEADER":
			ex.HeaderText = c.Example.HeaderText
			if len(named) > 0 {
				ex.HeaderTextNamedParams = named
			}
		case "BODY":
			if len(c.Example.BodyText) > 0 {
				ex.BodyText = [][]string{c.Example.BodyText} // Meta wants an array of arrays
			}
			if len(named) > 0 {
				ex.BodyTextNamedParams = named
			}
		case "LIMITED_TIME_OFFER":
			cc.LimitedTimeOffer = &createOffer{Text: c.OfferText, HasExpiration: c.HasExpiration}
		case "CAROUSEL":
			for _, card := range c.Cards {
				cc.Cards = append(cc.Cards, createCard{Components: toCreateComponents(card.Components)})
			}
		}
		if len(ex.HeaderText)+len(ex.HeaderHandle)+len(ex.BodyText)+len(ex.HeaderTextNamedParams)+len(ex.BodyTextNamedParams) > 0 {
			cc.Example = &ex
		}
		for _, b := range c.Buttons {
			cb := createButton{Type: strings.ToUpper(b.Type), Text: b.Text, URL: b.URL, PhoneNumber: b.PhoneNumber,
				OTPType: strings.ToUpper(b.OTPType), ZeroTapTermsAccepted: b.ZeroTapTermsAccepted}
			switch {
			case cb.Type == "URL" && b.Example != "":
				cb.Example = []string{b.Example}
			case cb.Type == "COPY_CODE":
				cb.Example = b.Example
			}
			for _, a := range b.SupportedApps {
				cb.SupportedApps = append(cb.SupportedApps, supportedApp{PackageName: a.PackageName, SignatureHash: a.SignatureHash})
			}
			cc.Buttons = append(cc.Buttons, cb)
		}
		out = append(out, cc)
	}
	return out
}

// SubmitTemplate posts d to the business account's message_templates for
// Meta's review. A refusal is a *ports.SendError with Meta's code and
// title.
func (c *Client) SubmitTemplate(ctx context.Context, d domain.TemplateDraft) (ports.SubmittedTemplate, error) {
	body, err := json.Marshal(toCreateTemplate(d))
	if err != nil {
		return ports.SubmittedTemplate{}, err
	}
	raw, err := c.templatesCall(ctx, http.MethodPost, "", bytes.NewReader(body))
	if err != nil {
		return ports.SubmittedTemplate{}, fmt.Errorf("whatsapp: submitting template %s: %w", d.Name, err)
	}
	var res createResponse
	if err := json.Unmarshal(raw, &res); err != nil || res.ID == "" {
		return ports.SubmittedTemplate{}, fmt.Errorf("whatsapp: submitting template %s: unexpected answer (%d bytes)", d.Name, len(raw))
	}
	out := ports.SubmittedTemplate{ID: res.ID, Category: res.Category}
	if res.Status != "" {
		out.Status, _ = domain.ParseTemplateStatus(res.Status)
	}
	return out, nil
}

// DeleteTemplate deletes every language of the template called name.
func (c *Client) DeleteTemplate(ctx context.Context, name string) error {
	if _, err := c.templatesCall(ctx, http.MethodDelete, "?"+url.Values{"name": {name}}.Encode(), nil); err != nil {
		return fmt.Errorf("whatsapp: deleting template %s: %w", name, err)
	}
	return nil
}

// templatesCall makes one call to the business account's
// message_templates and returns the successful answer's body.
func (c *Client) templatesCall(ctx context.Context, method, query string, body io.Reader) ([]byte, error) {
	if !c.cfg.TemplatesConfigured() {
		return nil, errors.New("managing templates needs an access token and a business account id")
	}
	req, err := http.NewRequestWithContext(ctx, method, c.cfg.APIURL+"/"+url.PathEscape(c.cfg.WABAID)+"/message_templates"+query, body)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Authorization", "Bearer "+c.cfg.AccessToken)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	res, err := c.http.Do(req)
	if err != nil {
		return nil, &ports.SendError{Class: ports.ClassRetryable, Err: redact(err, c.cfg.AccessToken)}
	}
	defer res.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(res.Body, 1<<20))
	if err != nil {
		return nil, &ports.SendError{Class: ports.ClassRetryable, Err: fmt.Errorf("reading the HTTP %d answer: %w", res.StatusCode, err)}
	}
	if res.StatusCode/100 != 2 {
		return nil, metaError(res.StatusCode, raw)
	}
	return raw, nil
}

var _ ports.TemplateAuthor = (*Client)(nil)
