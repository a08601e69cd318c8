package app_test

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/heraldhq/herald/adapters/memstore"
	"github.com/heraldhq/herald/adapters/system"
	"github.com/heraldhq/herald/app"
	"github.com/heraldhq/herald/app/delivery"
	"github.com/heraldhq/herald/app/usecase"
	"github.com/heraldhq/herald/domain"
	"github.com/heraldhq/herald/ports"
)

func TestSyncContactCreatesThenUpdates(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	h := app.NewSyncContactHandler(f.st, f.clock, f.ids, nil, usecase.NewObserver(nil))
	created, err := h.Handle(ctx, app.SyncContact{Principal: f.principal, PhoneNumber: phone, Changes: domain.ContactSync{
		Name: ptr(" Ana "), Email: ptr("ana@example.com"), Attributes: map[string]string{"plan": "pro", "city": "Lisbon"},
		Tags: []string{"vip", "beta", "vip"}}})
	if err != nil {
		t.Fatal(err)
	}
	if !created.Created {
		t.Fatal("the first sync did not report a new contact")
	}
	want := domain.NewContact(created.Contact.ID, created.Contact.ConversationID, f.principal.Workspace, f.principal.Mode, domain.MustPhoneNumber(phone), t0)
	want.Name, want.Email = "Ana", "ana@example.com"
	want.Attributes, want.Tags = map[string]string{"plan": "pro", "city": "Lisbon"}, []string{"beta", "vip"}
	if diff := cmp.Diff(want, created.Contact, cmpDomain); diff != "" {
		t.Fatalf("created contact (-want +got):\n%s", diff)
	}

	f.clock.Advance(time.Minute)
	updated, err := h.Handle(ctx, app.SyncContact{Principal: f.principal, PhoneNumber: phone, Changes: domain.ContactSync{
		Attributes: map[string]string{"city": "", "lang": "pt"}, OptedOut: ptr(true)}})
	if err != nil {
		t.Fatal(err)
	}
	if updated.Created {
		t.Fatal("the second sync reported a new contact")
	}
	want.Attributes = map[string]string{"plan": "pro", "lang": "pt"}
	want.OptedOut, want.OptOutChangedAt = true, ptr(t0.Add(time.Minute))
	want.UpdatedAt = t0.Add(time.Minute)
	if diff := cmp.Diff(want, updated.Contact, cmpDomain); diff != "" {
		t.Fatalf("updated contact (-want +got):\n%s", diff)
	}
	stored, err := app.NewGetContactByPhoneHandler(f.st, nil).Handle(ctx, app.GetContactByPhone{Principal: f.principal, PhoneNumber: phone})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, stored, cmpDomain); diff != "" {
		t.Fatalf("stored contact (-want +got):\n%s", diff)
	}
}

