package domain

import (
	"strings"
	"time"
	"unicode/utf8"
)

// DefaultWorkspaceName names the workspace created on first start.
const DefaultWorkspaceName = "Default"

// Workspace owns every other object; a key sees only its own workspace.
type Workspace struct {
	ID        WorkspaceID
	Name      string
	IsDefault bool
	CreatedAt time.Time
}

// NewWorkspace makes a workspace.
func NewWorkspace(id WorkspaceID, name string, now time.Time) (Workspace, error) {
	if err := CheckText("name", "the name", name); err != nil {
		return Workspace{}, err
	}
	name = strings.TrimSpace(name)
	if name == "" || utf8.RuneCountInString(name) > 200 {
		return Workspace{}, InvalidParameter("name", "a workspace needs a name of 1 to 200 characters")
	}
	return Workspace{ID: id, Name: name, CreatedAt: now.UTC().Truncate(time.Microsecond)}, nil
}
