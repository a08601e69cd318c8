package dashboard

import (
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"go.uber.org/zap"

	"github.com/heraldhq/herald/app"
	"github.com/heraldhq/herald/app/usecase"
	"github.com/heraldhq/herald/domain"
	"github.com/heraldhq/herald/ports"
)

// The largest bodies of the inbox's forms, url-encoded (12 bytes a
// character at most; see forms.go).
const (
	// replyFormLimit: a text of 4,096 characters, a link (2,000 ASCII
	// characters, 3 bytes each at most), a caption of 1,024 and a file
	// name of 240, with the type, the token and the send's key: about
	// 70,500 bytes.
	replyFormLimit = 80 << 10
	// replyFileLimit: the reply box's attached file, as large as the
	// largest video or audio WhatsApp takes (16 MB; images take 5 MB,
	// stickers 500 KB). Documents up to WhatsApp's 100 MB go through POST
	// /v1/media, which the dashboard does not hold in memory per form.
	replyFileLimit = 16 << 20
	// pickFormLimit: up to 100 variables of 1,024 characters each and a
	// media link, with the campaign, the token and the send's key.
	pickFormLimit = 1280 << 10
	// simulateFormLimit: a number and a text of 4,096 characters.
	simulateFormLimit = 64 << 10
	// contactFormLimit: 50 tags of 64 characters and the opt-out state.
	contactFormLimit = 64 << 10
)

type inboxPage struct {
	Threads []domain.Thread
	Next    string
	Mode    string // the mode shown: "", "live" or "test"
	// Simulate is the sandbox's form, as typed when it was refused.
	Simulate simulateForm
}

type simulateForm struct {
	From, Text string
}

// inbox lists the workspace's conversations, the most recently active
// first, with their unread counts and last messages.
func (h *dash) inbox(w http.ResponseWriter, r *http.Request) {
	h.inboxWith(w, r, http.StatusOK, view{}, simulateForm{})
}

func (h *dash) inboxWith(w http.ResponseWriter, r *http.Request, status int, v view, f simulateForm) {
	q := r.URL.Query()
	p := inboxPage{Mode: q.Get("mode"), Simulate: f}
	v.Title, v.Nav = "Inbox", "inbox"
	var mode domain.KeyMode
	if p.Mode != "" {
		var err error
		if mode, err = domain.ParseKeyMode(p.Mode); err != nil {
			p.Mode, v.Error, v.Page = "", "Show live or test conversations, or all of them.", p
			h.render(w, r, http.StatusUnprocessableEntity, "inbox", v)
			return
		}
	}
	page, err := h.d.ListThreads.Handle(r.Context(), app.ListThreads{Workspace: operator(r).session.Workspace, Mode: mode,
		Page: ports.Page{Cursor: q.Get("cursor")}})
	if err != nil {
		msg := formError(err)
		if msg == "" {
			h.failErr(w, r, err)
			return
		}
		v.Error, v.Page = msg, p
		h.render(w, r, http.StatusUnprocessableEntity, "inbox", v)
		return
	}
	p.Threads, p.Next = page.Threads, page.NextCursor
	v.Page = p
	h.render(w, r, status, "inbox", v)
}

// simulateInbound records a customer's text message in test mode, as
// herald sandbox inbound does, and returns to the page it came from.
func (h *dash) simulateInbound(w http.ResponseWriter, r *http.Request) {
	f := simulateForm{From: strings.TrimSpace(r.PostForm.Get("from")), Text: r.PostForm.Get("text")}
	_, err := h.d.SimulateInbound.Handle(r.Context(), app.SimulateInbound{Workspace: string(operator(r).session.Workspace),
		From: f.From, Text: strings.ReplaceAll(f.Text, "\r\n", "\n")})
	if err != nil {
		if msg := formError(err); msg != "" {
			h.inboxWith(w, r, http.StatusUnprocessableEntity, view{Error: msg}, f)
			return
		}
		h.failErr(w, r, err)
		return
	}
	back := "/dashboard/inbox"
	if ret := r.PostForm.Get("return"); ret != "" {
		back = localPath(ret)
	}
	http.Redirect(w, r, back, http.StatusSeeOther)
}