func TestSyncContactRefusals(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	h := app.NewSyncContactHandler(f.st, f.clock, f.ids, nil, nil)
	if _, err := h.Handle(ctx, app.SyncContact{Principal: f.principal, PhoneNumber: "14155552671"}); !errors.Is(err, domain.ErrInvalidPhoneNumber) {
		t.Fatalf("bad phone: %v", err)
	}
	// Invalid changes store nothing, for a new contact or an existing one.
	bad := domain.ContactSync{Name: ptr("Bo"), Email: ptr("not an email")}
	if _, err := h.Handle(ctx, app.SyncContact{Principal: f.principal, PhoneNumber: phone, Changes: bad}); !errors.Is(err, domain.ErrInvalidParameter) {
		t.Fatalf("bad email for a new contact: %v", err)
	}
	if _, err := f.st.GetContactByPhone(ctx, f.principal.Workspace, f.principal.Mode, domain.MustPhoneNumber(phone)); !errors.Is(err, domain.ErrContactNotFound) {
		t.Fatalf("a refused sync created the contact: %v", err)
	}
	first, err := h.Handle(ctx, app.SyncContact{Principal: f.principal, PhoneNumber: phone, Changes: domain.ContactSync{Name: ptr("Ana")}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := h.Handle(ctx, app.SyncContact{Principal: f.principal, PhoneNumber: phone, Changes: bad}); !errors.Is(err, domain.ErrInvalidParameter) {
		t.Fatalf("bad email for an existing contact: %v", err)
	}
	after, err := f.st.GetContact(ctx, f.principal.Workspace, first.Contact.ID)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(first.Contact, after, cmpDomain); diff != "" {
		t.Fatalf("a refused sync changed the contact (-before +after):\n%s", diff)
	}
}

func TestGetContactByPhone(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	ws, _ := f.otherWorkspace(t)
	sent := f.send(t, f.principal, phone)
	h := app.NewGetContactByPhoneHandler(f.st, usecase.NewObserver(nil))
	c, err := h.Handle(ctx, app.GetContactByPhone{Principal: f.principal, PhoneNumber: phone})
	if err != nil || c.ID != sent.ContactID {
		t.Fatalf("contact %+v (%v), want %s", c, err, sent.ContactID)
	}
	for _, q := range []struct {
		p     domain.Principal
		phone string
		want  error
	}{
		{f.principal, "+14155552672", domain.ErrContactNotFound},
		{domain.Principal{Workspace: ws}, phone, domain.ErrContactNotFound},
		{f.principal, "4155552671", domain.ErrInvalidPhoneNumber},
	} {
		if _, err := h.Handle(ctx, app.GetContactByPhone{Principal: q.p, PhoneNumber: q.phone}); !errors.Is(err, q.want) {
			t.Errorf("%s in %s: %v, want %v", q.phone, q.p.Workspace, err, q.want)
		}
	}
}

func TestGetMessage(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	ws, _ := f.otherWorkspace(t)
	sent := f.send(t, f.principal, phone)
	h := app.NewGetMessageHandler(f.st, usecase.NewObserver(nil))
	m, err := h.Handle(ctx, app.GetMessage{Principal: f.principal, MessageID: string(sent.ID)})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(sent, m, cmpDomain); diff != "" {
		t.Fatalf("message (-want +got):\n%s", diff)
	}
	for _, q := range []app.GetMessage{
		{Principal: domain.Principal{Workspace: ws}, MessageID: string(sent.ID)},
		{Principal: f.principal, MessageID: "msg_nope"},
		{Principal: f.principal, MessageID: string(f.campaign.ID)},
		{Principal: f.principal, MessageID: domain.NewID(domain.PrefixMessage, t0, [10]byte{7})},
	} {
		if _, err := h.Handle(ctx, q); !errors.Is(err, domain.ErrMessageNotFound) {
			t.Errorf("%s in %s: %v, want message_not_found", q.MessageID, q.Principal.Workspace, err)
		}
	}
}

func TestListConversation(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	var sent []domain.Message
	for range 5 {
		sent = append(sent, f.send(t, f.principal, phone))
		f.clock.Advance(time.Second)
	}
	contact := sent[0].ContactID
	h := app.NewListConversationHandler(f.st, f.st, usecase.NewObserver(nil))
	var got []domain.MessageID
	cursor := ""
	for pages := 0; ; pages++ {
		if pages > 5 {
			t.Fatal("the pages do not end")
		}
		page, err := h.Handle(ctx, app.ListConversation{Principal: f.principal, ContactID: string(contact), Page: ports.Page{Cursor: cursor, Limit: 2}})
		if err != nil {
			t.Fatal(err)
		}
		if page.Contact.ID != contact || len(page.Entries) > 2 {
			t.Fatalf("page %d: contact %s, %d entries", pages, page.Contact.ID, len(page.Entries))
		}
		for _, e := range page.Entries {
			if e.Direction != domain.Outbound || e.Status != domain.StatusQueued || e.ContactID != contact {
				t.Fatalf("entry %+v", e)
			}
			got = append(got, e.MessageID)
		}
		if page.NextCursor == "" {
			break
		}
		cursor = page.NextCursor
	}
	want := []domain.MessageID{sent[4].ID, sent[3].ID, sent[2].ID, sent[1].ID, sent[0].ID}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("the thread, newest first, across pages (-want +got):\n%s", diff)
	}

	def, err := h.Handle(ctx, app.ListConversation{Principal: f.principal, ContactID: string(contact)})
	if err != nil || len(def.Entries) != 5 || def.NextCursor != "" {
		t.Fatalf("the default page: %d entries, cursor %q (%v), want all 5", len(def.Entries), def.NextCursor, err)
	}

	ws, _ := f.otherWorkspace(t)
	for _, q := range []struct {
		name string
		q    app.ListConversation
		want error
	}{
		{"unknown contact", app.ListConversation{Principal: f.principal, ContactID: domain.NewID(domain.PrefixContact, t0, [10]byte{1})}, domain.ErrContactNotFound},
		{"malformed id", app.ListConversation{Principal: f.principal, ContactID: "ctc_x"}, domain.ErrContactNotFound},
		{"another workspace's contact", app.ListConversation{Principal: domain.Principal{Workspace: ws}, ContactID: string(contact)}, domain.ErrContactNotFound},
		{"limit over 100", app.ListConversation{Principal: f.principal, ContactID: string(contact), Page: ports.Page{Limit: 101}}, domain.ErrInvalidParameter},
		{"negative limit", app.ListConversation{Principal: f.principal, ContactID: string(contact), Page: ports.Page{Limit: -1}}, domain.ErrInvalidParameter},
	} {
		if _, err := h.Handle(ctx, q.q); !errors.Is(err, q.want) {
			t.Errorf("%s: %v, want %v", q.name, err, q.want)
		}
	}
}

func TestGetCampaignAndStats(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	rec := delivery.NewRecordStatusEventHandler(f.st, f.clock, nil, nil)
	outcomes := []struct {
		status  domain.MessageStatus
		failure *domain.Failure
	}{
		{domain.StatusRead, nil}, {domain.StatusRead, nil}, {domain.StatusDelivered, nil}, {domain.StatusSent, nil},
		{domain.StatusFailed, &domain.Failure{Code: 131026}}, {domain.StatusFailed, nil}, {domain.StatusQueued, nil},
	}
	for i, o := range outcomes {
		m := f.send(t, f.principal, fmt.Sprintf("+1415555267%d", i))
		if o.status == domain.StatusQueued {
			continue
		}
		if err := rec.RecordStatus(ctx, ports.StatusEvent{MessageID: m.ID, Status: o.status, At: t0, Failure: o.failure}); err != nil {
			t.Fatal(err)
		}
	}
	want := domain.NewCampaignStats(map[domain.MessageStatus]int{domain.StatusRead: 2, domain.StatusDelivered: 1, domain.StatusSent: 1,
		domain.StatusFailed: 2, domain.StatusQueued: 1}, map[domain.FailureKey]int{{Code: 131026}: 1, {}: 1})
	if want.DeliveryRate != 3.0/6.0 || want.ReadRate != 2.0/3.0 || want.Total != 7 {
		t.Fatalf("expected stats %+v", want)
	}
	stats, err := app.NewGetCampaignStatsHandler(f.st, f.st, f.clock, usecase.NewObserver(nil)).Handle(ctx, app.GetCampaignStats{Principal: f.principal, CampaignID: string(f.campaign.ID)})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, stats.Stats, cmpDomain); diff != "" {
		t.Fatalf("stats (-want +got):\n%s", diff)
	}
	// The default timeline is the last 24 hours by hour; everything
	// happened in the current hour. Reading implies delivery and sending;
	// these failures never left Herald, so they count as failed only.
	if tl := stats.Timeline; len(tl.Points) != 24 || tl.Interval != time.Hour || !tl.To.Equal(t0) {
		t.Fatalf("timeline: %d points every %v up to %v, want 24 hourly up to %v", len(tl.Points), tl.Interval, tl.To, t0)
	}
	wantLast := map[domain.MessageStatus]int{domain.StatusQueued: 7, domain.StatusSent: 4, domain.StatusDelivered: 3,
		domain.StatusRead: 2, domain.StatusFailed: 2}
	if diff := cmp.Diff(wantLast, stats.Timeline.Points[23].Counts, cmpDomain); diff != "" {
		t.Errorf("the current hour's counts (-want +got):\n%s", diff)
	}
	for _, p := range stats.Timeline.Points[:23] {
		for st, n := range p.Counts {
			if n != 0 {
				t.Errorf("%v: %d %v before anything was sent", p.Start, n, st)
			}
		}
	}
	get := app.NewGetCampaignHandler(f.st, f.st, usecase.NewObserver(nil))
	view, err := get.Handle(ctx, app.GetCampaign{Principal: f.principal, CampaignID: string(f.campaign.ID)})
	if err != nil {
		t.Fatal(err)
	}
	// A key sees its own mode only, so it gets no split by mode.
	if diff := cmp.Diff(app.CampaignView{Campaign: f.campaign, Stats: want}, view, cmpDomain); diff != "" {
		t.Fatalf("campaign view of the key (-want +got):\n%s", diff)
	}
	list, err := app.NewListCampaignsHandler(f.st, f.st, nil).Handle(ctx, app.ListCampaigns{Workspace: f.principal.Workspace,
		Mode: f.principal.Mode})
	if err != nil || len(list.Campaigns) != 1 || list.NextCursor != "" {
		t.Fatalf("campaign list %+v (%v)", list, err)
	}
	if diff := cmp.Diff(view, list.Campaigns[0], cmpDomain); diff != "" {
		t.Fatalf("listed campaign (-want +got):\n%s", diff)
	}
	// The dashboard's operator sees every mode, and each apart: every
	// message was sent with the fixture's test key.
	operator := domain.Principal{Workspace: f.principal.Workspace}
	view, err = get.Handle(ctx, app.GetCampaign{Principal: operator, CampaignID: string(f.campaign.ID)})
	if err != nil {
		t.Fatal(err)
	}
	if live, test := view.ByMode.Live, view.ByMode.Test; live.Total != 0 || test.Total != 7 || test.ReadRate != want.ReadRate {
		t.Fatalf("per mode: live %+v, test %+v; want none live, all 7 test", live, test)
	}
	_, wantByMode := domain.NewModeStats(map[domain.KeyMode]map[domain.MessageStatus]int{domain.ModeTest: want.Counts}, nil)
	if diff := cmp.Diff(app.CampaignView{Campaign: f.campaign, Stats: want, ByMode: wantByMode}, view, cmpDomain); diff != "" {
		t.Fatalf("campaign view of the operator (-want +got):\n%s", diff)
	}
	list, err = app.NewListCampaignsHandler(f.st, f.st, nil).Handle(ctx, app.ListCampaigns{Workspace: f.principal.Workspace})
	if err != nil || len(list.Campaigns) != 1 {
		t.Fatalf("campaign list of the operator %+v (%v)", list, err)
	}
	if diff := cmp.Diff(view, list.Campaigns[0], cmpDomain); diff != "" {
		t.Fatalf("campaign listed to the operator (-want +got):\n%s", diff)
	}

	ws, theirs := f.otherWorkspace(t)
	for _, q := range []struct {
		name string
		p    domain.Principal
		id   string
	}{
		{"another workspace's campaign", f.principal, string(theirs.ID)},
		{"my campaign from another workspace", domain.Principal{Workspace: ws}, string(f.campaign.ID)},
		{"malformed id", f.principal, "cmp_1"},
		{"another entity's id", f.principal, string(f.principal.Key)},
	} {
		if _, err := app.NewGetCampaignHandler(f.st, f.st, nil).Handle(ctx, app.GetCampaign{Principal: q.p, CampaignID: q.id}); !errors.Is(err, domain.ErrCampaignNotFound) {
			t.Errorf("get, %s: %v, want campaign_not_found", q.name, err)
		}
		if _, err := app.NewGetCampaignStatsHandler(f.st, f.st, f.clock, nil).Handle(ctx, app.GetCampaignStats{Principal: q.p, CampaignID: q.id}); !errors.Is(err, domain.ErrCampaignNotFound) {
			t.Errorf("stats, %s: %v, want campaign_not_found", q.name, err)
		}
	}
}

