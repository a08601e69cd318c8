package events_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"testing"

	"github.com/heraldhq/herald/adapters/memstore"
	"github.com/heraldhq/herald/adapters/system"
	"github.com/heraldhq/herald/app/events"
	"github.com/heraldhq/herald/domain"
	"github.com/heraldhq/herald/ports/portsmock"
	"github.com/heraldhq/herald/ports/porttest"
)

// A cursor is read back as the place it was made for; anything else is
// invalid_parameter on after, never a place.
func TestEventCursor(t *testing.T) {
	t.Parallel()
	for _, seq := range []int64{0, 1, 42, 1 << 62} {
		got, err := events.ParseEventCursor(events.FormatEventCursor(seq))
		if err != nil || got != seq {
			t.Errorf("cursor of %d read back as %d, %v", seq, got, err)
		}
	}
	if got, err := events.ParseEventCursor(""); got != 0 || err != nil {
		t.Errorf("no cursor: %d, %v; want the start", got, err)
	}
	enc := func(s string) string { return base64.RawURLEncoding.EncodeToString([]byte(s)) }
	for _, bad := range []string{"12", "msg_01", enc("seq:-1"), enc("seq:01"), enc("seq:"), enc("seq:1x"), enc("id:5"),
		enc("seq:99999999999999999999"), enc("seq:1") + "=", string(make([]byte, 65))} {
		_, err := events.ParseEventCursor(bad)
		var de *domain.Error
		if !errors.As(err, &de) || de.Code != domain.CodeInvalidParameter || de.Param != "after" {
			t.Errorf("cursor %q: %v, want invalid_parameter on after", bad, err)
		}
	}
}

// A URL the rules refuse is refused without asking where its name
// resolves; one they pass is checked there too, and what the poster
// refuses is not stored. The secret is shown once, and rotating keeps the
// old one signing.
func TestCreateEndpointChecksTheURLBeforeResolvingIt(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st := memstore.New()
	ws := porttest.NewWorkspace(t)
	if err := st.CreateWorkspace(ctx, ws); err != nil {
		t.Fatal(err)
	}
	poster := &portsmock.EventPosterMock{CheckURLFunc: func(_ context.Context, raw string) error {
		if raw == "https://inward.example.com/x" {
			return &domain.Error{Code: domain.CodeInvalidWebhookURL, Param: "url", Detail: "resolves inward"}
		}
		return nil
	}}
	clock, ids := system.Clock{}, system.NewIDs()
	create := events.NewCreateEndpointHandler(st, poster, domain.WebhookPolicy{}, clock, ids, rand.Reader, nil)
	cmd := func(url string) events.CreateEndpoint {
		return events.CreateEndpoint{Workspace: ws.ID, Mode: domain.ModeTest, URL: url, Events: []string{"*"}}
	}
	for _, url := range []string{"http://hooks.example.com/x", "https://127.0.0.1/x", "https://u:p@hooks.example.com/x"} {
		if _, err := create.Handle(ctx, cmd(url)); !errors.Is(err, domain.ErrInvalidWebhookURL) {
			t.Errorf("%s: %v, want invalid_webhook_url", url, err)
		}
	}
	if n := len(poster.CheckURLCalls()); n != 0 {
		t.Errorf("the poster resolved %d URLs the rules refuse", n)
	}
	if _, err := create.Handle(ctx, cmd("https://inward.example.com/x")); !errors.Is(err, domain.ErrInvalidWebhookURL) {
		t.Errorf("a name resolving inward: %v", err)
	}
	if _, err := create.Handle(ctx, events.CreateEndpoint{Workspace: ws.ID, URL: "https://hooks.example.com/x", Events: []string{"*"}}); err == nil {
		t.Error("an endpoint without a mode was made")
	}
	if eps, _ := st.ListEndpoints(ctx, ws.ID, domain.KeyMode{}); len(eps) != 0 {
		t.Fatalf("refused endpoints were stored: %d", len(eps))
	}

	made, err := create.Handle(ctx, cmd("https://hooks.example.com/x"))
	if err != nil {
		t.Fatal(err)
	}
	key, err := domain.ParseWebhookSecret(made.Secret)
	if err != nil || len(key) != domain.WebhookSecretSize || !bytes.Equal(key, made.Endpoint.Secrets[0].Key) {
		t.Fatalf("secret %q: %v", made.Secret, err)
	}
	rotated, err := events.NewRotateEndpointSecretHandler(st, clock, rand.Reader, nil).Handle(ctx,
		events.RotateEndpointSecret{Workspace: ws.ID, Mode: domain.ModeTest, ID: string(made.Endpoint.ID)})
	if err != nil || rotated.Secret == made.Secret || len(rotated.Endpoint.Secrets) != 2 ||
		rotated.Endpoint.Secrets[1].Plaintext() != made.Secret || rotated.Endpoint.Secrets[1].ExpiresAt == nil {
		t.Errorf("rotation: %v; want a new secret with the old one expiring", err)
	}
}
