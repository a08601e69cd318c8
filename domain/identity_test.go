package domain_test

import (
	"strings"
	"testing"
	"time"

	"github.com/heraldhq/herald/domain"
)

// Numbers Meta writes in two forms have one key; numbers that only look
// alike keep apart.
func TestNumberKeySameUser(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ name, typed, meta string }{
		{"Brazil without the ninth digit", "5582999448232", "558299448232"},
		{"Brazil, São Paulo", "5511988887777", "551188887777"},
		{"Brazil, mobile range 6", "5521961234567", "552161234567"},
		{"Mexico with the old mobile 1", "525512345678", "5215512345678"},
		{"Argentina with the mobile 9", "541112345678", "5491112345678"},
		{"the same digits", "14155552671", "14155552671"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if a, b := domain.NumberKey(c.typed), domain.NumberKey(c.meta); a != b {
				t.Fatalf("NumberKey(%s) = %s, NumberKey(%s) = %s; want one key", c.typed, a, c.meta, b)
			}
		})
	}
}

func TestNumberKeyOtherUsers(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ name, a, b string }{
		{"a Brazilian landline and the mobile with a 9 before it", "551133334444", "5511933334444"},
		{"a Brazilian 9 before a landline range is not the ninth digit", "5511923334444", "551123334444"},
		{"a Brazilian number of another area", "5521988887777", "551188887777"},
		{"Brazil 9 is not dropped from 12 digits", "559988887777", "55988887777"},
		{"Mexico 1 inside the number", "525512345678", "525212345678"},
		{"another country's 13 digits", "4915112345678", "491512345678"},
		{"the US", "14155552671", "4155552671"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if domain.NumberKey(c.a) == domain.NumberKey(c.b) {
				t.Fatalf("NumberKey(%s) = NumberKey(%s) = %s; want apart", c.a, c.b, domain.NumberKey(c.a))
			}
		})
	}
}

func TestPhoneKey(t *testing.T) {
	t.Parallel()
	if k := domain.MustPhoneNumber("+5582999448232").Key(); k != "558299448232" {
		t.Fatalf("Key = %q", k)
	}
	if k := (domain.PhoneNumber{}).Key(); k != "" {
		t.Fatalf("Key of the zero number = %q", k)
	}
}

// A contact that writes first gets the number people type for them.
func TestPhoneForWaID(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ waID, want, err string }{
		{"558299448232", "+5582999448232", ""},  // Brazil: the ninth digit back
		{"551133334444", "+551133334444", ""},   // Brazil: a landline keeps its form
		{"5582999448232", "+5582999448232", ""}, // Brazil as typed
		{"5215512345678", "+525512345678", ""},  // Mexico: the 1 goes
		{"525512345678", "+525512345678", ""},   // Mexico as typed
		{"5491112345678", "+5491112345678", ""}, // Argentina keeps its 9: it is E.164
		{"14155552671", "+14155552671", ""},     // anyone else as written
		{"1415555267", "", "too short for country code +1"},
		{"99912345678", "", "does not start with a known country code"},
		{"12ab", "", "5 to 20 digits"},
		{"", "", "5 to 20 digits"},
	} {
		p, err := domain.PhoneForWaID(c.waID)
		switch {
		case c.err == "" && (err != nil || p.String() != c.want):
			t.Errorf("PhoneForWaID(%q) = %q, %v; want %s", c.waID, p, err, c.want)
		case c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)):
			t.Errorf("PhoneForWaID(%q) = %q, %v; want an error saying %q", c.waID, p, err, c.err)
		}
	}
}

// A lookup reads WhatsApp's own forms that E.164 refuses.
func TestParseWhatsAppNumber(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"+5215512345678": "+525512345678",
		"+525512345678":  "+525512345678",
		"+558299448232":  "+558299448232",
		"+14155552671":   "+14155552671",
	} {
		p, err := domain.ParseWhatsAppNumber(in)
		if err != nil || p.String() != want {
			t.Errorf("ParseWhatsAppNumber(%q) = %q, %v; want %s", in, p, err, want)
		}
	}
	for _, in := range []string{"5215512345678", "+1415555267", "+52155123456789", ""} {
		if _, err := domain.ParseWhatsAppNumber(in); err == nil {
			t.Errorf("ParseWhatsAppNumber(%q) accepted", in)
		}
	}
}

func TestValidUserID(t *testing.T) {
	t.Parallel()
	for _, s := range []string{"BR.1502576394655843", "US.13491208655302741918", "US.ENT.11815799212886844830",
		"IN." + strings.Repeat("a", 128)} {
		if !domain.ValidUserID(s) {
			t.Errorf("ValidUserID(%q) = false", s)
		}
	}
	for _, s := range []string{"", "BR", "BR.", "br.123", "BRA.123", "BR.12 3", "BR.ENT.", "BR.ent.123", "BR.12.34.56",
		"IN." + strings.Repeat("a", 129), "5511988887777", "BR.1234\x00"} {
		if domain.ValidUserID(s) {
			t.Errorf("ValidUserID(%q) = true", s)
		}
	}
}

