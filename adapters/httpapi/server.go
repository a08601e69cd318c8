package httpapi

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/http"

	"go.uber.org/fx"
	"go.uber.org/zap"
)

// NewServer returns the HTTP server, listening when the application starts (a
// busy port fails start-up) and shutting down gracefully when it stops. It
// serves HTTPS when cfg names a certificate and key, and warns when it
// serves plain HTTP on an address other than loopback.
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
	serveOn(lc, srv, listenOptions{
		certFile: cfg.TLSCertFile, keyFile: cfg.TLSKeyFile,
		exposed: "serving plain HTTP on an address other than loopback: API keys, dashboard passwords and session " +
			"cookies cross the network readable by anyone on the path; set HERALD_TLS_CERT_FILE and HERALD_TLS_KEY_FILE " +
			"to serve HTTPS, or listen on 127.0.0.1 behind a TLS proxy and keep this port unreachable",
	}, log, func(ctx context.Context) error {
		ctx, cancel := context.WithTimeout(ctx, cfg.ShutdownTimeout)
		defer cancel()
		return srv.Shutdown(ctx)
	})
	return srv
}

// newDebugServer serves the profiler (newDebugHandler) on addr while the
// application runs; DebugModule provides it.
func newDebugServer(lc fx.Lifecycle, addr string, log *zap.Logger) {
	srv := &http.Server{Addr: addr, Handler: newDebugHandler(), ReadHeaderTimeout: Config{}.WithDefaults().ReadHeaderTimeout}
	serveOn(lc, srv, listenOptions{what: "debug ",
		exposed: "the profiler listens on an address other than loopback: anyone who reaches it can read the heap, " +
			"with the keys, tokens and messages in memory; set HERALD_DEBUG_ADDR to a loopback address such as 127.0.0.1:6060"},
		log, func(context.Context) error { return srv.Close() })
}

// newMetricsServer serves h at /metrics on addr (MetricsModule).
func newMetricsServer(lc fx.Lifecycle, addr string, h http.Handler, log *zap.Logger) {
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", h)
	srv := &http.Server{Addr: addr, Handler: mux, ReadHeaderTimeout: Config{}.WithDefaults().ReadHeaderTimeout}
	serveOn(lc, srv, listenOptions{what: "metrics ",
		exposed: "the metrics listen on an address other than loopback: anyone who reaches them can read traffic volumes " +
			"and error rates; set HERALD_METRICS_ADDR to a loopback address such as 127.0.0.1:9464, or firewall it to Prometheus"},
		log, func(context.Context) error { return srv.Close() })
}

// listenOptions say how serveOn serves: what it is (a prefix of its log
// lines), its TLS certificate and key files (both or neither), and what to
// warn when it serves plain HTTP on an address other than loopback.
type listenOptions struct {
	what              string
	certFile, keyFile string
	exposed           string
}

// serveOn makes srv listen on its address when the application starts (a
// busy port, or a certificate that cannot be loaded, fails start-up),
// logging "<what>listening" with the address taken and whether it serves
// TLS (after the warning, when it serves plain HTTP beyond loopback), and
// runs stop when the application stops.
func serveOn(lc fx.Lifecycle, srv *http.Server, o listenOptions, log *zap.Logger, stop func(context.Context) error) {
	lc.Append(fx.Hook{
		OnStart: func(context.Context) error {
			if (o.certFile == "") != (o.keyFile == "") {
				return errors.New("httpapi: a TLS certificate file needs its key file, and a key file its certificate")
			}
			if o.certFile != "" {
				cert, err := tls.LoadX509KeyPair(o.certFile, o.keyFile)
				if err != nil {
					return fmt.Errorf("httpapi: load the TLS certificate: %w", err)
				}
				srv.TLSConfig = &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}
			}
			ln, err := net.Listen("tcp", srv.Addr)
			if err != nil {
				return err
			}
			secure := srv.TLSConfig != nil
			if !secure && !isLoopback(ln.Addr()) {
				log.Warn(o.exposed, zap.String("addr", ln.Addr().String()))
			}
			log.Info(o.what+"listening", zap.String("addr", ln.Addr().String()), zap.Bool("tls", secure))
			go func() {
				var err error
				if secure {
					err = srv.ServeTLS(ln, "", "")
				} else {
					err = srv.Serve(ln)
				}
				if err != nil && !errors.Is(err, http.ErrServerClosed) {
					log.Error(o.what+"server stopped", zap.Error(err))
				}
			}()
			return nil
		},
		OnStop: stop,
	})
}

// isLoopback reports whether a listener's address is a loopback address;
// the unspecified address (every interface) is not.
func isLoopback(a net.Addr) bool {
	tcp, ok := a.(*net.TCPAddr)
	return ok && tcp.IP.IsLoopback()
}
