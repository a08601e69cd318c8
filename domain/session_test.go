package domain_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/heraldhq/herald/domain"
)

var policy = domain.MediaPolicy{}

const img = "https://cdn.example.com/a.jpg"

func buttons(titles ...string) []domain.ReplyButton {
	out := make([]domain.ReplyButton, len(titles))
	for i, t := range titles {
		out[i] = domain.ReplyButton{ID: "b" + string(rune('a'+i)), Title: t}
	}
	return out
}

func rows(n int) []domain.ListRow { return rowsFrom("r", n) }

func rowsFrom(prefix string, n int) []domain.ListRow {
	out := make([]domain.ListRow, n)
	for i := range out {
		out[i] = domain.ListRow{ID: prefix + strings.Repeat("x", i+1), Title: "Row"}
	}
	return out
}

// validSessions is one valid message of every type, and of every
// interactive kind.
func validSessions() map[string]domain.SessionContent {
	return map[string]domain.SessionContent{
		"text":     {Type: "text", Text: &domain.SessionText{Body: "Your order shipped", PreviewURL: true}},
		"image":    {Type: "image", Media: &domain.SessionMedia{MediaRef: domain.MediaRef{Link: img}, Caption: "Look"}},
		"video":    {Type: "video", Media: &domain.SessionMedia{MediaRef: domain.MediaRef{MediaID: "med_01j9z3kq7m8n2p4r6t8v0w2y4a"}}},
		"audio":    {Type: "audio", Media: &domain.SessionMedia{MediaRef: domain.MediaRef{Link: img}, Voice: true}},
		"document": {Type: "document", Media: &domain.SessionMedia{MediaRef: domain.MediaRef{Link: img}, Caption: "Invoice", Filename: "inv.pdf"}},
		"sticker":  {Type: "sticker", Media: &domain.SessionMedia{MediaRef: domain.MediaRef{Link: img}}},
		"location": {Type: "location", Location: &domain.SessionLocation{Latitude: 37.48, Longitude: -122.14, Name: "Store"}},
		"contacts": {Type: "contacts", Contacts: []domain.ContactCard{{FormattedName: "Ana Lima", Birthday: "1990-02-03",
			Phones: []domain.CardPhone{{Phone: "+5511988887777", Type: "CELL", WaID: "5511988887777"}}}}},
		"buttons": {Type: "interactive", Interactive: &domain.Interactive{Type: "button", Body: "Reschedule?",
			Header: &domain.InteractiveHeader{Type: "image", Media: &domain.MediaRef{Link: img}}, Buttons: buttons("Yes", "No")}},
		"list": {Type: "interactive", Interactive: &domain.Interactive{Type: "list", Body: "Shipping",
			List: &domain.ListAction{Button: "Options", Sections: []domain.ListSection{{Title: "Fast", Rows: rows(2)}}}}},
		"cta_url": {Type: "interactive", Interactive: &domain.Interactive{Type: "cta_url", Body: "Dates",
			CTA: &domain.CTAURL{DisplayText: "See dates", URL: "https://example.com/d"}}},
		"reaction": {Type: "reaction", Reaction: &domain.SessionReaction{MessageID: "wamid.HBgN", Emoji: "👍"}},
	}
}

