package httpapi

import (
	"encoding/json"
	"testing"
)

// FuzzDecodeSendCampaign: strict decoding never panics, refuses with a
// transport code, and what it accepts is an object whose fields re-encode
// and decode to the same value.
func FuzzDecodeSendCampaign(f *testing.F) {
	for _, s := range []string{
		`{"phoneNumber":"+14155552671","campaignId":"cmp_01m81bkykc0s1bgwft8hc4jsfp","variables":["Ana","1234"]}`,
		`{"phoneNumber":"+14155552671","phoneNumber":"x","campaignId":"c"}`,
		`{"PhoneNumber":"+1","campaignId":"c"}`,
		`{"phoneNumber":"+1","campaignId":"c"} {}`,
		`{"phoneNumber":null,"campaignId":"c"}`,
		`{"phoneNumber":"+1","campaignId":"c","variables":[1]}`,
		`[]`, `"x"`, ``, `{`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		var in sendCampaignRequest
		derr := decodeStrict(body, sendCampaignSpec, &in)
		if derr != nil {
			if derr.code != CodeInvalidJSON && derr.code != CodeMissingParameter {
				t.Fatalf("unexpected code %s for %q", derr.code, body)
			}
			if _, ok := statuses[derr.code]; !ok {
				t.Fatalf("code %s has no status", derr.code)
			}
			return
		}
		if !json.Valid(body) {
			t.Fatalf("accepted invalid JSON %q", body)
		}
		again, err := json.Marshal(in)
		if err != nil {
			t.Fatal(err)
		}
		var back sendCampaignRequest
		if derr := decodeStrict(again, sendCampaignSpec, &back); derr != nil {
			t.Fatalf("re-encoded %s is refused: %v", again, derr)
		}
		if back.PhoneNumber != in.PhoneNumber || back.CampaignID != in.CampaignID || len(back.Variables) != len(in.Variables) {
			t.Fatalf("round trip changed the value: %+v vs %+v", in, back)
		}
	})
}

// FuzzDecodeSyncContact covers nested objects (attributes) and optional
// pointers.
func FuzzDecodeSyncContact(f *testing.F) {
	for _, s := range []string{
		`{"phoneNumber":"+14155552671","name":"Ana","attributes":{"plan":"pro"},"tags":["vip"],"optedOut":true}`,
		`{"phoneNumber":"+1","attributes":{"a":"1","a":"2"}}`,
		`{"phoneNumber":"+1","attributes":{"a":{"b":1}}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		var in syncContactRequest
		if derr := decodeStrict(body, syncContactSpec, &in); derr == nil && in.PhoneNumber == "" && !json.Valid(body) {
			t.Fatalf("accepted %q", body)
		}
	})
}
