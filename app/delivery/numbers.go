package delivery

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/heraldhq/herald/domain"
	"github.com/heraldhq/herald/ports"
)

// NumbersConfig says which number the HERALD_WHATSAPP_* settings define:
// Meta's id of it. Its access token stays in the environment and is the
// live sender (Senders.Live); it is never stored.
type NumbersConfig struct {
	EnvPhoneNumberID string
	// Refresh is how often the stored numbers are read again, so that a
	// change made by another process (the CLI, another instance) takes
	// effect; zero is 30 s.
	Refresh time.Duration
}

// Numbers is the server's view of its business numbers: the stored ones,
// each with its client (its own access token, opened from its sealed form)
// and its own pace, and the number HERALD_WHATSAPP_* defines, which sends
// through the live sender. It answers which number a message leaves from
// and whether a webhook's number is Herald's.
//
// Auth pauses are kept per access token: Meta refuses a token, not a
// number, and every number sharing the token waits.
type Numbers struct {
	repo    ports.NumberRepository
	sealer  ports.SecretSealer
	clients ports.CloudClients
	envLive ports.WhatsAppSender
	cfg     NumbersConfig
	mps     int
	clock   ports.Clock
	stage   ports.MediaStager // nil: media goes as it is (StageMedia)

	mu       sync.Mutex
	loaded   time.Time
	byID     map[domain.BusinessNumberID]*liveNumber
	byMeta   map[string]*liveNumber
	list     []domain.BusinessNumber
	pacers   map[domain.BusinessNumberID]*pacer
	paused   map[string]time.Time // by token fingerprint: until when Meta's refusal holds
	secrets  [][]byte             // the stored Meta apps' secrets
	fallback *liveNumber          // the live sender alone, when no number is stored
}

// liveNumber is one number ready to send.
type liveNumber struct {
	number domain.BusinessNumber
	sender ports.WhatsAppSender // nil: no token (sends wait, like an unconfigured server's)
	source ports.TemplateSource // its business account's templates, read with its token; nil without one
	author ports.TemplateAuthor // submits templates to its business account with its token; nil without one
	token  string               // the token's fingerprint, for auth pauses
	pacer  *pacer
}

// NewNumbers builds the registry; sealer and clients may be nil (no key,
// no Cloud API), and so may live (no HERALD_WHATSAPP_* token).
func NewNumbers(repo ports.NumberRepository, sealer ports.SecretSealer, clients ports.CloudClients, live ports.WhatsAppSender,
	cfg NumbersConfig, delivery Config, clock ports.Clock) *Numbers {
	if cfg.Refresh <= 0 {
		cfg.Refresh = 30 * time.Second
	}
	n := &Numbers{repo: repo, sealer: sealer, clients: clients, envLive: live, cfg: cfg,
		mps: delivery.WithDefaults().LiveMPS, clock: clock,
		pacers: map[domain.BusinessNumberID]*pacer{}, paused: map[string]time.Time{}}
	n.byID, n.byMeta = map[domain.BusinessNumberID]*liveNumber{}, map[string]*liveNumber{}
	n.fallback = &liveNumber{sender: live, token: "env", pacer: newPacer(n.mps)}
	return n
}

// StageMedia has every live sender give its messages' media Meta's ids
// right before each send (staged_sender.go): the configured number's and
// each stored number's, each uploading for its own number. Called before
// the registry is used.
func (r *Numbers) StageMedia(s ports.MediaStager) {
	r.stage = s
	r.envLive = r.staged(r.envLive)
	r.fallback.sender = r.staged(r.fallback.sender)
}

// staged wraps s to stage media before each send, when media is staged.
func (r *Numbers) staged(s ports.WhatsAppSender) ports.WhatsAppSender {
	if s == nil || r.stage == nil {
		return s
	}
	return stagedSender{WhatsAppSender: s, media: r.stage}
}

