package httpapi

import (
	"mime"
	"net/http"
	"net/http/pprof"
	"strings"
)

// newDebugHandler is Go's profiler (net/http/pprof) on a mux of its own,
// for DebugModule's server (newDebugServer in server.go).
func newDebugHandler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/cmdline", pprof.Cmdline)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
	mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	return noMultipart(mux)
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
