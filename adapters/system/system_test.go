package system_test

import (
	"sort"
	"strings"
	"testing"

	"github.com/heraldhq/herald/adapters/system"
	"github.com/heraldhq/herald/domain"
)

func TestIDsSortInCreationOrder(t *testing.T) {
	t.Parallel()
	g := system.NewIDs()
	ids := make([]string, 5000)
	for i := range ids {
		ids[i] = g.NewID(domain.PrefixMessage)
	}
	if !sort.StringsAreSorted(ids) {
		t.Fatal("identifiers made one after another do not sort in creation order")
	}
	for _, id := range ids {
		if _, err := domain.ParseMessageID(id); err != nil {
			t.Fatalf("generated id %q does not parse: %v", id, err)
		}
	}
}

func TestTokensParse(t *testing.T) {
	t.Parallel()
	g := system.NewIDs()
	tok, err := g.NewToken(domain.ModeLive)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(tok.Plaintext(), "sk_live_") {
		t.Fatalf("live token %q lacks sk_live_", tok)
	}
	if _, err := domain.ParseToken(tok.Plaintext()); err != nil {
		t.Fatalf("fresh token does not parse: %v", err)
	}
}
