package sqlstore

import (
	"bytes"
	"cmp"
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/heraldhq/herald/domain"
)

// Webhook endpoints, with their subscription (webhook_endpoint_events, a
// row per type or one '*') and secrets (webhook_endpoint_secrets, newest
// first by position).

type endpointRow struct {
	ID             string   `db:"id"`
	WorkspaceID    string   `db:"workspace_id"`
	Mode           string   `db:"mode"`
	URL            string   `db:"url"`
	Description    string   `db:"description"`
	Status         string   `db:"status"`
	DisabledReason string   `db:"disabled_reason"`
	DisabledAt     nullTime `db:"disabled_at"`
	FailingSince   nullTime `db:"failing_since"`
	CreatedAt      dbTime   `db:"created_at"`
	UpdatedAt      dbTime   `db:"updated_at"`
}

const endpointColumns = `id, workspace_id, mode, url, description, status, disabled_reason, disabled_at, failing_since,
    created_at, updated_at`

type subscriptionRow struct {
	EndpointID string `db:"endpoint_id"`
	Type       string `db:"type"`
}

type secretRow struct {
	EndpointID string   `db:"endpoint_id"`
	Position   int      `db:"position"`
	Secret     []byte   `db:"secret"`
	CreatedAt  dbTime   `db:"created_at"`
	ExpiresAt  nullTime `db:"expires_at"`
}

func toEndpointRow(e domain.WebhookEndpoint) endpointRow {
	return endpointRow{
		ID: string(e.ID), WorkspaceID: string(e.Workspace), Mode: e.Mode.String(), URL: e.URL,
		Description: e.Description, Status: e.Status.String(), DisabledReason: e.DisabledReason.String(),
		DisabledAt: newNullTime(e.DisabledAt), FailingSince: newNullTime(e.FailingSince),
		CreatedAt: newDBTime(e.CreatedAt), UpdatedAt: newDBTime(e.UpdatedAt),
	}
}

func subscriptionRows(e domain.WebhookEndpoint) []subscriptionRow {
	names := e.Events.Names()
	rows := make([]subscriptionRow, len(names))
	for i, n := range names {
		rows[i] = subscriptionRow{EndpointID: string(e.ID), Type: n}
	}
	return rows
}

func secretRows(e domain.WebhookEndpoint) []secretRow {
	rows := make([]secretRow, len(e.Secrets))
	for i, sec := range e.Secrets {
		rows[i] = secretRow{EndpointID: string(e.ID), Position: i, Secret: sec.Key, CreatedAt: newDBTime(sec.CreatedAt),
			ExpiresAt: newNullTime(sec.ExpiresAt)}
	}
	return rows
}

// toDomain rebuilds the endpoint from its row, its subscription's names
// and its secrets in position order.
func (r endpointRow) toDomain(types []string, secrets []secretRow) (domain.WebhookEndpoint, error) {
	mode, err := parseStored("endpoint mode", r.Mode, domain.ParseKeyMode)
	if err != nil {
		return domain.WebhookEndpoint{}, err
	}
	status, err := parseStored("endpoint status", r.Status, domain.ParseEndpointStatus)
	if err != nil {
		return domain.WebhookEndpoint{}, err
	}
	reason, err := parseStored("endpoint disabled reason", r.DisabledReason, domain.ParseDisabledReason)
	if err != nil {
		return domain.WebhookEndpoint{}, err
	}
	events, err := domain.ParseEventSubscription(types)
	if err != nil {
		return domain.WebhookEndpoint{}, corrupt("endpoint subscription", fmt.Sprint(types))
	}
	e := domain.WebhookEndpoint{
		ID: domain.WebhookEndpointID(r.ID), Workspace: domain.WorkspaceID(r.WorkspaceID), Mode: mode, URL: r.URL,
		Events: events, Description: r.Description, Status: status, DisabledReason: reason,
		DisabledAt: r.DisabledAt.ptr(), FailingSince: r.FailingSince.ptr(),
		CreatedAt: r.CreatedAt.time(), UpdatedAt: r.UpdatedAt.time(),
	}
	for _, sr := range secrets {
		e.Secrets = append(e.Secrets, domain.EndpointSecret{Key: sr.Secret, CreatedAt: sr.CreatedAt.time(), ExpiresAt: sr.ExpiresAt.ptr()})
	}
	return e, nil
}

