package dashboard_test

import (
	"context"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/heraldhq/herald/adapters/dashboard"
	"github.com/heraldhq/herald/adapters/system"
	"github.com/heraldhq/herald/app"
	"github.com/heraldhq/herald/domain"
	"github.com/heraldhq/herald/ports/porttest"
)

// Sandbox traffic never passes for real traffic: the campaign's statistics
// count live and test messages apart, and test messages carry a "test"
// badge in the recent messages and in the contact's thread.
func TestSandboxTrafficIsMarkedAndCountedApart(t *testing.T) {
	t.Parallel()
	e := newEnv(t, dashboard.Config{LiveSending: true})
	ctx := context.Background()
	ws, err := app.NewEnsureDefaultWorkspaceHandler(e.store, system.Clock{}, system.NewIDs()).Handle(ctx)
	if err != nil {
		t.Fatal(err)
	}
	c, err := e.createCampaign.Handle(ctx, app.CreateCampaign{Name: "Welcome", TemplateName: "welcome", Language: "en_US",
		Body: "Hi {{1}}, your code is {{2}}", Activate: true})
	if err != nil {
		t.Fatal(err)
	}
	r, err := e.syncContact.Handle(ctx, app.SyncContact{Principal: domain.Principal{Workspace: ws.ID}, PhoneNumber: "+14155550123"})
	if err != nil {
		t.Fatal(err)
	}
	ct := r.Contact
	var testMsgs []domain.MessageID
	for _, s := range []struct {
		mode   domain.KeyMode
		status domain.MessageStatus
	}{
		{domain.ModeLive, domain.StatusRead}, {domain.ModeLive, domain.StatusFailed},
		{domain.ModeTest, domain.StatusRead}, {domain.ModeTest, domain.StatusRead}, {domain.ModeTest, domain.StatusRead},
	} {
		m := porttest.NewMessage(t, c, ct)
		m.Mode = s.mode
		if err := e.store.CreateMessages(ctx, m); err != nil {
			t.Fatal(err)
		}
		if err := e.store.AppendEntries(ctx, porttest.NewOutboundEntry(m, ct)); err != nil {
			t.Fatal(err)
		}
		if _, err := e.store.UpdateMessage(ctx, ws.ID, m.ID, func(m *domain.Message) error {
			m.Advance(s.status, m.CreatedAt.Add(time.Second), &domain.Failure{Code: 131026, Title: "Message undeliverable"})
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		if s.mode == domain.ModeTest {
			testMsgs = append(testMsgs, m.ID)
		}
	}
	b := e.browser(t)
	b.login()

	_, body := b.get("/dashboard/campaigns/" + string(c.ID))
	cell := func(id string) string {
		m := regexp.MustCompile(`id="` + id + `">([^<]*)<`).FindStringSubmatch(body)
		if m == nil {
			t.Fatalf("the campaign page has no cell %s", id)
		}
		return m[1]
	}
	for id, want := range map[string]string{
		"stat-total": "5", "stat-live-total": "2", "stat-test-total": "3",
		"stat-read": "4", "stat-live-read": "1", "stat-test-read": "3",
		"stat-failed": "1", "stat-live-failed": "1", "stat-test-failed": "0",
		"stat-live-delivery": "50.0%", "stat-test-delivery": "100.0%",
		"stat-live-read-rate": "100.0%", "stat-test-read-rate": "100.0%",
	} {
		if got := cell(id); got != want {
			t.Errorf("%s = %q, want %q", id, got, want)
		}
	}
	rows := regexp.MustCompile(`(?s)<tr>\s*<td><code>(msg_[0-9a-z]+)</code>(.*?)</tr>`).FindAllStringSubmatch(body, -1)
	if len(rows) != 5 {
		t.Fatalf("recent messages: %d rows, want 5", len(rows))
	}
	for _, row := range rows {
		test := strings.Contains(row[2], `class="badge test"`)
		want := false
		for _, id := range testMsgs {
			want = want || string(id) == row[1]
		}
		if test != want {
			t.Errorf("recent message %s: test badge %v, want %v", row[1], test, want)
		}
	}

	_, body = b.get("/dashboard/campaigns")
	if !regexp.MustCompile(`(?s)` + string(c.ID) + `.*<td class="num">5</td>.*<td class="num">3</td>\s*</tr>`).MatchString(body) {
		t.Errorf("the campaigns list does not show 5 messages of which 3 test:\n%s", body)
	}

	_, body = b.get("/dashboard/contacts/" + string(ct.ID))
	metas := regexp.MustCompile(`<p class="entry-meta">(.*?)</p>`).FindAllStringSubmatch(body, -1)
	tests := 0
	for _, m := range metas {
		if strings.Contains(m[1], `class="badge test"`) {
			tests++
		}
	}
	if len(metas) != 5 || tests != 3 {
		t.Errorf("the thread shows %d entries, %d of them marked test; want 5 and 3:\n%s", len(metas), tests, body)
	}
}

// Developer settings says when live keys cannot send.
func TestKeysPageSaysWhenLiveKeysCannotSend(t *testing.T) {
	t.Parallel()
	for _, live := range []bool{false, true} {
		e := newEnv(t, dashboard.Config{LiveSending: live})
		b := e.browser(t)
		b.login()
		_, body := b.get("/dashboard/keys")
		warned := strings.Contains(body, `id="live-off"`) && strings.Contains(body, "503 whatsapp_not_configured")
		if warned == live {
			t.Errorf("live sending configured %v: warning shown %v", live, warned)
		}
		// The warning stays on the page that creates a live key.
		res, body := b.post("/dashboard/keys", url.Values{"name": {"billing"}, "mode": {"live"}})
		wantStatus(t, res, body, 201)
		if strings.Contains(body, `id="live-off"`) == live {
			t.Errorf("live sending configured %v: the new live key's page warns %v", live, !live)
		}
	}
}
