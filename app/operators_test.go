package app_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/heraldhq/herald/adapters/system"
	"github.com/heraldhq/herald/app"
	"github.com/heraldhq/herald/app/usecase"
	"github.com/heraldhq/herald/domain"
	"github.com/heraldhq/herald/ports"
	"github.com/heraldhq/herald/ports/portsmock"
)

func TestOperatorSignsInUntilTheSessionEnds(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	o, err := app.NewCreateOperatorHandler(f.st, f.st, system.NewPasswords(system.PasswordConfig{}), f.def, f.clock, f.ids).Handle(ctx,
		app.CreateOperator{Email: "Ops@Example.com", Password: "correct horse battery"})
	if err != nil {
		t.Fatal(err)
	}
	if o.Email != "ops@example.com" || o.Workspace != f.principal.Workspace || o.PasswordHash == "correct horse battery" {
		t.Fatalf("operator %+v: want the normalised address, the default workspace and a hash", o)
	}
	h := app.NewLogInHandler(f.st, system.NewPasswords(system.PasswordConfig{}), f.clock, f.ids, usecase.NewObserver(nil))
	for _, bad := range []app.LogIn{
		{Email: "ops@example.com", Password: "correct horse batteries"},
		{Email: "nobody@example.com", Password: "correct horse battery"},
		{Email: "not an address", Password: "correct horse battery"},
	} {
		if _, err := h.Handle(ctx, bad); !errors.Is(err, domain.ErrInvalidCredentials) {
			t.Errorf("LogIn(%+v) = %v; want invalid_credentials", bad, err)
		}
	}
	in, err := h.Handle(ctx, app.LogIn{Email: " OPS@example.com", Password: "correct horse battery"})
	if err != nil {
		t.Fatal(err)
	}
	s, err := h.Session(ctx, in.Token.Plaintext())
	if err != nil || s.Operator != o.ID || s.Workspace != o.Workspace {
		t.Fatalf("Session = %+v, %v; want the operator's", s, err)
	}
	f.clock.Advance(domain.SessionLifetime)
	if _, err := h.Session(ctx, in.Token.Plaintext()); !errors.Is(err, domain.ErrSessionNotFound) {
		t.Fatalf("a session past its lifetime: %v; want session_not_found", err)
	}
	if _, err := f.st.GetSession(ctx, in.Token.Hash()); !errors.Is(err, domain.ErrSessionNotFound) {
		t.Errorf("an ended session is still stored: %v", err)
	}

	again, err := h.Handle(ctx, app.LogIn{Email: "ops@example.com", Password: "correct horse battery"})
	if err != nil {
		t.Fatal(err)
	}
	if err := h.LogOut(ctx, again.Token.Plaintext()); err != nil {
		t.Fatal(err)
	}
	if _, err := h.Session(ctx, again.Token.Plaintext()); !errors.Is(err, domain.ErrSessionNotFound) {
		t.Fatalf("a signed-out session: %v; want session_not_found", err)
	}
}

func TestCreateOperatorRefusals(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	h := app.NewCreateOperatorHandler(f.st, f.st, system.NewPasswords(system.PasswordConfig{}), f.def, f.clock, f.ids)
	if _, err := h.Handle(ctx, app.CreateOperator{Email: "ops@example.com", Password: "correct horse battery"}); err != nil {
		t.Fatal(err)
	}
	for name, c := range map[string]struct {
		cmd   app.CreateOperator
		want  error
		param string
	}{
		"taken address":  {app.CreateOperator{Email: "OPS@example.com", Password: "another good password"}, domain.ErrConflict, "email"},
		"short password": {app.CreateOperator{Email: "b@example.com", Password: "short"}, domain.ErrInvalidParameter, "password"},
		"bad address":    {app.CreateOperator{Email: "b@", Password: "another good password"}, domain.ErrInvalidParameter, "email"},
		"no workspace":   {app.CreateOperator{Email: "c@example.com", Password: "another good password", Workspace: "wsp_00000000000000000000000000"}, domain.ErrWorkspaceNotFound, ""},
	} {
		_, err := h.Handle(ctx, c.cmd)
		var de *domain.Error
		if !errors.Is(err, c.want) || (c.param != "" && (!errors.As(err, &de) || de.Param != c.param)) {
			t.Errorf("%s: %v; want %v on %q", name, err, c.want, c.param)
		}
	}
}

func TestLogInHidesAnUnreadableHashAsNothing(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	hasher := &portsmock.PasswordHasherMock{
		HashPasswordFunc:  func(string) (string, error) { return "stored", nil },
		CheckPasswordFunc: func(context.Context, string, string) (bool, error) { return false, errors.New("hash is not argon2id") },
	}
	if _, err := app.NewCreateOperatorHandler(f.st, f.st, hasher, f.def, f.clock, f.ids).Handle(ctx,
		app.CreateOperator{Email: "ops@example.com", Password: "correct horse battery"}); err != nil {
		t.Fatal(err)
	}
	_, err := app.NewLogInHandler(f.st, hasher, f.clock, f.ids, usecase.NewObserver(nil)).Handle(ctx,
		app.LogIn{Email: "ops@example.com", Password: "correct horse battery"})
	if err == nil || errors.Is(err, domain.ErrInvalidCredentials) {
		t.Fatalf("a stored hash that cannot be read: %v; want that error, not a wrong-password answer", err)
	}
}

