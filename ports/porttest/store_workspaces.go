package porttest

import (
	"sync"
	"testing"

	"github.com/heraldhq/herald/domain"
)

var workspaceTests = []storeTest{
	{"RoundTrip", testWorkspaceRoundTrip},
	{"NotFound", testWorkspaceNotFound},
	{"EnsureDefault", testEnsureDefaultWorkspace},
}

func testWorkspaceRoundTrip(t *testing.T, s Store) {
	w := NewWorkspace(t)
	if err := s.CreateWorkspace(t.Context(), w); err != nil {
		t.Fatalf("CreateWorkspace: %v", err)
	}
	got, err := s.GetWorkspace(t.Context(), w.ID)
	if err != nil {
		t.Fatalf("GetWorkspace: %v", err)
	}
	mustEqual(t, "workspace", w, got)
}

func testWorkspaceNotFound(t *testing.T, s Store) {
	_, err := s.GetWorkspace(t.Context(), domain.WorkspaceID(NewID(domain.PrefixWorkspace)))
	mustBe(t, "GetWorkspace of an unknown id", err, domain.ErrWorkspaceNotFound)
}

// testEnsureDefaultWorkspace tolerates a store that already has a default:
// the default is global to the store. Ten concurrent first calls must agree
// on one default, which is either a default the store already had or one of
// the candidates, stored as given with IsDefault set. Candidates that lose
// are not stored, and later calls keep returning the same default.
func testEnsureDefaultWorkspace(t *testing.T, s Store) {
	ctx := t.Context()
	const n = 10
	candidates := make([]domain.Workspace, n)
	for i := range candidates {
		candidates[i] = NewWorkspace(t)
	}
	results := make([]domain.Workspace, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			results[i], errs[i] = s.EnsureDefaultWorkspace(ctx, candidates[i])
		})
	}
	wg.Wait()
	for i := range n {
		if errs[i] != nil {
			t.Fatalf("EnsureDefaultWorkspace: %v", errs[i])
		}
	}
	def := results[0]
	for i := range n {
		mustEqual(t, "default from concurrent calls", def, results[i])
	}
	if !def.IsDefault {
		t.Fatalf("EnsureDefaultWorkspace returned %+v, want IsDefault", def)
	}
	for _, c := range candidates {
		if c.ID == def.ID {
			want := c
			want.IsDefault = true
			mustEqual(t, "the candidate stored as default", want, def)
			continue
		}
		_, err := s.GetWorkspace(ctx, c.ID)
		mustBe(t, "GetWorkspace of a candidate that lost", err, domain.ErrWorkspaceNotFound)
	}
	got, err := s.GetWorkspace(ctx, def.ID)
	if err != nil {
		t.Fatalf("GetWorkspace(default): %v", err)
	}
	mustEqual(t, "default workspace read back", def, got)

	again, err := s.EnsureDefaultWorkspace(ctx, NewWorkspace(t))
	if err != nil {
		t.Fatalf("EnsureDefaultWorkspace again: %v", err)
	}
	mustEqual(t, "default on a later call", def, again)
}
