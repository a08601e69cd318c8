package delivery

import (
	"context"
	"errors"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/heraldhq/herald/app/usecase"
	"github.com/heraldhq/herald/domain"
	"github.com/heraldhq/herald/ports"
)

// Dispatcher moves accepted messages to WhatsApp: it claims due messages in
// batches under a lease, sends them concurrently through the sender for
// their key's mode, records the provider's id, and decides what becomes of
// a failed send by the retry policy (retry.go). Status beyond sending
// arrives through the status pipeline (RecordStatusEventHandler).
type Dispatcher struct {
	queue    ports.MessageQueue
	tx       ports.Transactor
	optOuts  ports.OptOutReader
	camps    ports.CampaignRepository
	senders  Senders
	clock    ports.Clock
	emit     *usecase.Events
	wake     *Wakeup
	cfg      Config
	owner    string
	log      *usecase.Logger
	obs      *usecase.Observer
	metrics  ports.Metrics
	inFlight sync.WaitGroup

	mu     sync.Mutex
	leased map[domain.MessageID]struct{} // claimed and not yet recorded

	// numbers route live messages to their number's sender, pace and
	// auth pause (numbers.go).
	numbers *Numbers

	records *usecase.Batcher[*outcomeRecord] // sends' outcomes recorded together (dispatch_records.go)

	ambiguous atomic.Int64 // sends whose outcome was unknown, retried
	// unconfigured is set once a live message was claimed without a live
	// sender, so the log says so once.
	unconfigured atomic.Bool
}

// NewDispatcher builds a dispatcher with its own lease owner id. It reads
// each message's contact's opt-out state (and, for a contact who stopped
// marketing, its campaign) right before the send.
func NewDispatcher(queue ports.MessageQueue, tx ports.Transactor, optOuts ports.OptOutReader, camps ports.CampaignRepository,
	senders Senders, clock ports.Clock, ids ports.IDGenerator, emit *usecase.Events, wake *Wakeup, cfg Config, obs *usecase.Observer) *Dispatcher {
	d := &Dispatcher{queue: queue, tx: tx, optOuts: optOuts, camps: camps, senders: senders, clock: clock, emit: emit, wake: wake,
		cfg: cfg.WithDefaults(), owner: ids.NewID("dsp"), log: obs.Logger("dispatcher"),
		obs: obs, metrics: obs.Metrics(), leased: map[domain.MessageID]struct{}{}}
	d.numbers = senders.Numbers
	if d.numbers == nil {
		d.numbers = NewNumbers(nil, nil, nil, senders.Live, NumbersConfig{}, d.cfg, clock)
	}
	d.records = usecase.NewBatcher(outcomeRunners, maxOutcomeGroup, d.recordOutcomes)
	return d
}

// LiveError reports why live sends are paused, or nil when they are not:
// the token of the default number (HERALD_WHATSAPP_*'s, or the only one)
// was refused by Meta. Another number's refused token pauses that number
// only, and the server stays ready for the others.
func (d *Dispatcher) LiveError() error {
	ln, err := d.numbers.route(context.Background(), "")
	if err != nil || ln == nil || ln.sender == nil {
		return nil
	}
	if d.clock.Now().Before(d.numbers.pausedUntil(ln.token)) {
		return errLivePaused
	}
	return nil
}

var errLivePaused = errors.New("live sends are paused: the WhatsApp Cloud API refused the access token or its permissions")

// liveNotConfigured is the failure of a live message claimed by a
// dispatcher without Meta's Cloud API (queued before an upgrade, or on an
// instance configured unlike the others). It is not sent anywhere: it waits
// like a message whose credentials were refused, for an instance that can
// send it, and fails with this title when its attempts run out.
const liveNotConfigured = "not sent: this server has no WhatsApp Cloud API number configured (HERALD_WHATSAPP_ACCESS_TOKEN, HERALD_WHATSAPP_PHONE_NUMBER_ID), and live messages go only to WhatsApp"

// Run claims and sends until ctx ends, then waits for sends in flight. While
// it runs, it renews the leases of messages in flight every third of the
// lease, so a slow send is not taken over by another instance.
func (d *Dispatcher) Run(ctx context.Context) {
	renewCtx, stopRenewing := context.WithCancel(context.WithoutCancel(ctx))
	renewed := make(chan struct{})
	go func() { d.renewLoop(renewCtx); close(renewed) }()
	defer func() { d.inFlight.Wait(); stopRenewing(); <-renewed }()
	sem := make(chan struct{}, d.Slots())
	timer := time.NewTimer(0)
	defer timer.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-timer.C:
		case <-d.wake.C():
		}
		// The numbers' paces change as operators add, remove and update
		// numbers: a new size takes a new semaphore, and sends in flight
		// give their slots back to the one they took them from.
		if n := d.Slots(); n != cap(sem) {
			sem = make(chan struct{}, n)
		}
		for ctx.Err() == nil {
			n, err := d.DispatchOnce(ctx, sem)
			if err != nil {
				if !errors.Is(err, context.Canceled) {
					d.log.Warn("claim failed", "error", err)
				}
				break
			}
			if n < d.cfg.DispatchBatch {
				break
			}
		}
		if !timer.Stop() {
			select {
			case <-timer.C:
			default:
			}
		}
		timer.Reset(d.cfg.DispatchPoll)
	}
}

