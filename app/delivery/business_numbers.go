package delivery

import (
	"sync"

	"github.com/heraldhq/herald/app/usecase"
	"github.com/heraldhq/herald/domain"
	"github.com/heraldhq/herald/ports"
)

// foreignNumbers keeps Meta's events for business numbers that are not
// Herald's out of what is applied. One business account (or one Meta app)
// reports every number it has to the same webhook, including numbers other
// tools send from: their statuses, inbound messages, STOPs and marketing
// preferences are not Herald's to apply. They stay in the stored event, so a replay applies
// them once their number is configured. The log names each such number
// once per process, not once per event.
type foreignNumbers struct {
	ours ports.BusinessNumbers
	mu   sync.Mutex
	seen map[string]bool
}

func newForeignNumbers(ours ports.BusinessNumbers) *foreignNumbers {
	return &foreignNumbers{ours: ours, seen: map[string]bool{}}
}

// split keeps the batch's items for Herald's numbers and counts the others
// per number. Template status and category changes name no number (they
// concern the business account) and are kept. A field added to the batch
// must be kept here too (webhook_batch_internal_test.go fails when one is
// not).
func (f *foreignNumbers) split(b ports.WebhookBatch) (ports.WebhookBatch, map[string]int) {
	var foreign map[string]int
	ours := func(number string) bool {
		if f.ours != nil && f.ours.IsOurs(number) {
			return true
		}
		if foreign == nil {
			foreign = map[string]int{}
		}
		foreign[number]++
		return false
	}
	out := ports.WebhookBatch{Templates: b.Templates, Categories: b.Categories, Errors: b.Errors, Skipped: b.Skipped,
		Health: b.Health, Accounts: b.Accounts}
	for _, e := range b.Statuses {
		if ours(e.Number) {
			out.Statuses = append(out.Statuses, e)
		}
	}
	for _, e := range b.Inbound {
		if ours(e.Number) {
			out.Inbound = append(out.Inbound, e)
		}
	}
	for _, e := range b.IdentityChanges {
		if ours(e.Number) {
			out.IdentityChanges = append(out.IdentityChanges, e)
		}
	}
	for _, e := range b.Preferences {
		if ours(e.Number) {
			out.Preferences = append(out.Preferences, e)
		}
	}
	return out, foreign
}

// logFirst logs each number of foreign the first time this process meets
// it.
func (f *foreignNumbers) logFirst(log *usecase.Logger, foreign map[string]int) {
	for number, n := range foreign {
		f.mu.Lock()
		first := !f.seen[number]
		f.seen[number] = true
		f.mu.Unlock()
		if !first {
			continue
		}
		if number == "" {
			log.Warn("webhook items name no business number; stored, not applied", "items", n)
			continue
		}
		log.Warn("webhook items for a business number this server does not send from are stored, not applied; "+
			"set HERALD_WHATSAPP_PHONE_NUMBER_ID to apply them (then replay), logged once per number",
			"phone_number_id", number, "items", n)
	}
}

// numberIDs gives Herald's id of a stored business number from Meta's id
// (delivery.Numbers does).
type numberIDs interface {
	NumberID(metaID string) domain.BusinessNumberID
}

// numberID is Herald's id of the business number with Meta's id, "" when
// it is not stored.
func (f *foreignNumbers) numberID(metaID string) domain.BusinessNumberID {
	if ids, ok := f.ours.(numberIDs); ok && metaID != "" {
		return ids.NumberID(metaID)
	}
	return ""
}