// replyForm is the reply box as typed: a text, or one attachment, uploaded
// or by link.
type replyForm struct {
	Type, Text, Link, Caption, Filename string
	Key                                 string // the send's Idempotency-Key, made with the page
	// Media is the uploaded file's id, its kind (the message type it is
	// sent as) and its name, kept with a refused form so the file need
	// not be chosen again.
	MediaID, MediaKind, MediaName string
}

// pickForm is the template picker as filled in.
type pickForm struct {
	CampaignID string
	Variables  []string
	MediaURL   string
	Key        string
}

// pickable is an active campaign whose template may be sent, with what
// its form asks for.
type pickable struct {
	Campaign domain.Campaign
	// Labels are the variables' labels in order ("" when unlabelled).
	Labels []string
	// MediaHeader is the media header's kind when the template has one.
	MediaHeader string
}

type threadPage struct {
	app.ThreadView
	// WindowOpen says free-form replies can be sent; WindowLeft is how
	// long for, WindowClosedAt when it closed (zero: never opened).
	WindowOpen     bool
	WindowLeft     string
	WindowEnds     time.Time
	WindowClosedAt time.Time
	Reply          replyForm
	Campaigns      []pickable
	Pick           pickForm
	// Receipt says WhatsApp could not be told the messages were read.
	Receipt string
	// Return is this page's path, for the forms that come back to it.
	Return string
}

// replyTypes are what the reply box sends: a text, or one attachment by
// link.
var replyTypes = []string{domain.KindText, domain.KindImage, domain.KindDocument, domain.KindAudio, domain.KindVideo}

// thread shows a conversation oldest first, like a chat, and marks it read.
func (h *dash) thread(w http.ResponseWriter, r *http.Request) {
	h.threadWith(w, r, http.StatusOK, view{}, replyForm{Type: domain.KindText}, pickForm{})
}

func (h *dash) threadWith(w http.ResponseWriter, r *http.Request, status int, v view, reply replyForm, pick pickForm) {
	ws := operator(r).session.Workspace
	tv, err := h.d.ReadThread.Handle(r.Context(), app.ReadThread{Workspace: ws, ContactID: r.PathValue("id"),
		Cursor: r.URL.Query().Get("cursor")})
	if err != nil {
		if msg := formError(err); msg != "" {
			h.fail(w, r, http.StatusUnprocessableEntity, "This conversation cannot be shown: "+msg+".")
			return
		}
		h.failErr(w, r, err)
		return
	}
	if reply.Key == "" {
		reply.Key = newSendKey()
	}
	if pick.Key == "" {
		pick.Key = newSendKey()
	}
	p := threadPage{ThreadView: tv, Reply: reply, Pick: pick, Return: "/dashboard/inbox/" + string(tv.Contact.ID)}
	if exp, ok := tv.Contact.ServiceWindowExpiresAt(); ok && tv.Now.Before(exp) {
		p.WindowOpen, p.WindowEnds, p.WindowLeft = true, exp, timeLeft(exp.Sub(tv.Now))
	} else if ok {
		p.WindowClosedAt = exp
	}
	if err := tv.ReceiptError; err != nil {
		var de *domain.Error
		if !errors.As(err, &de) && !errors.Is(err, ports.ErrUnavailable) {
			h.log.Error("marking a thread read on whatsapp failed", zap.String("request_id", usecase.RequestID(r.Context())), zap.Error(err))
		}
		p.Receipt = "WhatsApp could not be told that these messages were read: " + receiptReason(err)
	}
	if !p.WindowOpen {
		if p.Campaigns, err = h.pickable(r, ws); err != nil {
			h.failErr(w, r, err)
			return
		}
	}
	v.Title, v.Nav, v.Page = tv.Contact.Handle(), "inbox", p
	h.render(w, r, status, "thread", v)
}