// Slots is how many sends the dispatcher keeps in flight: enough for the
// numbers' combined pace with Meta answering in up to a quarter of a
// second (DispatchConcurrency sizes it for one number at
// HERALD_WHATSAPP_MPS), so that numbers added to a server raise what it
// sends instead of sharing one number's slots.
func (d *Dispatcher) Slots() int {
	return max(d.cfg.DispatchConcurrency, d.numbers.TotalMPS()/4)
}

// DispatchOnce claims one batch and starts its sends, each holding a slot of
// sem. It returns how many messages it claimed. Sends outlive ctx's
// cancellation only to finish the call in flight.
func (d *Dispatcher) DispatchOnce(ctx context.Context, sem chan struct{}) (int, error) {
	now := d.clock.Now()
	claimed, err := d.queue.ClaimMessages(ctx, ports.Claim{
		Owner: d.owner, Now: now, LeaseUntil: now.Add(d.cfg.LeaseDuration), Limit: d.cfg.DispatchBatch,
	})
	if err != nil {
		return 0, err
	}
	d.mu.Lock()
	for _, c := range claimed {
		d.leased[c.Message.ID] = struct{}{}
	}
	d.mu.Unlock()
	for _, c := range claimed {
		sem <- struct{}{}
		d.inFlight.Add(1)
		go func(c ports.Claimed) {
			defer func() { <-sem; d.inFlight.Done() }()
			d.send(context.WithoutCancel(ctx), c)
		}(c)
	}
	return len(claimed), nil
}

func (d *Dispatcher) renewLoop(ctx context.Context) {
	t := time.NewTicker(d.cfg.LeaseDuration / 3)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		d.mu.Lock()
		ids := make([]domain.MessageID, 0, len(d.leased))
		for id := range d.leased {
			ids = append(ids, id)
		}
		d.mu.Unlock()
		if len(ids) == 0 {
			continue
		}
		// In id order, as outcome and webhook groups lock their messages:
		// two transactions locking shared rows in one order queue instead
		// of deadlocking.
		slices.Sort(ids)
		if err := d.queue.RenewLeases(ctx, d.owner, ids, d.clock.Now().Add(d.cfg.LeaseDuration)); err != nil {
			d.log.Warn("renewing leases failed", "messages", len(ids), "error", err)
		}
	}
}

// AmbiguousSends counts the sends whose outcome was unknown (the request
// was written but no answer came back) and which were therefore retried:
// each may have reached the recipient twice.
func (d *Dispatcher) AmbiguousSends() int64 { return d.ambiguous.Load() }

// Wait blocks until every send started so far has been recorded.
func (d *Dispatcher) Wait() { d.inFlight.Wait() }

