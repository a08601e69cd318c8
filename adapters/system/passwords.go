package system

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"fmt"
	"strings"
	"time"

	"golang.org/x/crypto/argon2"
	"golang.org/x/sync/semaphore"

	"github.com/heraldhq/herald/ports"
)

// Argon2id parameters: OWASP's password storage cheat sheet lists m=19 MiB,
// t=2, p=1 as a minimum; Herald uses more memory and keeps one lane, so a
// sign-in costs a few tens of milliseconds on one core.
const (
	argonMemoryKiB = 32 * 1024
	argonTime      = 2
	argonThreads   = 1
	argonSaltLen   = 16
	argonKeyLen    = 32
)

// PasswordConfig bounds the memory password checks may hold at once.
type PasswordConfig struct {
	// MaxChecks is how many checks of hashes made with Herald's parameters
	// (32 MiB each) may run at once (0: 2). The bound is on memory: a
	// stored hash with other parameters counts by its own memory cost.
	// A check keeps one core busy, so more at once than there are cores
	// adds memory, not speed.
	MaxChecks int
	// Wait is how long a check waits for room before it is refused with
	// ports.ErrTooManyPasswordChecks (0: 1 s).
	Wait time.Duration
}

// WithDefaults fills in zero values.
func (c PasswordConfig) WithDefaults() PasswordConfig {
	if c.MaxChecks <= 0 {
		c.MaxChecks = 2
	}
	if c.Wait <= 0 {
		c.Wait = time.Second
	}
	return c
}

// Passwords hashes operators' passwords with argon2id, in the PHC string
// form ($argon2id$v=19$m=…,t=…,p=…$salt$hash), so the parameters travel with
// each hash and can be raised later without breaking stored ones.
//
// Each check allocates its hash's memory for as long as it runs, and anyone
// can ask for one by signing in, so checks share a budget of MaxChecks ×
// 32 MiB: a check takes its hash's memory from the budget (the whole
// budget at most) and gives it back when done; one that finds too little
// left waits, first come first served, at most Wait.
type Passwords struct {
	budget *semaphore.Weighted
	size   int64 // KiB
	wait   time.Duration
}

// NewPasswords returns the hasher.
func NewPasswords(cfg PasswordConfig) *Passwords {
	cfg = cfg.WithDefaults()
	size := int64(cfg.MaxChecks) * argonMemoryKiB
	return &Passwords{budget: semaphore.NewWeighted(size), size: size, wait: cfg.Wait}
}

// HashPassword returns the encoded argon2id hash of pw with a fresh salt.
// It is not bounded like checks: hashes are made once per operator (by
// herald admin create) and once per process for the decoy of unknown
// addresses.
func (*Passwords) HashPassword(pw string) (string, error) {
	salt := make([]byte, argonSaltLen)
	if _, err := rand.Read(salt); err != nil {
		return "", err
	}
	key := argon2.IDKey([]byte(pw), salt, argonTime, argonMemoryKiB, argonThreads, argonKeyLen)
	enc := base64.RawStdEncoding
	return fmt.Sprintf("$argon2id$v=%d$m=%d,t=%d,p=%d$%s$%s", argon2.Version, argonMemoryKiB, argonTime, argonThreads,
		enc.EncodeToString(salt), enc.EncodeToString(key)), nil
}

var errBadHash = errors.New("password hash is not in argon2id PHC form")

// CheckPassword reports whether pw matches an encoded argon2id hash, with the
// hash's own parameters, comparing in constant time. It waits for the
// hash's memory within the budget (see Passwords) and returns
// ports.ErrTooManyPasswordChecks when none came free in time.
func (p *Passwords) CheckPassword(ctx context.Context, hash, pw string) (bool, error) {
	parts := strings.Split(hash, "$")
	if len(parts) != 6 || parts[0] != "" || parts[1] != "argon2id" {
		return false, errBadHash
	}
	var version int
	if _, err := fmt.Sscanf(parts[2], "v=%d", &version); err != nil || version != argon2.Version {
		return false, errBadHash
	}
	var memory, passes uint32
	var threads uint8
	if _, err := fmt.Sscanf(parts[3], "m=%d,t=%d,p=%d", &memory, &passes, &threads); err != nil ||
		memory == 0 || memory > 1<<20 || passes == 0 || passes > 16 || threads == 0 {
		return false, errBadHash
	}
	enc := base64.RawStdEncoding
	salt, err := enc.DecodeString(parts[4])
	if err != nil || len(salt) == 0 {
		return false, errBadHash
	}
	want, err := enc.DecodeString(parts[5])
	if err != nil || len(want) == 0 || len(want) > 64 {
		return false, errBadHash
	}
	weight := min(int64(memory), p.size)
	wctx, cancel := context.WithTimeout(ctx, p.wait)
	defer cancel()
	if err := p.budget.Acquire(wctx, weight); err != nil {
		if ctx.Err() != nil {
			return false, ctx.Err()
		}
		return false, ports.ErrTooManyPasswordChecks
	}
	defer p.budget.Release(weight)
	got := argon2.IDKey([]byte(pw), salt, passes, memory, threads, uint32(len(want)))
	return subtle.ConstantTimeCompare(got, want) == 1, nil
}

var _ ports.PasswordHasher = (*Passwords)(nil)
