package httpapi_test

import (
	"maps"
	"testing"
)

// TestIdempotencyKeyScopedByMode: a live send that reuses a test send's
// Idempotency-Key and body is sent (202, a new live message), never
// answered with the test message, which stayed in the sandbox. Each mode
// then replays its own first answer, byte for byte.
func TestIdempotencyKeyScopedByMode(t *testing.T) {
	t.Parallel()
	onEveryEngine(t, func(t *testing.T, e *apiEnv) {
		body := sendBody(phone, e.active, "Ana", "1234")
		keyed := func(key string) map[string]string {
			h := maps.Clone(e.keyed(key))
			h["Idempotency-Key"] = "order-7"
			return h
		}
		send := func(key string) (id, raw string, replayed bool) {
			t.Helper()
			res, raw := e.do(t, "POST", sendURL, keyed(key), body)
			if res.StatusCode != 202 {
				t.Fatalf("send: %d %s", res.StatusCode, raw)
			}
			return decode[map[string]string](t, raw)["id"], raw, res.Header.Get("Idempotent-Replayed") == "true"
		}
		testID, testRaw, replayed := send(e.key)
		if replayed {
			t.Fatal("the first test send was answered as a replay")
		}
		liveID, liveRaw, replayed := send(e.liveKey)
		if replayed || liveID == testID {
			t.Fatalf("the live send with the test send's key and body: %s (replayed %v), want a new message, not %s", liveRaw, replayed, testID)
		}
		if _, got := e.do(t, "GET", "/v1/messages/"+liveID, e.keyed(e.liveKey), ""); decode[map[string]any](t, got)["mode"] != "live" {
			t.Errorf("the live send's message: %s, want mode live", got)
		}
		for _, c := range []struct{ key, id, raw string }{{e.key, testID, testRaw}, {e.liveKey, liveID, liveRaw}} {
			id, raw, replayed := send(c.key)
			if !replayed || id != c.id || raw != c.raw {
				t.Errorf("retry: %s (replayed %v), want the first answer again: %s", raw, replayed, c.raw)
			}
		}
	})
}