// normalEndpoint is e as the store keeps it: times in UTC to the
// microsecond, secrets newest first (equal times in the order given), and
// nothing shared with the caller.
func normalEndpoint(e domain.WebhookEndpoint) domain.WebhookEndpoint {
	e.CreatedAt = newDBTime(e.CreatedAt).time()
	e.UpdatedAt = newDBTime(e.UpdatedAt).time()
	e.DisabledAt, e.FailingSince = utcPtr(e.DisabledAt), utcPtr(e.FailingSince)
	secrets := make([]domain.EndpointSecret, len(e.Secrets))
	for i, sec := range e.Secrets {
		secrets[i] = domain.EndpointSecret{Key: bytes.Clone(sec.Key), CreatedAt: newDBTime(sec.CreatedAt).time(),
			ExpiresAt: utcPtr(sec.ExpiresAt)}
	}
	slices.SortStableFunc(secrets, func(a, b domain.EndpointSecret) int { return b.CreatedAt.Compare(a.CreatedAt) })
	e.Secrets = secrets
	return e
}

// sameSecrets reports whether a and b are the same secrets in the same
// order.
func sameSecrets(a, b []domain.EndpointSecret) bool {
	return slices.EqualFunc(a, b, func(x, y domain.EndpointSecret) bool {
		return bytes.Equal(x.Key, y.Key) && x.CreatedAt.Equal(y.CreatedAt) && sameTime(x.ExpiresAt, y.ExpiresAt)
	})
}

func sameTime(a, b *time.Time) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a.Equal(*b)
}

// sameEndpoint reports whether storing b over a would change nothing.
func sameEndpoint(a, b domain.WebhookEndpoint) bool {
	return a.URL == b.URL && a.Events.Equal(b.Events) && a.Description == b.Description && a.Status == b.Status &&
		a.DisabledReason == b.DisabledReason && sameTime(a.DisabledAt, b.DisabledAt) &&
		sameTime(a.FailingSince, b.FailingSince) && a.UpdatedAt.Equal(b.UpdatedAt) && sameSecrets(a.Secrets, b.Secrets)
}

// CreateEndpoint stores e with its subscription and secrets, in one
// transaction.
func (s *Store) CreateEndpoint(ctx context.Context, e domain.WebhookEndpoint) error {
	const qEndpoint = `INSERT INTO webhook_endpoints (` + endpointColumns + `)
VALUES (:id, :workspace_id, :mode, :url, :description, :status, :disabled_reason, :disabled_at, :failing_since,
    :created_at, :updated_at)`
	e = normalEndpoint(e)
	return s.inTx(ctx, func(ctx context.Context, ts *Store) error {
		if _, err := ts.exec(ctx, qEndpoint, toEndpointRow(e)); err != nil {
			return ts.fail("create endpoint", err, nil)
		}
		return ts.fail("create endpoint", ts.insertEndpointParts(ctx, e, true, true), nil)
	})
}

// insertEndpointParts stores e's subscription and secrets, as asked.
func (s *Store) insertEndpointParts(ctx context.Context, e domain.WebhookEndpoint, events, secrets bool) error {
	const qEvent = `INSERT INTO webhook_endpoint_events (endpoint_id, type) VALUES (:endpoint_id, :type)`
	const qSecret = `INSERT INTO webhook_endpoint_secrets (endpoint_id, position, secret, created_at, expires_at)
VALUES (:endpoint_id, :position, :secret, :created_at, :expires_at)`
	if rows := subscriptionRows(e); events && len(rows) > 0 {
		if _, err := execRows(ctx, s, qEvent, rows); err != nil {
			return err
		}
	}
	if rows := secretRows(e); secrets && len(rows) > 0 {
		if _, err := execRows(ctx, s, qSecret, rows); err != nil {
			return err
		}
	}
	return nil
}

// GetEndpoint returns one of the workspace's endpoints of mode (any mode
// for the zero mode).
func (s *Store) GetEndpoint(ctx context.Context, ws domain.WorkspaceID, mode domain.KeyMode, id domain.WebhookEndpointID) (domain.WebhookEndpoint, error) {
	const q = `SELECT ` + endpointColumns + ` FROM webhook_endpoints
WHERE id = :id AND workspace_id = :ws AND (:mode = '' OR mode = :mode)`
	return s.getEndpoint(ctx, "get endpoint", q, map[string]any{"id": string(id), "ws": string(ws), "mode": mode.String()})
}

// getEndpoint reads the one endpoint q selects, with its subscription and
// secrets.
func (s *Store) getEndpoint(ctx context.Context, op, q string, arg any) (domain.WebhookEndpoint, error) {
	var row endpointRow
	if err := s.get(ctx, &row, q, arg); err != nil {
		return domain.WebhookEndpoint{}, s.fail(op, err, domain.ErrWebhookEndpointNotFound)
	}
	es, err := s.withParts(ctx, []endpointRow{row})
	if err != nil {
		return domain.WebhookEndpoint{}, s.fail(op, err, nil)
	}
	return es[0], nil
}

