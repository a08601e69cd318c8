package ports

import "github.com/heraldhq/herald/domain"

// TemplatePayload is the body of Meta's Cloud API send call for a template
// message (POST /{phone-number-id}/messages). It is the one wire shape every
// sender honours: the Cloud API adapter sends it, the sandbox answers as if it
// had, and a dry run shows it to the integrator.
type TemplatePayload struct {
	MessagingProduct      string          `json:"messaging_product"`
	RecipientType         string          `json:"recipient_type"`
	To                    string          `json:"to"`
	Type                  string          `json:"type"`
	BizOpaqueCallbackData string          `json:"biz_opaque_callback_data,omitempty"`
	Template              PayloadTemplate `json:"template"`
}

// PayloadTemplate names the template and carries its parameters.
type PayloadTemplate struct {
	Name       string             `json:"name"`
	Language   PayloadLanguage    `json:"language"`
	Components []PayloadComponent `json:"components,omitempty"`
}

// PayloadLanguage is the approved translation's code. Meta's specification
// requires the policy, whose only value is "deterministic".
type PayloadLanguage struct {
	Policy string `json:"policy"`
	Code   string `json:"code"`
}

// PayloadComponent is the header or the body with its parameters.
type PayloadComponent struct {
	Type       string             `json:"type"`
	Parameters []PayloadParameter `json:"parameters"`
}

// PayloadParameter is one text or media parameter.
type PayloadParameter struct {
	Type     string        `json:"type"`
	Text     string        `json:"text,omitempty"`
	Image    *PayloadMedia `json:"image,omitempty"`
	Video    *PayloadMedia `json:"video,omitempty"`
	Document *PayloadMedia `json:"document,omitempty"`
}

// PayloadMedia is a media header parameter given by link.
type PayloadMedia struct {
	Link     string `json:"link"`
	Filename string `json:"filename,omitempty"`
}

// Payload builds the Cloud API body for m: body parameters in placeholder
// order, the media header by link (a document with its file name), and our
// message id in biz_opaque_callback_data so status events can be matched
// to it.
func (m OutboundMessage) Payload() TemplatePayload {
	p := TemplatePayload{
		MessagingProduct:      "whatsapp",
		RecipientType:         "individual",
		To:                    m.To.String(),
		Type:                  "template",
		BizOpaqueCallbackData: string(m.ID),
		Template: PayloadTemplate{
			Name:     m.TemplateName,
			Language: PayloadLanguage{Policy: "deterministic", Code: m.Language},
		},
	}
	if m.MediaHeaderURL != "" {
		media := &PayloadMedia{Link: m.MediaHeaderURL}
		param := PayloadParameter{Type: m.HeaderFormat.String()}
		switch m.HeaderFormat {
		case domain.HeaderImage:
			param.Image = media
		case domain.HeaderVideo:
			param.Video = media
		case domain.HeaderDocument:
			media.Filename = m.MediaFilename
			param.Document = media
		}
		p.Template.Components = append(p.Template.Components,
			PayloadComponent{Type: "header", Parameters: []PayloadParameter{param}})
	}
	if len(m.Variables) > 0 {
		params := make([]PayloadParameter, len(m.Variables))
		for i, v := range m.Variables {
			params[i] = PayloadParameter{Type: "text", Text: v}
		}
		p.Template.Components = append(p.Template.Components,
			PayloadComponent{Type: "body", Parameters: params})
	}
	return p
}

// OutboundFor builds the sender's view of a stored message.
func OutboundFor(m domain.Message) OutboundMessage {
	return OutboundMessage{
		ID: m.ID, To: m.Phone, TemplateName: m.TemplateName, Language: m.Language,
		HeaderFormat: m.HeaderFormat, MediaHeaderURL: m.MediaHeaderURL, MediaFilename: m.MediaFilename, Variables: m.Variables,
		Session: m.Session, ReplyTo: m.ReplyTo,
	}
}
