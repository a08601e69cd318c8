package domain

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// OptAction is what a contact's message asks of their subscription.
type OptAction int

// The actions a message can carry.
const (
	OptNone OptAction = iota // an ordinary message
	OptOut                   // stop sending to me (STOP, UNSUBSCRIBE)
	OptIn                    // send to me again (START)
)

// OptKeywords are the words that, sent alone, opt a contact out of messages
// or back in. Matching ignores case, how accents are encoded, and spaces,
// punctuation and symbols around the word: "stop", " Stop! ", "*STOP*" and
// "¡Baja!" match STOP and BAJA.
type OptKeywords struct {
	out, in []string
}

// DefaultOptOutKeywords and DefaultOptInKeywords are used when none are
// configured.
var (
	DefaultOptOutKeywords = []string{"STOP", "UNSUBSCRIBE"}
	DefaultOptInKeywords  = []string{"START"}
)

// NewOptKeywords checks and normalises keyword lists: each keyword is 1 to
// 64 characters and no word is in both lists.
func NewOptKeywords(out, in []string) (OptKeywords, error) {
	k := OptKeywords{}
	seen := map[string]bool{}
	for _, list := range []struct {
		param string
		words []string
		dst   *[]string
	}{{"optOutKeywords", out, &k.out}, {"optInKeywords", in, &k.in}} {
		for _, w := range list.words {
			n := normalizeKeyword(w)
			if n == "" || utf8.RuneCountInString(n) > 64 {
				return OptKeywords{}, InvalidParameter(list.param, "a keyword is 1 to 64 characters: "+w)
			}
			if seen[n] {
				return OptKeywords{}, InvalidParameter(list.param, "the keyword "+n+" is listed twice")
			}
			seen[n] = true
			*list.dst = append(*list.dst, n)
		}
	}
	return k, nil
}

// DefaultOptKeywords returns STOP and UNSUBSCRIBE to opt out, START to opt in.
func DefaultOptKeywords() OptKeywords {
	k, _ := NewOptKeywords(DefaultOptOutKeywords, DefaultOptInKeywords)
	return k
}

// IsZero reports whether k holds no keywords (the zero value).
func (k OptKeywords) IsZero() bool { return len(k.out) == 0 && len(k.in) == 0 }

// Out lists the opt-out keywords, normalised.
func (k OptKeywords) Out() []string { return append([]string(nil), k.out...) }

// In lists the opt-in keywords, normalised.
func (k OptKeywords) In() []string { return append([]string(nil), k.in...) }

// Action says what a contact's message asks: its text, or for a button or
// list reply its text or payload, compared with the keywords as a whole.
// Media captions are never read as keywords.
func (k OptKeywords) Action(m InboundMessage) OptAction {
	var candidates []string
	switch m.Kind {
	case KindText:
		candidates = []string{m.Text}
	case KindButton, KindInteractive:
		candidates = []string{m.Payload, m.Text}
	}
	for _, c := range candidates {
		n := normalizeKeyword(c)
		if n == "" {
			continue
		}
		for _, w := range k.out {
			if n == w {
				return OptOut
			}
		}
		for _, w := range k.in {
			if n == w {
				return OptIn
			}
		}
	}
	return OptNone
}

// normalizeKeyword composes accents (NFC), trims spaces and punctuation at
// both ends (WhatsApp's *bold* and _italic_ marks, quotes, ¡…!) and
// upper-cases what is left.
func normalizeKeyword(s string) string {
	s = norm.NFC.String(s)
	s = strings.TrimFunc(s, func(r rune) bool { return unicode.IsPunct(r) || unicode.IsSpace(r) || unicode.IsSymbol(r) })
	return strings.ToUpper(s)
}
