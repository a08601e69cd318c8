package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"slices"
	"time"

	"github.com/heraldhq/herald/domain"
	"github.com/heraldhq/herald/ports"
)

type phoneHealthRow struct {
	Number    string   `db:"number"`
	Quality   string   `db:"quality"`
	QualityAt nullTime `db:"quality_at"`
	Tier      string   `db:"tier"`
	TierAt    nullTime `db:"tier_at"`
}

func (r phoneHealthRow) toDomain() (domain.PhoneHealth, error) {
	q := domain.ParseQualityRating(r.Quality)
	t, err := parseStored("messaging tier", r.Tier, domain.ParseMessagingTier)
	if err != nil {
		return domain.PhoneHealth{}, err
	}
	h := domain.PhoneHealth{Number: r.Number, Quality: q, Tier: t}
	if p := r.QualityAt.ptr(); p != nil {
		h.QualityAt = *p
	}
	if p := r.TierAt.ptr(); p != nil {
		h.TierAt = *p
	}
	return h, nil
}

type healthChangeRow struct {
	Number          string `db:"number"`
	Quality         string `db:"quality"`
	PreviousQuality string `db:"previous_quality"`
	Tier            string `db:"tier"`
	PreviousTier    string `db:"previous_tier"`
	Source          string `db:"source"`
	Event           string `db:"event"`
	At              dbTime `db:"at"`
}

func (r healthChangeRow) toDomain() (domain.HealthChange, error) {
	var ch domain.HealthChange
	var err error
	ch.Quality, ch.PreviousQuality = domain.ParseQualityRating(r.Quality), domain.ParseQualityRating(r.PreviousQuality)
	if ch.Tier, err = parseStored("messaging tier", r.Tier, domain.ParseMessagingTier); err != nil {
		return ch, err
	}
	if ch.PreviousTier, err = parseStored("messaging tier", r.PreviousTier, domain.ParseMessagingTier); err != nil {
		return ch, err
	}
	if ch.Source, err = parseStored("health source", r.Source, domain.ParseHealthSource); err != nil {
		return ch, err
	}
	ch.Number, ch.Event, ch.At = r.Number, r.Event, r.At.time()
	return ch, nil
}

const qPhoneHealth = `SELECT number, quality, quality_at, tier, tier_at FROM phone_health WHERE number = :number`

// GetPhoneHealth returns the number's health.
func (s *Store) GetPhoneHealth(ctx context.Context, number string) (domain.PhoneHealth, error) {
	return s.getPhoneHealth(ctx, "get phone health", qPhoneHealth, number)
}

func (s *Store) getPhoneHealth(ctx context.Context, op, q, number string) (domain.PhoneHealth, error) {
	var row phoneHealthRow
	err := s.get(ctx, &row, q, map[string]any{"number": number})
	if errors.Is(err, sql.ErrNoRows) {
		return domain.PhoneHealth{Number: number}, nil
	}
	if err != nil {
		return domain.PhoneHealth{}, s.fail(op, err, nil)
	}
	h, err := row.toDomain()
	return h, s.fail(op, err, nil)
}

// RecordPhoneHealth applies r to the number's health, its row locked, and
// keeps the change.
func (s *Store) RecordPhoneHealth(ctx context.Context, number string, r domain.HealthReading) (domain.HealthChange, bool, error) {
	const (
		qEnsure = `INSERT INTO phone_health (number) VALUES (:number) ON CONFLICT (number) DO NOTHING`
		qSet    = `UPDATE phone_health SET quality = :quality, quality_at = :quality_at, tier = :tier, tier_at = :tier_at
WHERE number = :number`
		qLog = `INSERT INTO phone_health_changes (number, quality, previous_quality, tier, previous_tier, source, event, at)
VALUES (:number, :quality, :previous_quality, :tier, :previous_tier, :source, :event, :at)`
	)
	const op = "record phone health"
	var ch domain.HealthChange
	var changed bool
	err := s.inTx(ctx, func(ctx context.Context, ts *Store) error {
		if _, err := ts.exec(ctx, qEnsure, map[string]any{"number": number}); err != nil {
			return ts.fail(op, err, nil)
		}
		h, err := ts.getPhoneHealth(ctx, op, qPhoneHealth+ts.d.lockRows(), number)
		if err != nil {
			return err
		}
		if ch, changed = h.Apply(r); !changed {
			return nil
		}
		if _, err := ts.exec(ctx, qSet, map[string]any{"number": number, "quality": string(h.Quality),
			"quality_at": optionalTime(h.QualityAt), "tier": string(h.Tier), "tier_at": optionalTime(h.TierAt)}); err != nil {
			return ts.fail(op, err, nil)
		}
		_, err = ts.exec(ctx, qLog, healthChangeRow{Number: number, Quality: string(ch.Quality),
			PreviousQuality: string(ch.PreviousQuality), Tier: string(ch.Tier), PreviousTier: string(ch.PreviousTier),
			Source: ch.Source.String(), Event: ch.Event, At: newDBTime(ch.At)})
		return ts.fail(op, err, nil)
	})
	if err != nil {
		return domain.HealthChange{}, false, err
	}
	return ch, changed, nil
}