// NumberTokenAAD is the associated data a number's sealed access token is
// bound to.
func NumberTokenAAD(id domain.BusinessNumberID) []byte {
	return []byte("herald:number:" + string(id) + ":access_token")
}

// AppSecretAAD is the associated data a Meta app's sealed secret is bound
// to.
func AppSecretAAD(appID string) []byte { return []byte("herald:app:" + appID + ":secret") }

// Load reads the stored numbers and opens their tokens. A token sealed
// under a key the server does not hold is an error naming the setting: the
// server must not start and silently send nothing.
func (r *Numbers) Load(ctx context.Context) error {
	if r.repo == nil {
		return nil
	}
	stored, err := r.repo.ListNumbers(ctx)
	if err != nil {
		return err
	}
	apps, err := r.repo.ListApps(ctx)
	if err != nil {
		return err
	}
	secrets := make([][]byte, 0, len(apps))
	for _, a := range apps {
		if a.Secret.IsZero() {
			continue
		}
		if r.sealer == nil || !r.sealer.Holds(a.Secret.KeyID) {
			return fmt.Errorf("the Meta app %s: its app secret is sealed under key %s, which this server does not hold: "+
				"set HERALD_SECRET_KEY (or HERALD_SECRET_KEY_FILE) to the key that sealed it, and HERALD_SECRET_KEY_PREVIOUS during a rotation: %w",
				a.ID, a.Secret.KeyID, ports.ErrSecretKeyUnknown)
		}
		b, err := r.sealer.Open(a.Secret, AppSecretAAD(a.ID))
		if err != nil {
			return fmt.Errorf("the Meta app %s: opening its app secret: %w", a.ID, err)
		}
		secrets = append(secrets, b)
	}
	byID := make(map[domain.BusinessNumberID]*liveNumber, len(stored))
	byMeta := make(map[string]*liveNumber, len(stored))
	for _, n := range stored {
		ln := &liveNumber{number: n}
		switch {
		case !n.AccessToken.IsZero():
			token, err := r.open(n)
			if err != nil {
				return err
			}
			ln.token = fingerprint(token)
			if r.clients != nil {
				c := r.clients.ForNumber(ports.NumberCredentials{PhoneNumberID: n.MetaID, WABAID: n.WABAID, AccessToken: token})
				ln.sender = r.staged(c)
				if n.WABAID != "" {
					ln.source, ln.author = c, c
				}
			}
		case n.MetaID == r.cfg.EnvPhoneNumberID && r.envLive != nil:
			ln.sender, ln.token = r.envLive, "env"
		}
		byID[n.ID], byMeta[n.MetaID] = ln, ln
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	for id, ln := range byID {
		mps := ln.number.MPS
		if mps == 0 {
			mps = r.mps
		}
		p := r.pacers[id]
		if p == nil || p.max != rateLimit(mps) {
			p = newPacer(mps)
			r.pacers[id] = p
		}
		ln.pacer = p
	}
	r.byID, r.byMeta, r.list, r.secrets, r.loaded = byID, byMeta, stored, secrets, r.clock.Now()
	return nil
}

// TotalMPS is the sum of the paces of the numbers that can send: every
// active stored number with a sender, or the configured number's alone
// when none is stored. The dispatcher keeps enough sends in flight for it.
func (r *Numbers) TotalMPS() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	total := 0
	for _, ln := range r.byID {
		if ln.sender != nil && ln.number.Status == domain.NumberActive {
			total += int(ln.pacer.Limit())
		}
	}
	if total == 0 {
		return r.mps
	}
	return total
}

// AppSecrets returns the stored Meta apps' secrets, for webhook
// signatures.
func (r *Numbers) AppSecrets() [][]byte {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.secrets)
}

