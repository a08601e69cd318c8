package httpapi

import (
	"context"
	"mime"
	"net/http"
	"net/http/pprof"
	"strings"

	"go.uber.org/fx"
	"go.uber.org/zap"
)

// DebugModule serves Go's profiler (net/http/pprof) on its own listener, for
// profiling a running server: go tool pprof http://ADDR/debug/pprof/profile.
// It is off unless the operator names an address, and that address should be
// loopback: profiles show code paths and the heap.
func DebugModule(addr string) fx.Option {
	return fx.Invoke(func(lc fx.Lifecycle, log *zap.Logger) { newDebugServer(lc, addr, log) })
}

func newDebugServer(lc fx.Lifecycle, addr string, log *zap.Logger) {
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/cmdline", pprof.Cmdline)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
	mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	srv := &http.Server{Addr: addr, Handler: noMultipart(mux), ReadHeaderTimeout: Config{}.WithDefaults().ReadHeaderTimeout}
	serveOn(lc, srv, listenOptions{what: "debug ",
		exposed: "the profiler listens on an address other than loopback: anyone who reaches it can read the heap, " +
			"with the keys, tokens and messages in memory; set HERALD_DEBUG_ADDR to a loopback address such as 127.0.0.1:6060"},
		log, func(context.Context) error { return srv.Close() })
}

// noMultipart keeps the profiler's handlers, which read their parameters
// with FormValue, from parsing a multipart body (which writes large parts
// to temporary files): such a request is refused before its body is read,
// and any other body is cut at 1 MiB (symbol lookups post addresses).
func noMultipart(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type")); strings.HasPrefix(mt, "multipart/") {
			http.Error(w, "multipart bodies are not accepted", http.StatusUnsupportedMediaType)
			return
		}
		r.Body = http.MaxBytesReader(w, r.Body, 1<<20)
		next.ServeHTTP(w, r)
	})
}