func TestCreateKey(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	h := app.NewCreateKeyHandler(f.st, f.st, f.def, f.clock, f.ids)
	for _, c := range []struct {
		mode, want domain.KeyMode
	}{
		{domain.KeyMode{}, domain.ModeTest}, // the default
		{domain.ModeTest, domain.ModeTest},
		{domain.ModeLive, domain.ModeLive},
	} {
		k, err := h.Handle(ctx, app.CreateKey{Name: "ci", Mode: c.mode})
		if err != nil {
			t.Fatal(err)
		}
		tok, err := domain.ParseToken(k.Token.Plaintext())
		if err != nil {
			t.Fatalf("the new token does not parse: %v", err)
		}
		if tok.Mode() != c.want {
			t.Errorf("mode %v: token mode %v, want %v", c.mode, tok.Mode(), c.want)
		}
		stored, err := f.st.GetKeyByIdentifier(ctx, tok.Identifier())
		if err != nil {
			t.Fatal(err)
		}
		want := domain.APIKey{ID: k.Key.ID, Workspace: f.principal.Workspace, Name: "ci", Mode: c.want, Identifier: tok.Identifier(),
			Hash: sha256.Sum256([]byte(k.Token.Plaintext())), CreatedAt: t0}
		if diff := cmp.Diff(want, stored, cmpDomain); diff != "" {
			t.Errorf("stored key (-want +got):\n%s", diff)
		}
		p, err := app.NewAuthenticateKeyHandler(f.st, f.clock, app.Config{}).Handle(ctx, k.Token.Plaintext())
		if err != nil || p.Key != k.Key.ID || p.Mode != c.want {
			t.Errorf("the new key does not authenticate: %+v %v", p, err)
		}
	}
	for _, c := range []struct {
		name string
		cmd  app.CreateKey
		want error
	}{
		{"no name", app.CreateKey{}, domain.ErrInvalidParameter},
		{"unknown workspace", app.CreateKey{Name: "x", Workspace: domain.NewID(domain.PrefixWorkspace, t0, [10]byte{3})}, domain.ErrWorkspaceNotFound},
		{"malformed workspace", app.CreateKey{Name: "x", Workspace: "default"}, domain.ErrWorkspaceNotFound},
	} {
		if _, err := h.Handle(ctx, c.cmd); !errors.Is(err, c.want) {
			t.Errorf("%s: %v, want %v", c.name, err, c.want)
		}
	}
	keys, err := app.NewListKeysHandler(f.st, f.st, f.def).Handle(ctx, app.ListKeys{})
	if err != nil || len(keys) != 4 {
		t.Fatalf("%d keys in the default workspace (%v), want the fixture's and 3 new ones", len(keys), err)
	}
}

