package media

import (
	"go.uber.org/fx"

	"github.com/heraldhq/herald/ports"
)

// Module provides the *Inspector as the ports.MediaInspector and the
// ports.MediaFetcher. It needs a Config.
var Module = fx.Module("media",
	fx.Provide(fx.Annotate(New, fx.As(new(ports.MediaInspector)), fx.As(new(ports.MediaFetcher)))),
)

// CacheModule provides the *ContentCache as the ports.MediaCache. It needs
// a CacheConfig; leave it out when the cache is off.
var CacheModule = fx.Module("media.cache",
	fx.Provide(fx.Annotate(NewContentCache, fx.As(new(ports.MediaCache)))),
)
