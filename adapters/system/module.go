package system

import (
	"go.uber.org/fx"
	"go.uber.org/zap"

	"github.com/heraldhq/herald/ports"
)

// Module provides the real clock, the identifier generator, the password
// hasher and the secret sealer (AES-256-GCM under the configured keys). It
// needs a PasswordConfig, a SecretKeyConfig and a *zap.Logger.
var Module = fx.Module("system",
	fx.Provide(
		fx.Annotate(func() Clock { return Clock{} }, fx.As(new(ports.Clock))),
		fx.Annotate(NewIDs, fx.As(new(ports.IDGenerator))),
		fx.Annotate(NewPasswords, fx.As(new(ports.PasswordHasher))),
		fx.Annotate(newSecrets, fx.As(new(ports.SecretSealer))),
	),
)

// newSecrets reads the keys and says in the log when it makes the
// automatic key file (never the key).
func newSecrets(cfg SecretKeyConfig, log *zap.Logger) (*Secrets, error) {
	cfg.OnGenerate = func(path string) {
		log.Warn("no HERALD_SECRET_KEY is set: made a secret key to seal stored access tokens and app secrets; "+
			"back it up with the database, or set HERALD_SECRET_KEY_FILE to it", zap.String("file", path))
	}
	return NewSecrets(cfg)
}
