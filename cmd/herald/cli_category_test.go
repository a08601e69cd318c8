package main

import (
	"strings"
	"testing"
)

// TestCampaignsCreateCategory: a campaign defined with --body takes the
// category given (none is printed as none: it counts as marketing), and a
// category that is not one of Meta's three is a usage error.
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
	if code, _, errOut := c.run("campaigns", "create", "--name", "X", "--template-name", "x", "--language", "en", "--body", "Hi",
		"--category", "promotional"); code != 2 || !strings.Contains(errOut, "--category must be marketing, utility or authentication") {
		t.Errorf("an unknown category: exit %d, %q", code, errOut)
	}
}
