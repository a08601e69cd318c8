package main

import (
	"strings"
	"testing"

	"github.com/heraldhq/herald/test/fakemeta"
)

// TestCampaignsMap shows every slot of a synced template with buttons and
// changes where one takes its value from and its label; an invalid
// mapping changes nothing and says why.
func TestCampaignsMap(t *testing.T) {
	t.Parallel()
	fake := fakemeta.New(t)
	fake.AddTemplate(fakemeta.Template{Name: "deals", Language: "en_US", Status: "APPROVED", Body: "Hi {{1}}, your deal is ready.",
		Buttons: []fakemeta.Button{{Type: "QUICK_REPLY", Text: "Stop"}, {Type: "URL", Text: "Shop", URL: "https://shop.example/d/{{1}}"}}})
	c := newCLI(t)
	env := c.env
	c.env = func(k string) string {
		switch k {
		case "HERALD_WHATSAPP_API_URL":
			return fake.URL
		case "HERALD_WHATSAPP_ACCESS_TOKEN":
			return fake.Token
		case "HERALD_WHATSAPP_WABA_ID":
			return fake.WABAID
		}
		return env(k)
	}
	var synced []struct{ Name string }
	c.json(&synced, "campaigns", "sync-templates")
	var camp struct{ ID string }
	c.json(&camp, "campaigns", "create", "--name", "Deals", "--template-name", "deals", "--language", "en_US")

	code, out, errOut := c.run("campaigns", "map", camp.ID)
	words := strings.Join(strings.Fields(out), " ")
	if code != 0 || !strings.Contains(words, `buttons.0 the payload of quick-reply button 0 ("Stop") "Stop"`) ||
		!strings.Contains(words, `buttons.1 the suffix of URL button 1 ("Shop") variables[1]`) || !strings.HasSuffix(out, "a send gives 2 variables\n") {
		t.Fatalf("campaigns map: exit %d\n%s%s", code, out, errOut)
	}

	var slots []struct {
		Slot, Label string
		Position    *int
		Value       *string
	}
	c.json(&slots, "campaigns", "map", camp.ID, "--slot", "buttons.0=position:3", "--label", "buttons.0=Opt-out payload")
	if len(slots) != 3 || slots[1].Slot != "buttons.0" || slots[1].Position == nil || *slots[1].Position != 3 || slots[1].Label != "Opt-out payload" {
		t.Fatalf("after the change: %+v", slots)
	}

	code, _, errOut = c.run("campaigns", "map", camp.ID, "--slot", "buttons.1=position:7")
	if code != 1 || !strings.Contains(errOut, "positions must run from 1 without gaps") {
		t.Errorf("a gap: exit %d %q", code, errOut)
	}
	code, _, errOut = c.run("campaigns", "map", camp.ID, "--slot", "buttons.1")
	if code != 2 || !strings.Contains(errOut, "--slot takes KEY=position:N") {
		t.Errorf("a slot without a source: exit %d %q", code, errOut)
	}
	c.json(&slots, "campaigns", "map", camp.ID)
	if *slots[1].Position != 3 || slots[2].Position == nil || *slots[2].Position != 2 {
		t.Errorf("a refused change changed the mapping: %+v", slots)
	}
}
