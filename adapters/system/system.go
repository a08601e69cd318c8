package system

import (
	"crypto/rand"
	"sync"
	"time"

	"github.com/heraldhq/herald/domain"
	"github.com/heraldhq/herald/ports"
)

// Clock reads the wall clock, in UTC.
type Clock struct{}

// Now returns the current time in UTC.
func (Clock) Now() time.Time { return time.Now().UTC() }

// IDs makes identifiers that sort by creation time, also within one
// millisecond of one process (the random part is incremented, as in
// monotonic ULIDs), and tokens from crypto/rand.
type IDs struct {
	mu      sync.Mutex
	lastMS  int64
	entropy [10]byte
}

// NewIDs returns an identifier generator.
func NewIDs() *IDs { return &IDs{} }

// NewID returns a fresh identifier with prefix.
func (g *IDs) NewID(prefix string) string {
	now := time.Now()
	g.mu.Lock()
	ms := now.UnixMilli()
	if ms <= g.lastMS {
		ms = g.lastMS
		increment(&g.entropy)
	} else {
		g.lastMS = ms
		rand.Read(g.entropy[:])
		g.entropy[0] &= 0x7f // leave room to increment without overflow
	}
	e := g.entropy
	g.mu.Unlock()
	return domain.NewID(prefix, time.UnixMilli(ms), e)
}

// NewToken returns a fresh API key token.
func (g *IDs) NewToken(mode domain.KeyMode) (domain.Token, error) {
	return domain.NewToken(mode, rand.Reader)
}

// NewSessionToken returns a fresh dashboard session token.
func (g *IDs) NewSessionToken() (domain.SessionToken, error) {
	return domain.NewSessionToken(rand.Reader)
}

func increment(b *[10]byte) {
	for i := len(b) - 1; i >= 0; i-- {
		b[i]++
		if b[i] != 0 {
			return
		}
	}
}

var (
	_ ports.Clock       = Clock{}
	_ ports.IDGenerator = (*IDs)(nil)
)