func TestSessionContentValid(t *testing.T) {
	for name, s := range validSessions() {
		if err := s.Check(policy); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
}

// Each of Meta's limits is a 422 naming the field; one character under it
// passes.
func TestSessionContentLimits(t *testing.T) {
	long := func(n int) string { return strings.Repeat("é", n) }
	inter := func(f func(*domain.Interactive)) domain.SessionContent {
		s := validSessions()["buttons"]
		c := *s.Interactive
		f(&c)
		s.Interactive = &c
		return s
	}
	list := func(f func(*domain.ListAction)) domain.SessionContent {
		s := validSessions()["list"]
		c := *s.Interactive
		l := *c.List
		l.Sections = append([]domain.ListSection(nil), l.Sections...)
		f(&l)
		c.List = &l
		s.Interactive = &c
		return s
	}
	tests := []struct {
		name  string
		s     domain.SessionContent
		code  domain.Code
		param string
	}{
		{"no type", domain.SessionContent{}, domain.CodeInvalidParameter, "type"},
		{"unknown type", domain.SessionContent{Type: "poll", Text: &domain.SessionText{Body: "x"}}, domain.CodeInvalidParameter, "type"},
		{"missing object", domain.SessionContent{Type: "text"}, domain.CodeInvalidParameter, "text"},
		{"two objects", domain.SessionContent{Type: "text", Text: &domain.SessionText{Body: "x"},
			Reaction: &domain.SessionReaction{MessageID: "w"}}, domain.CodeInvalidParameter, "type"},
		{"empty text", domain.SessionContent{Type: "text", Text: &domain.SessionText{Body: " "}}, domain.CodeInvalidParameter, "text.body"},
		{"text 4097", domain.SessionContent{Type: "text", Text: &domain.SessionText{Body: long(4097)}}, domain.CodeInvalidParameter, "text.body"},
		{"text NUL", domain.SessionContent{Type: "text", Text: &domain.SessionText{Body: "a\x00"}}, domain.CodeInvalidParameter, "text.body"},
		{"caption 1025", domain.SessionContent{Type: "image", Media: &domain.SessionMedia{MediaRef: domain.MediaRef{Link: img}, Caption: long(1025)}},
			domain.CodeInvalidParameter, "image.caption"},
		{"audio caption", domain.SessionContent{Type: "audio", Media: &domain.SessionMedia{MediaRef: domain.MediaRef{Link: img}, Caption: "x"}},
			domain.CodeInvalidParameter, "audio.caption"},
		{"sticker caption", domain.SessionContent{Type: "sticker", Media: &domain.SessionMedia{MediaRef: domain.MediaRef{Link: img}, Caption: "x"}},
			domain.CodeInvalidParameter, "sticker.caption"},
		{"image filename", domain.SessionContent{Type: "image", Media: &domain.SessionMedia{MediaRef: domain.MediaRef{Link: img}, Filename: "a.jpg"}},
			domain.CodeInvalidParameter, "image.filename"},
		{"video voice", domain.SessionContent{Type: "video", Media: &domain.SessionMedia{MediaRef: domain.MediaRef{Link: img}, Voice: true}},
			domain.CodeInvalidParameter, "video.voice"},
		{"id and link", domain.SessionContent{Type: "image", Media: &domain.SessionMedia{MediaRef: domain.MediaRef{Link: img, MediaID: "med_01j9z3kq7m8n2p4r6t8v0w2y4a"}}},
			domain.CodeInvalidParameter, "image"},
		{"neither id nor link", domain.SessionContent{Type: "document", Media: &domain.SessionMedia{}}, domain.CodeInvalidParameter, "document"},
		{"bad media id", domain.SessionContent{Type: "image", Media: &domain.SessionMedia{MediaRef: domain.MediaRef{MediaID: "123"}}},
			domain.CodeInvalidParameter, "image.mediaId"},
		{"private link", domain.SessionContent{Type: "image", Media: &domain.SessionMedia{MediaRef: domain.MediaRef{Link: "https://127.0.0.1/a.jpg"}}},
			domain.CodeInvalidMediaURL, "image.link"},
		{"http link", domain.SessionContent{Type: "image", Media: &domain.SessionMedia{MediaRef: domain.MediaRef{Link: "http://cdn.example.com/a.jpg"}}},
			domain.CodeInvalidMediaURL, "image.link"},
		{"filename with path", domain.SessionContent{Type: "document", Media: &domain.SessionMedia{MediaRef: domain.MediaRef{Link: img}, Filename: "../x.pdf"}},
			domain.CodeInvalidParameter, "document.filename"},
		{"latitude", domain.SessionContent{Type: "location", Location: &domain.SessionLocation{Latitude: 91}}, domain.CodeInvalidParameter, "location.latitude"},
		{"longitude", domain.SessionContent{Type: "location", Location: &domain.SessionLocation{Longitude: -181}}, domain.CodeInvalidParameter, "location.longitude"},
		{"no cards", domain.SessionContent{Type: "contacts", Contacts: []domain.ContactCard{}}, domain.CodeInvalidParameter, "contacts"},
		{"six cards", domain.SessionContent{Type: "contacts", Contacts: make([]domain.ContactCard, 6)}, domain.CodeInvalidParameter, "contacts"},
		{"card without name", domain.SessionContent{Type: "contacts", Contacts: []domain.ContactCard{{}}}, domain.CodeInvalidParameter, "contacts[0].name.formattedName"},
		{"card birthday", domain.SessionContent{Type: "contacts", Contacts: []domain.ContactCard{{FormattedName: "A", Birthday: "3 Feb"}}},
			domain.CodeInvalidParameter, "contacts[0].birthday"},
		{"card wa id", domain.SessionContent{Type: "contacts", Contacts: []domain.ContactCard{{FormattedName: "A",
			Phones: []domain.CardPhone{{Phone: "1", WaID: "+1"}}}}}, domain.CodeInvalidParameter, "contacts[0].phones[0].waId"},
		{"four buttons", inter(func(i *domain.Interactive) { i.Buttons = buttons("a", "b", "c", "d") }),
			domain.CodeInvalidParameter, "interactive.action.buttons"},
		{"no buttons", inter(func(i *domain.Interactive) { i.Buttons = []domain.ReplyButton{} }),
			domain.CodeInvalidParameter, "interactive.action.buttons"},
		{"button title 21", inter(func(i *domain.Interactive) { i.Buttons = buttons("ok", long(21)) }),
			domain.CodeInvalidParameter, "interactive.action.buttons[1].title"},
		{"button titles repeat", inter(func(i *domain.Interactive) { i.Buttons = buttons("ok", "ok") }),
			domain.CodeInvalidParameter, "interactive.action.buttons[1]"},
		{"button id spaces", inter(func(i *domain.Interactive) { i.Buttons = []domain.ReplyButton{{ID: " x", Title: "t"}} }),
			domain.CodeInvalidParameter, "interactive.action.buttons[0].id"},
		{"body 1025", inter(func(i *domain.Interactive) { i.Body = long(1025) }), domain.CodeInvalidParameter, "interactive.body.text"},
		{"no body", inter(func(i *domain.Interactive) { i.Body = "" }), domain.CodeInvalidParameter, "interactive.body.text"},
		{"footer 61", inter(func(i *domain.Interactive) { i.Footer = long(61) }), domain.CodeInvalidParameter, "interactive.footer.text"},
		{"header 61", inter(func(i *domain.Interactive) { i.Header = &domain.InteractiveHeader{Type: "text", Text: long(61)} }),
			domain.CodeInvalidParameter, "interactive.header.text"},
		{"header type", inter(func(i *domain.Interactive) { i.Header = &domain.InteractiveHeader{Type: "audio"} }),
			domain.CodeInvalidParameter, "interactive.header.type"},
		{"buttons and list", inter(func(i *domain.Interactive) { i.List = &domain.ListAction{} }),
			domain.CodeInvalidParameter, "interactive.action"},
		{"interactive type", inter(func(i *domain.Interactive) { i.Type = "flow" }), domain.CodeInvalidParameter, "interactive.type"},
		{"list button 21", list(func(l *domain.ListAction) { l.Button = long(21) }), domain.CodeInvalidParameter, "interactive.action.button"},
		{"eleven sections", list(func(l *domain.ListAction) {
			l.Sections = make([]domain.ListSection, 11)
		}), domain.CodeInvalidParameter, "interactive.action.sections"},
		{"eleven rows", list(func(l *domain.ListAction) {
			l.Sections = []domain.ListSection{{Title: "a", Rows: rows(6)}, {Title: "b", Rows: rowsFrom("s", 5)}}
		}), domain.CodeInvalidParameter, "interactive.action.sections[1].rows[4]"},
		{"section title required", list(func(l *domain.ListAction) {
			l.Sections = []domain.ListSection{{Title: "a", Rows: rows(1)}, {Rows: []domain.ListRow{{ID: "z", Title: "z"}}}}
		}), domain.CodeInvalidParameter, "interactive.action.sections[1].title"},
		{"section title 25", list(func(l *domain.ListAction) { l.Sections[0].Title = long(25) }),
			domain.CodeInvalidParameter, "interactive.action.sections[0].title"},
		{"row title 25", list(func(l *domain.ListAction) { l.Sections[0].Rows = []domain.ListRow{{ID: "a", Title: long(25)}} }),
			domain.CodeInvalidParameter, "interactive.action.sections[0].rows[0].title"},
		{"row id 201", list(func(l *domain.ListAction) { l.Sections[0].Rows = []domain.ListRow{{ID: long(201), Title: "a"}} }),
			domain.CodeInvalidParameter, "interactive.action.sections[0].rows[0].id"},
		{"row description 73", list(func(l *domain.ListAction) {
			l.Sections[0].Rows = []domain.ListRow{{ID: "a", Title: "a", Description: long(73)}}
		}), domain.CodeInvalidParameter, "interactive.action.sections[0].rows[0].description"},
		{"list media header", list(func(l *domain.ListAction) {}), domain.CodeInvalidParameter, "interactive.header.type"},
		{"cta text 21", domain.SessionContent{Type: "interactive", Interactive: &domain.Interactive{Type: "cta_url", Body: "b",
			CTA: &domain.CTAURL{DisplayText: long(21), URL: "https://x.example"}}}, domain.CodeInvalidParameter, "interactive.action.displayText"},
		{"cta url", domain.SessionContent{Type: "interactive", Interactive: &domain.Interactive{Type: "cta_url", Body: "b",
			CTA: &domain.CTAURL{DisplayText: "Go", URL: "javascript:alert(1)"}}}, domain.CodeInvalidParameter, "interactive.action.url"},
		{"reaction without target", domain.SessionContent{Type: "reaction", Reaction: &domain.SessionReaction{Emoji: "👍"}},
			domain.CodeInvalidParameter, "reaction.messageId"},
		{"reaction emoji", domain.SessionContent{Type: "reaction", Reaction: &domain.SessionReaction{MessageID: "w", Emoji: long(17)}},
			domain.CodeInvalidParameter, "reaction.emoji"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := tt.s
			if tt.name == "list media header" {
				s = validSessions()["list"]
				c := *s.Interactive
				c.Header = &domain.InteractiveHeader{Type: "image", Media: &domain.MediaRef{Link: img}}
				s.Interactive = &c
			}
			err := s.Check(policy)
			var de *domain.Error
			if !errors.As(err, &de) || de.Code != tt.code || de.Param != tt.param {
				t.Fatalf("Check = %v, want %s naming %q", err, tt.code, tt.param)
			}
		})
	}
}

