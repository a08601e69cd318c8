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
	Type             string       `json:"type"`
	Format           string       `json:"format"`
	Text             string       `json:"text"`
	Buttons          []metaButton `json:"buttons"`
	LimitedTimeOffer *struct {
		Text          string `json:"text"`
		HasExpiration bool   `json:"has_expiration"`
	} `json:"limited_time_offer"`
	Cards []struct {
		Components []metaComponent `json:"components"`
	} `json:"cards"`
}

type metaButton struct {
	Type        string `json:"type"`
	Text        string `json:"text"`
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

// definition returns the template as a campaign uses it, with every slot
// and its default mapping, or why Herald cannot send it.
func definition(t metaTemplate) (domain.Template, string) {
	d := domain.TemplateDefinition{Name: t.Name, Language: t.Language,
		Authentication: strings.EqualFold(t.Category, "AUTHENTICATION")}
	switch strings.ToUpper(t.ParameterFormat) {
	case "", "POSITIONAL":
	case "NAMED":
		d.Named = true
	default:
		return domain.Template{}, "parameter format " + strconv.Quote(clip(t.ParameterFormat, 40)) + " is not supported"
	}
	for _, c := range t.Components {
		switch typ := strings.ToUpper(c.Type); typ {
		case "HEADER":
			f, reason := headerFormat(c)
			if reason != "" {
				return domain.Template{}, reason
			}
			d.HeaderFormat = f
			if f == domain.HeaderText {
				d.HeaderText = c.Text
			}
		case "BODY":
			d.Body = c.Text
		case "FOOTER":
			d.Footer = c.Text
		case "BUTTONS":
			bs, reason := buttons(c.Buttons, d.Authentication)
			if reason != "" {
				return domain.Template{}, reason
			}
			d.Buttons = bs
		case "CAROUSEL":
			d.Cards = []domain.CardDef{}
			for _, card := range c.Cards {
				var cd domain.CardDef
				for _, cc := range card.Components {
					switch strings.ToUpper(cc.Type) {
					case "HEADER":
						f, reason := headerFormat(cc)
						if reason != "" {
							return domain.Template{}, reason
						}
						cd.HeaderFormat = f
					case "BODY":
						cd.Body = cc.Text
					case "BUTTONS":
						bs, reason := buttons(cc.Buttons, false)
						if reason != "" {
							return domain.Template{}, reason
						}
						cd.Buttons = bs
					}
				}
				d.Cards = append(d.Cards, cd)
			}
		case "LIMITED_TIME_OFFER":
			d.Offer = &domain.OfferDef{}
			if o := c.LimitedTimeOffer; o != nil {
				d.Offer.Text, d.Offer.HasExpiration = o.Text, o.HasExpiration
			}
		case "":
			return domain.Template{}, "components without a type are not supported"
		default:
			return domain.Template{}, strings.ToLower(clip(typ, 40)) + " components are not supported"
		}
	}
	tmpl, err := domain.DefineTemplate(d)
	if err != nil {
		if de, ok := errors.AsType[*domain.Error](err); ok && de.Detail != "" {
			return domain.Template{}, de.Detail
		}
		return domain.Template{}, err.Error()
	}
	return tmpl, ""
}

// headerFormat reads a header component's format, or why Herald cannot
// send it.
func headerFormat(c metaComponent) (domain.HeaderFormat, string) {
	switch f := strings.ToUpper(c.Format); f {
	case "TEXT":
		return domain.HeaderText, ""
	case "IMAGE":
		return domain.HeaderImage, ""
	case "VIDEO":
		return domain.HeaderVideo, ""
	case "DOCUMENT":
		return domain.HeaderDocument, ""
	case "LOCATION":
		return domain.HeaderLocation, ""
	case "":
		return domain.HeaderFormat{}, "headers without a format are not supported"
	default:
		return domain.HeaderFormat{}, strings.ToLower(clip(f, 40)) + " headers are not supported"
	}
}

// buttons reads a template's buttons, or says why Herald cannot send them.
// An authentication template's code button is listed by Meta as OTP or as
// URL; static URL, phone and voice-call buttons take nothing and stay out
// of the slots, as they do of the send, but are kept with the template's
// buttons for listing and previews.
func buttons(in []metaButton, auth bool) ([]domain.ButtonDef, string) {
	out := make([]domain.ButtonDef, 0, len(in))
	for _, b := range in {
		def := domain.ButtonDef{Text: b.Text, URL: b.URL, PhoneNumber: b.PhoneNumber}
		switch typ := strings.ToUpper(b.Type); {
		case typ == "OTP" || typ == "URL" && auth:
			def.Kind, def.URL = domain.ButtonOTP, ""
		case typ == "QUICK_REPLY":
			def.Kind = domain.ButtonQuickReply
		case typ == "URL":
			def.Kind = domain.ButtonURL
		case typ == "PHONE_NUMBER":
			def.Kind = domain.ButtonPhone
		case typ == "VOICE_CALL":
			def.Kind = domain.ButtonVoiceCall
		case typ == "COPY_CODE":
			def.Kind = domain.ButtonCopyCode
		default:
			return nil, strings.ToLower(clip(typ, 40)) + " buttons are not supported"
		}
		out = append(out, def)
	}
	return out, ""
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
