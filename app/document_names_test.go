package app_test

import (
	"context"
	"testing"

	"github.com/heraldhq/herald/app"
	"github.com/heraldhq/herald/app/usecase"
	"github.com/heraldhq/herald/domain"
	"github.com/heraldhq/herald/ports"
	"github.com/heraldhq/herald/ports/portsmock"
)

// The name the media server gives a document (Content-Disposition) is the
// one the recipient sees, cleaned: the dry run shows it and the accepted
// message keeps it for the dispatcher. Images carry no name.
func TestDocumentNameFromTheMediaServer(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	served := map[string]string{
		"https://files.example.com/d/7f3a": "../Terms of service\u202e.pdf",
		"https://files.example.com/i/9c1e": "banner.png",
	}
	inspector := &portsmock.MediaInspectorMock{InspectMediaFunc: func(_ context.Context, _ domain.Principal, raw string, h domain.HeaderFormat) (domain.MediaInfo, error) {
		format := domain.MediaPDF
		if h == domain.HeaderImage {
			format = domain.MediaPNG
		}
		return domain.MediaInfo{Format: format, Size: 2048, Filename: served[raw]}, nil
	}}
	h := app.NewSendCampaignMessageHandler(app.SendCampaignDeps{Tx: f.st, Campaigns: f.st, Contacts: f.st,
		Messages: f.st, Idempotency: f.st, SendCounts: f.st, Media: inspector, Clock: f.clock, IDs: f.ids,
		Obs: usecase.NewObserver(nil)})
	campaign := func(header domain.HeaderFormat) domain.Campaign {
		return f.createCampaign(t, f.principal.Workspace, app.CreateCampaign{Name: header.String(), TemplateName: "terms",
			Language: "en_US", HeaderFormat: header, Body: "Hi {{1}}", Activate: true})
	}
	doc, img := campaign(domain.HeaderDocument), campaign(domain.HeaderImage)
	send := func(c domain.Campaign, url string, dry bool) app.SendCampaignMessageResult {
		t.Helper()
		res, err := h.Handle(ctx, app.SendCampaignMessage{Principal: f.principal, PhoneNumber: "+14155552671",
			CampaignID: string(c.ID), Variables: []string{"Ana"}, MediaHeaderURL: url, DryRun: dry})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}

	dry := send(doc, "https://files.example.com/d/7f3a", true)
	if got := headerMedia(dry.Payload); got == nil || got.Filename != "Terms of service.pdf" {
		t.Fatalf("dry run's document %+v, want the server's name, cleaned: Terms of service.pdf", got)
	}
	res := send(doc, "https://files.example.com/d/7f3a", false)
	if got := f.message(t, res.Message.ID).MediaFilename; got != "Terms of service.pdf" {
		t.Fatalf("stored message's file name %q, want Terms of service.pdf", got)
	}
	res = send(img, "https://files.example.com/i/9c1e", false)
	if got := f.message(t, res.Message.ID); got.MediaFilename != "" || headerMedia(ports.OutboundFor(got).Payload()).Filename != "" {
		t.Fatalf("an image header carries the file name %q; images are sent by link alone", got.MediaFilename)
	}
}

// headerMedia is the media of a payload's header parameter, or nil.
func headerMedia(p ports.TemplatePayload) *ports.PayloadMedia {
	for _, c := range p.Template.Components {
		if c.Type == "header" && len(c.Parameters) == 1 {
			q := c.Parameters[0]
			switch {
			case q.Document != nil:
				return q.Document
			case q.Image != nil:
				return q.Image
			case q.Video != nil:
				return q.Video
			}
		}
	}
	return nil
}
