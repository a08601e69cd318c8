package sqlstore

import (
	"context"
	"slices"

	"github.com/heraldhq/herald/domain"
	"github.com/heraldhq/herald/ports"
)

type numberRow struct {
	ID              string   `db:"id"`
	MetaID          string   `db:"meta_id"`
	DisplayNumber   string   `db:"display_number"`
	VerifiedName    string   `db:"verified_name"`
	WABAID          string   `db:"waba_id"`
	AppID           string   `db:"app_id"`
	AccessToken     string   `db:"access_token"`
	TokenHint       string   `db:"token_hint"`
	MPS             int      `db:"mps"`
	AllWorkspaces   bool     `db:"all_workspaces"`
	Workspaces      jsonText `db:"workspaces"`
	Status          string   `db:"status"`
	Quality         string   `db:"quality"`
	Tier            string   `db:"tier"`
	HealthCheckedAt nullTime `db:"health_checked_at"`
	CreatedAt       dbTime   `db:"created_at"`
	UpdatedAt       dbTime   `db:"updated_at"`
}

const numberColumns = `id, meta_id, display_number, verified_name, waba_id, app_id, access_token, token_hint, mps,
all_workspaces, workspaces, status, quality, tier, health_checked_at, created_at, updated_at`

func toNumberRow(n domain.BusinessNumber) (numberRow, error) {
	ws := make([]string, 0, len(n.Workspaces))
	for _, w := range n.Workspaces {
		ws = append(ws, string(w))
	}
	wsJSON, err := toJSON(ws)
	if err != nil {
		return numberRow{}, err
	}
	row := numberRow{ID: string(n.ID), MetaID: n.MetaID, DisplayNumber: n.DisplayNumber, VerifiedName: n.VerifiedName,
		WABAID: n.WABAID, AppID: n.AppID, AccessToken: n.AccessToken.Encode(), TokenHint: n.TokenHint, MPS: n.MPS,
		AllWorkspaces: n.AllWorkspaces, Workspaces: wsJSON, Status: n.Status.String(), Quality: string(n.Quality),
		Tier: string(n.Tier), CreatedAt: newDBTime(n.CreatedAt), UpdatedAt: newDBTime(n.UpdatedAt)}
	if !n.HealthCheckedAt.IsZero() {
		t := n.HealthCheckedAt
		row.HealthCheckedAt = newNullTime(&t)
	}
	return row, nil
}

func (r numberRow) toDomain() (domain.BusinessNumber, error) {
	status, err := parseStored("number status", r.Status, domain.ParseNumberStatus)
	if err != nil {
		return domain.BusinessNumber{}, err
	}
	token, err := domain.ParseSealedSecret(r.AccessToken)
	if err != nil {
		return domain.BusinessNumber{}, corrupt("access token", "sealed")
	}
	var ws []string
	if err := r.Workspaces.decode(&ws); err != nil {
		return domain.BusinessNumber{}, corrupt("number workspaces", string(r.Workspaces))
	}
	n := domain.BusinessNumber{ID: domain.BusinessNumberID(r.ID), MetaID: r.MetaID, DisplayNumber: r.DisplayNumber,
		VerifiedName: r.VerifiedName, WABAID: r.WABAID, AppID: r.AppID, AccessToken: token, TokenHint: r.TokenHint,
		MPS: r.MPS, AllWorkspaces: r.AllWorkspaces, Status: status, Quality: domain.QualityRating(r.Quality),
		Tier: domain.MessagingTier(r.Tier), CreatedAt: r.CreatedAt.time(), UpdatedAt: r.UpdatedAt.time()}
	for _, w := range ws {
		n.Workspaces = append(n.Workspaces, domain.WorkspaceID(w))
	}
	if t := r.HealthCheckedAt.ptr(); t != nil {
		n.HealthCheckedAt = *t
	}
	return n, nil
}

