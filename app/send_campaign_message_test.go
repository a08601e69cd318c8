package app_test

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/heraldhq/herald/app"
	"github.com/heraldhq/herald/domain"
	"github.com/heraldhq/herald/ports"
	"github.com/heraldhq/herald/ports/portsmock"
)

func TestSendCommitsMessageContactAndEntry(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	wake := app.NewWakeup()
	res, err := f.sender(wake).Handle(ctx, app.SendCampaignMessage{Principal: f.principal, PhoneNumber: "+14155552671",
		CampaignID: string(f.campaign.ID), Variables: []string{"Ana", "1234"}})
	if err != nil {
		t.Fatal(err)
	}
	select {
	case <-wake.C():
	default:
		t.Error("the dispatcher was not woken")
	}
	m, err := f.st.GetMessage(ctx, f.principal.Workspace, res.Message.ID)
	if err != nil || m.Status != domain.StatusQueued || m.RenderedBody != "Hi Ana, your code is 1234" || len(m.History) != 1 {
		t.Fatalf("stored message %+v, %v", m, err)
	}
	c, err := f.st.GetContactByPhone(ctx, f.principal.Workspace, domain.MustPhoneNumber("+14155552671"))
	if err != nil || c.ID != m.ContactID || c.LastMessageAt == nil {
		t.Fatalf("contact %+v, %v", c, err)
	}
	entries, _, err := f.st.ListEntries(ctx, f.principal.Workspace, c.ID, ports.Page{Limit: 10})
	if err != nil || len(entries) != 1 || entries[0].MessageID != m.ID || entries[0].Direction != domain.Outbound {
		t.Fatalf("thread %+v, %v", entries, err)
	}
	again := f.send(t, "+14155552671")
	if again.ContactID != c.ID {
		t.Fatal("a second send to the same number made a second contact")
	}
}

func TestSendCheckOrder(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	paused, err := app.NewChangeCampaignStatusHandler(f.st, f.st, app.NewEnsureDefaultWorkspaceHandler(f.st, f.clock, f.ids), f.clock).
		Handle(context.Background(), app.ChangeCampaignStatus{CampaignID: string(f.campaign.ID), To: domain.CampaignPaused})
	if err != nil {
		t.Fatal(err)
	}
	other := domain.NewID(domain.PrefixCampaign, f.clock.Now(), [10]byte{1})
	for _, c := range []struct {
		phone, campaign string
		vars            []string
		want            error
	}{
		{"bad", "nope", nil, domain.ErrInvalidPhoneNumber},
		{"+14155552671", other, nil, domain.ErrCampaignNotFound},
		{"+14155552671", string(paused.ID), nil, domain.ErrCampaignNotActive},
	} {
		_, err := f.sender(nil).Handle(context.Background(), app.SendCampaignMessage{Principal: f.principal,
			PhoneNumber: c.phone, CampaignID: c.campaign, Variables: c.vars})
		if !errors.Is(err, c.want) {
			t.Errorf("%+v: %v, want %v", c, err, c.want)
		}
	}
}

func TestSendToOptedOutStoresNothing(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	yes := true
	if _, err := app.NewSyncContactHandler(f.st, f.clock, f.ids, nil).Handle(ctx, app.SyncContact{Principal: f.principal,
		PhoneNumber: "+14155552671", Changes: domain.ContactSync{OptedOut: &yes}}); err != nil {
		t.Fatal(err)
	}
	_, err := f.sender(nil).Handle(ctx, app.SendCampaignMessage{Principal: f.principal, PhoneNumber: "+14155552671",
		CampaignID: string(f.campaign.ID), Variables: []string{"Ana", "1"}})
	if !errors.Is(err, domain.ErrContactOptedOut) {
		t.Fatalf("%v", err)
	}
	counts, _ := f.st.CountMessagesByStatus(ctx, f.principal.Workspace, f.campaign.ID)
	if len(counts) != 0 {
		t.Fatalf("a refused send stored messages: %v", counts)
	}
}

func TestDryRunStoresNothing(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	res, err := f.sender(nil).Handle(ctx, app.SendCampaignMessage{Principal: f.principal, PhoneNumber: "+14155552671",
		CampaignID: string(f.campaign.ID), Variables: []string{"Ana", "1234"}, DryRun: true})
	if err != nil || !res.DryRun {
		t.Fatal(err)
	}
	body := res.Payload.Template.Components[0]
	if res.Payload.To != "+14155552671" || body.Type != "body" || body.Parameters[0].Text != "Ana" || body.Parameters[1].Text != "1234" {
		t.Fatalf("payload %+v", res.Payload)
	}
	if _, err := f.st.GetContactByPhone(ctx, f.principal.Workspace, domain.MustPhoneNumber("+14155552671")); !errors.Is(err, domain.ErrContactNotFound) {
		t.Fatalf("a dry run created the contact: %v", err)
	}
}

func TestFailedCommitLeavesNothing(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	commitFails := &portsmock.TransactorMock{WithinTxFunc: func(ctx context.Context, fn func(context.Context, ports.Repos) error) error {
		return f.st.WithinTx(ctx, func(ctx context.Context, r ports.Repos) error {
			if err := fn(ctx, r); err != nil {
				return err
			}
			return fmt.Errorf("commit: %w", ports.ErrUnavailable) // everything written, then the commit fails
		})
	}}
	h := app.NewSendCampaignMessageHandler(commitFails, f.st, f.st, f.clock, f.ids, nil, nil)
	_, err := h.Handle(ctx, app.SendCampaignMessage{Principal: f.principal, PhoneNumber: "+14155552671",
		CampaignID: string(f.campaign.ID), Variables: []string{"Ana", "1"}})
	if !errors.Is(err, ports.ErrUnavailable) {
		t.Fatalf("%v", err)
	}
	if _, err := f.st.GetContactByPhone(ctx, f.principal.Workspace, domain.MustPhoneNumber("+14155552671")); !errors.Is(err, domain.ErrContactNotFound) {
		t.Fatal("the contact of a failed transaction remains")
	}
	if counts, _ := f.st.CountMessagesByStatus(ctx, f.principal.Workspace, f.campaign.ID); len(counts) != 0 {
		t.Fatalf("the message of a failed transaction remains: %v", counts)
	}
}
