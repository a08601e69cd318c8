package app

import (
	"cmp"
	"context"
	"errors"
	"maps"
	"slices"
	"time"

	"github.com/heraldhq/herald/app/usecase"
	"github.com/heraldhq/herald/domain"
	"github.com/heraldhq/herald/ports"
)

// Sends accepted at the same moment are stored together: a send that has
// passed its checks joins a batch, and one transaction stores the batch's
// contacts, messages and thread entries with one statement each. A durable
// commit and each statement's round trip cost about the same for one send as
// for sixty, so under load this is what lets Herald accept many sends per
// commit. Each send is still answered only after the commit, and each keeps
// its own outcome: one send's opt-out, daily cap or claimed Idempotency-Key
// fails that send only.
const (
	// maxSendBatch bounds a batch, and so the time its first send waits.
	maxSendBatch = 64
	// sendBatchRunners is how many batches are stored at once: one commits
	// while the next forms.
	sendBatchRunners = 2
)

// pendingSend is a checked send waiting to be stored, and its outcome.
type pendingSend struct {
	ctx      context.Context
	cmd      SendCampaignMessage
	fp       domain.Fingerprint // of the request, when it carries an Idempotency-Key
	campaign domain.Campaign
	prep     domain.Prepared
	phone    domain.PhoneNumber
	now      time.Time
	msgID    domain.MessageID

	// Set while the batch is written: the send's own refusal, or its
	// message. They stand once the transaction has committed.
	refused error
	msg     domain.Message

	err error // the outcome: nil once msg is stored
}

// errBatchAbandoned answers sends whose batch stopped without storing them,
// which only happens when storing panicked or ended its goroutine.
var errBatchAbandoned = errors.New("app: the send's batch stopped before it was stored")

// errRerun says a send that dropped out left a write behind in the
// transaction (its daily count): the batch is rolled back and stored again
// without it.
var errRerun = errors.New("app: store the batch again without a send")

// storeBatch stores a batch in one transaction and sets every send's outcome.
// A send that drops out after writing is taken out and the rest stored again;
// a conflict (a contact created meanwhile by another transaction) is retried
// once, and the retry finds the contact.
func (h *SendCampaignMessageHandler) storeBatch(batch []*pendingSend) {
	for _, p := range batch {
		p.err = errBatchAbandoned
	}
	ctxs := make([]context.Context, len(batch))
	for i, p := range batch {
		ctxs[i] = p.ctx
	}
	ctx, cancel := usecase.BatchContext(ctxs...)
	defer cancel()
	live, retried := slices.Clone(batch), false
	for len(live) > 0 {
		err := h.d.Tx.WithinTx(ctx, func(ctx context.Context, r ports.Repos) error {
			return h.writeBatch(ctx, r, live)
		})
		switch {
		case errors.Is(err, errRerun):
			live = slices.DeleteFunc(live, func(p *pendingSend) bool {
				if p.refused != nil {
					p.err = p.refused
				}
				return p.refused != nil
			})
			continue
		case errors.Is(err, domain.ErrConflict) && !retried:
			retried = true
			continue
		}
		for _, p := range live {
			p.err = cmp.Or(err, p.refused)
		}
		return
	}
}