// pickable lists the campaigns the picker offers, with their forms.
func (h *dash) pickable(r *http.Request, ws domain.WorkspaceID) ([]pickable, error) {
	cs, err := h.d.SendableCampaigns.Handle(r.Context(), app.ListSendableCampaigns{Workspace: ws})
	if err != nil {
		return nil, err
	}
	out := make([]pickable, 0, len(cs))
	for _, c := range cs {
		pc := pickable{Campaign: c, Labels: make([]string, c.Template.VariableCount())}
		for _, s := range c.Template.AllSlots() {
			if n := s.Source.Position; n > 0 && n <= len(pc.Labels) && pc.Labels[n-1] == "" {
				pc.Labels[n-1] = s.Label
			}
		}
		if s, ok := c.Template.MediaHeaderSlot(); ok {
			pc.MediaHeader = s.Media.String()
		}
		out = append(out, pc)
	}
	return out, nil
}

// threadContact is the contact a thread's form is about, found in the
// operator's workspace.
func (h *dash) threadContact(r *http.Request) (domain.Contact, error) {
	page, err := h.d.Conversation.Handle(r.Context(), app.ListConversation{
		Principal: domain.Principal{Workspace: operator(r).session.Workspace}, ContactID: r.PathValue("id"),
		Page: ports.Page{Limit: 1}})
	return page.Contact, err
}

// reply sends the reply box's message through the same use case as POST
// /v1/messages, as the contact's mode (a test contact's reply stays in
// the sandbox). The form's key makes a second press of the button, or a
// resent form, the same send.
func (h *dash) reply(w http.ResponseWriter, r *http.Request) {
	f := replyForm{Type: r.PostForm.Get("type"), Text: r.PostForm.Get("text"), Link: strings.TrimSpace(r.PostForm.Get("link")),
		Caption: r.PostForm.Get("caption"), Filename: strings.TrimSpace(r.PostForm.Get("filename")), Key: r.PostForm.Get("key")}
	if r.PostForm.Get("detach") != "true" {
		f.MediaID, f.MediaKind, f.MediaName = r.PostForm.Get("mediaId"), r.PostForm.Get("mediaKind"), r.PostForm.Get("mediaName")
	}
	c, err := h.threadContact(r)
	if err != nil {
		h.failErr(w, r, err)
		return
	}
	p := domain.Principal{Workspace: c.Workspace, Mode: c.Mode}
	key, err := domain.ParseIdempotencyKey(f.Key)
	if file, ok := uploaded(r); ok && err == nil {
		// The file is checked and kept as POST /v1/media keeps it (the same
		// bytes again are the same file), then sent by its id.
		var res app.UploadMediaResult
		if res, err = h.d.UploadMedia.Handle(r.Context(), app.UploadMedia{Principal: p, Filename: file.Name, Content: file.Content}); err == nil {
			f.MediaID, f.MediaKind, f.MediaName = string(res.File.ID), res.File.Kind, res.File.Filename
		}
	}
	if err == nil {
		var content domain.SessionContent
		if content, err = f.content(); err == nil {
			_, err = h.d.SendSession.Handle(r.Context(), app.SendSessionMessage{
				Principal: p, ContactID: string(c.ID), Content: content, IdempotencyKey: key})
		}
	}
	if err != nil {
		if msg := sendError(err); msg != "" {
			f.Key = "" // a corrected message is another send
			h.threadWith(w, r, sendStatus(err), view{Error: msg}, f, pickForm{})
			return
		}
		h.failErr(w, r, err)
		return
	}
	http.Redirect(w, r, "/dashboard/inbox/"+string(c.ID), http.StatusSeeOther)
}