// CreateNumber stores a new number; a taken id or Meta id is a conflict.
func (s *Store) CreateNumber(ctx context.Context, n domain.BusinessNumber) error {
	const q = `INSERT INTO business_numbers (` + numberColumns + `)
VALUES (:id, :meta_id, :display_number, :verified_name, :waba_id, :app_id, :access_token, :token_hint, :mps,
    :all_workspaces, :workspaces, :status, :quality, :tier, :health_checked_at, :created_at, :updated_at)`
	row, err := toNumberRow(n)
	if err != nil {
		return s.fail("create number", err, nil)
	}
	_, err = s.exec(ctx, q, row)
	return s.fail("create number", err, nil)
}

// GetNumber returns a number.
func (s *Store) GetNumber(ctx context.Context, id domain.BusinessNumberID) (domain.BusinessNumber, error) {
	const q = `SELECT ` + numberColumns + ` FROM business_numbers WHERE id = :id`
	return s.getNumber(ctx, "get number", q, map[string]any{"id": string(id)})
}

// GetNumberByMetaID returns the number with Meta's phone number id.
func (s *Store) GetNumberByMetaID(ctx context.Context, metaID string) (domain.BusinessNumber, error) {
	const q = `SELECT ` + numberColumns + ` FROM business_numbers WHERE meta_id = :meta_id`
	return s.getNumber(ctx, "get number by meta id", q, map[string]any{"meta_id": metaID})
}

func (s *Store) getNumber(ctx context.Context, op, q string, arg any) (domain.BusinessNumber, error) {
	var row numberRow
	if err := s.get(ctx, &row, q, arg); err != nil {
		return domain.BusinessNumber{}, s.fail(op, err, domain.ErrPhoneNumberNotFound)
	}
	n, err := row.toDomain()
	return n, s.fail(op, err, nil)
}

// ListNumbers returns every number, oldest first.
func (s *Store) ListNumbers(ctx context.Context) ([]domain.BusinessNumber, error) {
	const q = `SELECT ` + numberColumns + ` FROM business_numbers ORDER BY id`
	var rows []numberRow
	if err := s.selectAll(ctx, &rows, q, map[string]any{}); err != nil {
		return nil, s.fail("list numbers", err, nil)
	}
	out := make([]domain.BusinessNumber, 0, len(rows))
	for _, r := range rows {
		n, err := r.toDomain()
		if err != nil {
			return nil, s.fail("list numbers", err, nil)
		}
		out = append(out, n)
	}
	return out, nil
}

// UpdateNumber runs fn on the number, read locked for update, and stores
// the result; its id and creation time do not change.
func (s *Store) UpdateNumber(ctx context.Context, id domain.BusinessNumberID, fn func(*domain.BusinessNumber) error) (domain.BusinessNumber, error) {
	const qGet = `SELECT ` + numberColumns + ` FROM business_numbers WHERE id = :id`
	const qUpdate = `UPDATE business_numbers
SET meta_id = :meta_id, display_number = :display_number, verified_name = :verified_name, waba_id = :waba_id,
    app_id = :app_id, access_token = :access_token, token_hint = :token_hint, mps = :mps,
    all_workspaces = :all_workspaces, workspaces = :workspaces, status = :status, quality = :quality, tier = :tier,
    health_checked_at = :health_checked_at, updated_at = :updated_at
WHERE id = :id`
	var out domain.BusinessNumber
	err := s.inTx(ctx, func(ctx context.Context, ts *Store) error {
		old, err := ts.getNumber(ctx, "update number", qGet+ts.d.lockRows(), map[string]any{"id": string(id)})
		if err != nil {
			return err
		}
		n := old
		n.Workspaces = slices.Clone(old.Workspaces)
		if err := fn(&n); err != nil {
			return err
		}
		n.ID, n.CreatedAt = old.ID, old.CreatedAt
		row, err := toNumberRow(n)
		if err != nil {
			return ts.fail("update number", err, nil)
		}
		if _, err := ts.exec(ctx, qUpdate, row); err != nil {
			return ts.fail("update number", err, nil)
		}
		out, err = row.toDomain()
		return ts.fail("update number", err, nil)
	})
	if err != nil {
		return domain.BusinessNumber{}, err
	}
	return out, nil
}

