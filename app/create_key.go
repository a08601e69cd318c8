package app

import (
	"context"

	"github.com/heraldhq/herald/domain"
	"github.com/heraldhq/herald/ports"
)

// CreateKey makes an API key in a workspace (the default one when empty).
type CreateKey struct {
	Workspace string
	Name      string
	Mode      domain.KeyMode
}

// CreatedKey is the stored key and its token, which is shown this once and
// never again.
type CreatedKey struct {
	Key   domain.APIKey
	Token domain.Token
}

// CreateKeyHandler answers CreateKey.
type CreateKeyHandler struct {
	workspaces ports.WorkspaceRepository
	keys       ports.KeyRepository
	def        *EnsureDefaultWorkspaceHandler
	clock      ports.Clock
	ids        ports.IDGenerator
}

// NewCreateKeyHandler builds the handler.
func NewCreateKeyHandler(workspaces ports.WorkspaceRepository, keys ports.KeyRepository, def *EnsureDefaultWorkspaceHandler, clock ports.Clock, ids ports.IDGenerator) *CreateKeyHandler {
	return &CreateKeyHandler{workspaces: workspaces, keys: keys, def: def, clock: clock, ids: ids}
}

// Handle makes the token, stores only its hash and returns both.
func (h *CreateKeyHandler) Handle(ctx context.Context, cmd CreateKey) (CreatedKey, error) {
	ws, err := resolveWorkspace(ctx, h.workspaces, h.def, cmd.Workspace)
	if err != nil {
		return CreatedKey{}, err
	}
	mode := cmd.Mode
	if mode.IsZero() {
		mode = domain.ModeTest
	}
	tok, err := h.ids.NewToken(mode)
	if err != nil {
		return CreatedKey{}, err
	}
	k, err := domain.NewAPIKey(domain.KeyID(h.ids.NewID(domain.PrefixKey)), ws, cmd.Name, tok, h.clock.Now())
	if err != nil {
		return CreatedKey{}, err
	}
	if err := h.keys.CreateKey(ctx, k); err != nil {
		return CreatedKey{}, err
	}
	return CreatedKey{Key: k, Token: tok}, nil
}
