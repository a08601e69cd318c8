package system_test

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/heraldhq/herald/adapters/system"
	"github.com/heraldhq/herald/ports"
)

func newKey(t *testing.T) string {
	t.Helper()
	k, err := system.NewSecretKey()
	if err != nil {
		t.Fatalf("NewSecretKey: %v", err)
	}
	return k
}

func newSecrets(t *testing.T, cfg system.SecretKeyConfig) *system.Secrets {
	t.Helper()
	s, err := system.NewSecrets(cfg)
	if err != nil {
		t.Fatalf("NewSecrets: %v", err)
	}
	return s
}

// A sealed secret opens with its key and associated data, and holds
// neither the plaintext nor the key.
func TestSecretsRoundTrip(t *testing.T) {
	t.Parallel()
	key := newKey(t)
	s := newSecrets(t, system.SecretKeyConfig{Key: key})
	token := []byte("EAAG-the-access-token-0123456789")
	aad := []byte("number:pn_1:token")
	sealed, err := s.Seal(token, aad)
	if err != nil {
		t.Fatalf("Seal: %v", err)
	}
	if sealed.KeyID != s.KeyID() || !s.Holds(sealed.KeyID) || !strings.HasPrefix(sealed.KeyID, "k") {
		t.Fatalf("sealed under %q, current key %q", sealed.KeyID, s.KeyID())
	}
	if bytes.Contains(sealed.Data, token) || strings.Contains(sealed.Encode(), string(token)) || strings.Contains(sealed.Encode(), key) {
		t.Fatal("the sealed value shows the token or the key")
	}
	again, _ := s.Seal(token, aad)
	if bytes.Equal(again.Data, sealed.Data) {
		t.Fatal("two seals of one token are equal: the nonce is not fresh")
	}
	got, err := s.Open(sealed, aad)
	if err != nil || !bytes.Equal(got, token) {
		t.Fatalf("Open = %q, %v", got, err)
	}
	// Bound to what it belongs to: on another row it does not open.
	if _, err := s.Open(sealed, []byte("number:pn_2:token")); !errors.Is(err, ports.ErrSecretUnreadable) {
		t.Fatalf("Open with other associated data: %v, want ErrSecretUnreadable", err)
	}
	tampered := sealed
	tampered.Data = bytes.Clone(sealed.Data)
	tampered.Data[len(tampered.Data)-1] ^= 1
	if _, err := s.Open(tampered, aad); !errors.Is(err, ports.ErrSecretUnreadable) {
		t.Fatalf("Open of altered bytes: %v, want ErrSecretUnreadable", err)
	}
	if fmtd := sealed.String(); strings.Contains(fmtd, string(token)) {
		t.Fatalf("String shows the secret: %s", fmtd)
	}
}

// The key id follows from the key: another server with the same key opens
// what this one sealed; a server with another key does not, and says the
// key is unknown. A previous key still opens what it sealed.
func TestSecretsKeys(t *testing.T) {
	t.Parallel()
	oldKey, newKeyV := newKey(t), newKey(t)
	old := newSecrets(t, system.SecretKeyConfig{Key: oldKey})
	sealed, err := old.Seal([]byte("app-secret"), nil)
	if err != nil {
		t.Fatalf("Seal: %v", err)
	}
	if got, err := newSecrets(t, system.SecretKeyConfig{Key: oldKey}).Open(sealed, nil); err != nil || string(got) != "app-secret" {
		t.Fatalf("Open with the same key elsewhere = %q, %v", got, err)
	}
	other := newSecrets(t, system.SecretKeyConfig{Key: newKeyV})
	if _, err := other.Open(sealed, nil); !errors.Is(err, ports.ErrSecretKeyUnknown) {
		t.Fatalf("Open under another key: %v, want ErrSecretKeyUnknown", err)
	}
	rotating := newSecrets(t, system.SecretKeyConfig{Key: newKeyV, Previous: []string{oldKey}})
	if rotating.KeyID() == old.KeyID() || !rotating.Holds(old.KeyID()) {
		t.Fatalf("rotating server: current %s, holds old %v", rotating.KeyID(), rotating.Holds(old.KeyID()))
	}
	if got, err := rotating.Open(sealed, nil); err != nil || string(got) != "app-secret" {
		t.Fatalf("Open under the previous key = %q, %v", got, err)
	}
	resealed, err := rotating.Seal([]byte("app-secret"), nil)
	if err != nil || resealed.KeyID != rotating.KeyID() {
		t.Fatalf("Seal during a rotation: %v under %s", err, resealed.KeyID)
	}
}

