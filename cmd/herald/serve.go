package main

import (
	"context"
	"sort"
	"strings"
	"time"

	"go.uber.org/fx"
	"go.uber.org/zap"

	"github.com/heraldhq/herald/app"
)

// serve runs the server until the context ends (SIGINT or SIGTERM).
func serve(e env, args []string) error {
	c, err := newCommand(e, "serve", nil)
	if err != nil {
		return err
	}
	c.about = "Usage: herald serve [flags]\n\nRuns the API server and the dispatcher. Every setting is a flag whose default\n" +
		"comes from its HERALD_* variable (a flag wins over the variable):"
	if err := c.parse(args); err != nil {
		return err
	}
	if err := c.positional(""); err != nil {
		return err
	}
	opts, err := appOptions(c.cfg, e.stderr)
	if err != nil {
		return err
	}
	var (
		log  *zap.Logger
		keys *app.ListKeysHandler
	)
	a := fx.New(opts, fx.Populate(&log, &keys))
	if err := a.Err(); err != nil {
		return err
	}
	logStart(log, c.cfg)
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

func logStart(log *zap.Logger, cfg *Config) {
	settings := cfg.masked()
	names := make([]string, 0, len(settings))
	for k := range settings {
		names = append(names, k)
	}
	sort.Strings(names)
	fields := make([]zap.Field, 0, len(names)+1)
	fields = append(fields, zap.String("version", version))
	for _, k := range names {
		fields = append(fields, zap.String(strings.ToLower(k), settings[k]))
	}
	log.Info("configuration", fields...)
	if !cfg.whatsApp().Configured() {
		log.Warn("live messages go to the sandbox: set HERALD_WHATSAPP_ACCESS_TOKEN and HERALD_WHATSAPP_PHONE_NUMBER_ID to send through the Cloud API")
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