// DeleteNumber removes a number.
func (s *Store) DeleteNumber(ctx context.Context, id domain.BusinessNumberID) error {
	const q = `DELETE FROM business_numbers WHERE id = :id`
	ok, err := s.execOne(ctx, q, map[string]any{"id": string(id)})
	if err != nil {
		return s.fail("delete number", err, nil)
	}
	if !ok {
		return domain.NotFound(domain.ErrPhoneNumberNotFound)
	}
	return nil
}

type appRow struct {
	ID         string `db:"id"`
	Secret     string `db:"secret"`
	SecretHint string `db:"secret_hint"`
	CreatedAt  dbTime `db:"created_at"`
	UpdatedAt  dbTime `db:"updated_at"`
}

const appColumns = `id, secret, secret_hint, created_at, updated_at`

func (r appRow) toDomain() (domain.MetaApp, error) {
	secret, err := domain.ParseSealedSecret(r.Secret)
	if err != nil {
		return domain.MetaApp{}, corrupt("app secret", "sealed")
	}
	return domain.MetaApp{ID: r.ID, Secret: secret, SecretHint: r.SecretHint, CreatedAt: r.CreatedAt.time(),
		UpdatedAt: r.UpdatedAt.time()}, nil
}

// PutApp stores a Meta app, replacing the one with its id but keeping that
// one's creation time.
func (s *Store) PutApp(ctx context.Context, a domain.MetaApp) error {
	const q = `INSERT INTO meta_apps (` + appColumns + `)
VALUES (:id, :secret, :secret_hint, :created_at, :updated_at)
ON CONFLICT (id) DO UPDATE SET secret = excluded.secret, secret_hint = excluded.secret_hint, updated_at = excluded.updated_at`
	_, err := s.exec(ctx, q, appRow{ID: a.ID, Secret: a.Secret.Encode(), SecretHint: a.SecretHint,
		CreatedAt: newDBTime(a.CreatedAt), UpdatedAt: newDBTime(a.UpdatedAt)})
	return s.fail("put app", err, nil)
}

// GetApp returns a Meta app, or ports.ErrAppNotFound.
func (s *Store) GetApp(ctx context.Context, id string) (domain.MetaApp, error) {
	const q = `SELECT ` + appColumns + ` FROM meta_apps WHERE id = :id`
	var rows []appRow
	if err := s.selectAll(ctx, &rows, q, map[string]any{"id": id}); err != nil {
		return domain.MetaApp{}, s.fail("get app", err, nil)
	}
	if len(rows) == 0 {
		return domain.MetaApp{}, ports.ErrAppNotFound
	}
	a, err := rows[0].toDomain()
	return a, s.fail("get app", err, nil)
}

// ListApps returns every Meta app, by id.
func (s *Store) ListApps(ctx context.Context) ([]domain.MetaApp, error) {
	const q = `SELECT ` + appColumns + ` FROM meta_apps ORDER BY id`
	var rows []appRow
	if err := s.selectAll(ctx, &rows, q, map[string]any{}); err != nil {
		return nil, s.fail("list apps", err, nil)
	}
	out := make([]domain.MetaApp, 0, len(rows))
	for _, r := range rows {
		a, err := r.toDomain()
		if err != nil {
			return nil, s.fail("list apps", err, nil)
		}
		out = append(out, a)
	}
	return out, nil
}

// DeleteApp removes a Meta app; an unknown id is not an error.
func (s *Store) DeleteApp(ctx context.Context, id string) error {
	const q = `DELETE FROM meta_apps WHERE id = :id`
	_, err := s.exec(ctx, q, map[string]any{"id": id})
	return s.fail("delete app", err, nil)
}