// A key from a file works like the variable's; bad keys are errors naming
// the setting.
func TestSecretsConfig(t *testing.T) {
	t.Parallel()
	key := newKey(t)
	file := filepath.Join(t.TempDir(), "key")
	if err := os.WriteFile(file, []byte(key+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	fromFile := newSecrets(t, system.SecretKeyConfig{KeyFile: file})
	if fromFile.KeyID() != newSecrets(t, system.SecretKeyConfig{Key: key}).KeyID() {
		t.Fatal("the key file's key is not the variable's")
	}
	for _, tc := range []struct {
		name string
		cfg  system.SecretKeyConfig
		want string
	}{
		{"short", system.SecretKeyConfig{Key: "c2hvcnQ="}, "HERALD_SECRET_KEY"},
		{"not base64", system.SecretKeyConfig{Key: "not base64!"}, "HERALD_SECRET_KEY"},
		{"both", system.SecretKeyConfig{Key: key, KeyFile: file}, "set one, not both"},
		{"missing file", system.SecretKeyConfig{KeyFile: filepath.Join(t.TempDir(), "none")}, "HERALD_SECRET_KEY_FILE"},
		{"bad previous", system.SecretKeyConfig{Key: key, Previous: []string{"x"}}, "HERALD_SECRET_KEY_PREVIOUS"},
	} {
		_, err := system.NewSecrets(tc.cfg)
		if err == nil || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), key) {
			t.Errorf("%s: error %v, want one naming %s and not showing the key", tc.name, err, tc.want)
		}
	}
}

// Without a key, sealing fails naming the settings, unless there is an
// automatic key file: made (0600) on the first seal, said once, and read by
// the next start.
func TestSecretsAutomaticKeyFile(t *testing.T) {
	t.Parallel()
	none := newSecrets(t, system.SecretKeyConfig{})
	if _, err := none.Seal([]byte("x"), nil); !errors.Is(err, ports.ErrNoSecretKey) ||
		!strings.Contains(err.Error(), "HERALD_SECRET_KEY") {
		t.Fatalf("Seal without a key: %v, want ErrNoSecretKey naming HERALD_SECRET_KEY", err)
	}

	path := filepath.Join(t.TempDir(), "data", "herald.secret-key")
	var made []string
	s := newSecrets(t, system.SecretKeyConfig{AutoKeyFile: path, OnGenerate: func(p string) { made = append(made, p) }})
	if s.KeyID() != "" {
		t.Fatalf("a key before anything was sealed: %s", s.KeyID())
	}
	if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the key file exists before anything was sealed: %v", err)
	}
	sealed, err := s.Seal([]byte("token"), nil)
	if err != nil {
		t.Fatalf("Seal: %v", err)
	}
	if _, err := s.Seal([]byte("token"), nil); err != nil {
		t.Fatalf("Seal again: %v", err)
	}
	if len(made) != 1 || made[0] != path {
		t.Fatalf("told of key files %v, want [%s] once", made, path)
	}
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatalf("the key file: %v", err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Fatalf("key file mode %v, want 0600", fi.Mode().Perm())
	}
	next := newSecrets(t, system.SecretKeyConfig{AutoKeyFile: path})
	if got, err := next.Open(sealed, nil); err != nil || string(got) != "token" {
		t.Fatalf("the next start opens %q, %v", got, err)
	}
}
