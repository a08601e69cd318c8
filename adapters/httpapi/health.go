package httpapi

import (
	"context"
	_ "embed"
	"net/http"
	"time"

	"go.uber.org/zap"
)

//go:embed openapi.json
var openapiDoc []byte

func (a *api) healthz(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, map[string]string{"status": "ok"})
}

func (a *api) readyz(w http.ResponseWriter, r *http.Request) {
	ctx, cancel := context.WithTimeout(r.Context(), 2*time.Second)
	defer cancel()
	if err := a.d.Store.Ping(ctx); err != nil {
		a.log.Warn("not ready", zap.Error(err))
		w.Header().Set("Retry-After", "1")
		writeProblem(w, r, CodeUnavailable, "", "the database cannot be reached")
		return
	}
	if a.d.Dispatcher != nil {
		if err := a.d.Dispatcher.LiveError(); err != nil {
			w.Header().Set("Retry-After", "60")
			writeProblem(w, r, CodeUnavailable, "", err.Error())
			return
		}
	}
	writeJSON(w, http.StatusOK, map[string]string{"status": "ready"})
}

func (a *api) openapi(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	w.Write(openapiDoc)
}