func TestRevokeKey(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	h := app.NewRevokeKeyHandler(f.st, f.st, f.def, nil, f.clock) // as the CLI builds it: no cache
	k, err := h.Handle(ctx, app.RevokeKey{KeyID: string(f.principal.Key)})
	if err != nil {
		t.Fatal(err)
	}
	if k.RevokedAt == nil || !k.RevokedAt.Equal(t0) {
		t.Fatalf("revoked at %v, want %v", k.RevokedAt, t0)
	}
	f.clock.Advance(time.Hour)
	again, err := h.Handle(ctx, app.RevokeKey{Workspace: string(f.principal.Workspace), KeyID: string(f.principal.Key)})
	if err != nil || !again.RevokedAt.Equal(t0) {
		t.Fatalf("revoking again: %v at %v, want the first time kept", err, again.RevokedAt)
	}
	if _, err := app.NewAuthenticateKeyHandler(f.st, f.clock, app.Config{}).Handle(ctx, f.token.Plaintext()); !errors.Is(err, domain.ErrKeyRevoked) {
		t.Fatalf("a revoked key authenticates: %v", err)
	}
	ws, _ := f.otherWorkspace(t)
	for _, c := range []struct {
		name string
		cmd  app.RevokeKey
		want error
	}{
		{"unknown key", app.RevokeKey{KeyID: domain.NewID(domain.PrefixKey, t0, [10]byte{1})}, domain.ErrKeyNotFound},
		{"malformed key id", app.RevokeKey{KeyID: "sk_test_x"}, domain.ErrKeyNotFound},
		{"another workspace's key", app.RevokeKey{Workspace: string(ws), KeyID: string(f.principal.Key)}, domain.ErrKeyNotFound},
	} {
		if _, err := h.Handle(ctx, c.cmd); !errors.Is(err, c.want) {
			t.Errorf("%s: %v, want %v", c.name, err, c.want)
		}
	}
}

