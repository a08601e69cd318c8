package domain_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/heraldhq/herald/domain"
)

func TestNewID(t *testing.T) {
	t.Parallel()
	id := domain.NewID(domain.PrefixMessage, t0, [10]byte{1, 2, 3, 4, 5, 6, 7, 8, 9, 10})
	if len(id) != 30 || !strings.HasPrefix(id, "msg_") {
		t.Fatalf("NewID = %q, want msg_ and 26 characters", id)
	}
	if strings.Trim(id[4:], "0123456789abcdefghjkmnpqrstvwxyz") != "" {
		t.Fatalf("NewID = %q uses characters outside lowercase Crockford base32", id)
	}
	if got, err := domain.ParseMessageID(id); err != nil || string(got) != id {
		t.Fatalf("ParseMessageID(%q) = %q, %v", id, got, err)
	}
	// The same inputs give the same id: NewID is pure.
	if again := domain.NewID(domain.PrefixMessage, t0, [10]byte{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}); again != id {
		t.Fatalf("NewID is not deterministic: %q then %q", id, again)
	}
	// The 48-bit millisecond timestamp is the first 10 characters: the
	// Unix epoch is all zeros.
	if epoch := domain.NewID(domain.PrefixMessage, time.UnixMilli(0), [10]byte{}); epoch != "msg_"+strings.Repeat("0", 26) {
		t.Fatalf("NewID at the epoch with zero entropy = %q", epoch)
	}
	maxed := domain.NewID(domain.PrefixMessage, time.UnixMilli(1<<48-1), [10]byte{255, 255, 255, 255, 255, 255, 255, 255, 255, 255})
	if maxed != "msg_7"+strings.Repeat("z", 25) {
		t.Fatalf("NewID at the largest time and entropy = %q", maxed)
	}
	if _, err := domain.ParseMessageID(maxed); err != nil {
		t.Fatalf("the largest id does not parse: %v", err)
	}
}

// TestIDsSortByTime: an id made a millisecond later sorts after, whatever
// the entropy of either.
func TestIDsSortByTime(t *testing.T) {
	t.Parallel()
	lo, hi := [10]byte{}, [10]byte{255, 255, 255, 255, 255, 255, 255, 255, 255, 255}
	var ids []string
	for i := range 50 {
		e := hi
		if i%2 == 1 {
			e = lo
		}
		ids = append(ids, domain.NewID(domain.PrefixMessage, t0.Add(time.Duration(i)*time.Millisecond), e))
	}
	for i := 1; i < len(ids); i++ {
		if ids[i-1] >= ids[i] {
			t.Fatalf("%q (made at +%d ms) does not sort before %q (+%d ms)", ids[i-1], i-1, ids[i], i)
		}
	}
}

func TestParseIDs(t *testing.T) {
	t.Parallel()
	type parser struct {
		prefix   string
		parse    func(string) error
		notFound error
	}
	parsers := map[string]parser{
		"campaign": {domain.PrefixCampaign, func(s string) error { _, err := domain.ParseCampaignID(s); return err }, domain.ErrCampaignNotFound},
		"contact":  {domain.PrefixContact, func(s string) error { _, err := domain.ParseContactID(s); return err }, domain.ErrContactNotFound},
		"message":  {domain.PrefixMessage, func(s string) error { _, err := domain.ParseMessageID(s); return err }, domain.ErrMessageNotFound},
		"key":      {domain.PrefixKey, func(s string) error { _, err := domain.ParseKeyID(s); return err }, domain.ErrKeyNotFound},
		"workspace": {domain.PrefixWorkspace, func(s string) error { _, err := domain.ParseWorkspaceID(s); return err },
			domain.ErrWorkspaceNotFound},
	}
	for name, p := range parsers {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			good := domain.NewID(p.prefix, t0, [10]byte{9, 8, 7})
			if err := p.parse(good); err != nil {
				t.Fatalf("%q: %v", good, err)
			}
			other := domain.PrefixCampaign
			if p.prefix == other {
				other = domain.PrefixContact
			}
			body := good[4:]
			for _, bad := range []string{
				"",
				p.prefix,
				p.prefix + "_",
				other + "_" + body,                     // another entity's prefix
				strings.ToUpper(p.prefix) + "_" + body, // prefix in capitals
				p.prefix + "-" + body,                  // wrong separator
				good[:29],                              // one short
				good + "0",                             // one long
				p.prefix + "_" + strings.ToUpper(body),
				p.prefix + "_" + body[:25] + "i", // not Crockford: i, l, o, u
				p.prefix + "_" + body[:25] + "l",
				p.prefix + "_" + body[:25] + "o",
				p.prefix + "_" + body[:25] + "u",
				p.prefix + "_8" + body[1:], // more than 128 bits
				p.prefix + "_" + body[:25] + "é"[:1],
				" " + good,
			} {
				err := p.parse(bad)
				if !errors.Is(err, p.notFound) {
					t.Errorf("%q: %v, want %v", bad, err, p.notFound)
				}
				var de *domain.Error
				if errors.As(err, &de) && de.Detail == "" {
					t.Errorf("%q: the not-found error has no detail", bad)
				}
			}
		})
	}
}
