package domain_test

import (
	"crypto/rand"
	"errors"
	"testing"

	"github.com/heraldhq/herald/domain"
)

func TestCheckText(t *testing.T) {
	t.Parallel()
	cases := []struct {
		s, detail string // empty detail: accepted
	}{
		{"", ""},
		{"Asha Rao 😀 \t\n", ""},
		{"a\x00b", "the name contains a NUL character (U+0000), which Herald does not store"},
		{"\x00", "the name contains a NUL character (U+0000), which Herald does not store"},
		{"a\xffb", "the name is not valid UTF-8"},
		{"\xff\x00", "the name is not valid UTF-8"},
	}
	for _, c := range cases {
		err := domain.CheckText("name", "the name", c.s)
		if c.detail == "" {
			if err != nil {
				t.Errorf("%q refused: %v", c.s, err)
			}
			continue
		}
		wantInvalid(t, err, "name", c.detail)
	}
}

func TestScrubText(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"":               "",
		"STOP":           "STOP",
		"ST\x00OP":       "ST\uFFFDOP",
		"\x00\x00":       "\uFFFD\uFFFD",
		"caf\xc3":        "caf\uFFFD",
		"😀 \x00 \xff ok": "😀 \uFFFD \uFFFD ok",
	} {
		got := domain.ScrubText(in)
		if got != want {
			t.Errorf("ScrubText(%q) = %q, want %q", in, got, want)
		}
		if err := domain.CheckText("text", "the text", got); err != nil {
			t.Errorf("ScrubText(%q) = %q does not pass CheckText: %v", in, got, err)
		}
	}
}

// Every constructor that keeps a caller's text refuses NUL, whatever the
// caller: the API, the command line or the dashboard.
func TestConstructorsRefuseNUL(t *testing.T) {
	t.Parallel()
	tmpl, err := domain.NewTemplate("promo", "en", domain.HeaderNone, "", "Hi {{1}}", "", nil)
	if err != nil {
		t.Fatal(err)
	}
	tok, err := domain.NewToken(domain.ModeTest, rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	c := newCampaign(t, domain.HeaderNone)
	for _, tc := range []struct {
		what, param string
		err         error
	}{
		{"campaign name", "name", func() error { _, err := domain.NewCampaign("cmp_x", "wsp_x", "Pro\x00mo", tmpl, t0); return err }()},
		{"campaign rename", "name", c.Edit("Pro\x00mo", []string{"First name"}, t0)},
		{"campaign label", "variableLabels", c.Edit("Promo", []string{"First\x00name"}, t0)},
		{"key name", "name", func() error { _, err := domain.NewAPIKey("key_x", "wsp_x", "c\x00i", tok, t0); return err }()},
		{"workspace name", "name", func() error { _, err := domain.NewWorkspace("wsp_x", "Acme\x00", t0); return err }()},
		{"template reference", "templateName", domain.CheckTemplateRef("promo\x00", "en")},
		{"operator email", "email", func() error { _, err := domain.ParseEmail("op\x00@example.com"); return err }()},
	} {
		var de *domain.Error
		if !errors.As(tc.err, &de) || de.Code != domain.CodeInvalidParameter || de.Param != tc.param {
			t.Errorf("%s with NUL: %v, want invalid_parameter (%s)", tc.what, tc.err, tc.param)
		}
	}
	if c.Name != "Promo" || c.Template.Placeholders[0].Label != "First name" {
		t.Errorf("a refused edit changed the campaign: %+v", c)
	}
}

func TestSyncedTemplateScrubbed(t *testing.T) {
	t.Parallel()
	in := domain.SyncedTemplate{Account: "waba\x00", ProviderID: "1\x00", Name: "bad\x00name", Language: "en\x00",
		Category: "UTI\xffLITY", Unsupported: "a\x00b", Definition: domain.Template{Body: "Hi\x00",
			Placeholders: []domain.Placeholder{{Index: 1, Label: "N\x00"}}}}
	got := in.Scrubbed()
	for what, pair := range map[string][2]string{
		"account": {got.Account, "waba\uFFFD"}, "provider id": {got.ProviderID, "1\uFFFD"}, "name": {got.Name, "bad\uFFFDname"},
		"language": {got.Language, "en\uFFFD"}, "category": {got.Category, "UTI\uFFFDLITY"}, "unsupported": {got.Unsupported, "a\uFFFDb"},
		"body": {got.Definition.Body, "Hi\uFFFD"}, "label": {got.Definition.Placeholders[0].Label, "N\uFFFD"},
	} {
		if pair[0] != pair[1] {
			t.Errorf("%s: %q, want %q", what, pair[0], pair[1])
		}
	}
	if in.Definition.Placeholders[0].Label != "N\x00" {
		t.Error("Scrubbed changed the template it was called on")
	}
}