// ListEndpoints returns the workspace's endpoints of mode (every mode for
// the zero mode), oldest first.
func (s *Store) ListEndpoints(ctx context.Context, ws domain.WorkspaceID, mode domain.KeyMode) ([]domain.WebhookEndpoint, error) {
	const q = `SELECT ` + endpointColumns + ` FROM webhook_endpoints
WHERE workspace_id = :ws AND (:mode = '' OR mode = :mode)
ORDER BY id`
	var rows []endpointRow
	if err := s.selectAll(ctx, &rows, q, map[string]any{"ws": string(ws), "mode": mode.String()}); err != nil {
		return nil, s.fail("list endpoints", err, nil)
	}
	out, err := s.withParts(ctx, rows)
	return out, s.fail("list endpoints", err, nil)
}

// withParts reads the subscriptions and secrets of the endpoints of rows,
// in two statements, and returns the endpoints in the rows' order.
func (s *Store) withParts(ctx context.Context, rows []endpointRow) ([]domain.WebhookEndpoint, error) {
	qEvents := `SELECT endpoint_id, type FROM webhook_endpoint_events WHERE ` + s.d.inList("endpoint_id", "ids")
	qSecrets := `SELECT endpoint_id, position, secret, created_at, expires_at FROM webhook_endpoint_secrets
WHERE ` + s.d.inList("endpoint_id", "ids")
	if len(rows) == 0 {
		return []domain.WebhookEndpoint{}, nil
	}
	ids := make([]string, len(rows))
	for i, r := range rows {
		ids[i] = r.ID
	}
	list, err := toJSON(ids)
	if err != nil {
		return nil, err
	}
	var subs []subscriptionRow
	if err := s.selectAll(ctx, &subs, qEvents, map[string]any{"ids": list}); err != nil {
		return nil, err
	}
	var secrets []secretRow
	if err := s.selectAll(ctx, &secrets, qSecrets, map[string]any{"ids": list}); err != nil {
		return nil, err
	}
	types := map[string][]string{}
	for _, r := range subs {
		types[r.EndpointID] = append(types[r.EndpointID], r.Type)
	}
	slices.SortFunc(secrets, func(a, b secretRow) int { return cmp.Compare(a.Position, b.Position) })
	keys := map[string][]secretRow{}
	for _, r := range secrets {
		keys[r.EndpointID] = append(keys[r.EndpointID], r)
	}
	out := make([]domain.WebhookEndpoint, len(rows))
	for i, r := range rows {
		if out[i], err = r.toDomain(types[r.ID], keys[r.ID]); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// UpdateEndpoint runs fn on the endpoint, read locked for update, and
// stores what fn changed.
func (s *Store) UpdateEndpoint(ctx context.Context, ws domain.WorkspaceID, mode domain.KeyMode, id domain.WebhookEndpointID, fn func(*domain.WebhookEndpoint) error) (domain.WebhookEndpoint, error) {
	const q = `SELECT ` + endpointColumns + ` FROM webhook_endpoints
WHERE id = :id AND workspace_id = :ws AND (:mode = '' OR mode = :mode)`
	var e domain.WebhookEndpoint
	err := s.inTx(ctx, func(ctx context.Context, ts *Store) error {
		old, err := ts.getEndpoint(ctx, "update endpoint", q+ts.d.lockRows(),
			map[string]any{"id": string(id), "ws": string(ws), "mode": mode.String()})
		if err != nil {
			return err
		}
		if e, err = ts.changeEndpoint(ctx, old, fn); err != nil {
			return err
		}
		return nil
	})
	if err != nil {
		return domain.WebhookEndpoint{}, err
	}
	return e, nil
}

// changeEndpoint runs fn on a copy of old, the endpoint as stored and
// locked, and stores the result (its id, workspace, mode and creation time
// kept) when it differs.
func (s *Store) changeEndpoint(ctx context.Context, old domain.WebhookEndpoint, fn func(*domain.WebhookEndpoint) error) (domain.WebhookEndpoint, error) {
	e, err := applyEndpoint(old, fn)
	if err != nil || sameEndpoint(old, e) {
		return e, err
	}
	return e, s.storeEndpoint(ctx, old, e)
}

// applyEndpoint returns fn's result on a copy of e, normalised, with what
// never changes restored.
func applyEndpoint(e domain.WebhookEndpoint, fn func(*domain.WebhookEndpoint) error) (domain.WebhookEndpoint, error) {
	c := normalEndpoint(e)
	if err := fn(&c); err != nil {
		return domain.WebhookEndpoint{}, err
	}
	c.ID, c.Workspace, c.Mode, c.CreatedAt = e.ID, e.Workspace, e.Mode, e.CreatedAt
	return normalEndpoint(c), nil
}

// storeEndpoint writes e over old: the row, the subscription and secrets
// when they changed, and, when the status changed, the due times of the
// endpoint's pending deliveries: taken away on disabling, due at e's
// UpdatedAt on enabling.
func (s *Store) storeEndpoint(ctx context.Context, old, e domain.WebhookEndpoint) error {
	const qUpdate = `UPDATE webhook_endpoints
SET url = :url, description = :description, status = :status, disabled_reason = :disabled_reason,
    disabled_at = :disabled_at, failing_since = :failing_since, updated_at = :updated_at
WHERE id = :id`
	const qDropEvents = `DELETE FROM webhook_endpoint_events WHERE endpoint_id = :id`
	const qDropSecrets = `DELETE FROM webhook_endpoint_secrets WHERE endpoint_id = :id`
	const qPause = `UPDATE event_deliveries SET next_attempt_at = NULL
WHERE endpoint_id = :id AND state = 'pending' AND next_attempt_at IS NOT NULL`
	const qResume = `UPDATE event_deliveries SET next_attempt_at = :now
WHERE endpoint_id = :id AND state = 'pending' AND next_attempt_at IS NULL`
	ok, err := s.execOne(ctx, qUpdate, toEndpointRow(e))
	if err == nil && !ok {
		err = fmt.Errorf("endpoint %s vanished during its update", e.ID)
	}
	if err != nil {
		return s.fail("update endpoint", err, nil)
	}
	id := map[string]any{"id": string(e.ID), "now": newDBTime(e.UpdatedAt)}
	events, secrets := !old.Events.Equal(e.Events), !sameSecrets(old.Secrets, e.Secrets)
	if events {
		if _, err := s.exec(ctx, qDropEvents, id); err != nil {
			return s.fail("update endpoint", err, nil)
		}
	}
	if secrets {
		if _, err := s.exec(ctx, qDropSecrets, id); err != nil {
			return s.fail("update endpoint", err, nil)
		}
	}
	if err := s.insertEndpointParts(ctx, e, events, secrets); err != nil {
		return s.fail("update endpoint", err, nil)
	}
	switch {
	case old.Status == e.Status:
	case e.Status == domain.EndpointDisabled:
		_, err = s.exec(ctx, qPause, id)
	default:
		_, err = s.exec(ctx, qResume, id)
	}
	return s.fail("update endpoint: deliveries", err, nil)
}

// DeleteEndpoint locks the endpoint for update (so that fan-outs to it
// finish first, or skip it) and deletes its attempts, deliveries,
// subscription, secrets and itself.
func (s *Store) DeleteEndpoint(ctx context.Context, ws domain.WorkspaceID, mode domain.KeyMode, id domain.WebhookEndpointID) error {
	const qLock = `SELECT id FROM webhook_endpoints WHERE id = :id AND workspace_id = :ws AND (:mode = '' OR mode = :mode)`
	qDeletes := []string{
		`DELETE FROM event_attempts WHERE endpoint_id = :id`,
		`DELETE FROM event_deliveries WHERE endpoint_id = :id`,
		`DELETE FROM webhook_endpoint_events WHERE endpoint_id = :id`,
		`DELETE FROM webhook_endpoint_secrets WHERE endpoint_id = :id`,
		`DELETE FROM webhook_endpoints WHERE id = :id`,
	}
	return s.inTx(ctx, func(ctx context.Context, ts *Store) error {
		arg := map[string]any{"id": string(id), "ws": string(ws), "mode": mode.String()}
		var found string
		if err := ts.get(ctx, &found, qLock+ts.d.lockRows(), arg); err != nil {
			return ts.fail("delete endpoint", err, domain.ErrWebhookEndpointNotFound)
		}
		for _, q := range qDeletes {
			if _, err := ts.exec(ctx, q, arg); err != nil {
				return ts.fail("delete endpoint", err, nil)
			}
		}
		return nil
	})
}

// endpointStatusRow is what decides where an endpoint's deliveries go.
type endpointStatusRow struct {
	ID          string `db:"id"`
	WorkspaceID string `db:"workspace_id"`
	Mode        string `db:"mode"`
	Status      string `db:"status"`
}

// lockEndpointStatus reads the status of one of the workspace's endpoints
// of mode (any mode for the zero mode), FOR SHARE on PostgreSQL: its
// status stays as read, and the endpoint stays, until the transaction
// ends.
func (s *Store) lockEndpointStatus(ctx context.Context, ws domain.WorkspaceID, mode domain.KeyMode, id domain.WebhookEndpointID) (endpointStatusRow, error) {
	const q = `SELECT w.id, w.workspace_id, w.mode, w.status FROM webhook_endpoints w
WHERE w.id = :id AND w.workspace_id = :ws AND (:mode = '' OR w.mode = :mode)`
	var row endpointStatusRow
	err := s.get(ctx, &row, q+s.d.shareRows("w"), map[string]any{"id": string(id), "ws": string(ws), "mode": mode.String()})
	return row, err
}
