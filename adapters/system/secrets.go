package system

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/heraldhq/herald/domain"
	"github.com/heraldhq/herald/ports"
)

// SecretKeyConfig says where the keys that seal stored secrets come from.
type SecretKeyConfig struct {
	// Key is the current key, 32 bytes in standard base64
	// (HERALD_SECRET_KEY); KeyFile a file holding it so
	// (HERALD_SECRET_KEY_FILE). At most one of them is set.
	Key     string
	KeyFile string
	// Previous are keys secrets may still be sealed under, during a
	// rotation (HERALD_SECRET_KEY_PREVIOUS, comma-separated).
	Previous []string
	// AutoKeyFile is where a key is kept when neither Key nor KeyFile is
	// set: read when it exists, made (0600) the first time a secret is
	// sealed. Empty means none is made, and sealing fails with
	// ports.ErrNoSecretKey.
	AutoKeyFile string
	// OnGenerate is told the file's path when a key is made there.
	OnGenerate func(path string)
}

// Secrets seals and opens secrets with AES-256-GCM. A sealed value carries
// the id of its key: "k" and the first 12 hex digits of the key's SHA-256,
// so a key names itself and needs no configured id. The nonce (12 random
// bytes) leads the sealed bytes.
type Secrets struct {
	mu      sync.Mutex
	current string
	keys    map[string]cipher.AEAD
	auto    string
	onGen   func(string)
}

// NewSecrets reads the configured keys. A key that is not 32 bytes of
// base64, or a key file that cannot be read, is an error naming its
// setting.
func NewSecrets(cfg SecretKeyConfig) (*Secrets, error) {
	s := &Secrets{keys: map[string]cipher.AEAD{}, onGen: cfg.OnGenerate}
	if cfg.Key != "" && cfg.KeyFile != "" {
		return nil, errors.New("HERALD_SECRET_KEY and HERALD_SECRET_KEY_FILE: set one, not both")
	}
	current, setting := cfg.Key, "HERALD_SECRET_KEY"
	if cfg.KeyFile != "" {
		b, err := os.ReadFile(cfg.KeyFile)
		if err != nil {
			return nil, fmt.Errorf("HERALD_SECRET_KEY_FILE: %w", err)
		}
		current, setting = strings.TrimSpace(string(b)), "HERALD_SECRET_KEY_FILE"
	}
	if current == "" && cfg.AutoKeyFile != "" {
		b, err := os.ReadFile(cfg.AutoKeyFile)
		switch {
		case err == nil:
			current, setting = strings.TrimSpace(string(b)), cfg.AutoKeyFile
		case errors.Is(err, fs.ErrNotExist):
			s.auto = cfg.AutoKeyFile
		default:
			return nil, fmt.Errorf("secret key file %s: %w", cfg.AutoKeyFile, err)
		}
	}
	if current != "" {
		id, err := s.add(current)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", setting, err)
		}
		s.current = id
	}
	for _, p := range cfg.Previous {
		if _, err := s.add(p); err != nil {
			return nil, fmt.Errorf("HERALD_SECRET_KEY_PREVIOUS: %w", err)
		}
	}
	return s, nil
}

// NewSecretKey returns a fresh key in the form HERALD_SECRET_KEY takes.
func NewSecretKey() (string, error) {
	var k [32]byte
	if _, err := rand.Read(k[:]); err != nil {
		return "", err
	}
	return base64.StdEncoding.EncodeToString(k[:]), nil
}

// add holds the key in encoded and returns its id.
func (s *Secrets) add(encoded string) (string, error) {
	raw, err := base64.StdEncoding.DecodeString(strings.TrimSpace(encoded))
	if err != nil || len(raw) != 32 {
		return "", errors.New("the key must be 32 bytes in standard base64 (44 characters; `openssl rand -base64 32` makes one)")
	}
	block, err := aes.NewCipher(raw)
	if err != nil {
		return "", err
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(append([]byte("herald secret key\x00"), raw...))
	id := "k" + hex.EncodeToString(sum[:6])
	s.keys[id] = aead
	return id, nil
}

// KeyID names the current key; "" when there is none yet.
func (s *Secrets) KeyID() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.current
}

// Holds reports whether the key is held.
func (s *Secrets) Holds(keyID string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	_, ok := s.keys[keyID]
	return ok
}

// Seal encrypts plaintext under the current key, bound to associated. With
// no key configured, the automatic key file is made first, when there is
// one.
func (s *Secrets) Seal(plaintext, associated []byte) (domain.SealedSecret, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.current == "" {
		if err := s.generate(); err != nil {
			return domain.SealedSecret{}, err
		}
	}
	aead := s.keys[s.current]
	nonce := make([]byte, aead.NonceSize(), aead.NonceSize()+len(plaintext)+aead.Overhead())
	if _, err := rand.Read(nonce); err != nil {
		return domain.SealedSecret{}, err
	}
	return domain.SealedSecret{KeyID: s.current, Data: aead.Seal(nonce, nonce, plaintext, associated)}, nil
}

// generate makes the automatic key file (0600, never replacing one) and
// makes its key current. The caller holds mu.
func (s *Secrets) generate() error {
	if s.auto == "" {
		return ports.ErrNoSecretKey
	}
	key, err := NewSecretKey()
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(s.auto), 0o700); err != nil {
		return fmt.Errorf("making the secret key file: %w", err)
	}
	f, err := os.OpenFile(s.auto, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if errors.Is(err, fs.ErrExist) {
		// Another process made it first: use that one.
		b, rerr := os.ReadFile(s.auto)
		if rerr != nil {
			return fmt.Errorf("reading the secret key file: %w", rerr)
		}
		key = strings.TrimSpace(string(b))
	} else if err != nil {
		return fmt.Errorf("making the secret key file: %w", err)
	} else {
		_, werr := f.WriteString(key + "\n")
		if cerr := f.Close(); werr == nil {
			werr = cerr
		}
		if werr != nil {
			return fmt.Errorf("writing the secret key file: %w", werr)
		}
		if s.onGen != nil {
			s.onGen(s.auto)
		}
	}
	id, err := s.add(key)
	if err != nil {
		return fmt.Errorf("secret key file %s: %w", s.auto, err)
	}
	s.current, s.auto = id, ""
	return nil
}

// Open decrypts sealed, which must have been sealed with associated.
func (s *Secrets) Open(sealed domain.SealedSecret, associated []byte) ([]byte, error) {
	s.mu.Lock()
	aead, ok := s.keys[sealed.KeyID]
	s.mu.Unlock()
	if !ok {
		return nil, fmt.Errorf("%w (key %s)", ports.ErrSecretKeyUnknown, sealed.KeyID)
	}
	n := aead.NonceSize()
	if len(sealed.Data) < n+aead.Overhead() {
		return nil, ports.ErrSecretUnreadable
	}
	out, err := aead.Open(nil, sealed.Data[:n], sealed.Data[n:], associated)
	if err != nil {
		return nil, ports.ErrSecretUnreadable
	}
	return out, nil
}

var _ ports.SecretSealer = (*Secrets)(nil)
