package domain

// Principal is who is calling: the workspace and key of an authenticated
// request, and the key's mode, which picks the live sender or the sandbox.
type Principal struct {
	Workspace WorkspaceID
	Key       KeyID
	Mode      KeyMode
}