// writeBatch stores the sends of a batch, in three passes: the campaigns
// are read again (campaign_cache.go), the contacts locked, and each send
// checked against its campaign, its contact and the daily cap, workspace
// by workspace, then against the messaging limit account by account
// (messaging_limit.go); the Idempotency-Keys are claimed in key order; then
// the accepted sends' contacts, messages and entries are written. Each
// kind of row a check holds (contacts, daily counts, accounts' counts,
// keys) is taken in one order, each send's in arrival order within it, so
// two batches taking the same rows wait for each other rather than
// deadlock. A send refused on the way gets its error and writes nothing,
// unless its daily count was written: that returns errRerun.
func (h *SendCampaignMessageHandler) writeBatch(ctx context.Context, r ports.Repos, batch []*pendingSend) error {
	for _, p := range batch {
		p.refused, p.msg = nil, domain.Message{}
	}
	if err := h.verifyCampaigns(ctx, r, batch); err != nil {
		return err
	}
	contacts, err := h.lockContacts(ctx, r, batch)
	if err != nil {
		return err
	}
	counted := map[*pendingSend]bool{}
	for _, p := range bySpace(batch) {
		if p.refused != nil {
			continue
		}
		if p.refused = contacts[p.contactKey()].CanReceiveCampaign(p.campaign); p.refused != nil {
			continue
		}
		if counted[p], err = h.countSend(ctx, r, p); err != nil {
			return err
		}
	}
	if err := h.limitSends(ctx, r, batch, counted); err != nil {
		return err
	}
	if err := h.claimKeys(ctx, r, batch, counted); err != nil {
		return err
	}

	var saved []domain.Contact
	var msgs []domain.Message
	var entries []domain.Entry
	touched := map[*domain.Contact]bool{}
	for _, p := range batch {
		if p.refused != nil {
			continue
		}
		c := contacts[p.contactKey()]
		c.Touch(p.now)
		touched[c] = true
		p.msg = domain.NewMessage(p.msgID, p.campaign, *c, p.cmd.Principal, p.prep, p.now)
		// The contact may hold the number in another form WhatsApp writes
		// (domain.NumberKey): the message goes to the number asked for.
		p.msg.Phone = p.phone
		p.msg.TraceParent = usecase.TraceParent(p.ctx) // its send's span links to the request's
		msgs = append(msgs, p.msg)
		entries = append(entries, domain.OutboundEntry(domain.EntryID(h.d.IDs.NewID(domain.PrefixEntry)), p.msg, *c))
	}
	if len(msgs) == 0 {
		return nil
	}
	for c := range touched {
		saved = append(saved, *c)
	}
	slices.SortFunc(saved, func(a, b domain.Contact) int { return cmp.Compare(a.ID, b.ID) })
	if err := r.Contacts.SaveContacts(ctx, saved...); err != nil {
		return err
	}
	if err := r.Messages.CreateMessages(ctx, msgs...); err != nil {
		return err
	}
	h.countAccepted(ctx, msgs)
	return r.Conversations.AppendEntries(ctx, entries...)
}

// bySpace is the batch in workspace and mode order, each space's sends
// in arrival order.
func bySpace(batch []*pendingSend) []*pendingSend {
	out := slices.Clone(batch)
	slices.SortStableFunc(out, func(a, b *pendingSend) int { return a.space().compare(b.space()) })
	return out
}

// contactKey names a contact: its number, in any form WhatsApp writes it
// (domain.NumberKey), in a workspace and mode.
type contactKey struct {
	ws     domain.WorkspaceID
	mode   domain.KeyMode
	number string
}

// contactKey is the send's contact: the key's mode's contact for the
// number, so test sends make and touch test contacts only.
func (p *pendingSend) contactKey() contactKey {
	return contactKey{p.cmd.Principal.Workspace, p.cmd.Principal.Mode, p.phone.Key()}
}

// space is a workspace and mode, whose contacts are looked up together
// and whose sends share a daily count.
type space struct {
	ws   domain.WorkspaceID
	mode domain.KeyMode
}

func (p *pendingSend) space() space { return space{p.cmd.Principal.Workspace, p.cmd.Principal.Mode} }

func (s space) compare(o space) int {
	return cmp.Or(cmp.Compare(s.ws, o.ws), cmp.Compare(s.mode.String(), o.mode.String()))
}

