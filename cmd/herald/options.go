package main

import (
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"go.uber.org/fx"

	"github.com/heraldhq/herald/adapters/dashboard"
	"github.com/heraldhq/herald/adapters/httpapi"
	"github.com/heraldhq/herald/adapters/media"
	"github.com/heraldhq/herald/adapters/metrics"
	"github.com/heraldhq/herald/adapters/sandbox"
	"github.com/heraldhq/herald/adapters/sqlstore"
	"github.com/heraldhq/herald/adapters/system"
	"github.com/heraldhq/herald/adapters/webhookout"
	"github.com/heraldhq/herald/adapters/whatsapp"
	"github.com/heraldhq/herald/adapters/zaplog"
	"github.com/heraldhq/herald/app"
	"github.com/heraldhq/herald/app/delivery"
	"github.com/heraldhq/herald/app/events"
	"github.com/heraldhq/herald/domain"
)

// storeModule picks the store from the database URL.
func storeModule(cfg *Config) (fx.Option, error) {
	switch {
	case strings.HasPrefix(cfg.DatabaseURL, "sqlite:"):
		return sqlstore.SQLiteModule, nil
	case strings.HasPrefix(cfg.DatabaseURL, "postgres://"), strings.HasPrefix(cfg.DatabaseURL, "postgresql://"):
		return sqlstore.PostgresModule, nil
	}
	return nil, fmt.Errorf("HERALD_DATABASE_URL %q: want sqlite:PATH or postgres://…", maskURL(cfg.DatabaseURL))
}

// coreOptions are the modules every command shares: logging, clock and ids,
// the store and the use cases.
func coreOptions(cfg *Config, logOut io.Writer, logLevel string) (fx.Option, error) {
	store, err := storeModule(cfg)
	if err != nil {
		return nil, err
	}
	keywords, err := cfg.optKeywords()
	if err != nil {
		return nil, err
	}
	return fx.Options(
		fx.Supply(
			zaplog.Config{Format: cfg.LogFormat, Level: logLevel, Output: logOut},
			sqlstore.Config{DatabaseURL: cfg.DatabaseURL, MaxOpenConns: cfg.DatabaseMaxOpenConns},
			app.Config{KeyCacheTTL: cfg.KeyCacheTTL, TemplateRefresh: cfg.TemplateRefresh, Media: cfg.media().Policy(),
				DailySendCap: cfg.DailySendCap, WhatsAppPhoneNumberID: cfg.WhatsAppPhoneID, WhatsAppWABAID: cfg.WhatsAppWABAID,
				AutoUploadMedia: cfg.MediaUpload == "auto"},
			delivery.Config{LeaseDuration: cfg.LeaseDuration, LiveMPS: cfg.WhatsAppMPS, OptKeywords: keywords,
				KeepMarketingOnRed: !cfg.PauseOnRed, TemplateAccount: cfg.WhatsAppWABAID},
			whatsapp.WebhookConfig{AppSecrets: splitList(cfg.WhatsAppAppSecret), VerifyToken: cfg.WhatsAppVerifyToken,
				PhoneNumberIDs: []string{cfg.WhatsAppPhoneID}},
			system.PasswordConfig{MaxChecks: cfg.DashboardMaxPasswordChecks},
			cfg.secretKeys(),
			delivery.NumbersConfig{EnvPhoneNumberID: cfg.WhatsAppPhoneID},
			cfg.media(),
			cfg.webhooks(),
			cfg.events(),
		),
		zaplog.Module,
		system.Module,
		store,
		httpapi.EventRendererModule,
		app.Module,
		events.ManageModule,
		delivery.Module,
		events.Module,
		webhookout.Module,
		media.Module,
		mediaCache(cfg),
		whatsapp.WebhookModule,
		cloudAPI(cfg),
	), nil
}