// content is the session message the reply box describes.
func (f replyForm) content() (domain.SessionContent, error) {
	text := strings.ReplaceAll(f.Text, "\r\n", "\n")
	if f.MediaID != "" {
		return f.uploadedContent(text)
	}
	switch f.Type {
	case domain.KindText, "":
		if strings.TrimSpace(text) == "" {
			return domain.SessionContent{}, domain.InvalidParameter("text", "write a message to send")
		}
		return domain.SessionContent{Type: domain.KindText, Text: &domain.SessionText{Body: text}}, nil
	case domain.KindImage, domain.KindDocument, domain.KindAudio, domain.KindVideo:
		if f.Link == "" {
			return domain.SessionContent{}, domain.InvalidParameter(f.Type+".link", "give the attachment's https link")
		}
		m := &domain.SessionMedia{MediaRef: domain.MediaRef{Link: f.Link}}
		// The message box's text goes with the file as its caption, unless
		// one was given apart; an audio has none, so it goes on its own.
		caption := strings.ReplaceAll(f.Caption, "\r\n", "\n")
		if caption == "" {
			caption = text
		}
		switch {
		case f.Type != domain.KindAudio:
			m.Caption = caption
		case strings.TrimSpace(caption) != "":
			return domain.SessionContent{}, domain.InvalidParameter("caption", "an audio has no caption: send the text as a message of its own")
		}
		if f.Type == domain.KindDocument {
			m.Filename = f.Filename
		}
		return domain.SessionContent{Type: f.Type, Media: m}, nil
	}
	return domain.SessionContent{}, domain.InvalidParameter("type", "send a text, an image, a document, an audio or a video")
}

// uploadedContent is the uploaded file as a message of its kind, with the
// message box's text as its caption; an audio or a sticker has none.
func (f replyForm) uploadedContent(text string) (domain.SessionContent, error) {
	if f.Type != domain.KindText && f.Type != "" || f.Link != "" {
		return domain.SessionContent{}, domain.InvalidParameter("link", "attach a file or give a link, not both")
	}
	m := &domain.SessionMedia{MediaRef: domain.MediaRef{MediaID: f.MediaID}}
	caption := strings.ReplaceAll(f.Caption, "\r\n", "\n")
	if caption == "" {
		caption = text
	}
	switch f.MediaKind {
	case domain.KindImage, domain.KindVideo:
		m.Caption = caption
	case domain.KindDocument:
		m.Caption, m.Filename = caption, f.Filename
		if m.Filename == "" {
			m.Filename = f.MediaName
		}
	case domain.KindAudio, domain.KindSticker:
		if strings.TrimSpace(caption) != "" {
			return domain.SessionContent{}, domain.InvalidParameter("text", article(f.MediaKind)+" has no caption: send it without text, and the text as a message of its own")
		}
	default:
		return domain.SessionContent{}, domain.InvalidParameter("file", "attach the file again")
	}
	return domain.SessionContent{Type: f.MediaKind, Media: m}, nil
}

// article is "an audio", "a sticker": a kind with its article.
func article(kind string) string {
	if kind == domain.KindAudio || kind == domain.KindImage {
		return "an " + kind
	}
	return "a " + kind
}

// sendTemplate sends the picked campaign's template to the contact
// through the same use case as POST /v1/messages/send-campaign.
func (h *dash) sendTemplate(w http.ResponseWriter, r *http.Request) {
	f := pickForm{CampaignID: r.PostForm.Get("campaignId"), Variables: r.PostForm["variable"],
		MediaURL: strings.TrimSpace(r.PostForm.Get("mediaHeaderUrl")), Key: r.PostForm.Get("key")}
	c, err := h.threadContact(r)
	if err != nil {
		h.failErr(w, r, err)
		return
	}
	switch {
	case c.Phone.IsZero():
		err = domain.InvalidParameter("phoneNumber", "this contact has no number a template can be sent to")
	case f.CampaignID == "":
		err = domain.InvalidParameter("campaignId", "choose a template to send")
	}
	if err == nil {
		var key domain.IdempotencyKey
		if key, err = domain.ParseIdempotencyKey(f.Key); err == nil {
			vars := f.Variables
			if vars == nil {
				vars = []string{}
			}
			_, err = h.d.SendCampaign.Handle(r.Context(), app.SendCampaignMessage{
				Principal: domain.Principal{Workspace: c.Workspace, Mode: c.Mode}, PhoneNumber: c.Phone.String(),
				CampaignID: f.CampaignID, Variables: vars, MediaHeaderURL: f.MediaURL, IdempotencyKey: key})
		}
	}
	if err != nil {
		if msg := sendError(err); msg != "" {
			f.Key = ""
			h.threadWith(w, r, sendStatus(err), view{Error: msg}, replyForm{Type: domain.KindText}, f)
			return
		}
		h.failErr(w, r, err)
		return
	}
	http.Redirect(w, r, "/dashboard/inbox/"+string(c.ID), http.StatusSeeOther)
}

