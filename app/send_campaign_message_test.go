package app_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/heraldhq/herald/app"
	"github.com/heraldhq/herald/app/delivery"
	"github.com/heraldhq/herald/app/usecase"
	"github.com/heraldhq/herald/domain"
	"github.com/heraldhq/herald/ports"
	"github.com/heraldhq/herald/ports/portsmock"
	"github.com/heraldhq/herald/ports/porttest"
)

const phone = "+14155552671"

func TestSendCommitsMessageContactAndEntry(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	wake := delivery.NewWakeup()
	res, err := f.sender(f.st, wake).Handle(ctx, app.SendCampaignMessage{Principal: f.principal, PhoneNumber: phone,
		CampaignID: string(f.campaign.ID), Variables: []string{"Ana", "1234"}})
	if err != nil {
		t.Fatal(err)
	}
	if res.DryRun {
		t.Fatal("a real send reported a dry run")
	}
	if !signalled(wake) {
		t.Error("the dispatcher was not woken after an accepted send")
	}

	c, err := f.st.GetContactByPhone(ctx, f.principal.Workspace, f.principal.Mode, domain.MustPhoneNumber(phone))
	if err != nil {
		t.Fatalf("the contact was not created: %v", err)
	}
	wantContact := domain.NewContact(c.ID, c.ConversationID, f.principal.Workspace, f.principal.Mode, domain.MustPhoneNumber(phone), t0)
	wantContact.LastMessageAt = &t0
	if diff := cmp.Diff(wantContact, c, cmpDomain); diff != "" {
		t.Errorf("stored contact (-want +got):\n%s", diff)
	}
	if !strings.HasPrefix(string(c.ID), "ctc_") || !strings.HasPrefix(string(c.ConversationID), "cnv_") {
		t.Errorf("contact ids %s, %s", c.ID, c.ConversationID)
	}

	wantMsg := domain.Message{
		ID: res.Message.ID, Kind: domain.MessageKindTemplate, Workspace: f.principal.Workspace, CampaignID: f.campaign.ID, ContactID: c.ID,
		KeyID: f.principal.Key, Mode: domain.ModeTest, Phone: domain.MustPhoneNumber(phone),
		TemplateName: "welcome", Language: "en_US", HeaderFormat: domain.HeaderNone,
		Variables: []string{"Ana", "1234"}, RenderedBody: "Hi Ana, your code is 1234",
		Values: []domain.SlotValue{{Slot: f.campaign.Template.Slots[0], Value: "Ana"}, {Slot: f.campaign.Template.Slots[1], Value: "1234"}},
		Status: domain.StatusQueued, History: history(t0, domain.StatusQueued), CreatedAt: t0, UpdatedAt: t0,
	}
	if _, err := domain.ParseMessageID(string(res.Message.ID)); err != nil {
		t.Errorf("message id %q: %v", res.Message.ID, err)
	}
	if diff := cmp.Diff(wantMsg, res.Message, cmpDomain); diff != "" {
		t.Errorf("returned message (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(wantMsg, f.message(t, res.Message.ID), cmpDomain); diff != "" {
		t.Errorf("stored message (-want +got):\n%s", diff)
	}

	entries, next, err := f.st.ListEntries(ctx, f.principal.Workspace, c.ID, domain.KeyMode{}, ports.Page{Limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 1 || next != "" {
		t.Fatalf("%d thread entries, want 1", len(entries))
	}
	wantEntry := domain.Entry{ID: entries[0].ID, Workspace: f.principal.Workspace, ContactID: c.ID, ConversationID: c.ConversationID,
		Mode: f.principal.Mode, Direction: domain.Outbound, Kind: domain.KindTemplate, MessageID: res.Message.ID, Status: domain.StatusQueued, Body: "Hi Ana, your code is 1234", CreatedAt: t0}
	if diff := cmp.Diff(wantEntry, entries[0], cmpDomain); diff != "" {
		t.Errorf("thread entry (-want +got):\n%s", diff)
	}
}

func TestSecondSendReusesTheContact(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	first := f.send(t, f.principal, phone)
	f.clock.Advance(time.Minute)
	second := f.send(t, f.principal, phone)
	if second.ContactID != first.ContactID || second.ID == first.ID {
		t.Fatalf("second send: contact %s message %s, want contact %s and a new message", second.ContactID, second.ID, first.ContactID)
	}
	c, err := f.st.GetContact(ctx, f.principal.Workspace, first.ContactID)
	if err != nil {
		t.Fatal(err)
	}
	if later := t0.Add(time.Minute); c.LastMessageAt == nil || !c.LastMessageAt.Equal(later) || !c.CreatedAt.Equal(t0) {
		t.Fatalf("contact created %v, last message %v; want %v and %v", c.CreatedAt, c.LastMessageAt, t0, later)
	}
	if contacts, messages, entries := f.stored(t, f.principal.Workspace, phone); contacts != 1 || messages != 2 || entries != 2 {
		t.Fatalf("stored %d contacts, %d messages, %d entries; want 1, 2, 2", contacts, messages, entries)
	}
}

// TestSendCheckOrder: when several things are wrong, the error is the first
// check in DESIGN's order: phone, campaign exists in the workspace, campaign
// active, variables, media header, opt-out. Nothing is stored and the
// dispatcher is not woken.
func TestSendCheckOrder(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	ws := f.principal.Workspace
	tmpl := app.CreateCampaign{TemplateName: "welcome", Language: "en_US", Body: "Hi {{1}}, your code is {{2}}"}
	paused := tmpl
	paused.Name, paused.Activate = "Paused", true
	pausedCampaign := f.createCampaign(t, ws, paused)
	if _, err := app.NewChangeCampaignStatusHandler(f.st, f.st, f.def, f.clock, nil).Handle(ctx,
		app.ChangeCampaignStatus{Workspace: string(ws), CampaignID: string(pausedCampaign.ID), To: domain.CampaignPaused}); err != nil {
		t.Fatal(err)
	}
	draft := tmpl
	draft.Name = "Draft"
	draftCampaign := f.createCampaign(t, ws, draft)
	imageCampaign := f.createCampaign(t, ws, app.CreateCampaign{Name: "Image", TemplateName: "photo", Language: "en",
		HeaderFormat: domain.HeaderImage, Body: "Look, {{1}}", Activate: true})
	_, theirs := f.otherWorkspace(t)
	const optedOut = "+14155550199"
	if _, err := app.NewSyncContactHandler(f.st, f.clock, f.ids, nil, nil).Handle(ctx, app.SyncContact{Principal: f.principal,
		PhoneNumber: optedOut, Changes: domain.ContactSync{OptedOut: ptr(true)}}); err != nil {
		t.Fatal(err)
	}
	unknown := domain.NewID(domain.PrefixCampaign, t0, [10]byte{1})
	good := []string{"Ana", "1234"}
	const png = "https://cdn.example.com/a.png"

	cases := []struct {
		name      string
		phone     string
		campaign  string
		vars      []string
		media     string
		want      error
		wantParam string
	}{
		{"bad phone and unknown campaign", "0044 7911", unknown, nil, "http://x", domain.ErrInvalidPhoneNumber, "phoneNumber"},
		{"bad phone and malformed campaign id", "+1415", "nope", good, "", domain.ErrInvalidPhoneNumber, "phoneNumber"},
		{"unknown campaign and bad variables", phone, unknown, []string{"only one"}, "http://x", domain.ErrCampaignNotFound, "campaignId"},
		{"malformed campaign id", phone, "cmp_NOT-AN-ID", good, "", domain.ErrCampaignNotFound, "campaignId"},
		{"another workspace's campaign", phone, string(theirs.ID), good, "", domain.ErrCampaignNotFound, "campaignId"},
		{"paused campaign and bad variables", phone, string(pausedCampaign.ID), nil, "http://x", domain.ErrCampaignNotActive, "campaignId"},
		{"draft campaign", phone, string(draftCampaign.ID), good, "", domain.ErrCampaignNotActive, "campaignId"},
		{"bad variables and a media URL the template does not take", phone, string(f.campaign.ID), []string{"Ana"}, png, domain.ErrVariablesMismatch, "variables"},
		{"an empty variable", phone, string(f.campaign.ID), []string{"Ana", " "}, "", domain.ErrVariablesMismatch, "variables[1]"},
		{"a media URL the template does not take", phone, string(f.campaign.ID), good, png, domain.ErrMediaHeaderNotAllowed, "mediaHeaderUrl"},
		{"image template without a media URL", phone, string(imageCampaign.ID), []string{"Ana"}, "", domain.ErrMediaHeaderRequired, "mediaHeaderUrl"},
		{"image template with a plain http URL", phone, string(imageCampaign.ID), []string{"Ana"}, "http://cdn.example.com/a.png", domain.ErrInvalidMediaURL, "mediaHeaderUrl"},
		{"image template with a loopback URL", phone, string(imageCampaign.ID), []string{"Ana"}, "https://127.0.0.1/a.png", domain.ErrInvalidMediaURL, "mediaHeaderUrl"},
		{"opted-out contact and bad variables", optedOut, string(f.campaign.ID), nil, "", domain.ErrVariablesMismatch, "variables"},
		{"opted-out contact", optedOut, string(f.campaign.ID), good, "", domain.ErrContactOptedOut, "phoneNumber"},
	}
	for _, c := range cases {
		for _, dryRun := range []bool{false, true} {
			wake := delivery.NewWakeup()
			res, err := f.sender(f.st, wake).Handle(ctx, app.SendCampaignMessage{Principal: f.principal, PhoneNumber: c.phone,
				CampaignID: c.campaign, Variables: c.vars, MediaHeaderURL: c.media, DryRun: dryRun})
			var de *domain.Error
			if !errors.Is(err, c.want) || !errors.As(err, &de) || de.Param != c.wantParam {
				t.Errorf("%s (dry run %v): %v, want %v on %s", c.name, dryRun, err, c.want, c.wantParam)
			}
			if res.Message.ID != "" || signalled(wake) {
				t.Errorf("%s (dry run %v): refused but returned %+v or woke the dispatcher", c.name, dryRun, res.Message)
			}
		}
	}
	for _, id := range []domain.CampaignID{f.campaign.ID, pausedCampaign.ID, draftCampaign.ID, imageCampaign.ID} {
		if counts, _ := f.st.CountMessagesByStatus(ctx, ws, id, domain.KeyMode{}); len(counts) != 0 {
			t.Errorf("refused sends stored messages in %s: %v", id, counts)
		}
	}
	if _, err := f.st.GetContactByPhone(ctx, ws, f.principal.Mode, domain.MustPhoneNumber(phone)); !errors.Is(err, domain.ErrContactNotFound) {
		t.Errorf("refused sends created the contact: %v", err)
	}
}

func TestSendToOptedOutContactStoresNothing(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	f.send(t, f.principal, phone)
	c, err := app.NewSyncContactHandler(f.st, f.clock, f.ids, nil, nil).Handle(ctx, app.SyncContact{Principal: f.principal,
		PhoneNumber: phone, Changes: domain.ContactSync{OptedOut: ptr(true)}})
	if err != nil {
		t.Fatal(err)
	}
	f.clock.Advance(time.Minute)
	wake := delivery.NewWakeup()
	_, err = f.sender(f.st, wake).Handle(ctx, app.SendCampaignMessage{Principal: f.principal, PhoneNumber: phone,
		CampaignID: string(f.campaign.ID), Variables: []string{"Ana", "1234"}})
	if !errors.Is(err, domain.ErrContactOptedOut) {
		t.Fatalf("send to an opted-out contact: %v, want contact_opted_out", err)
	}
	if signalled(wake) {
		t.Error("a refused send woke the dispatcher")
	}
	if contacts, messages, entries := f.stored(t, f.principal.Workspace, phone); contacts != 1 || messages != 1 || entries != 1 {
		t.Fatalf("after the refused send: %d contacts, %d messages, %d entries; want only the first send's 1, 1, 1", contacts, messages, entries)
	}
	after, err := f.st.GetContact(ctx, f.principal.Workspace, c.Contact.ID)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(c.Contact, after, cmpDomain); diff != "" {
		t.Fatalf("a refused send changed the contact (-before +after):\n%s", diff)
	}
}

func TestDryRun(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	video := f.createCampaign(t, f.principal.Workspace, app.CreateCampaign{Name: "Video", TemplateName: "clip", Language: "pt_BR",
		HeaderFormat: domain.HeaderVideo, Body: "{{2}}, {{1}}!", Activate: true})
	cases := []struct {
		name     string
		campaign domain.Campaign
		vars     []string
		media    string
		body     string
		want     []ports.PayloadComponent
		template string
		language string
	}{
		{"body parameters in order", f.campaign, []string{"Ana", "1234"}, "", "Hi Ana, your code is 1234",
			[]ports.PayloadComponent{{Type: "body", Parameters: []ports.PayloadParameter{{Type: "text", Text: "Ana"}, {Type: "text", Text: "1234"}}}},
			"welcome", "en_US"},
		{"media header first", video, []string{"world", "Hello"}, "https://cdn.example.com/clip.mp4", "Hello, world!",
			[]ports.PayloadComponent{
				{Type: "header", Parameters: []ports.PayloadParameter{{Type: "video", Video: &ports.PayloadMedia{Link: "https://cdn.example.com/clip.mp4"}}}},
				{Type: "body", Parameters: []ports.PayloadParameter{{Type: "text", Text: "world"}, {Type: "text", Text: "Hello"}}},
			},
			"clip", "pt_BR"},
	}
	for _, c := range cases {
		wake := delivery.NewWakeup()
		res, err := f.sender(f.st, wake).Handle(ctx, app.SendCampaignMessage{Principal: f.principal, PhoneNumber: phone,
			CampaignID: string(c.campaign.ID), Variables: c.vars, MediaHeaderURL: c.media, DryRun: true})
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if !res.DryRun || res.Message.RenderedBody != c.body || res.Message.Phone.String() != phone || res.Message.CampaignID != c.campaign.ID {
			t.Errorf("%s: result %+v", c.name, res.Message)
		}
		if _, err := domain.ParseMessageID(string(res.Message.ID)); err != nil {
			t.Errorf("%s: the dry run's message has no id for biz_opaque_callback_data: %v", c.name, err)
		}
		want := ports.TemplatePayload{MessagingProduct: "whatsapp", RecipientType: "individual", To: phone, Type: "template",
			BizOpaqueCallbackData: string(res.Message.ID),
			Template: ports.PayloadTemplate{Name: c.template, Language: ports.PayloadLanguage{Policy: "deterministic", Code: c.language},
				Components: c.want}}
		if diff := cmp.Diff(want, res.Payload); diff != "" {
			t.Errorf("%s: payload (-want +got):\n%s", c.name, diff)
		}
		if signalled(wake) {
			t.Errorf("%s: a dry run woke the dispatcher", c.name)
		}
	}
	if contacts, messages, entries := f.stored(t, f.principal.Workspace, phone); contacts != 0 || messages != 0 || entries != 0 {
		t.Fatalf("dry runs stored %d contacts, %d messages, %d entries", contacts, messages, entries)
	}
	if counts, _ := f.st.CountMessagesByStatus(ctx, f.principal.Workspace, video.ID, domain.KeyMode{}); len(counts) != 0 {
		t.Fatalf("dry runs stored messages: %v", counts)
	}
	if claimed, err := f.st.ClaimMessages(ctx, ports.Claim{Owner: "t", Now: t0.Add(time.Hour), LeaseUntil: t0.Add(2 * time.Hour), Limit: 10}); err != nil || len(claimed) != 0 {
		t.Fatalf("dry runs queued %d messages (%v)", len(claimed), err)
	}
}

// TestDryRunForAKnownContact: the dry run reads the contact, and the
// message it shows is addressed to it, without touching it.
func TestDryRunForAKnownContact(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	sent := f.send(t, f.principal, phone)
	before, err := f.st.GetContact(ctx, f.principal.Workspace, sent.ContactID)
	if err != nil {
		t.Fatal(err)
	}
	f.clock.Advance(time.Hour)
	res, err := f.sender(f.st, nil).Handle(ctx, app.SendCampaignMessage{Principal: f.principal, PhoneNumber: phone,
		CampaignID: string(f.campaign.ID), Variables: []string{"Bo", "9"}, DryRun: true})
	if err != nil {
		t.Fatal(err)
	}
	if res.Message.ContactID != sent.ContactID {
		t.Errorf("dry run addressed contact %q, want %q", res.Message.ContactID, sent.ContactID)
	}
	after, err := f.st.GetContact(ctx, f.principal.Workspace, sent.ContactID)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(before, after, cmpDomain); diff != "" {
		t.Fatalf("a dry run changed the contact (-before +after):\n%s", diff)
	}
	if _, messages, entries := f.stored(t, f.principal.Workspace, phone); messages != 1 || entries != 1 {
		t.Fatalf("a dry run stored a message or entry: %d, %d", messages, entries)
	}
}

// TestFailedCommitLeavesNothing: when the transaction's commit fails after
// every write succeeded, nothing remains and the error is returned as is.
func TestFailedCommitLeavesNothing(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	commitFails := &portsmock.TransactorMock{WithinTxFunc: func(ctx context.Context, fn func(context.Context, ports.Repos) error) error {
		return f.st.WithinTx(ctx, func(ctx context.Context, r ports.Repos) error {
			if err := fn(ctx, r); err != nil {
				return err
			}
			return fmt.Errorf("commit: %w", ports.ErrUnavailable) // every write done, then the commit fails
		})
	}}
	unreachable := &portsmock.TransactorMock{WithinTxFunc: func(context.Context, func(context.Context, ports.Repos) error) error {
		return fmt.Errorf("begin: %w", ports.ErrUnavailable)
	}}
	for name, tx := range map[string]*portsmock.TransactorMock{"commit fails": commitFails, "store unreachable": unreachable} {
		wake := delivery.NewWakeup()
		res, err := f.sender(tx, wake).Handle(ctx, app.SendCampaignMessage{Principal: f.principal, PhoneNumber: phone,
			CampaignID: string(f.campaign.ID), Variables: []string{"Ana", "1234"}})
		if !errors.Is(err, ports.ErrUnavailable) {
			t.Fatalf("%s: %v, want the store's error", name, err)
		}
		if res.Message.ID != "" || signalled(wake) {
			t.Fatalf("%s: a failed send returned %+v or woke the dispatcher", name, res.Message)
		}
		if n := len(tx.WithinTxCalls()); n != 1 {
			t.Fatalf("%s: %d transactions, want 1 (an unavailable store is not retried here)", name, n)
		}
	}
	if contacts, messages, entries := f.stored(t, f.principal.Workspace, phone); contacts != 0 || messages != 0 || entries != 0 {
		t.Fatalf("a failed transaction left %d contacts, %d messages, %d entries", contacts, messages, entries)
	}
	if claimed, err := f.st.ClaimMessages(ctx, ports.Claim{Owner: "t", Now: t0.Add(time.Hour), LeaseUntil: t0.Add(2 * time.Hour), Limit: 10}); err != nil || len(claimed) != 0 {
		t.Fatalf("a failed transaction queued %d messages (%v)", len(claimed), err)
	}
}

// TestSendRetriesAContactCreatedConcurrently: when the contact was created
// by another request between the read and the insert (a conflict), the send
// runs again and finds it.
func TestSendRetriesAContactCreatedConcurrently(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	tx := &portsmock.TransactorMock{}
	tx.WithinTxFunc = func(ctx context.Context, fn func(context.Context, ports.Repos) error) error {
		if len(tx.WithinTxCalls()) == 1 {
			// The other request's contact lands first.
			if _, err := app.NewSyncContactHandler(f.st, f.clock, f.ids, nil, nil).Handle(ctx, app.SyncContact{
				Principal: f.principal, PhoneNumber: phone, Changes: domain.ContactSync{Name: ptr("Ana")}}); err != nil {
				return err
			}
			return &domain.Error{Code: domain.CodeConflict, Detail: "a contact with this phone number exists"}
		}
		return f.st.WithinTx(ctx, fn)
	}
	wake := delivery.NewWakeup()
	res, err := f.sender(tx, wake).Handle(ctx, app.SendCampaignMessage{Principal: f.principal, PhoneNumber: phone,
		CampaignID: string(f.campaign.ID), Variables: []string{"Ana", "1234"}})
	if err != nil {
		t.Fatalf("send after a conflict: %v", err)
	}
	if n := len(tx.WithinTxCalls()); n != 2 {
		t.Fatalf("%d transactions, want 2", n)
	}
	c, err := f.st.GetContactByPhone(ctx, f.principal.Workspace, f.principal.Mode, domain.MustPhoneNumber(phone))
	if err != nil || c.ID != res.Message.ContactID || c.Name != "Ana" {
		t.Fatalf("contact %+v (%v), want the concurrently created one for message %s", c, err, res.Message.ID)
	}
	if !signalled(wake) {
		t.Error("the dispatcher was not woken")
	}
}

func TestSendInAnotherWorkspaceIsSeparate(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	ws, theirs := f.otherWorkspace(t)
	mine := f.send(t, f.principal, phone)
	res, err := f.sender(f.st, nil).Handle(ctx, app.SendCampaignMessage{Principal: domain.Principal{Workspace: ws, Key: "key_other", Mode: domain.ModeTest},
		PhoneNumber: phone, CampaignID: string(theirs.ID), Variables: []string{"Bo", "1"}})
	if err != nil {
		t.Fatal(err)
	}
	if res.Message.ContactID == mine.ContactID {
		t.Fatal("two workspaces share a contact")
	}
	if _, err := f.st.GetMessage(ctx, f.principal.Workspace, res.Message.ID); !errors.Is(err, domain.ErrMessageNotFound) {
		t.Fatalf("another workspace's message is visible: %v", err)
	}
}

// A live message only ever goes to Meta. Without a live sender, a live
// key's send and dry run are refused before anything is checked or stored;
// a test key's still go to the sandbox.
func TestLiveSendWithoutTheCloudAPIIsRefused(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	h := app.NewSendCampaignMessageHandler(app.SendCampaignDeps{Tx: f.st, Campaigns: f.st, Contacts: f.st,
		Messages: f.st, Idempotency: f.st, SendCounts: f.st, Media: porttest.MediaByExtension(),
		Clock: f.clock, IDs: f.ids, Obs: usecase.NewObserver(nil)})
	live := f.principal
	live.Mode = domain.ModeLive
	for _, dry := range []bool{false, true} {
		_, err := h.Handle(context.Background(), app.SendCampaignMessage{Principal: live, PhoneNumber: phone,
			CampaignID: string(f.campaign.ID), Variables: []string{"Ana", "1234"}, DryRun: dry})
		var de *domain.Error
		if !errors.As(err, &de) || de.Code != domain.CodeWhatsAppNotConfigured || !errors.Is(err, domain.ErrWhatsAppNotConfigured) ||
			!strings.Contains(de.Detail, "HERALD_WHATSAPP_ACCESS_TOKEN") || !strings.Contains(de.Detail, "sk_test_") {
			t.Fatalf("live send (dry run %v) without the Cloud API: %v; want whatsapp_not_configured saying what to set", dry, err)
		}
	}
	if _, messages, _ := f.stored(t, f.principal.Workspace, phone); messages != 0 {
		t.Fatalf("a refused live send stored %d messages", messages)
	}
	if _, err := h.Handle(context.Background(), app.SendCampaignMessage{Principal: f.principal, PhoneNumber: phone,
		CampaignID: string(f.campaign.ID), Variables: []string{"Ana", "1234"}}); err != nil {
		t.Fatalf("a test key's send: %v", err)
	}
}