// open returns a number's access token in clear.
func (r *Numbers) open(n domain.BusinessNumber) (string, error) {
	if r.sealer == nil || !r.sealer.Holds(n.AccessToken.KeyID) {
		return "", fmt.Errorf("phone number %s (%s): its access token is sealed under key %s, which this server does not hold: "+
			"set HERALD_SECRET_KEY (or HERALD_SECRET_KEY_FILE) to the key that sealed it, and HERALD_SECRET_KEY_PREVIOUS during a rotation: %w",
			n.ID, n.MetaID, n.AccessToken.KeyID, ports.ErrSecretKeyUnknown)
	}
	b, err := r.sealer.Open(n.AccessToken, NumberTokenAAD(n.ID))
	if err != nil {
		return "", fmt.Errorf("phone number %s (%s): opening its access token: %w", n.ID, n.MetaID, err)
	}
	return string(b), nil
}

// fingerprint names a token without holding it.
func fingerprint(token string) string {
	sum := sha256.Sum256([]byte(token))
	return fmt.Sprintf("%x", sum[:8])
}

// Invalidate reads the stored numbers again: a use case that changed one
// calls it, outside any transaction. When the read fails, the next lookup
// that may read tries again.
func (r *Numbers) Invalidate() {
	r.mu.Lock()
	r.loaded = time.Time{}
	r.mu.Unlock()
	_ = r.Load(context.Background())
}

// Run reads the stored numbers again every refresh period until ctx ends,
// so that a change made elsewhere (the CLI, another instance) takes
// effect; the lookups that webhooks make (IsOurs, NumberID, AppSecrets)
// read only this view, since they may run inside a transaction.
func (r *Numbers) Run(ctx context.Context) {
	t := time.NewTicker(r.cfg.Refresh)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			_ = r.Load(ctx)
		}
	}
}

// fresh reloads when the view is older than the refresh period. A failed
// reload keeps the last view and is tried again at the next lookup.
func (r *Numbers) fresh(ctx context.Context) error {
	r.mu.Lock()
	stale := r.clock.Now().Sub(r.loaded) >= r.cfg.Refresh
	r.mu.Unlock()
	if !stale {
		return nil
	}
	return r.Load(ctx)
}

// All returns the stored numbers as last read.
func (r *Numbers) All(ctx context.Context) []domain.BusinessNumber {
	_ = r.fresh(ctx)
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.list)
}

// TemplateSources returns a template source for each business account of
// the stored numbers that have their own access token: the account's
// oldest such number reads it, an active one before a disabled one. The
// number HERALD_WHATSAPP_* defines is not among them: its account is the
// configured template source.
func (r *Numbers) TemplateSources(ctx context.Context) []ports.TemplateSource {
	_ = r.fresh(ctx)
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []ports.TemplateSource
	seen := map[string]bool{}
	for _, active := range []bool{true, false} {
		for _, n := range r.list {
			ln := r.byID[n.ID]
			if ln == nil || ln.source == nil || seen[n.WABAID] || (n.Status == domain.NumberActive) != active {
				continue
			}
			seen[n.WABAID] = true
			out = append(out, ln.source)
		}
	}
	return out
}

// TemplateAuthor returns what submits templates to the business account
// of the stored number id with the number's own token; nil when the
// number is not stored, names no account or has no token of its own (the
// HERALD_WHATSAPP_* number's account is the configured author's).
func (r *Numbers) TemplateAuthor(ctx context.Context, id domain.BusinessNumberID) ports.TemplateAuthor {
	_ = r.fresh(ctx)
	r.mu.Lock()
	defer r.mu.Unlock()
	if ln := r.byID[id]; ln != nil && ln.author != nil {
		return ln.author
	}
	return nil
}

// AnyLive reports whether some live message could be sent: a live sender
// from HERALD_WHATSAPP_* or a stored number with a token.
func (r *Numbers) AnyLive(ctx context.Context) bool {
	if r.envLive != nil {
		return true
	}
	_ = r.fresh(ctx)
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, ln := range r.byID {
		if ln.sender != nil && ln.number.Status == domain.NumberActive {
			return true
		}
	}
	return false
}