// sendError is the message for a refused send, or "" for an error that
// is not about the send (the store, a bug).
func sendError(err error) string {
	switch {
	case errors.Is(err, domain.ErrContactOptedOut):
		var de *domain.Error
		errors.As(err, &de)
		return "Nothing was sent: " + de.Detail + "."
	case errors.Is(err, domain.ErrOutsideServiceWindow):
		return "Nothing was sent: the 24-hour window for free-form replies is closed. Send an approved template instead."
	case errors.Is(err, domain.ErrCampaignNotFound):
		return "Nothing was sent: that template is no longer available. Choose another."
	}
	if msg := formError(err); msg != "" {
		return "Nothing was sent. " + msg
	}
	return ""
}

// sendStatus is the page's status for a refused send: 409 for a state
// that refuses it (an opt-out, a campaign not active, a send in flight),
// as the API answers, 422 for what was entered.
func sendStatus(err error) int {
	var de *domain.Error
	if errors.As(err, &de) {
		switch de.Code {
		case domain.CodeContactOptedOut, domain.CodeCampaignNotActive, domain.CodeIdempotencyInFlight:
			return http.StatusConflict
		case domain.CodeWhatsAppNotConfigured:
			return http.StatusServiceUnavailable
		case domain.CodeCampaignNotFound:
			return http.StatusNotFound
		}
	}
	return http.StatusUnprocessableEntity
}

// receiptReason says why WhatsApp was not told, for people.
func receiptReason(err error) string {
	var de *domain.Error
	switch {
	case errors.Is(err, ports.ErrUnavailable):
		return "WhatsApp could not be reached."
	case errors.As(err, &de) && de.Detail != "":
		return de.Detail + "."
	}
	return "an error on our side."
}

// editContact changes a contact's tags and opt-out state, as a contact
// sync does for the contact's mode.
func (h *dash) editContact(w http.ResponseWriter, r *http.Request) {
	c, err := h.threadContact(r)
	if err != nil {
		h.failErr(w, r, err)
		return
	}
	tags := []string{}
	for _, t := range strings.Split(r.PostForm.Get("tags"), ",") {
		if t = strings.TrimSpace(t); t != "" {
			tags = append(tags, t)
		}
	}
	optedOut := r.PostForm.Get("optedOut") == "true"
	f := contactForm{Tags: r.PostForm.Get("tags"), OptedOut: optedOut}
	if c.Phone.IsZero() {
		err = domain.InvalidParameter("phoneNumber", "this contact has no number, so it cannot be edited here")
	} else {
		_, err = h.d.SyncContact.Handle(r.Context(), app.SyncContact{Principal: domain.Principal{Workspace: c.Workspace, Mode: c.Mode},
			PhoneNumber: c.Phone.String(), Changes: domain.ContactSync{Tags: tags, OptedOut: &optedOut}})
	}
	if err != nil {
		if msg := formError(err); msg != "" {
			h.contactWith(w, r, http.StatusUnprocessableEntity, view{Error: msg}, &f)
			return
		}
		h.failErr(w, r, err)
		return
	}
	http.Redirect(w, r, "/dashboard/contacts/"+string(c.ID), http.StatusSeeOther)
}

// newSendKey is a fresh Idempotency-Key for one form's send.
func newSendKey() string {
	var b [18]byte
	_, _ = rand.Read(b[:]) // crypto/rand does not fail on supported platforms
	return "dashboard-" + base64.RawURLEncoding.EncodeToString(b[:])
}

// timeLeft is a duration as people read it: "23 h 5 min", "4 min".
func timeLeft(d time.Duration) string {
	m := int(d.Round(time.Minute).Minutes())
	switch {
	case d < time.Minute:
		return "less than a minute"
	case m < 60:
		return fmt.Sprintf("%d min", m)
	}
	return fmt.Sprintf("%d h %d min", m/60, m%60)
}
