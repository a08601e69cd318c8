package httpapi

import (
	"context"
	"errors"
	"net"
	"net/http"

	"go.uber.org/fx"
	"go.uber.org/zap"
)

// NewServer returns the HTTP server, listening when the application starts (a
// busy port fails start-up) and shutting down gracefully when it stops.
func NewServer(lc fx.Lifecycle, cfg Config, h http.Handler, log *zap.Logger) *http.Server {
	cfg = cfg.WithDefaults()
	srv := &http.Server{
		Addr:              cfg.Addr,
		Handler:           h,
		ReadHeaderTimeout: cfg.ReadHeaderTimeout,
		ReadTimeout:       cfg.ReadTimeout,
		WriteTimeout:      cfg.WriteTimeout,
		IdleTimeout:       cfg.IdleTimeout,
		MaxHeaderBytes:    cfg.MaxHeaderBytes,
		ErrorLog:          zap.NewStdLog(log.Named("http")),
	}
	serveOn(lc, srv, "", log, func(ctx context.Context) error {
		ctx, cancel := context.WithTimeout(ctx, cfg.ShutdownTimeout)
		defer cancel()
		return srv.Shutdown(ctx)
	})
	return srv
}

// serveOn makes srv listen on its address when the application starts (a
// busy port fails start-up), logging "<what>listening" with the address
// taken, and runs stop when the application stops.
func serveOn(lc fx.Lifecycle, srv *http.Server, what string, log *zap.Logger, stop func(context.Context) error) {
	lc.Append(fx.Hook{
		OnStart: func(context.Context) error {
			ln, err := net.Listen("tcp", srv.Addr)
			if err != nil {
				return err
			}
			log.Info(what+"listening", zap.String("addr", ln.Addr().String()))
			go func() {
				if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
					log.Error(what+"server stopped", zap.Error(err))
				}
			}()
			return nil
		},
		OnStop: stop,
	})
}
