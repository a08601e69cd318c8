package whatsapp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/heraldhq/herald/domain"
	"github.com/heraldhq/herald/ports"
)

const (
	// templateFields are the fields a template list asks for.
	templateFields = "id,name,language,status,category,components,parameter_format"
	// templatePageLimit is the page size asked for, Meta's maximum.
	templatePageLimit = 100
	// maxTemplatePages bounds one listing: 10,000 templates at full pages.
	maxTemplatePages = 100
	// maxTemplatePageSize bounds one page's answer.
	maxTemplatePageSize = 8 << 20
)

// templatePage is one answer of GET /{waba-id}/message_templates.
type templatePage struct {
	Data   []metaTemplate `json:"data"`
	Paging struct {
		Cursors struct {
			After string `json:"after"`
		} `json:"cursors"`
		Next string `json:"next"`
	} `json:"paging"`
}

// metaTemplate is a template as Meta lists it.
type metaTemplate struct {
	ID              string          `json:"id"`
	Name            string          `json:"name"`
	Language        string          `json:"language"`
	Status          string          `json:"status"`
	Category        string          `json:"category"`
	ParameterFormat string          `json:"parameter_format"`
	Components      []metaComponent `json:"components"`
}

type metaComponent struct {
	Type    string       `json:"type"`
	Format  string       `json:"format"`
	Text    string       `json:"text"`
	Buttons []metaButton `json:"buttons"`
}

type metaButton struct {
	Type        string `json:"type"`
	URL         string `json:"url"`
	PhoneNumber string `json:"phone_number"`
}

// Account returns the business account (WABA) id templates are read from.
func (c *Client) Account() string { return c.cfg.WABAID }

// ListTemplates reads every template of the business account, page by
// page. A template Herald cannot send is returned with Unsupported saying
// why. A failed answer is a *ports.SendError carrying Meta's code and title
// and the class of the failure (auth for a bad token).
func (c *Client) ListTemplates(ctx context.Context) ([]domain.SyncedTemplate, error) {
	if !c.cfg.TemplatesConfigured() {
		return nil, errors.New("whatsapp: listing templates needs an access token and a business account id")
	}
	var out []domain.SyncedTemplate
	after := ""
	for n := 1; n <= maxTemplatePages; n++ {
		page, err := c.templatePage(ctx, after)
		if err != nil {
			return nil, fmt.Errorf("whatsapp: listing templates, page %d: %w", n, err)
		}
		for _, t := range page.Data {
			out = append(out, toSyncedTemplate(c.cfg.WABAID, t))
		}
		// Meta's next link names Meta's own host; the cursor is followed
		// against the configured base URL instead.
		if page.Paging.Next == "" {
			return out, nil
		}
		if page.Paging.Cursors.After == "" || page.Paging.Cursors.After == after {
			return nil, fmt.Errorf("whatsapp: listing templates, page %d: a next page without a new cursor", n)
		}
		after = page.Paging.Cursors.After
	}
	return nil, fmt.Errorf("whatsapp: listing templates: more than %d pages", maxTemplatePages)
}

// templatePage fetches the page that follows the cursor after ("" for the
// first).
func (c *Client) templatePage(ctx context.Context, after string) (templatePage, error) {
	q := url.Values{"fields": {templateFields}, "limit": {strconv.Itoa(templatePageLimit)}}
	if after != "" {
		q.Set("after", after)
	}
	u := c.cfg.APIURL + "/" + url.PathEscape(c.cfg.WABAID) + "/message_templates?" + q.Encode()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return templatePage{}, err
	}
	req.Header.Set("Authorization", "Bearer "+c.cfg.AccessToken)
	res, err := c.http.Do(req)
	if err != nil {
		return templatePage{}, &ports.SendError{Class: ports.ClassRetryable, Err: redact(err, c.cfg.AccessToken)}
	}
	defer res.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(res.Body, maxTemplatePageSize+1))
	if err != nil {
		return templatePage{}, &ports.SendError{Class: ports.ClassRetryable,
			Err: fmt.Errorf("reading the HTTP %d answer: %w", res.StatusCode, redact(err, c.cfg.AccessToken))}
	}
	if len(raw) > maxTemplatePageSize {
		return templatePage{}, fmt.Errorf("the HTTP %d answer is larger than %d MiB", res.StatusCode, maxTemplatePageSize>>20)
	}
	if res.StatusCode/100 != 2 {
		return templatePage{}, metaError(res.StatusCode, raw)
	}
	var page templatePage
	if err := json.Unmarshal(raw, &page); err != nil {
		return templatePage{}, fmt.Errorf("unexpected template list (%d bytes): %w", len(raw), err)
	}
	return page, nil
}

