package app_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/heraldhq/herald/app"
	"github.com/heraldhq/herald/app/usecase"
	"github.com/heraldhq/herald/domain"
	"github.com/heraldhq/herald/ports"
	"github.com/heraldhq/herald/ports/portsmock"
	"github.com/heraldhq/herald/ports/porttest"
)

// TestMediaInspectedForTheCaller: the media inspector learns who asks, so
// it can share its fetches fairly between workspaces and keys; a dry run
// asks as the same caller.
func TestMediaInspectedForTheCaller(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	image := f.createCampaign(t, f.principal.Workspace, app.CreateCampaign{Name: "Banner", TemplateName: "banner",
		Language: "en_US", HeaderFormat: domain.HeaderImage, Body: "Hi {{1}}", Activate: true})
	inspector := porttest.MediaByExtension()
	h := app.NewSendCampaignMessageHandler(app.SendCampaignDeps{Tx: f.st, Campaigns: f.st, Contacts: f.st,
		Messages: f.st, Idempotency: f.st, SendCounts: f.st, Media: inspector, Clock: f.clock, IDs: f.ids, Obs: usecase.NewObserver(nil)})
	for _, dry := range []bool{false, true} {
		if _, err := h.Handle(context.Background(), app.SendCampaignMessage{Principal: f.principal, PhoneNumber: phone,
			CampaignID: string(image.ID), Variables: []string{"Ana"}, MediaHeaderURL: "https://cdn.example.com/a.png", DryRun: dry}); err != nil {
			t.Fatalf("dry run %v: %v", dry, err)
		}
	}
	calls := inspector.InspectMediaCalls()
	if len(calls) != 2 || calls[0].Caller != f.principal || calls[1].Caller != f.principal {
		t.Fatalf("inspections %+v, want two for %+v", calls, f.principal)
	}
}

// deadlineCampaigns fails reads once their context has ended, as a
// database does.
type deadlineCampaigns struct{ ports.CampaignRepository }

func (r deadlineCampaigns) GetCampaign(ctx context.Context, ws domain.WorkspaceID, id domain.CampaignID) (domain.Campaign, error) {
	if err := ctx.Err(); err != nil {
		return domain.Campaign{}, fmt.Errorf("%w: %w", ports.ErrUnavailable, err)
	}
	return r.CampaignRepository.GetCampaign(ctx, ws, id)
}

// TestMediaCheckOutOfTime: a send whose media check ran out of the
// request's time is refused with the inspector's media_unreachable, not
// 503 unavailable from reading the campaign again with a context that has
// ended.
func TestMediaCheckOutOfTime(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	image := f.createCampaign(t, f.principal.Workspace, app.CreateCampaign{Name: "Banner", TemplateName: "banner",
		Language: "en_US", HeaderFormat: domain.HeaderImage, Body: "Hi {{1}}", Activate: true})
	slow := "https://slow.example.com/a.png"
	inspector := &portsmock.MediaInspectorMock{InspectMediaFunc: func(ctx context.Context, _ domain.Principal, url string, _ domain.HeaderFormat) (domain.MediaInfo, error) {
		if url == slow {
			<-ctx.Done()
			return domain.MediaInfo{}, &domain.Error{Code: domain.CodeMediaUnreachable, Param: "mediaHeaderUrl", Detail: "out of time"}
		}
		return domain.MediaInfo{Format: domain.MediaPNG, Size: 1000}, nil
	}}
	h := app.NewSendCampaignMessageHandler(app.SendCampaignDeps{Tx: f.st, Campaigns: deadlineCampaigns{f.st}, Contacts: f.st,
		Messages: f.st, Idempotency: f.st, SendCounts: f.st, Media: inspector, Clock: f.clock, IDs: f.ids, Obs: usecase.NewObserver(nil)})
	send := func(ctx context.Context, url string) error {
		_, err := h.Handle(ctx, app.SendCampaignMessage{Principal: f.principal, PhoneNumber: phone,
			CampaignID: string(image.ID), Variables: []string{"Ana"}, MediaHeaderURL: url})
		return err
	}
	if err := send(context.Background(), "https://cdn.example.com/a.png"); err != nil { // the campaign is now remembered
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if err := send(ctx, slow); !errors.Is(err, domain.ErrMediaUnreachable) {
		t.Fatalf("send whose media check ran out of time: %v, want media_unreachable", err)
	}
}