// IsOurs reports whether Meta's phone number id is one of Herald's numbers:
// stored (active or not: a disabled number's inbound traffic is still the
// business's), or the number HERALD_WHATSAPP_* defines.
func (r *Numbers) IsOurs(metaID string) bool {
	if metaID == "" {
		return false
	}
	if metaID == r.cfg.EnvPhoneNumberID {
		return true
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	_, ok := r.byMeta[metaID]
	return ok
}

// ByMetaID returns the stored number with Meta's id.
func (r *Numbers) ByMetaID(ctx context.Context, metaID string) (domain.BusinessNumber, bool) {
	_ = r.fresh(ctx)
	r.mu.Lock()
	defer r.mu.Unlock()
	ln, ok := r.byMeta[metaID]
	if !ok {
		return domain.BusinessNumber{}, false
	}
	return ln.number, true
}

// NumberID returns Herald's id of the stored number with Meta's id, "" when
// none is stored.
func (r *Numbers) NumberID(metaID string) domain.BusinessNumberID {
	r.mu.Lock()
	defer r.mu.Unlock()
	if ln, ok := r.byMeta[metaID]; ok {
		return ln.number.ID
	}
	return ""
}

// Default returns the number a live message without one leaves from: the
// one HERALD_WHATSAPP_* defines when it is stored, else the only active
// number; ok is false when there is no such number.
func (r *Numbers) Default(ctx context.Context) (domain.BusinessNumber, bool) {
	_ = r.fresh(ctx)
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.defaultLocked()
}

func (r *Numbers) defaultLocked() (domain.BusinessNumber, bool) {
	if ln, ok := r.byMeta[r.cfg.EnvPhoneNumberID]; ok && r.cfg.EnvPhoneNumberID != "" {
		return ln.number, true
	}
	var only *liveNumber
	for _, ln := range r.byID {
		if ln.number.Status != domain.NumberActive {
			continue
		}
		if only != nil {
			return domain.BusinessNumber{}, false
		}
		only = ln
	}
	if only == nil {
		return domain.BusinessNumber{}, false
	}
	return only.number, true
}

// errNumberGone is the failure of a live message whose number is no longer
// stored.
var (
	_ ports.AppSecretSource = (*Numbers)(nil)
	_ ports.BusinessNumbers = (*Numbers)(nil)
)

var errNumberGone = errors.New("the message's phone number is no longer configured on this server")

// route returns the number a live message leaves from: its own, else the
// default, else the live sender alone (a server whose only number is
// HERALD_WHATSAPP_*'s, not yet stored). A number without a sender yields
// a nil sender.
func (r *Numbers) route(ctx context.Context, id domain.BusinessNumberID) (*liveNumber, error) {
	_ = r.fresh(ctx)
	r.mu.Lock()
	defer r.mu.Unlock()
	if id != "" {
		ln, ok := r.byID[id]
		if !ok {
			return nil, errNumberGone
		}
		return ln, nil
	}
	if n, ok := r.defaultLocked(); ok {
		return r.byID[n.ID], nil
	}
	return r.fallback, nil
}

// pausedUntil returns when the token's auth pause ends (zero when none).
func (r *Numbers) pausedUntil(token string) time.Time {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.paused[token]
}

// pause holds every send with the token until until; it reports whether
// the token was not paused already.
func (r *Numbers) pause(token string, until time.Time) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	first := !r.clock.Now().Before(r.paused[token])
	r.paused[token] = until
	return first
}

// SenderOf returns the sender of the stored number id (its client, with
// its token), nil when the number is unknown or has no token: the caller
// then uses the live sender.
func (r *Numbers) SenderOf(ctx context.Context, id domain.BusinessNumberID) ports.WhatsAppSender {
	if id == "" {
		return nil
	}
	ln, err := r.route(ctx, id)
	if err != nil || ln == nil {
		return nil
	}
	return ln.sender
}
