package sqlstore

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/heraldhq/herald/domain"
	"github.com/heraldhq/herald/ports"
)

// A commit that fails is reported as the failure it is, and nothing of the
// transaction is stored. SQLite checks deferred foreign keys at COMMIT, which
// makes a commit fail on demand.
func TestWithinTxReportsFailedCommit(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	db, d, err := Open(ctx, Config{DatabaseURL: "sqlite:" + filepath.Join(t.TempDir(), "c.db")})
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() { _ = db.Close() })
	if err := Migrate(ctx, db, d); err != nil {
		t.Fatalf("Migrate: %v", err)
	}
	s := New(db, d)

	now := time.Now()
	ws, err := domain.NewWorkspace("wsp_01jabcdefghjkmnpqrstvwxyz0", "Commit", now)
	if err != nil {
		t.Fatal(err)
	}
	orphan := domain.Campaign{ID: "cmp_01jabcdefghjkmnpqrstvwxyz0", Workspace: "wsp_missing", Name: "Orphan",
		Template: domain.Template{Name: "t", Language: "en"}, Status: domain.CampaignDraft, CreatedAt: now, UpdatedAt: now}
	called := false
	err = s.WithinTx(ctx, func(ctx context.Context, r ports.Repos) error {
		called = true
		ts := r.Campaigns.(*Store)
		if _, err := ts.ext.ExecContext(ctx, `PRAGMA defer_foreign_keys = ON`); err != nil {
			return err
		}
		if err := r.Workspaces.CreateWorkspace(ctx, ws); err != nil {
			return err
		}
		return r.Campaigns.CreateCampaign(ctx, orphan) // violates its foreign key, checked at COMMIT
	})
	if !called {
		t.Fatal("fn was not called")
	}
	if err == nil || !strings.Contains(err.Error(), "commit") || !strings.Contains(err.Error(), "FOREIGN KEY") {
		t.Fatalf("WithinTx = %v, want the failed commit's foreign key error", err)
	}
	if _, err := s.GetWorkspace(ctx, ws.ID); !errors.Is(err, domain.ErrWorkspaceNotFound) {
		t.Fatalf("GetWorkspace after a failed commit = %v, want not found", err)
	}
	// The connection went back to the pool in a usable state.
	if err := s.CreateWorkspace(ctx, ws); err != nil {
		t.Fatalf("CreateWorkspace after a failed commit: %v", err)
	}
}

// An update function's own errors come back unchanged, even domain errors
// that look like storage ones.
func TestTranslatePassesDomainErrors(t *testing.T) {
	t.Parallel()
	for _, err := range []error{
		domain.NotFound(domain.ErrCampaignNotFound),
		domain.InvalidTransition("campaign", "archived", "active"),
		ports.ErrUnavailable,
	} {
		if got := translate(SQLite(), "op", err, domain.ErrKeyNotFound); got != err {
			t.Errorf("translate(%v) = %v, want it unchanged", err, got)
		}
	}
}