// toSyncedTemplate converts a template as Meta lists it. A template Herald
// cannot send keeps its identity and status, with a zero Definition and
// Unsupported saying why.
func toSyncedTemplate(account string, t metaTemplate) domain.SyncedTemplate {
	out := domain.SyncedTemplate{Account: account, ProviderID: t.ID, Name: t.Name,
		Language: domain.CanonicalLanguage(t.Language), Category: t.Category}
	status, err := domain.ParseTemplateStatus(t.Status)
	if err != nil {
		out.Unsupported = "unrecognised status " + strconv.Quote(clip(t.Status, 40))
		return out
	}
	out.Status = status
	out.Definition, out.Unsupported = definition(t)
	return out
}

// definition returns the template as a campaign uses it, or why Herald
// cannot send it.
func definition(t metaTemplate) (domain.Template, string) {
	switch strings.ToUpper(t.ParameterFormat) {
	case "", "POSITIONAL":
	case "NAMED":
		return domain.Template{}, "named parameters are not supported"
	default:
		return domain.Template{}, "parameter format " + strconv.Quote(clip(t.ParameterFormat, 40)) + " is not supported"
	}
	header := domain.HeaderNone
	var headerText, body, footer string
	for _, c := range t.Components {
		switch typ := strings.ToUpper(c.Type); typ {
		case "HEADER":
			switch f := strings.ToUpper(c.Format); f {
			case "TEXT":
				if strings.Contains(c.Text, "{{") {
					return domain.Template{}, "header text placeholders are not supported"
				}
				header, headerText = domain.HeaderText, c.Text
			case "IMAGE":
				header = domain.HeaderImage
			case "VIDEO":
				header = domain.HeaderVideo
			case "DOCUMENT":
				header = domain.HeaderDocument
			case "":
				return domain.Template{}, "headers without a format are not supported"
			default:
				return domain.Template{}, strings.ToLower(clip(f, 40)) + " headers are not supported"
			}
		case "BODY":
			body = c.Text
		case "FOOTER":
			footer = c.Text
		case "BUTTONS":
			for _, b := range c.Buttons {
				if reason := buttonReason(b); reason != "" {
					return domain.Template{}, reason
				}
			}
		case "CAROUSEL":
			return domain.Template{}, "carousel templates are not supported"
		case "LIMITED_TIME_OFFER":
			return domain.Template{}, "limited-time offer templates are not supported"
		case "":
			return domain.Template{}, "components without a type are not supported"
		default:
			return domain.Template{}, strings.ToLower(clip(typ, 40)) + " components are not supported"
		}
	}
	d, err := domain.NewTemplate(t.Name, t.Language, header, headerText, body, footer, nil)
	if err != nil {
		if de, ok := errors.AsType[*domain.Error](err); ok && de.Detail != "" {
			return domain.Template{}, de.Detail
		}
		return domain.Template{}, err.Error()
	}
	return d, ""
}

// buttonReason says why a button stops Herald from sending the template:
// Herald sends no button parameters, so only buttons without variables are
// fine.
func buttonReason(b metaButton) string {
	switch typ := strings.ToUpper(b.Type); typ {
	case "QUICK_REPLY":
		return ""
	case "URL", "PHONE_NUMBER":
		if strings.Contains(b.URL, "{{") || strings.Contains(b.PhoneNumber, "{{") {
			return strings.ToLower(typ) + " buttons with a variable are not supported"
		}
		return ""
	default:
		return strings.ToLower(clip(typ, 40)) + " buttons are not supported"
	}
}

// clip cuts s to at most n bytes of valid UTF-8, for quoting Meta's values
// in reasons.
func clip(s string, n int) string {
	if len(s) > n {
		s = s[:n]
	}
	return strings.ToValidUTF8(s, "")
}

var _ ports.TemplateSource = (*Client)(nil)