func TestWhatsAppUserClean(t *testing.T) {
	t.Parallel()
	u, dropped := domain.WhatsAppUser{WaID: "55 11 98888", UserID: "not a bsuid", ParentUserID: "US.ENT.1",
		Username: "  ana.silva ", ProfileName: strings.Repeat("é", 300)}.Clean()
	want := domain.WhatsAppUser{ParentUserID: "US.ENT.1", Username: "ana.silva", ProfileName: strings.Repeat("é", 256)}
	if u != want || strings.Join(dropped, ",") != "wa_id,user_id" {
		t.Fatalf("Clean = %+v, %v; want %+v, [wa_id user_id]", u, dropped, want)
	}
}

func TestContactMatches(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	sentTo := domain.NewContact("ctc_1", "cnv_1", "wsp_1", domain.ModeLive, domain.MustPhoneNumber("+5582999448232"), now)
	withWaID := sentTo
	withWaID.WaID = "16505550000" // Meta's id after the user changed number
	withBSUID := domain.NewContact("ctc_2", "cnv_2", "wsp_1", domain.ModeLive, domain.PhoneNumber{}, now)
	withBSUID.UserID = "BR.1502576394655843"
	oddNumber := domain.NewContact("ctc_3", "cnv_3", "wsp_1", domain.ModeLive, domain.PhoneNumber{}, now)
	oddNumber.WaID = "5215512345678"
	for _, c := range []struct {
		name    string
		contact domain.Contact
		user    domain.WhatsAppUser
		from    string
		want    domain.Match
	}{
		{"the number in Meta's form", sentTo, domain.WhatsAppUser{WaID: "558299448232"}, "558299448232", domain.MatchNumber},
		{"the number as sent", sentTo, domain.WhatsAppUser{}, "5582999448232", domain.MatchWaID},
		{"another number", sentTo, domain.WhatsAppUser{WaID: "558299448233"}, "", domain.MatchNone},
		{"the wa_id", withWaID, domain.WhatsAppUser{WaID: "16505550000"}, "", domain.MatchWaID},
		{"the wa_id as from", withWaID, domain.WhatsAppUser{}, "16505550000", domain.MatchWaID},
		{"the BSUID", withBSUID, domain.WhatsAppUser{UserID: "BR.1502576394655843", WaID: "5511988887777"}, "", domain.MatchUserID},
		{"another BSUID", withBSUID, domain.WhatsAppUser{UserID: "BR.1"}, "", domain.MatchNone},
		{"a wa_id-only contact by a form of it", oddNumber, domain.WhatsAppUser{WaID: "525512345678"}, "", domain.MatchNumber},
		{"nobody", sentTo, domain.WhatsAppUser{}, "", domain.MatchNone},
	} {
		if got := c.contact.Matches(c.user, c.from); got != c.want {
			t.Errorf("%s: Matches = %d, want %d", c.name, got, c.want)
		}
	}
	if k := withBSUID.NumberKey(); k != "" {
		t.Errorf("NumberKey of a BSUID-only contact = %q", k)
	}
	if k := oddNumber.NumberKey(); k != "525512345678" {
		t.Errorf("NumberKey of a wa_id-only contact = %q", k)
	}
}

func TestContactRecordUser(t *testing.T) {
	t.Parallel()
	created := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	c := domain.NewContact("ctc_1", "cnv_1", "wsp_1", domain.ModeLive, domain.MustPhoneNumber("+5511988887777"), created)
	c.Name = "Ana (CRM)"
	later := created.Add(time.Hour)
	u := domain.WhatsAppUser{WaID: "551188887777", UserID: "BR.1502576394655843", Username: "ana.silva", ProfileName: "Ana"}
	if !c.RecordUser(u, later) {
		t.Fatal("RecordUser of new identities reported no change")
	}
	if c.WaID != u.WaID || c.UserID != u.UserID || c.Username != u.Username || c.ProfileName != "Ana" ||
		c.Name != "Ana (CRM)" || !c.UpdatedAt.Equal(later) {
		t.Fatalf("after RecordUser: %+v", c)
	}
	if c.RecordUser(domain.WhatsAppUser{UserID: u.UserID}, later.Add(time.Hour)) || !c.UpdatedAt.Equal(later) {
		t.Fatal("RecordUser of known identities changed the contact")
	}
	c.RecordUser(domain.WhatsAppUser{ParentUserID: "US.ENT.9"}, later)
	if c.WaID != u.WaID || c.UserID != u.UserID || c.ParentUserID != "US.ENT.9" {
		t.Fatalf("an event without some identities cleared them: %+v", c)
	}
}

func TestContactHandle(t *testing.T) {
	t.Parallel()
	now := time.Now()
	c := domain.NewContact("ctc_1", "cnv_1", "wsp_1", domain.ModeLive, domain.PhoneNumber{}, now)
	c.UserID = "BR.15"
	if h := c.Handle(); h != "BR.15" {
		t.Errorf("Handle = %q", h)
	}
	c.Username = "ana"
	if h := c.Handle(); h != "@ana" {
		t.Errorf("Handle = %q", h)
	}
	c.WaID = "5215512345678"
	if h := c.Handle(); h != "+5215512345678" {
		t.Errorf("Handle = %q", h)
	}
	c.Phone = domain.MustPhoneNumber("+525512345678")
	if h := c.Handle(); h != "+525512345678" {
		t.Errorf("Handle = %q", h)
	}
}