func optionalTime(t time.Time) nullTime {
	if t.IsZero() {
		return nullTime{}
	}
	return newNullTime(&t)
}

// ListPhoneHealthChanges returns the number's changes, newest first.
func (s *Store) ListPhoneHealthChanges(ctx context.Context, number string, limit int) ([]domain.HealthChange, error) {
	const q = `SELECT number, quality, previous_quality, tier, previous_tier, source, event, at FROM phone_health_changes
WHERE number = :number ORDER BY id DESC LIMIT :limit`
	const op = "list phone health changes"
	var rows []healthChangeRow
	if err := s.selectAll(ctx, &rows, q, map[string]any{"number": number, "limit": min(max(limit, 1), 1000)}); err != nil {
		return nil, s.fail(op, err, nil)
	}
	out := make([]domain.HealthChange, 0, len(rows))
	for _, row := range rows {
		ch, err := row.toDomain()
		if err != nil {
			return nil, s.fail(op, err, nil)
		}
		out = append(out, ch)
	}
	return out, nil
}

// ReachRecipients records templates to recipients, each unless the
// portfolio's window is full, in a few statements whatever their number:
// the portfolio's turn (PostgreSQL); when a reach has a limit, the
// recipients' last reaches, then the window's count when a new recipient
// meets the limit, and the oldest place when one is refused; and every
// reach written, in recipient order.
func (s *Store) ReachRecipients(ctx context.Context, portfolio string, reaches []ports.Reach) ([]ports.Reached, error) {
	const (
		qCount = `SELECT count(*) FROM messaging_reach WHERE portfolio = :portfolio AND reached_at > :since`
		qReach = `INSERT INTO messaging_reach (portfolio, recipient, reached_at) VALUES (:portfolio, :recipient, :reached_at)
ON CONFLICT (portfolio, recipient) DO UPDATE SET reached_at = excluded.reached_at`
		op = "reach recipients"
	)
	qLast := `SELECT recipient, reached_at FROM messaging_reach WHERE portfolio = :portfolio AND ` + s.d.inList("recipient", "recipients")
	// The oldest place of the window held by none of the call's recipients,
	// whose places the call itself follows.
	qOldest := `SELECT reached_at FROM messaging_reach WHERE portfolio = :portfolio AND reached_at > :since
AND NOT (` + s.d.inList("recipient", "recipients") + `) ORDER BY reached_at LIMIT 1`
	out := make([]ports.Reached, len(reaches))
	if len(reaches) == 0 {
		return out, nil
	}
	recipients := make([]string, len(reaches))
	for i, r := range reaches {
		recipients[i] = r.Recipient
	}
	slices.Sort(recipients)
	recipients = slices.Compact(recipients)
	list, err := toJSON(recipients)
	if err != nil {
		return nil, s.fail(op, err, nil)
	}
	err = s.inTx(ctx, func(ctx context.Context, ts *Store) error {
		clear(out)
		limited := slices.ContainsFunc(reaches, func(r ports.Reach) bool { return r.Limit > 0 })
		if err := ts.takePortfolioTurn(ctx, portfolio, limited); err != nil {
			return ts.fail(op, err, nil)
		}
		var found []struct {
			Recipient string `db:"recipient"`
			ReachedAt dbTime `db:"reached_at"`
		}
		arg := map[string]any{"portfolio": portfolio, "recipients": list}
		if limited { // without a limit every reach takes its place, known or not
			if err := ts.selectPlanned(ctx, &found, qLast, arg); err != nil {
				return ts.fail(op, err, nil)
			}
		}
		last := make(map[string]time.Time, len(reaches))
		for _, f := range found {
			last[f.Recipient] = f.ReachedAt.time()
		}
		// The window's places: those the store holds, read when a limit
		// first needs them, and those the call's reaches took.
		held, taken, oldest := -1, 0, time.Time{}
		for i, r := range reaches {
			at := r.At.UTC().Truncate(time.Microsecond)
			since := at.Add(-domain.MessagingWindow)
			if l, ok := last[r.Recipient]; ok && l.After(since) {
				last[r.Recipient], out[i].Reached = at, true
				continue
			}
			if r.Limit > 0 && held < 0 {
				arg["since"] = newDBTime(since)
				if err := ts.get(ctx, &held, qCount, arg); err != nil {
					return ts.fail(op, err, nil)
				}
			}
			if r.Limit < 1 || held+taken < r.Limit {
				taken++
				last[r.Recipient], out[i].Reached = at, true
				continue
			}
			if oldest.IsZero() {
				var o dbTime
				arg["since"] = newDBTime(since)
				switch err := ts.get(ctx, &o, qOldest, arg); {
				case errors.Is(err, sql.ErrNoRows):
					oldest = at
				case err != nil:
					return ts.fail(op, err, nil)
				default:
					oldest = o.time()
				}
			}
			frees := oldest
			for _, l := range last {
				if l.After(since) && l.Before(frees) {
					frees = l
				}
			}
			out[i].FreesAt = frees.Add(domain.MessagingWindow)
		}
		placed := map[string]bool{}
		for i, r := range reaches {
			placed[r.Recipient] = placed[r.Recipient] || out[i].Reached
		}
		var rows []reachRow
		for _, r := range recipients { // in recipient order
			if placed[r] {
				rows = append(rows, reachRow{Portfolio: portfolio, Recipient: r, ReachedAt: newDBTime(last[r])})
			}
		}
		if len(rows) == 0 {
			return nil
		}
		_, err := execRows(ctx, ts, qReach, rows)
		return ts.fail(op, err, nil)
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// reachRow is a recipient's place in a portfolio's window.
type reachRow struct {
	Portfolio string `db:"portfolio"`
	Recipient string `db:"recipient"`
	ReachedAt dbTime `db:"reached_at"`
}

// takePortfolioTurn takes the portfolio's turn until the transaction
// ends: alone when the transaction counts the window against a limit, so
// that counting transactions take turns; shared otherwise, so that those
// only wait for a counting one.
func (s *Store) takePortfolioTurn(ctx context.Context, portfolio string, counting bool) error {
	q := s.d.portfolioTurn(!counting)
	if q == "" {
		return nil
	}
	_, err := s.exec(ctx, q, map[string]any{"portfolio": portfolio})
	return err
}

// CountReached counts the portfolio's recipients of the window before now.
func (s *Store) CountReached(ctx context.Context, portfolio string, now time.Time) (int, error) {
	const q = `SELECT count(*) FROM messaging_reach WHERE portfolio = :portfolio AND reached_at > :since`
	var n int
	err := s.get(ctx, &n, q, map[string]any{"portfolio": portfolio, "since": newDBTime(now.Add(-domain.MessagingWindow))})
	return n, s.fail("count reached", err, nil)
}

// PurgeReach deletes reaches older than the time.
func (s *Store) PurgeReach(ctx context.Context, before time.Time) (int, error) {
	const q = `DELETE FROM messaging_reach WHERE reached_at < :before`
	return s.purge(ctx, "purge reach", q, before)
}

// ListCampaignsOnNumber returns the campaigns bound to the number, by id.
func (s *Store) ListCampaignsOnNumber(ctx context.Context, number domain.BusinessNumberID) ([]domain.Campaign, error) {
	const q = `SELECT ` + campaignColumns + ` FROM campaigns WHERE business_number_id = :number ORDER BY id`
	var rows []campaignRow
	if err := s.selectAll(ctx, &rows, q, map[string]any{"number": string(number)}); err != nil {
		return nil, s.fail("list campaigns on number", err, nil)
	}
	out, err := campaignsFrom(rows)
	return out, s.fail("list campaigns on number", err, nil)
}