func (d *Dispatcher) send(ctx context.Context, c ports.Claimed) {
	m := c.Message
	ctx, span := d.obs.StartLinkedSpan(ctx, "dispatch.send", m.TraceParent, "herald.message_id", string(m.ID),
		"herald.mode", m.Mode.String(), "herald.attempt", strconv.Itoa(c.Attempt))
	var spanErr error
	defer func() { span.End(spanErr) }()
	defer func() {
		d.mu.Lock()
		delete(d.leased, m.ID)
		d.mu.Unlock()
	}()
	var res ports.SendResult
	var err error
	if m.Status.ReportedByProvider() {
		// Meta's webhook reported this message while its send's answer
		// was lost (an ambiguous send, due again): Meta has it, and
		// sending again would deliver it twice.
		d.log.Info("not sending again: Meta already reported the message", "message_id", string(m.ID),
			"status", m.Status.String())
	} else {
		res, err = d.call(ctx, m)
		// Meta's answer is kept as it came, with what no store may hold
		// replaced (domain.ScrubText).
		res.ProviderID, res.WaID = domain.ScrubText(res.ProviderID), domain.ScrubText(res.WaID)
	}
	now := d.clock.Now()

	var retryAt *time.Time
	var failure *domain.Failure
	var templateStatus domain.TemplateStatus // Meta says the template cannot be sent
	var marketingStopped bool                // Meta says the recipient stopped marketing messages
	var oe *optedOutError
	switch {
	case errors.As(err, &oe):
		// Opted out after the message was claimed: it never left Herald.
		failure = oe.failure
		d.log.Info("not sent: the recipient opted out", "message_id", string(m.ID))
	case err != nil:
		spanErr = err
		var se *ports.SendError
		if !errors.As(err, &se) {
			se = &ports.SendError{Class: ports.ClassRetryable, Err: err}
		}
		templateStatus = se.TemplateStatus
		marketingStopped = se.MarketingStopped && m.Mode == domain.ModeLive
		v := retryPolicy(se, c.Attempt, now.Sub(m.CreatedAt), d.cfg, rand.Int64N)
		if v.Verdict == verdictFail {
			failure = v.Failure
		} else {
			t := now.Add(v.Wait)
			retryAt = &t
		}
		fields := []any{"message_id", string(m.ID), "class", string(se.Class),
			"code", se.Code, "attempt", c.Attempt, "final", failure != nil}
		if se.Ambiguous {
			fields = append(fields, "ambiguous", true, "ambiguous_total", d.ambiguous.Add(1))
		}
		d.log.Info("send failed", fields...)
	}

	var stopped []TemplateStatusChange
	err = d.recordOutcome(ctx, m.ID, func(ctx context.Context, r ports.Repos) error {
		stopped = nil
		// Release first: if the lease was lost, another dispatcher owns the
		// message now, and nothing of this attempt may be recorded.
		if err := r.Queue.ReleaseMessage(ctx, m.ID, d.owner, c.Attempt, retryAt); err != nil {
			return err
		}
		if retryAt != nil {
			// Not sent, and due again: unless its contact opted out
			// meanwhile. The message is locked now, so an opt-out either
			// committed before (and shows here) or waits and then finds
			// it waiting (queue_opt_out.go in sqlstore).
			if failed, err := d.stopIfOptedOut(ctx, r, m, now); err != nil || failed {
				return err
			}
		}
		if marketingStopped {
			contacts, err := recipientsOf(ctx, r.Contacts, m, domain.WhatsAppUser{})
			if err != nil {
				return err
			}
			if _, err := setMarketing(ctx, r, d.emit, contacts, true, now, now); err != nil {
				return err
			}
		}
		if !templateStatus.IsZero() {
			// Meta refused the template of the account the message's
			// number belongs to: that account's campaigns stop.
			account, err := CampaignAccount(ctx, r.Numbers, m.Number, d.cfg.TemplateAccount)
			if err != nil {
				return err
			}
			if stopped, err = ApplyTemplateStatus(ctx, r, d.emit, TemplateScope{Account: account, Default: d.cfg.TemplateAccount},
				m.TemplateName, m.Language, templateStatus, "", now); err != nil {
				return err
			}
		}
		if res.ProviderID == "" && failure == nil {
			return nil
		}
		// Status webhooks that raced ahead of this answer, without our id,
		// were parked under the wamid: they apply now.
		var parked []ports.StatusEvent
		if res.ProviderID != "" && m.ProviderID == "" {
			var err error
			if parked, err = r.Parked.TakeParkedStatuses(ctx, res.ProviderID); err != nil {
				return err
			}
		}
		var before domain.MessageStatus
		updated, err := r.Messages.UpdateLocatedMessage(ctx, m.ID, "", func(m *domain.Message) error {
			before = m.Status
			if res.ProviderID != "" && m.ProviderID == "" {
				m.ProviderID = res.ProviderID
			}
			if res.WaID != "" && m.WaID == "" {
				m.WaID = res.WaID
			}
			if failure != nil {
				m.Advance(domain.StatusFailed, now, failure)
			}
			advance(m, parked...)
			return nil
		})
		if err != nil {
			return err
		}
		if err := d.emit.Message(ctx, r.Events, before, updated, now); err != nil {
			return err
		}
		return recordWaID(ctx, r.Contacts, m, res.WaID, now)
	})
	if err == nil {
		for _, c := range stopped {
			d.log.Warn("Meta refused the template; its campaign stops sending until a sync finds it approved",
				"campaign_id", string(c.Campaign), "template", c.Template, "status", c.To.String())
		}
	}
	switch {
	case errors.Is(err, ports.ErrLeaseLost):
		d.log.Warn("lease lost before the outcome was recorded; another dispatcher owns the message",
			"message_id", string(m.ID), "attempt", c.Attempt)
	case err != nil:
		// The lease runs out and the message is claimed again: at least once.
		d.log.Warn("recording send outcome failed", "message_id", string(m.ID), "error", err)
	}
}