// At the limits exactly, everything passes.
func TestSessionContentAtLimits(t *testing.T) {
	long := func(n int) string { return strings.Repeat("é", n) }
	ok := []domain.SessionContent{
		{Type: "text", Text: &domain.SessionText{Body: long(4096)}},
		{Type: "video", Media: &domain.SessionMedia{MediaRef: domain.MediaRef{Link: img}, Caption: long(1024)}},
		{Type: "interactive", Interactive: &domain.Interactive{Type: "button", Body: long(1024), Footer: long(60),
			Header: &domain.InteractiveHeader{Type: "text", Text: long(60)}, Buttons: buttons(long(20), "b", "c")}},
		{Type: "interactive", Interactive: &domain.Interactive{Type: "list", Body: "b", List: &domain.ListAction{Button: long(20),
			Sections: []domain.ListSection{{Title: long(24), Rows: rows(5)}, {Title: "b", Rows: []domain.ListRow{
				{ID: "a", Title: long(24), Description: long(72)}, {ID: "b", Title: "b"}, {ID: "c", Title: "c"}, {ID: "d", Title: "d"}, {ID: "e", Title: "e"}}}}}}},
		{Type: "interactive", Interactive: &domain.Interactive{Type: "cta_url", Body: "b", CTA: &domain.CTAURL{DisplayText: long(20), URL: "https://x.example"}}},
		{Type: "contacts", Contacts: make([]domain.ContactCard, 5)},
		{Type: "reaction", Reaction: &domain.SessionReaction{MessageID: "wamid.x"}}, // removes our reaction
	}
	for i := range ok[5].Contacts {
		ok[5].Contacts[i].FormattedName = "Card"
	}
	for i, s := range ok {
		if err := s.Check(policy); err != nil {
			t.Errorf("%d (%s): %v", i, s.Type, err)
		}
	}
}

