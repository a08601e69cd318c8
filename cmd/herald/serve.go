package main

import (
	"context"
	"fmt"
	"sort"
	"strings"

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
	c.fs.Usage = func() {
		fmt.Fprint(e.stderr, "Usage: herald serve [flags]\n\nRuns the API server and the dispatcher. Every setting is a flag and a HERALD_* variable:\n\n")
		c.fs.PrintDefaults()
	}
	if err := c.parse(args); err != nil {
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
	if err := a.Start(e.ctx); err != nil {
		return err
	}
	logStart(log, c.cfg)
	if ks, err := keys.Handle(e.ctx, app.ListKeys{}); err == nil && len(ks) == 0 {
		log.Info("no API keys yet: create one with `herald keys create --name dev --mode test`")
	}
	<-e.ctx.Done()
	log.Info("shutting down")
	return a.Stop(context.WithoutCancel(e.ctx))
}

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
	if cfg.WhatsAppAccessToken == "" || cfg.WhatsAppPhoneID == "" {
		log.Warn("live messages go to the sandbox: set HERALD_WHATSAPP_ACCESS_TOKEN and HERALD_WHATSAPP_PHONE_NUMBER_ID to send through the Cloud API")
	} else {
		log.Info("live messages go to the WhatsApp Cloud API", zap.String("api_url", cfg.WhatsAppAPIURL),
			zap.String("phone_number_id", cfg.WhatsAppPhoneID))
	}
}
