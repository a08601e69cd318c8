package dashboard

import (
	"encoding/json"
	"testing"
)

// TestFormatCharactersAreEscapedInJSON: the copyable command's JSON
// writes format characters, astral ones too, as escapes of the same value.
func TestFormatCharactersAreEscapedInJSON(t *testing.T) {
	t.Parallel()
	want := []string{"a\u202eb", "tag\U000E0041", "zero\u200bwidth", "plain ü"}
	raw, _ := json.Marshal(want)
	got := escapeFormatChars(string(raw))
	if got != `["a\u202eb","tag\udb40\udc41","zero\u200bwidth","plain ü"]` {
		t.Fatalf("escaped JSON %s", got)
	}
	var back []string
	if err := json.Unmarshal([]byte(got), &back); err != nil || len(back) != len(want) {
		t.Fatalf("the escaped JSON does not decode: %v", err)
	}
	for i := range want {
		if back[i] != want[i] {
			t.Errorf("value %d decodes to %q, want %q", i, back[i], want[i])
		}
	}
}