func TestCreateCampaign(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	h := app.NewCreateCampaignHandler(f.st, f.st, f.st, nil, f.def, f.clock, f.ids)
	draft, err := h.Handle(ctx, app.CreateCampaign{Name: "Order update", TemplateName: "order_update", Language: "en",
		HeaderFormat: domain.HeaderText, HeaderText: "Your order", Body: "Order {{1}} ships {{2}}", Footer: "Reply STOP to opt out",
		VariableLabels: []string{"Order number", "Date"}})
	if err != nil {
		t.Fatal(err)
	}
	tmpl, err := domain.NewTemplate("order_update", "en", domain.HeaderText, "Your order", "Order {{1}} ships {{2}}", "Reply STOP to opt out",
		[]string{"Order number", "Date"})
	if err != nil {
		t.Fatal(err)
	}
	want := domain.Campaign{ID: draft.ID, Workspace: f.principal.Workspace, Name: "Order update", Template: tmpl,
		Status: domain.CampaignDraft, CreatedAt: t0, UpdatedAt: t0}
	if diff := cmp.Diff(want, draft, cmpDomain); diff != "" {
		t.Fatalf("created campaign (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]domain.Placeholder{{Index: 1, Label: "Order number"}, {Index: 2, Label: "Date"}}, draft.Template.Placeholders); diff != "" {
		t.Fatalf("the variable mapping (-want +got):\n%s", diff)
	}
	stored, err := f.st.GetCampaign(ctx, f.principal.Workspace, draft.ID)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(draft, stored, cmpDomain); diff != "" {
		t.Fatalf("stored campaign (-want +got):\n%s", diff)
	}
	if _, err := f.sender(f.st, nil).Handle(ctx, app.SendCampaignMessage{Principal: f.principal, PhoneNumber: phone,
		CampaignID: string(draft.ID), Variables: []string{"1", "2"}}); !errors.Is(err, domain.ErrCampaignNotActive) {
		t.Fatalf("send on a new draft: %v, want campaign_not_active", err)
	}

	active, err := h.Handle(ctx, app.CreateCampaign{Name: "Hello", TemplateName: "hello", Language: "en", Body: "Hello", Activate: true})
	if err != nil || active.Status != domain.CampaignActive {
		t.Fatalf("created with Activate: %s (%v), want active", active.Status, err)
	}
	if _, err := f.sender(f.st, nil).Handle(ctx, app.SendCampaignMessage{Principal: f.principal, PhoneNumber: phone, CampaignID: string(active.ID)}); err != nil {
		t.Fatalf("send on a campaign created active: %v", err)
	}

	before, _, err := f.st.ListCampaigns(ctx, f.principal.Workspace, ports.Page{Limit: 100})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		cmd  app.CreateCampaign
	}{
		{"gap in placeholders", app.CreateCampaign{Name: "x", TemplateName: "x", Language: "en", Body: "{{1}} {{3}}"}},
		{"too many labels", app.CreateCampaign{Name: "x", TemplateName: "x", Language: "en", Body: "{{1}}", VariableLabels: []string{"a", "b"}}},
		{"no name", app.CreateCampaign{TemplateName: "x", Language: "en", Body: "Hi"}},
		{"bad template name", app.CreateCampaign{Name: "x", TemplateName: "Bad Name", Language: "en", Body: "Hi"}},
	} {
		if _, err := h.Handle(ctx, c.cmd); !errors.Is(err, domain.ErrInvalidParameter) {
			t.Errorf("%s: %v, want invalid_parameter", c.name, err)
		}
	}
	after, _, err := f.st.ListCampaigns(ctx, f.principal.Workspace, ports.Page{Limit: 100})
	if err != nil || len(after) != len(before) {
		t.Fatalf("refused campaigns were stored: %d before, %d after (%v)", len(before), len(after), err)
	}
}

