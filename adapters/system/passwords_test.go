package system_test

import (
	"context"
	"strings"
	"testing"

	"github.com/heraldhq/herald/adapters/system"
)

func TestPasswordHashesCheckOnlyTheirPassword(t *testing.T) {
	t.Parallel()
	p := system.NewPasswords(system.PasswordConfig{})
	const pw = "correct horse battery staple"
	h1, err := p.HashPassword(pw)
	if err != nil {
		t.Fatal(err)
	}
	h2, err := p.HashPassword(pw)
	if err != nil {
		t.Fatal(err)
	}
	if h1 == h2 {
		t.Error("two hashes of one password are equal: the salt is not fresh")
	}
	if !strings.HasPrefix(h1, "$argon2id$v=19$") || strings.Contains(h1, pw) {
		t.Errorf("hash %q is not an argon2id PHC string free of the password", h1)
	}
	for _, tc := range []struct {
		pw   string
		want bool
	}{{pw, true}, {pw + " ", false}, {"Correct horse battery staple", false}, {"", false}} {
		ok, err := p.CheckPassword(context.Background(), h1, tc.pw)
		if err != nil || ok != tc.want {
			t.Errorf("CheckPassword(%q) = %v, %v; want %v", tc.pw, ok, err, tc.want)
		}
	}
}

func TestUnreadablePasswordHashesAreErrors(t *testing.T) {
	t.Parallel()
	p := system.NewPasswords(system.PasswordConfig{})
	good, err := p.HashPassword("a long enough password")
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range []string{
		"",
		"plaintext",
		strings.Replace(good, "argon2id", "argon2i", 1),
		strings.Replace(good, "v=19", "v=16", 1),
		strings.Replace(good, "m=32768", "m=99999999", 1),
		good[:strings.LastIndex(good, "$")] + "$!!!",
	} {
		if ok, err := p.CheckPassword(context.Background(), h, "a long enough password"); err == nil || ok {
			t.Errorf("CheckPassword(%q) = %v, %v; want an error", h, ok, err)
		}
	}
}