// TestLogInPassesOnAFullHasher: when the hasher has no room for the check,
// a known and an unknown address both get ErrTooManyPasswordChecks, not a
// wrong-password answer that would tell them apart.
func TestLogInPassesOnAFullHasher(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	hasher := &portsmock.PasswordHasherMock{
		HashPasswordFunc: func(string) (string, error) { return "stored", nil },
		CheckPasswordFunc: func(context.Context, string, string) (bool, error) {
			return false, ports.ErrTooManyPasswordChecks
		},
	}
	if _, err := app.NewCreateOperatorHandler(f.st, f.st, hasher, f.def, f.clock, f.ids).Handle(ctx,
		app.CreateOperator{Email: "ops@example.com", Password: "correct horse battery"}); err != nil {
		t.Fatal(err)
	}
	h := app.NewLogInHandler(f.st, hasher, f.clock, f.ids, usecase.NewObserver(nil))
	for _, email := range []string{"ops@example.com", "nobody@example.com"} {
		if _, err := h.Handle(ctx, app.LogIn{Email: email, Password: "correct horse battery"}); !errors.Is(err, ports.ErrTooManyPasswordChecks) {
			t.Errorf("%s with a full hasher: %v; want ErrTooManyPasswordChecks", email, err)
		}
	}
}

func TestEditCampaignRelabelsAndRenames(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	h := app.NewEditCampaignHandler(f.st, f.clock, usecase.NewObserver(nil))
	f.clock.Advance(time.Minute)
	c, err := h.Handle(ctx, app.EditCampaign{Workspace: f.principal.Workspace, CampaignID: string(f.campaign.ID),
		Name: " Welcome v2 ", VariableLabels: []string{" Given name ", "One-time code"}})
	if err != nil {
		t.Fatal(err)
	}
	if c.Name != "Welcome v2" || c.Template.Placeholders[0].Label != "Given name" || c.Template.Placeholders[1].Label != "One-time code" ||
		!c.UpdatedAt.Equal(t0.Add(time.Minute)) || c.Template.Body != f.campaign.Template.Body {
		t.Fatalf("edited campaign %+v", c)
	}
	for name, cmd := range map[string]app.EditCampaign{
		"one label for two placeholders": {Name: "x", VariableLabels: []string{"a"}},
		"no name":                        {Name: " ", VariableLabels: []string{"a", "b"}},
	} {
		cmd.Workspace, cmd.CampaignID = f.principal.Workspace, string(f.campaign.ID)
		if _, err := h.Handle(ctx, cmd); !errors.Is(err, domain.ErrInvalidParameter) {
			t.Errorf("%s: %v; want invalid_parameter", name, err)
		}
	}
	stored, _ := f.st.GetCampaign(ctx, f.principal.Workspace, f.campaign.ID)
	if stored.Name != "Welcome v2" {
		t.Errorf("a refused edit changed the campaign: %q", stored.Name)
	}
	_, theirs := f.otherWorkspace(t)
	if _, err := h.Handle(ctx, app.EditCampaign{Workspace: f.principal.Workspace, CampaignID: string(theirs.ID),
		Name: "x"}); !errors.Is(err, domain.ErrCampaignNotFound) {
		t.Errorf("editing another workspace's campaign: %v; want campaign_not_found", err)
	}
}

func TestListCampaignMessagesAndContacts(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	send := f.sender(f.st, nil)
	for _, p := range []string{"+14155550101", "+14155550102", "+4915112345678"} {
		if _, err := send.Handle(ctx, app.SendCampaignMessage{Principal: f.principal, PhoneNumber: p,
			CampaignID: string(f.campaign.ID), Variables: []string{"Ada", "1"}}); err != nil {
			t.Fatal(err)
		}
	}
	msgs, err := app.NewListCampaignMessagesHandler(f.st, f.st, usecase.NewObserver(nil)).Handle(ctx,
		app.ListCampaignMessages{Workspace: f.principal.Workspace, CampaignID: string(f.campaign.ID)})
	if err != nil || len(msgs.Messages) != 3 || msgs.Messages[0].Phone.String() != "+4915112345678" {
		t.Fatalf("campaign messages = %+v, %v; want three, newest first", msgs, err)
	}
	_, theirs := f.otherWorkspace(t)
	if _, err := app.NewListCampaignMessagesHandler(f.st, f.st, usecase.NewObserver(nil)).Handle(ctx,
		app.ListCampaignMessages{Workspace: f.principal.Workspace, CampaignID: string(theirs.ID)}); !errors.Is(err, domain.ErrCampaignNotFound) {
		t.Errorf("another workspace's campaign's messages: %v; want campaign_not_found", err)
	}

	list := app.NewListContactsHandler(f.st, usecase.NewObserver(nil))
	for search, want := range map[string]int{"": 3, "+1 (415) 555-01": 2, "49151": 1, "4": 1, "+999": 0} {
		page, err := list.Handle(ctx, app.ListContacts{Workspace: f.principal.Workspace, Phone: search})
		if err != nil || len(page.Contacts) != want {
			t.Errorf("contacts matching %q: %d (%v); want %d", search, len(page.Contacts), err, want)
		}
	}
	if _, err := list.Handle(ctx, app.ListContacts{Workspace: f.principal.Workspace, Phone: "+49abc"}); !errors.Is(err, domain.ErrInvalidPhoneNumber) {
		t.Errorf("searching letters: %v; want invalid_phone_number", err)
	}
}
