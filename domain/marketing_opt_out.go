package domain

import "time"

// MarketingPreference is whether a contact stopped the business's marketing
// messages on WhatsApp, and when that last changed. Meta reports it with
// its user_preferences webhook (stop, resume) and, after a stop, fails
// marketing sends with 131050. It is apart from Contact.OptedOut, which
// stops every message: a contact who stopped marketing still receives
// utility and authentication templates.
type MarketingPreference struct {
	Stopped bool
	// ChangedAt is when Stopped was last set, by the time Meta gave. A
	// change older than it is stale and changes nothing.
	ChangedAt *time.Time
}

// SetMarketingOptOut records the contact's stop (stopped) or resume of the
// business's marketing messages, said at the time at. The latest word wins,
// as with SetOptOut: an older change is stale and changes nothing, and a
// stop and a resume in the same second leave marketing stopped. It reports
// whether the contact changed.
func (c *Contact) SetMarketingOptOut(stopped bool, at, now time.Time) bool {
	changed := latestWord(&c.Marketing.Stopped, &c.Marketing.ChangedAt, stopped, at)
	if changed {
		c.UpdatedAt = now.UTC().Truncate(time.Microsecond)
	}
	return changed
}

// CanReceiveCampaign refuses a send of camp to the contact: when the
// contact opted out of every message (CanReceive), or stopped marketing
// messages and camp's template is marketing (TemplateCategory.IsMarketing).
func (c Contact) CanReceiveCampaign(camp Campaign) error {
	if err := c.CanReceive(); err != nil {
		return err
	}
	if c.Marketing.Stopped && camp.Category.IsMarketing() {
		return &Error{Code: CodeContactOptedOut, Param: "phoneNumber",
			Detail: "the recipient stopped marketing messages from this business on WhatsApp, and the campaign's template " +
				camp.Category.describe() + "; utility and authentication templates still reach them"}
	}
	return nil
}

// OptOutState is what decides whether a contact still takes a message:
// their opt-out and whether they stopped marketing messages. The
// dispatcher reads just this, right before each send.
type OptOutState struct {
	OptedOut         bool
	MarketingStopped bool
}

// OptOutState is the contact's opt-out state.
func (c Contact) OptOutState() OptOutState {
	return OptOutState{OptedOut: c.OptedOut, MarketingStopped: c.Marketing.Stopped}
}

// Receives reports whether the contact takes every message.
func (s OptOutState) Receives() bool { return !s.OptedOut && !s.MarketingStopped }

// Failure is why a message still waiting to be sent to the contact, of a
// campaign whose template has category cat, must not go: nil when the
// contact still takes it. The failure carries Herald's code
// contact_opted_out and no provider code: the message never left Herald.
func (s OptOutState) Failure(cat TemplateCategory) *Failure {
	switch {
	case s.OptedOut:
		return &Failure{Title: OptedOutTitle, HeraldCode: CodeContactOptedOut}
	case s.MarketingStopped && cat.IsMarketing():
		return &Failure{Title: MarketingStoppedTitle, HeraldCode: CodeContactOptedOut}
	}
	return nil
}

// SessionFailure is why a session message still waiting to be sent to the
// contact must not go: only an opt-out of every message stops it, since
// stopping marketing stops templates only.
func (s OptOutState) SessionFailure() *Failure {
	if s.OptedOut {
		return &Failure{Title: OptedOutTitle, HeraldCode: CodeContactOptedOut}
	}
	return nil
}

// OptOutFailure is OptOutState().Failure(cat).
func (c Contact) OptOutFailure(cat TemplateCategory) *Failure { return c.OptOutState().Failure(cat) }

// The titles of messages that were waiting to be sent when their contact
// opted out.
const (
	OptedOutTitle         = "not sent: the recipient opted out of messages before it left Herald"
	MarketingStoppedTitle = "not sent: the recipient stopped marketing messages from this business before it left Herald"
)
