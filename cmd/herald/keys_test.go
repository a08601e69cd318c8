package main

import (
	"strings"
	"testing"
)

// keys create --mode live warns on stderr when the settings it read have no
// Cloud API number: a server with them refuses the key's sends. The key is
// made all the same, and stdout stays one JSON value for scripts.
func TestKeysCreateLiveWarnsWithoutWhatsApp(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	for _, args := range [][]string{
		{"keys", "create", "--name", "live", "--mode", "live"},
		{"keys", "create", "--name", "live", "--mode", "live", "--json"},
	} {
		code, out, errOut := c.run(args...)
		if code != 0 || !strings.Contains(out, "sk_live_") {
			t.Fatalf("herald %v: exit %d, stdout %q: the key was not made", args, code, out)
		}
		for _, want := range []string{"503 whatsapp_not_configured", "HERALD_WHATSAPP_ACCESS_TOKEN", "HERALD_WHATSAPP_PHONE_NUMBER_ID", "--mode test"} {
			if !strings.Contains(errOut, want) {
				t.Errorf("herald %v: stderr %q lacks %q", args, errOut, want)
			}
		}
		if strings.Contains(out, "warning") {
			t.Errorf("herald %v: the warning went to stdout: %q", args, out)
		}
	}
	if _, _, errOut := c.run("keys", "create", "--name", "test", "--mode", "test"); errOut != "" {
		t.Errorf("a test key warns: %q", errOut)
	}

	configured := newCLI(t)
	base := configured.env
	configured.env = func(k string) string {
		switch k {
		case "HERALD_WHATSAPP_ACCESS_TOKEN":
			return "EAAGtoken"
		case "HERALD_WHATSAPP_PHONE_NUMBER_ID":
			return "106540352242922"
		}
		return base(k)
	}
	if code, _, errOut := configured.run("keys", "create", "--name", "live", "--mode", "live"); code != 0 || errOut != "" {
		t.Errorf("with the Cloud API configured: exit %d, stderr %q; want no warning", code, errOut)
	}
}