// recordWaID keeps on m's contact the wa_id Meta answered m's send with,
// when it is not the number sent to: Meta writes some users' numbers in
// another form (Brazil's ninth digit, Mexico's 521), and their replies and
// statuses come from it. The usual answer, the number itself, writes
// nothing.
func recordWaID(ctx context.Context, contacts ports.ContactRepository, m domain.Message, waID string, now time.Time) error {
	if waID == "" || waID == strings.TrimPrefix(m.Phone.String(), "+") || !domain.ValidWaID(waID) {
		return nil
	}
	_, err := contacts.UpdateContact(ctx, m.Workspace, m.ContactID, func(c *domain.Contact) error {
		if c.WaID == waID || !c.RecordUser(domain.WhatsAppUser{WaID: waID}, now) {
			return usecase.ErrUnchanged
		}
		return nil
	})
	if errors.Is(err, usecase.ErrUnchanged) || errors.Is(err, domain.ErrContactNotFound) {
		return nil
	}
	return err
}

// call sends m through the sender for its mode: a live message from its
// business number, with that number's token. Live sends keep the number's
// pace and are held back, without calling Meta, while the number's token is
// known to be refused.
func (d *Dispatcher) call(ctx context.Context, m domain.Message) (ports.SendResult, error) {
	live := m.Mode == domain.ModeLive
	sender := d.senders.For(m.Mode)
	var number *liveNumber
	if live {
		var err error
		if number, err = d.numbers.route(ctx, m.Number); err != nil {
			d.log.Warn("a live message is due from a phone number this server no longer has; it waits",
				"message_id", string(m.ID), "phone_number", string(m.Number))
			return ports.SendResult{}, &ports.SendError{Class: ports.ClassRetryable, Title: err.Error(),
				RetryAfter: d.cfg.AuthPause, Err: err}
		}
		sender = number.sender
	}
	if sender == nil {
		if d.unconfigured.CompareAndSwap(false, true) {
			d.log.Error("a live message is due but this server has no WhatsApp Cloud API number configured; it is not sent, and waits",
				"message_id", string(m.ID))
		}
		return ports.SendResult{}, &ports.SendError{Class: ports.ClassRetryable, Title: liveNotConfigured,
			RetryAfter: d.cfg.AuthPause, Err: errors.New(liveNotConfigured)}
	}
	if live {
		if until := d.numbers.pausedUntil(number.token); d.clock.Now().Before(until) {
			return ports.SendResult{}, &ports.SendError{Class: ports.ClassRetryable, RetryAfter: until.Sub(d.clock.Now()),
				Err: errLivePaused}
		}
		waitStart := time.Now()
		if err := number.pacer.Wait(ctx); err != nil {
			return ports.SendResult{}, &ports.SendError{Class: ports.ClassRetryable, Err: err}
		}
		d.metrics.PacingWait(time.Since(waitStart))
	}
	// Right before the call: a contact who opted out since the message was
	// claimed (their opt-out failed what was still waiting, but not this
	// message, whose send had begun) does not get it.
	if f, err := d.optOut(ctx, m); err != nil || f != nil {
		if err != nil {
			return ports.SendResult{}, &ports.SendError{Class: ports.ClassRetryable, Err: err}
		}
		return ports.SendResult{}, &optedOutError{failure: f}
	}
	callCtx, cancel := context.WithTimeout(ctx, 30*time.Second)
	callStart := time.Now()
	res, err := sender.Send(callCtx, ports.OutboundFor(m))
	cancel()
	d.metrics.ProviderCall(senderName(live), callOutcome(err), time.Since(callStart))
	if !live {
		return res, err
	}
	var se *ports.SendError
	switch {
	case err == nil:
		number.pacer.Accepted()
	case errors.As(err, &se) && se.Class == ports.ClassThrottled:
		number.pacer.Throttled()
		d.log.Warn("sender number over its throughput; slowing down", "phone_number", string(number.number.ID),
			"mps", number.pacer.Limit())
	case errors.As(err, &se) && se.Class == ports.ClassAuth:
		if d.numbers.pause(number.token, d.clock.Now().Add(d.cfg.AuthPause)) {
			d.log.Error("the WhatsApp Cloud API refused the credentials; live sends with this access token pause",
				"code", se.Code, "pause", d.cfg.AuthPause, "phone_number", string(number.number.ID))
		}
	}
	return res, err
}

// senderName names a sender in metrics: live is Meta's Cloud API.
func senderName(live bool) string {
	if live {
		return "live"
	}
	return "sandbox"
}

// callOutcome is a send call's outcome in metrics: ok, or its failure's
// class.
func callOutcome(err error) string {
	if err == nil {
		return "ok"
	}
	var se *ports.SendError
	if errors.As(err, &se) && se.Class != "" {
		return string(se.Class)
	}
	return string(ports.ClassRetryable)
}
