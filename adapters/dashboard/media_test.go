package dashboard_test

import (
	"context"
	"net/http"
	"net/url"
	"testing"
	"time"

	"github.com/heraldhq/herald/adapters/dashboard"
	"github.com/heraldhq/herald/adapters/system"
	"github.com/heraldhq/herald/app"
	"github.com/heraldhq/herald/domain"
)

// inboundImage stores a contact's image in ws, as a webhook would, and
// returns its id.
func (e *env) inboundImage(t *testing.T, ws domain.WorkspaceID, metaID string) domain.MediaID {
	t.Helper()
	ctx := context.Background()
	c, err := e.syncContact.Handle(ctx, app.SyncContact{Principal: domain.Principal{Workspace: ws, Mode: domain.ModeLive},
		PhoneNumber: "+14155550123"})
	if err != nil {
		t.Fatal(err)
	}
	entry := domain.InboundEntry(domain.EntryID(system.NewIDs().NewID(domain.PrefixEntry)), c.Contact, domain.InboundMessage{
		ProviderID: "wamid." + metaID, Kind: domain.KindImage, Media: &domain.Attachment{ID: metaID, MimeType: "image/jpeg"},
		At: time.Now()}, "")
	f, _ := domain.NewInboundMedia(entry)
	if err := e.store.CreateMedia(ctx, f, nil); err != nil {
		t.Fatal(err)
	}
	return f.ID
}

// A signed-in operator reads the workspace's media files, as the inbox
// shows them inline; another workspace's are not found, and a visitor is
// sent to sign in.
func TestMediaContent(t *testing.T) {
	t.Parallel()
	e := newEnv(t, dashboard.Config{})
	def, err := app.NewEnsureDefaultWorkspaceHandler(e.store, system.Clock{}, system.NewIDs()).Handle(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	mine := e.inboundImage(t, def.ID, "1566743960735849")
	theirs := e.inboundImage(t, e.other, "2566743960735849")

	visitor := e.browser(t)
	res, _ := visitor.get("/dashboard/media/" + string(mine) + "/content")
	wantRedirect(t, res, "/dashboard/login?next="+url.QueryEscape("/dashboard/media/"+string(mine)+"/content"))

	b := e.browser(t)
	b.login()
	res, body := b.get("/dashboard/media/" + string(mine) + "/content")
	wantStatus(t, res, body, http.StatusOK)
	if body != "jpeg of 1566743960735849" || res.Header.Get("Content-Type") != "image/jpeg" || res.Header.Get("X-Content-Type-Options") != "nosniff" {
		t.Fatalf("the image: %q %v", body, res.Header)
	}
	res, body = b.get("/dashboard/media/" + string(theirs) + "/content")
	wantStatus(t, res, body, http.StatusNotFound)
}
