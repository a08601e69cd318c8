package main

import (
	"strings"
	"testing"
)

// TestCampaignsCreateCategory: a campaign defined with --body takes the
// category given (none is printed as none: it counts as marketing), a
// category that is not one of Meta's three is a usage error, and the help
// says what the category decides.
func TestCampaignsCreateCategory(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	var camp struct{ Category string }
	c.json(&camp, "campaigns", "create", "--name", "Receipts", "--template-name", "receipt", "--language", "en",
		"--body", "Order {{1}} is paid", "--category", "utility")
	if camp.Category != "UTILITY" {
		t.Errorf("campaigns create --category utility printed category %q, want UTILITY", camp.Category)
	}
	camp.Category = ""
	c.json(&camp, "campaigns", "create", "--name", "Promo", "--template-name", "promo", "--language", "en", "--body", "Hi")
	if camp.Category != "" {
		t.Errorf("campaigns create without --category printed category %q, want none", camp.Category)
	}
	for _, cat := range []string{"promotional", "transactional"} {
		code, out, errOut := c.run("campaigns", "create", "--name", "X", "--template-name", "x", "--language", "en", "--body", "Hi",
			"--category", cat)
		const want = "herald: --category must be marketing, utility or authentication\n" +
			"Run 'herald campaigns create --help' for usage.\n"
		if code != 2 || out != "" || errOut != want {
			t.Errorf("--category %s: exit %d, stdout %q, stderr %q; want exit 2 and %q", cat, code, out, errOut, want)
		}
	}
	code, out, _ := c.run("campaigns", "create", "--help")
	for _, want := range []string{"--category string", "marketing, utility or authentication",
		"without a category a template counts as marketing"} {
		if code != 0 || !strings.Contains(out, want) {
			t.Errorf("campaigns create --help: exit %d, lacks %q:\n%s", code, want, out)
		}
	}
}