func TestCheckReplyTo(t *testing.T) {
	if err := domain.CheckReplyTo("wamid.x", "text"); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct{ ref, typ string }{{"wamid.x", "reaction"}, {"a b", "text"}, {strings.Repeat("x", 257), "text"}} {
		var de *domain.Error
		if err := domain.CheckReplyTo(tt.ref, tt.typ); !errors.As(err, &de) || de.Param != "replyTo" {
			t.Errorf("CheckReplyTo(%q, %s) = %v", tt.ref, tt.typ, err)
		}
	}
}

// The window is open for 24 hours from the contact's last inbound message:
// open at 23:59, closed at 24:00 and after; our own messages do not extend
// it, and a contact who never wrote has none.
func TestServiceWindow(t *testing.T) {
	c := domain.NewContact("ctc_x", "cnv_x", "wsp_x", domain.ModeLive, domain.MustPhoneNumber("+14155552671"), t0)
	err := c.CheckServiceWindow(t0)
	var wc *domain.WindowClosedError
	if !errors.As(err, &wc) || !errors.Is(err, domain.ErrOutsideServiceWindow) || !wc.ClosedAt.IsZero() {
		t.Fatalf("never wrote: %v", err)
	}
	if _, ok := c.ServiceWindowExpiresAt(); ok {
		t.Fatal("a contact who never wrote has a window")
	}
	wrote := t0.Add(time.Hour)
	c.RecordInbound("14155552671", "Ana", wrote, wrote)
	c.Touch(wrote.Add(20 * time.Hour)) // our message: no extension
	exp, ok := c.ServiceWindowExpiresAt()
	if !ok || !exp.Equal(wrote.Add(24*time.Hour)) {
		t.Fatalf("expires %v %v", exp, ok)
	}
	for _, tt := range []struct {
		after time.Duration
		open  bool
	}{{0, true}, {23*time.Hour + 59*time.Minute, true}, {24*time.Hour - time.Microsecond, true},
		{24 * time.Hour, false}, {24*time.Hour + time.Minute, false}} {
		err := c.CheckServiceWindow(wrote.Add(tt.after))
		if (err == nil) != tt.open {
			t.Errorf("after %v: %v, want open %v", tt.after, err, tt.open)
		}
		if err != nil {
			var de *domain.Error
			if !errors.As(err, &wc) || !wc.ClosedAt.Equal(exp) || !errors.As(err, &de) || de.Code != domain.CodeOutsideServiceWindow {
				t.Errorf("after %v: %v", tt.after, err)
			}
		}
	}
	// An older message delivered late does not move the window back; a
	// newer one reopens it.
	c.RecordInbound("", "", wrote.Add(-time.Hour), wrote.Add(25*time.Hour))
	if e, _ := c.ServiceWindowExpiresAt(); !e.Equal(exp) {
		t.Fatalf("late older message moved the window to %v", e)
	}
	c.RecordInbound("", "", wrote.Add(30*time.Hour), wrote.Add(30*time.Hour))
	if err := c.CheckServiceWindow(wrote.Add(53 * time.Hour)); err != nil {
		t.Fatalf("reopened: %v", err)
	}
}

func TestNewSessionMessage(t *testing.T) {
	c := domain.NewContact("ctc_x", "cnv_x", "wsp_x", domain.ModeTest, domain.MustPhoneNumber("+14155552671"), t0)
	s := validSessions()["text"]
	m := domain.NewSessionMessage("msg_x", c, domain.Principal{Workspace: "wsp_x", Mode: domain.ModeTest}, c.Phone, s, "wamid.q", t0)
	if !m.IsSession() || m.CampaignID != "" || m.Status != domain.StatusQueued || m.RenderedBody != "Your order shipped" || m.ReplyTo != "wamid.q" {
		t.Fatalf("%+v", m)
	}
	e := domain.OutboundEntry("ent_x", m, c)
	if e.Kind != domain.KindText || e.MessageID != "msg_x" {
		t.Fatalf("entry %+v", e)
	}
}