func TestChangeCampaignStatus(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	h := app.NewChangeCampaignStatusHandler(f.st, f.st, f.def, f.clock, nil)
	id := string(f.campaign.ID)
	steps := []struct {
		to   domain.CampaignStatus
		want domain.CampaignStatus
		err  error
	}{
		{domain.CampaignPaused, domain.CampaignPaused, nil},
		{domain.CampaignPaused, domain.CampaignPaused, nil},
		{domain.CampaignActive, domain.CampaignActive, nil},
		{domain.CampaignDraft, domain.CampaignActive, domain.ErrInvalidParameter},
		{domain.CampaignArchived, domain.CampaignArchived, nil},
		{domain.CampaignActive, domain.CampaignArchived, domain.ErrInvalidTransition},
	}
	for i, s := range steps {
		f.clock.Advance(time.Minute)
		c, err := h.Handle(ctx, app.ChangeCampaignStatus{CampaignID: id, To: s.to})
		if !errors.Is(err, s.err) || (s.err == nil) != (err == nil) {
			t.Fatalf("step %d, to %s: %v, want %v", i, s.to, err, s.err)
		}
		stored, err := f.st.GetCampaign(ctx, f.principal.Workspace, f.campaign.ID)
		if err != nil || stored.Status != s.want {
			t.Fatalf("step %d, to %s: stored %s (%v), want %s", i, s.to, stored.Status, err, s.want)
		}
		if s.err == nil && c.Status != s.want {
			t.Fatalf("step %d: returned %s, want %s", i, c.Status, s.want)
		}
	}
	ws, theirs := f.otherWorkspace(t)
	for _, c := range []struct {
		name string
		cmd  app.ChangeCampaignStatus
		want error
	}{
		{"unknown campaign", app.ChangeCampaignStatus{CampaignID: domain.NewID(domain.PrefixCampaign, t0, [10]byte{}), To: domain.CampaignActive}, domain.ErrCampaignNotFound},
		{"another workspace's campaign", app.ChangeCampaignStatus{CampaignID: string(theirs.ID), To: domain.CampaignPaused}, domain.ErrCampaignNotFound},
		{"unknown workspace", app.ChangeCampaignStatus{Workspace: domain.NewID(domain.PrefixWorkspace, t0, [10]byte{}), CampaignID: string(theirs.ID), To: domain.CampaignPaused}, domain.ErrWorkspaceNotFound},
	} {
		if _, err := h.Handle(ctx, c.cmd); !errors.Is(err, c.want) {
			t.Errorf("%s: %v, want %v", c.name, err, c.want)
		}
	}
	if c, err := h.Handle(ctx, app.ChangeCampaignStatus{Workspace: string(ws), CampaignID: string(theirs.ID), To: domain.CampaignPaused}); err != nil || c.Status != domain.CampaignPaused {
		t.Fatalf("pausing in the named workspace: %s (%v)", c.Status, err)
	}
}

