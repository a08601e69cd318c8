package main

import (
	"bytes"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strconv"

	"github.com/heraldhq/herald/test/fakemeta"
)

// maxNumbers bounds -numbers: enough to see whether the aggregate is the
// machine's or one number's.
const maxNumbers = 8

// senderNumbers are the business numbers a pipeline run with -numbers n
// sends from: each with its own token, in two business accounts of two
// Meta apps (odd and even numbers), so that sends, tokens and the
// webhooks' signatures differ by number as they do at Meta.
func senderNumbers(n int) []fakemeta.Number {
	out := make([]fakemeta.Number, n)
	for i := range out {
		account := string(rune('a' + i%2))
		out[i] = fakemeta.Number{
			PhoneNumberID:      fmt.Sprintf("1065403522%05d", i+1),
			WABAID:             "10229012934039" + strconv.Itoa(i%2),
			AppID:              "load-app-" + account,
			AppSecret:          "load-app-secret-" + account + "-" + randomHex(8),
			Token:              fmt.Sprintf("load-token-%d-%s", i+1, randomHex(8)),
			DisplayPhoneNumber: fmt.Sprintf("+1 631-555-%04d", i+1),
			VerifiedName:       fmt.Sprintf("Load %d", i+1),
			QualityRating:      "GREEN",
			MessagingLimitTier: "TIER_UNLIMITED",
		}
		if i >= 2 { // the account's app is the first number's of that account
			out[i].AppSecret = out[i-2].AppSecret
		}
	}
	return out
}

// newSecretKey is a fresh HERALD_SECRET_KEY: 32 random bytes, base64.
func newSecretKey() string {
	var k [32]byte
	rand.Read(k[:])
	return base64.StdEncoding.EncodeToString(k[:])
}

// addNumbers stores each number in herald with `herald numbers add`, every
// workspace may use it, paced at mps, its token and app secret read from
// files in dir, as an operator would; it returns herald's ids of them.
func (h *heraldTarget) addNumbers(dir string, numbers []fakemeta.Number, mps int) ([]string, error) {
	ids := make([]string, 0, len(numbers))
	for i, n := range numbers {
		tokenFile := filepath.Join(dir, fmt.Sprintf("number-%d.token", i+1))
		secretFile := filepath.Join(dir, fmt.Sprintf("number-%d.secret", i+1))
		if err := os.WriteFile(tokenFile, []byte(n.Token+"\n"), 0o600); err != nil {
			return nil, err
		}
		if err := os.WriteFile(secretFile, []byte(n.AppSecret+"\n"), 0o600); err != nil {
			return nil, err
		}
		var added struct{ ID string }
		err := h.cli(&added, "numbers", "add", "--phone-number-id", n.PhoneNumberID, "--waba-id", n.WABAID, "--app-id", n.AppID,
			"--display-number", n.DisplayPhoneNumber, "--verified-name", n.VerifiedName, "--mps", strconv.Itoa(mps),
			"--all-workspaces", "--access-token-file", tokenFile, "--app-secret-file", secretFile, "--json")
		os.Remove(tokenFile)
		os.Remove(secretFile)
		if err != nil {
			return nil, err
		}
		ids = append(ids, added.ID)
	}
	return ids, nil
}

// createNumberCampaigns makes one active campaign per number through the
// API (POST /v1/campaigns with phoneNumberId), each the load campaign's
// twin, and returns their ids in the numbers' order.
func createNumberCampaigns(base, token string, numberIDs []string) ([]string, error) {
	ids := make([]string, 0, len(numberIDs))
	for i, number := range numberIDs {
		body, _ := json.Marshal(map[string]any{"name": fmt.Sprintf("Load %d", i+1), "templateName": templateName,
			"language": templateLanguage, "body": templateBody, "activate": true, "phoneNumberId": number})
		req, err := http.NewRequest(http.MethodPost, base+"/v1/campaigns", bytes.NewReader(body))
		if err != nil {
			return nil, err
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("X-API-KEY", token)
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			return nil, err
		}
		answer, _ := io.ReadAll(io.LimitReader(res.Body, 64<<10))
		res.Body.Close()
		var camp struct{ ID string }
		if res.StatusCode != http.StatusCreated || json.Unmarshal(answer, &camp) != nil || camp.ID == "" {
			return nil, fmt.Errorf("create the campaign of number %s: %s %s", number, res.Status, bytes.TrimSpace(answer))
		}
		ids = append(ids, camp.ID)
	}
	return ids, nil
}

// numberResult is what one sender number of a run did.
type numberResult struct {
	metaID   string
	campaign string
	offered  float64        // messages/s the load sent to its campaign
	window   int            // sends the fake accepted from it during the load
	reads    int            // its messages that reached read, after the drain
	counts   map[string]int // herald's count of its campaign's messages by status
}
