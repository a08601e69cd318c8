package sandbox

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"strings"
	"sync"
	"time"

	"go.uber.org/zap"

	"github.com/heraldhq/herald/domain"
	"github.com/heraldhq/herald/ports"
)

// Config sets how long the sandbox waits before each simulated status.
type Config struct {
	SentAfter      time.Duration // before a failure is reported (sent is reported during the send)
	DeliveredAfter time.Duration // after sent
	ReadAfter      time.Duration // after delivered
}

// DefaultConfig paces statuses so a person can watch them move.
func DefaultConfig() Config {
	return Config{SentAfter: 100 * time.Millisecond, DeliveredAfter: time.Second, ReadAfter: 2 * time.Second}
}

// Meta's error for an undeliverable message, used for numbers ending 0001.
const (
	UndeliverableCode  = 131026
	UndeliverableTitle = "Message undeliverable"
)

// Sender is the sandbox sender.
type Sender struct {
	sink  ports.StatusSink
	clock ports.Clock
	cfg   Config
	log   *zap.Logger

	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup
}

// New returns a sandbox sender reporting statuses to sink.
func New(sink ports.StatusSink, clock ports.Clock, cfg Config, log *zap.Logger) *Sender {
	if log == nil {
		log = zap.NewNop()
	}
	ctx, cancel := context.WithCancel(context.Background())
	return &Sender{sink: sink, clock: clock, cfg: cfg, log: log, ctx: ctx, cancel: cancel}
}

// Send accepts m as Meta would and reports it sent before returning, so a
// crash after the send cannot lose its sent status (the dispatcher's lease
// would expire and the message be sent again). Later statuses follow on
// their own schedule.
func (s *Sender) Send(ctx context.Context, m ports.OutboundMessage) (ports.SendResult, error) {
	if err := ctx.Err(); err != nil {
		return ports.SendResult{}, &ports.SendError{Class: ports.ClassRetryable, Err: err}
	}
	if s.ctx.Err() != nil {
		return ports.SendResult{}, &ports.SendError{Class: ports.ClassRetryable, Err: context.Canceled}
	}
	var b [18]byte
	rand.Read(b[:])
	res := ports.SendResult{
		ProviderID: "wamid.SBX" + base64.RawURLEncoding.EncodeToString(b[:]),
		WaID:       strings.TrimPrefix(m.To.String(), "+"),
	}
	steps := s.plan(m.To)
	if m.Session != nil && m.Session.Type == domain.KindReaction {
		steps = steps[:1] // a reaction is only ever sent, as at Meta
	}
	if first := steps[0]; first.status == domain.StatusSent {
		if err := s.sink.RecordStatus(ctx, ports.StatusEvent{MessageID: m.ID, ProviderID: res.ProviderID,
			Status: domain.StatusSent, At: s.clock.Now()}); err != nil {
			return ports.SendResult{}, &ports.SendError{Class: ports.ClassRetryable, Err: err}
		}
		steps = steps[1:]
	}
	s.wg.Add(1)
	go s.emit(m.ID, res.ProviderID, steps)
	return res, nil
}

type step struct {
	after   time.Duration
	status  domain.MessageStatus
	failure *domain.Failure
}

func (s *Sender) plan(to domain.PhoneNumber) []step {
	n := to.String()
	switch {
	case strings.HasSuffix(n, "0001"):
		return []step{{s.cfg.SentAfter, domain.StatusFailed, &domain.Failure{Code: UndeliverableCode, Title: UndeliverableTitle}}}
	case strings.HasSuffix(n, "0002"):
		return []step{{0, domain.StatusSent, nil}}
	case strings.HasSuffix(n, "0003"):
		return []step{{0, domain.StatusSent, nil}, {s.cfg.DeliveredAfter, domain.StatusDelivered, nil}}
	}
	return []step{{0, domain.StatusSent, nil}, {s.cfg.DeliveredAfter, domain.StatusDelivered, nil},
		{s.cfg.ReadAfter, domain.StatusRead, nil}}
}

func (s *Sender) emit(id domain.MessageID, providerID string, steps []step) {
	defer s.wg.Done()
	for _, st := range steps {
		if st.after > 0 {
			t := time.NewTimer(st.after)
			select {
			case <-s.ctx.Done():
				t.Stop()
				return
			case <-t.C:
			}
		}
		err := s.sink.RecordStatus(s.ctx, ports.StatusEvent{
			MessageID: id, ProviderID: providerID, Status: st.status, At: s.clock.Now(), Failure: st.failure,
		})
		if err != nil {
			s.log.Warn("sandbox status not recorded", zap.String("message_id", string(id)),
				zap.String("status", st.status.String()), zap.Error(err))
			return
		}
	}
}

// Close stops pending status events and waits for those being recorded.
func (s *Sender) Close() {
	s.cancel()
	s.wg.Wait()
}

// MarkRead accepts a read mark as Meta would: no one is on the other side.
func (s *Sender) MarkRead(ctx context.Context, wamid string, typing bool) error {
	if wamid == "" {
		return &ports.SendError{Class: ports.ClassPermanent, Code: 100, Title: "Invalid parameter"}
	}
	return ctx.Err()
}

var (
	_ ports.WhatsAppSender = (*Sender)(nil)
	_ ports.ReadMarker     = (*Sender)(nil)
)