func TestEnsureDefaultWorkspace(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	first, err := f.def.Handle(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if first.ID != f.principal.Workspace || !first.IsDefault || first.Name != domain.DefaultWorkspaceName {
		t.Fatalf("default workspace %+v, want %s (default, named %s)", first, f.principal.Workspace, domain.DefaultWorkspaceName)
	}
	// Many callers at once, as several processes starting together: all
	// agree on the one default.
	const callers = 16
	got := make([]domain.Workspace, callers)
	errs := make([]error, callers)
	var wg sync.WaitGroup
	for i := range callers {
		wg.Go(func() {
			got[i], errs[i] = app.NewEnsureDefaultWorkspaceHandler(f.st, f.clock, f.ids).Handle(ctx)
		})
	}
	wg.Wait()
	for i := range callers {
		if errs[i] != nil {
			t.Fatal(errs[i])
		}
		if diff := cmp.Diff(first, got[i]); diff != "" {
			t.Fatalf("call %d (-first +this):\n%s", i, diff)
		}
	}
}

func TestEnsureDefaultWorkspaceOnAFreshStoreAgrees(t *testing.T) {
	t.Parallel()
	fresh := memstore.New()
	const callers = 16
	ids := make([]domain.WorkspaceID, callers)
	errs := make([]error, callers)
	var wg sync.WaitGroup
	for i := range callers {
		wg.Go(func() {
			w, err := app.NewEnsureDefaultWorkspaceHandler(fresh, newClock(), system.NewIDs()).Handle(context.Background())
			ids[i], errs[i] = w.ID, err
		})
	}
	wg.Wait()
	for i := range callers {
		if errs[i] != nil {
			t.Fatal(errs[i])
		}
		if ids[i] != ids[0] {
			t.Fatalf("concurrent first starts made two defaults: %s and %s", ids[0], ids[i])
		}
	}
	if _, err := fresh.GetWorkspace(context.Background(), ids[0]); err != nil {
		t.Fatalf("the default workspace was not stored: %v", err)
	}
}