// lockContacts finds and locks the batch's contacts, one lookup per
// workspace and mode, and makes a new contact (not yet stored) for each
// number without one.
func (h *SendCampaignMessageHandler) lockContacts(ctx context.Context, r ports.Repos, batch []*pendingSend) (map[contactKey]*domain.Contact, error) {
	phones := map[space][]domain.PhoneNumber{}
	for _, p := range batch {
		s := p.space()
		if !slices.Contains(phones[s], p.phone) {
			phones[s] = append(phones[s], p.phone)
		}
	}
	out := make(map[contactKey]*domain.Contact, len(batch))
	for _, s := range slices.SortedFunc(maps.Keys(phones), space.compare) {
		list := phones[s]
		found, err := r.Contacts.FindContactsByPhone(ctx, s.ws, s.mode, list)
		if err != nil {
			return nil, err
		}
		for _, c := range found {
			out[contactKey{s.ws, s.mode, c.NumberKey()}] = &c
		}
	}
	for _, p := range batch {
		k := p.contactKey()
		if out[k] == nil {
			c := domain.NewContact(domain.ContactID(h.d.IDs.NewID(domain.PrefixContact)),
				domain.ConversationID(h.d.IDs.NewID(domain.PrefixConversation)), k.ws, k.mode, p.phone, p.now)
			out[k] = &c
		}
	}
	return out, nil
}

// countSend counts the send against the workspace's daily cap, when one is
// set, reporting whether it wrote the count; a send over the cap gets its
// error. The count is in the send's transaction: a send that rolls back is
// not counted.
func (h *SendCampaignMessageHandler) countSend(ctx context.Context, r ports.Repos, p *pendingSend) (bool, error) {
	limit := h.cfg.DailySendCap
	if limit <= 0 {
		return false, nil
	}
	pr := p.cmd.Principal
	day := p.now.UTC().Truncate(24 * time.Hour)
	counted, err := r.SendCounts.CountSend(ctx, pr.Workspace, pr.Mode, day, limit)
	if err == nil && !counted {
		p.refused = domain.DailySendCapReached(limit, pr.Mode, day.Add(24*time.Hour).Sub(p.now))
	}
	return counted, err
}

// claimKeys claims the Idempotency-Keys of the sends still accepted, in key
// order. A key another transaction claimed first refuses its send, which
// then replays that transaction's answer (handleIdempotent).
func (h *SendCampaignMessageHandler) claimKeys(ctx context.Context, r ports.Repos, batch []*pendingSend, counted map[*pendingSend]bool) error {
	var keyed []*pendingSend
	for _, p := range batch {
		if p.refused == nil && p.cmd.IdempotencyKey != "" {
			keyed = append(keyed, p)
		}
	}
	slices.SortFunc(keyed, func(a, b *pendingSend) int {
		return cmp.Or(a.space().compare(b.space()), cmp.Compare(a.cmd.IdempotencyKey, b.cmd.IdempotencyKey))
	})
	rerun := false
	for _, p := range keyed {
		rec := domain.IdempotencyRecord{Workspace: p.cmd.Principal.Workspace, Mode: p.cmd.Principal.Mode, Key: p.cmd.IdempotencyKey,
			Fingerprint: p.fp, Message: p.msgID, CreatedAt: p.now}
		err := r.Idempotency.ClaimIdempotencyKey(ctx, rec, domain.IdempotencyStaleBefore(p.now))
		switch {
		case errors.Is(err, domain.ErrConflict):
			p.refused = errKeyClaimed
			rerun = rerun || counted[p]
		case err != nil:
			return err
		}
	}
	if rerun {
		return errRerun
	}
	return nil
}

// countAccepted counts msgs as accepted, by mode, once their transaction
// commits.
func (h *SendCampaignMessageHandler) countAccepted(ctx context.Context, msgs []domain.Message) {
	var live, test int
	for _, m := range msgs {
		if m.Mode == domain.ModeLive {
			live++
		} else {
			test++
		}
	}
	metrics := h.d.Obs.Metrics()
	usecase.AfterCommit(ctx, func() {
		if live > 0 {
			metrics.SendsAccepted(domain.ModeLive, live)
		}
		if test > 0 {
			metrics.SendsAccepted(domain.ModeTest, test)
		}
	})
}