// appOptions is the one place that picks the server's modules: the store
// from the database URL, the API and the dashboard, the sandbox always, and
// the live sender, Meta's Cloud API, when its token and sender number are
// set. Without them there is no live sender: live keys' sends answer 503
// whatsapp_not_configured (start-up says so), and nothing live ever goes to
// the sandbox.
func appOptions(cfg *Config, logOut io.Writer) (fx.Option, error) {
	core, err := coreOptions(cfg, logOut, cfg.LogLevel)
	if err != nil {
		return nil, err
	}
	step := cfg.SandboxStepDelay
	proxies, err := parsePrefixes(cfg.TrustedProxies)
	if err != nil {
		return nil, fmt.Errorf("HERALD_TRUSTED_PROXIES: %w", err)
	}
	if (cfg.TLSCertFile == "") != (cfg.TLSKeyFile == "") {
		return nil, usagef("HERALD_TLS_CERT_FILE and HERALD_TLS_KEY_FILE go together: set both to serve HTTPS, or neither")
	}
	return fx.Options(
		core,
		fx.Supply(
			sandbox.Config{SentAfter: min(step, 100*time.Millisecond), DeliveredAfter: step, ReadAfter: step},
			httpapi.Config{Addr: cfg.Addr, RequestTimeout: cfg.RequestTimeout, RateLimit: cfg.RateLimit, RateBurst: cfg.RateBurst,
				TrustedProxies: proxies, TLSCertFile: cfg.TLSCertFile, TLSKeyFile: cfg.TLSKeyFile},
			dashboard.Config{SecureCookie: cfg.DashboardSecure, LiveSending: cfg.whatsApp().Configured()},
		),
		sandbox.Module,
		liveSender(cfg),
		httpapi.Module,
		dashboard.Module,
		app.WorkersModule,          // first: the default workspace exists before anything is sent
		events.WorkersModule,       // attempts cut short by the stop are tried again after their lease
		delivery.WorkersModule,     // stops first: sends in flight finish, the rest are released
		debugServer(cfg.DebugAddr), // listening before the API, for profiling its start
		metricsServer(cfg.MetricsAddr),
		fx.Invoke(func(*http.Server) {}),
	), nil
}

// debugServer serves the profiler when its address is set.
func debugServer(addr string) fx.Option {
	if addr == "" {
		return fx.Options()
	}
	return httpapi.DebugModule(addr)
}

// metricsServer counts what the server does and serves it to Prometheus
// when its address is set; otherwise nothing is counted.
func metricsServer(addr string) fx.Option {
	if addr == "" {
		return fx.Options()
	}
	return fx.Options(metrics.Module, httpapi.MetricsModule(addr))
}

// whatsApp is the Cloud API adapter's part of the configuration.
func (c *Config) whatsApp() whatsapp.Config {
	return whatsapp.Config{APIURL: c.WhatsAppAPIURL, AccessToken: c.WhatsAppAccessToken,
		PhoneNumberID: c.WhatsAppPhoneID, WABAID: c.WhatsAppWABAID,
		// An idle connection for each send the dispatcher may have in
		// flight. Its slots follow the stored numbers' summed pace
		// (Dispatcher.Slots), unknown here, so the pool keeps up to four
		// numbers at Meta's top pace: a connection is idle only because
		// that many sends ran at once, so the bound costs nothing unused.
		Connections: max(delivery.Config{LiveMPS: c.WhatsAppMPS}.WithDefaults().DispatchConcurrency, 4*domain.MaxNumberMPS/4)}
}

// cloudAPI provides the Cloud API client always (stored numbers send
// through it, each with its own token), and with it the template source
// when a business account is set. Every command gets it: the CLI syncs
// templates too.
func cloudAPI(cfg *Config) fx.Option {
	wa := cfg.whatsApp()
	opts := []fx.Option{fx.Supply(wa), whatsapp.Module}
	if wa.TemplatesConfigured() {
		opts = append(opts, whatsapp.TemplateSourceModule)
	}
	return fx.Options(opts...)
}

// mediaCache keeps the media files contacts sent on disk when its
// directory is set.
func mediaCache(cfg *Config) fx.Option {
	if cfg.MediaCacheDir == "" {
		return fx.Options()
	}
	return fx.Options(fx.Supply(cfg.mediaCache()), media.CacheModule)
}

// liveSender provides the sender for live keys, the Cloud API, when its
// token and sender number are set; otherwise none, and live sends are
// refused rather than sent to the sandbox (DESIGN §5).
func liveSender(cfg *Config) fx.Option {
	if cfg.whatsApp().Configured() {
		return whatsapp.SenderModule
	}
	return fx.Options()
}

// cliOptions are the modules for administration commands: no server, no
// workers; the log goes to logOut at level.
func cliOptions(cfg *Config, logOut io.Writer, level string) (fx.Option, error) {
	return coreOptions(cfg, logOut, level)
}
