package main

import (
	"context"
	"maps"
	"runtime/debug"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"go.uber.org/fx"
	"go.uber.org/zap"

	"github.com/heraldhq/herald/adapters/sqlstore"
	"github.com/heraldhq/herald/app"
)

func newServeCmd(e *env) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Run the API server and the dispatcher",
		Long: "Runs the API server, the dashboard and the dispatcher until SIGINT or SIGTERM. Every setting is\n" +
			"a flag whose default comes from its HERALD_* variable; a flag wins over the variable.",
		Args: noArgs,
	}
	cmd.RunE = e.action(func(*cobra.Command, []string) error { return serve(e) })
	e.cfg.addFlags(cmd.Flags())
	return cmd
}

// serve runs the server until the context ends (SIGINT or SIGTERM).
func serve(e *env) error {
	cfg, err := e.config()
	if err != nil {
		return err
	}
	opts, err := appOptions(cfg, e.stderr)
	if err != nil {
		return err
	}
	traces, err := tracing(e.getenv, e.stderr)
	if err != nil {
		return err
	}
	opts = fx.Options(opts, traces)
	gogc := setGCPercent(e.getenv)
	var (
		log  *zap.Logger
		keys *app.ListKeysHandler
	)
	a := fx.New(opts, fx.Populate(&log, &keys))
	if err := a.Err(); err != nil {
		return err
	}
	logStart(log, cfg, gogc)
	warnExposedFiles(log, cfg.DatabaseURL)
	if err := a.Start(e.ctx); err != nil {
		return err
	}
	if ks, err := keys.Handle(e.ctx, app.ListKeys{}); err == nil && len(ks) == 0 {
		log.Info("no API keys yet: create one with `herald keys create --name dev --mode test`")
	}
	<-e.ctx.Done()
	log.Info("shutting down")
	stop, cancel := context.WithTimeout(context.WithoutCancel(e.ctx), stopTimeout)
	defer cancel()
	return a.Stop(stop)
}

// stopTimeout bounds a graceful shutdown: the HTTP server drains (20 s at
// most) while the dispatcher finishes its in-flight sends. Messages still
// leased when it runs out are claimed again once their lease expires.
const stopTimeout = 30 * time.Second

// defaultGCPercent is the garbage collector's target (GOGC) of a server
// whose environment sets none. Herald's live heap is small (caches, buffers,
// the requests in flight), so at Go's default of 100 the collector runs many
// times a second under load: about a tenth of the CPU of a send. Twice the
// default takes most of that back for a few MiB more of peak memory
// (docs/benchmarks.md, 2026-11-24, a fifth session).
const defaultGCPercent = 200

// setGCPercent sets the collector's target to defaultGCPercent unless the
// environment chose one with GOGC, which Go's runtime has then applied, and
// returns the target in force, for the log.
func setGCPercent(getenv func(string) string) string {
	if v := getenv("GOGC"); v != "" {
		return v
	}
	debug.SetGCPercent(defaultGCPercent)
	return strconv.Itoa(defaultGCPercent)
}

func logStart(log *zap.Logger, cfg *Config, gogc string) {
	settings := cfg.masked()
	names := make([]string, 0, len(settings))
	for k := range settings {
		names = append(names, k)
	}
	sort.Strings(names)
	fields := make([]zap.Field, 0, len(names)+2)
	info := readBuildInfo()
	fields = append(fields, zap.String("version", info.Version), zap.String("commit", info.Commit), zap.String("gogc", gogc))
	for _, k := range names {
		fields = append(fields, zap.String(strings.ToLower(k), settings[k]))
	}
	log.Info("configuration", fields...)
	if !cfg.whatsApp().Configured() {
		log.Warn("only test keys can send: live keys' sends answer 503 whatsapp_not_configured until HERALD_WHATSAPP_ACCESS_TOKEN and HERALD_WHATSAPP_PHONE_NUMBER_ID are set; test keys send in the sandbox")
	} else {
		log.Info("live messages go to the WhatsApp Cloud API", zap.String("api_url", cfg.WhatsAppAPIURL),
			zap.String("phone_number_id", cfg.WhatsAppPhoneID))
	}
	if cfg.whatsApp().TemplatesConfigured() {
		log.Info("templates are synced from the business account", zap.String("waba_id", cfg.WhatsAppWABAID),
			zap.Duration("every", cfg.TemplateRefresh))
	} else if cfg.whatsApp().Configured() {
		log.Warn("templates are not synced: set HERALD_WHATSAPP_WABA_ID so campaigns follow Meta's template statuses")
	}
	switch {
	case cfg.WhatsAppAppSecret == "" && cfg.whatsApp().Configured():
		log.Warn("Meta's webhooks are refused: set HERALD_WHATSAPP_APP_SECRET (and HERALD_WHATSAPP_VERIFY_TOKEN) to receive delivery statuses and replies at /v1/webhooks/whatsapp")
	case cfg.WhatsAppAppSecret != "":
		log.Info("Meta's webhooks are received at /v1/webhooks/whatsapp", zap.Int("app_secrets", len(splitList(cfg.WhatsAppAppSecret))),
			zap.Bool("verify_token_set", cfg.WhatsAppVerifyToken != ""))
	}
}

// warnExposedFiles warns about each file of a SQLite database that users
// other than its owner may read: Herald creates them 0600, but not those
// made by an earlier version or loosened since, which it leaves as they are.
// It runs before the server starts, so the warning comes before "listening".
func warnExposedFiles(log *zap.Logger, databaseURL string) {
	exposed, err := sqlstore.ExposedSQLiteFiles(databaseURL)
	if err != nil {
		log.Warn("cannot check who may read the database files", zap.Error(err))
		return
	}
	for _, path := range slices.Sorted(maps.Keys(exposed)) {
		log.Warn("other users of this machine may read the database file, which holds contacts' numbers and the hashes of keys and passwords: chmod 600 it",
			zap.String("file", path), zap.String("mode", exposed[path].String()))
	}
}
