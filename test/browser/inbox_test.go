package browser

import (
	"context"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// TestInboxInBrowser answers a customer from the inbox: a simulated
// customer message arrives unread, the thread shows it and reads it, a
// reply goes out and the sandbox takes it to read; then a contact who
// never wrote gets a template through the closed window's picker.
func TestInboxInBrowser(t *testing.T) {
	t.Parallel()
	path := chromiumPath(t)
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	srv := startHerald(t)
	b := newBrowser(ctx, t, path, srv.Base)

	signIn(t, b)
	token := createKey(t, b)
	campaignID := createCampaign(t, b)
	replyFromInbox(t, b)
	pickTemplate(t, b, token, campaignID)
	b.checkConsole()
}

// replyFromInbox simulates a customer's message, opens it from the inbox
// and answers it in the reply box.
func replyFromInbox(t *testing.T, b *browser) {
	b.open("/dashboard/inbox")
	b.fill("#simulate-from", "+447700900123")
	b.fill("#simulate-text", "Can I change the delivery address?")
	res := b.press("simulating a customer message", "#simulate-form button[type=submit]")
	wantStatus(t, "simulating a customer message", res, http.StatusOK)
	b.at("/dashboard/inbox")
	item := strings.Join(strings.Fields(b.text(".inbox-item.unread")), " ")
	for _, want := range []string{"+447700900123", "Can I change the delivery address?", "1 unread"} {
		if !strings.Contains(item, want) {
			t.Fatalf("the inbox's unread conversation reads %q, want %q in it", item, want)
		}
	}
	b.shot("inbox-unread")

	res = b.press("opening the conversation", ".inbox-item.unread a.inbox-link")
	wantStatus(t, "opening the conversation", res, http.StatusOK)
	thread := strings.TrimPrefix(b.location(), b.base)
	if !strings.HasPrefix(thread, "/dashboard/inbox/ctc_") {
		t.Fatalf("the conversation opened at %s", thread)
	}
	if got := b.texts(".entry.inbound .entry-body"); len(got) != 1 || got[0] != "Can I change the delivery address?" {
		t.Fatalf("the thread shows %q from the customer", got)
	}
	if got := b.text("#window-state"); !strings.Contains(got, "open for") {
		t.Fatalf("the window reads %q, want it open", got)
	}
	b.fill("#reply-text", "Of course: which address?")
	res = b.press("sending the reply", "#reply-form button[type=submit]")
	wantStatus(t, "sending the reply", res, http.StatusOK)
	b.at(thread)
	// The sandbox moves the reply a step every 50 ms; reload until read.
	waitFor(t, b, thread, ".entry.outbound .badge[class*=status-]", "read")
	entries := b.texts("#thread > li")
	if len(entries) != 2 || !strings.Contains(entries[0], "Can I change") || !strings.Contains(entries[1], "Of course: which address?") {
		t.Fatalf("the thread reads %q, want the question then the reply", entries)
	}
	b.shot("inbox-thread")

	b.open("/dashboard/inbox")
	if got := b.texts(".inbox-item.unread"); len(got) != 0 {
		t.Fatalf("after reading, the inbox still has unread conversations: %q", got)
	}
	if got := b.text(".inbox-item .inbox-last"); got != "You: Of course: which address?" {
		t.Fatalf("the conversation's last message reads %q", got)
	}

	// A file from the computer, the message box's text as its caption.
	file := filepath.Join(t.TempDir(), "map.png")
	png := append([]byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"), make([]byte, 64)...)
	if err := os.WriteFile(file, png, 0o600); err != nil {
		t.Fatal(err)
	}
	b.open(thread)
	b.fill("#reply-text", "Here is the map")
	b.step("attaching a file", chromedp.SetUploadFiles(chromedp.CSS("#reply-file"), []string{file}))
	res = b.press("sending the file", "#reply-form button[type=submit]")
	wantStatus(t, "sending the file", res, http.StatusOK)
	b.at(thread)
	if got := b.texts(".entry.outbound .entry-body"); len(got) != 2 || got[1] != "Here is the map" {
		t.Fatalf("the thread's sent messages read %q, want the reply then the file's caption", got)
	}
}

// pickTemplate: a contact who only ever received a template has no open
// window, so the thread offers the active campaign instead of the reply
// box, and sends it with the variables filled in.
func pickTemplate(t *testing.T, b *browser, token, campaignID string) {
	if code := send(t, b.base, token, campaignID, "+14155550123", "Ada", "123456"); code != http.StatusAccepted {
		t.Fatalf("sending to +14155550123: %d, want 202", code)
	}
	b.open("/dashboard/inbox")
	res := b.press("opening the contact's conversation", `.inbox-item:first-child a.inbox-link`)
	wantStatus(t, "opening the conversation", res, http.StatusOK)
	thread := strings.TrimPrefix(b.location(), b.base)
	if got := b.text("#window-state"); !strings.Contains(got, "has not written to you") {
		t.Fatalf("the window reads %q, want it closed", got)
	}
	if n := len(b.texts("#reply-form")); n != 0 {
		t.Fatalf("the closed window shows the reply box")
	}
	b.step("opening the campaign in the picker", chromedp.Click(chromedp.CSS(`details.pick summary`)))
	b.fill("#var-"+campaignID+"-0", "Ada")
	b.fill("#var-"+campaignID+"-1", "654321")
	b.shot("inbox-picker")
	res = b.press("sending the template", `details.pick form button[type=submit]`)
	wantStatus(t, "sending the template", res, http.StatusOK)
	b.at(thread)
	waitFor(t, b, thread, ".entry.outbound .badge[class*=status-]", "read")
	if got := b.texts(".entry.outbound .entry-body"); len(got) != 2 || got[1] != "Hi Ada, your code is 654321" {
		t.Fatalf("the thread's sent messages read %q, want the picked template last", got)
	}
	b.shot("inbox-template-sent")
}

// waitFor reloads path until the text of sel (its last match) is want.
func waitFor(t *testing.T, b *browser, path, sel, want string) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		got := b.texts(sel)
		if len(got) > 0 && got[len(got)-1] == want {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("after 30s %s on %s reads %q, want %q", sel, path, got, want)
		}
		time.Sleep(100 * time.Millisecond)
		b.open(path)
	}
}
