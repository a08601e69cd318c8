package delivery

import (
	"github.com/heraldhq/herald/domain"
	"github.com/heraldhq/herald/ports"
)

// scrubWebhookBatch makes the text of Meta's report storable: each NUL and
// each invalid UTF-8 sequence becomes U+FFFD (domain.ScrubText), the rest
// is kept. Herald cannot refuse what Meta reports, and PostgreSQL refuses
// NUL even in a query's parameters, so one NUL in one message would
// otherwise fail every item that carries it on one engine and not another.
// Each list is rebuilt item by item: a field added to the batch or to an
// item must be copied here (webhook_batch_internal_test.go fails when one
// is not).
func scrubWebhookBatch(b ports.WebhookBatch) ports.WebhookBatch {
	s := domain.ScrubText
	out := ports.WebhookBatch{Skipped: b.Skipped}
	user := func(u domain.WhatsAppUser) domain.WhatsAppUser {
		return domain.WhatsAppUser{WaID: s(u.WaID), UserID: s(u.UserID), ParentUserID: s(u.ParentUserID),
			Username: s(u.Username), ProfileName: s(u.ProfileName)}
	}
	for _, e := range b.Statuses {
		e.ProviderID, e.MessageID = s(e.ProviderID), domain.MessageID(s(string(e.MessageID)))
		e.Number, e.Recipient = s(e.Number), user(e.Recipient)
		e.Failure = scrubFailure(e.Failure)
		if p := e.Pricing; p != nil {
			e.Pricing = &domain.Pricing{Model: s(p.Model), Type: s(p.Type), Category: s(p.Category), Billable: p.Billable}
		}
		out.Statuses = append(out.Statuses, e)
	}
	for _, in := range b.Inbound {
		in.Number, in.From, in.WaID, in.ProfileName = s(in.Number), s(in.From), s(in.WaID), s(in.ProfileName)
		in.UserID, in.ParentUserID, in.Username = s(in.UserID), s(in.ParentUserID), s(in.Username)
		m := &in.Message
		m.ProviderID, m.Kind, m.Text, m.Payload, m.ReplyTo = s(m.ProviderID), s(m.Kind), s(m.Text), s(m.Payload), s(m.ReplyTo)
		if a := m.Media; a != nil {
			m.Media = &domain.Attachment{ID: s(a.ID), MimeType: s(a.MimeType), SHA256: s(a.SHA256), Filename: s(a.Filename)}
		}
		m.Failure = scrubFailure(m.Failure)
		out.Inbound = append(out.Inbound, in)
	}
	for _, e := range b.IdentityChanges {
		e.Number, e.Kind, e.ProviderID, e.Old, e.New = s(e.Number), s(e.Kind), s(e.ProviderID), user(e.Old), user(e.New)
		out.IdentityChanges = append(out.IdentityChanges, e)
	}
	for _, t := range b.Templates {
		t.Account, t.Name, t.Language, t.Event, t.Reason = s(t.Account), s(t.Name), s(t.Language), s(t.Event), s(t.Reason)
		out.Templates = append(out.Templates, t)
	}
	for _, p := range b.Preferences {
		p.Number, p.User = s(p.Number), user(p.User)
		out.Preferences = append(out.Preferences, p)
	}
	for _, c := range b.Categories {
		c.Account, c.Name, c.Language = s(c.Account), s(c.Name), s(c.Language)
		out.Categories = append(out.Categories, c)
	}
	for _, h := range b.Health {
		h.Account, h.DisplayNumber, h.Event = s(h.Account), s(h.DisplayNumber), s(h.Event)
		h.Quality, h.Tier = domain.QualityRating(s(string(h.Quality))), domain.MessagingTier(s(string(h.Tier)))
		out.Health = append(out.Health, h)
	}
	for _, a := range b.Accounts {
		a.Account, a.Field, a.Event, a.Severity, a.Status = s(a.Account), s(a.Field), s(a.Event), s(a.Severity), s(a.Status)
		a.EntityType, a.EntityID, a.Description = s(a.EntityType), s(a.EntityID), s(a.Description)
		out.Accounts = append(out.Accounts, a)
	}
	for _, f := range b.Errors {
		out.Errors = append(out.Errors, domain.Failure{Code: f.Code, Title: s(f.Title)})
	}
	return out
}

func scrubFailure(f *domain.Failure) *domain.Failure {
	if f == nil {
		return nil
	}
	return &domain.Failure{Code: f.Code, Title: domain.ScrubText(f.Title)}
}
