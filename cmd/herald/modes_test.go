package main

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"testing"

	"go.uber.org/fx"
	"go.uber.org/fx/fxtest"

	"github.com/heraldhq/herald/app"
	"github.com/heraldhq/herald/domain"
)

// TestLiveKeysNeedTheCloudAPI starts the server's graph as the binary
// does: without Meta's settings there is no live sender, so a live key's
// send answers 503 whatsapp_not_configured while a test key's goes to the
// sandbox; with them, both are accepted.
func TestLiveKeysNeedTheCloudAPI(t *testing.T) {
	t.Parallel()
	for _, configured := range []bool{false, true} {
		c := testConfig(t, "sqlite:"+filepath.Join(t.TempDir(), "h.db"))
		if configured {
			c.WhatsAppAccessToken, c.WhatsAppPhoneID, c.WhatsAppAPIURL = "token", "106540352242922", "http://127.0.0.1:1/v24.0"
		}
		var logs syncBuffer
		opts, err := appOptions(c, &logs)
		if err != nil {
			t.Fatal(err)
		}
		var keys *app.CreateKeyHandler
		var camps *app.CreateCampaignHandler
		a := fxtest.New(t, opts, fx.Populate(&keys, &camps))
		a.RequireStart()
		ctx := context.Background()
		camp, err := camps.Handle(ctx, app.CreateCampaign{Name: "W", TemplateName: "welcome", Language: "en_US",
			Body: "Hi {{1}}", Activate: true})
		if err != nil {
			t.Fatal(err)
		}
		send := func(mode domain.KeyMode) (int, string) {
			k, err := keys.Handle(ctx, app.CreateKey{Name: mode.String(), Mode: mode})
			if err != nil {
				t.Fatal(err)
			}
			body, _ := json.Marshal(map[string]any{"phoneNumber": "+14155552671", "campaignId": string(camp.ID), "variables": []string{"Ana"}})
			req, _ := http.NewRequest("POST", "http://"+listeningAddr(t, logs.String())+"/v1/messages/send-campaign", strings.NewReader(string(body)))
			req.Header.Set("X-API-KEY", k.Token.Plaintext())
			req.Header.Set("Content-Type", "application/json")
			res, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer res.Body.Close()
			b, _ := io.ReadAll(res.Body)
			return res.StatusCode, string(b)
		}
		if code, body := send(domain.ModeTest); code != http.StatusAccepted {
			t.Errorf("configured %v: test key answered %d %s, want 202", configured, code, body)
		}
		code, body := send(domain.ModeLive)
		switch {
		case configured && code != http.StatusAccepted:
			t.Errorf("with the Cloud API: live key answered %d %s, want 202", code, body)
		case !configured && (code != http.StatusServiceUnavailable || !strings.Contains(body, `"code":"whatsapp_not_configured"`)):
			t.Errorf("without the Cloud API: live key answered %d %s, want 503 whatsapp_not_configured", code, body)
		}
		a.RequireStop()
	}
}
