package domain

// Principal is who is calling: the workspace and key of an authenticated
// request, and the key's mode, which picks the live sender or the sandbox
// and the traffic the caller sees. The dashboard's operator is a Principal
// without a key or mode: it sees every mode.
type Principal struct {
	Workspace WorkspaceID
	Key       KeyID
	Mode      KeyMode
}

// Sees reports whether the principal may see an object of traffic of mode
// m (a message, a contact, a thread entry): a key sees its own mode's only,
// so a test key, the one that ends up in CI logs, never reads live data,
// and a live key's figures are not mixed with the sandbox's. Anything else
// answers exactly as a missing object. The operator sees every mode.
func (p Principal) Sees(m KeyMode) bool { return p.Mode.IsZero() || p.Mode == m }
