package httpapi

import (
	"context"
	"crypto/rand"
	"encoding/base32"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"time"

	"go.uber.org/zap"

	"github.com/heraldhq/herald/app/usecase"
	"github.com/heraldhq/herald/domain"
)

type ctxKey int

const (
	requestIDKey ctxKey = iota
	principalKey
)

func requestID(ctx context.Context) string {
	id, _ := ctx.Value(requestIDKey).(string)
	return id
}

func principalFrom(ctx context.Context) domain.Principal {
	p, _ := ctx.Value(principalKey).(domain.Principal)
	return p
}

var idEncoding = base32.StdEncoding.WithPadding(base32.NoPadding)

func newRequestID() string {
	var b [10]byte
	rand.Read(b[:])
	return "req_" + strings.ToLower(idEncoding.EncodeToString(b[:]))
}

// maxRequestIDLen bounds a caller's X-Request-Id.
const maxRequestIDLen = 128

// callerRequestID is the X-Request-Id the caller (or a proxy in front)
// sent, when it is well-formed: one header, 1 to 128 characters of
// A-Z a-z 0-9 . _ -. Such an id is safe in a log line, a header and a JSON
// string as it is. Anything else, including several X-Request-Id headers,
// gives "", and the request gets an id of its own.
func callerRequestID(h http.Header) string {
	vs := h.Values("X-Request-Id")
	if len(vs) != 1 || len(vs[0]) == 0 || len(vs[0]) > maxRequestIDLen {
		return ""
	}
	for i := 0; i < len(vs[0]); i++ {
		c := vs[0][i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '.' || c == '_' || c == '-') {
			return ""
		}
	}
	return vs[0]
}

// recorder remembers the status and the key for the access log.
type recorder struct {
	http.ResponseWriter
	status int
	key    domain.KeyID
}

func (r *recorder) WriteHeader(status int) {
	if r.status == 0 {
		r.status = status
	}
	r.ResponseWriter.WriteHeader(status)
}

func (r *recorder) Write(b []byte) (int, error) {
	if r.status == 0 {
		r.status = http.StatusOK
	}
	return r.ResponseWriter.Write(b)
}

// observe gives each request an id (the caller's X-Request-Id when it is
// well-formed, else a new req_…; echoed in X-Request-Id) and a deadline, sets its RemoteAddr to
// the client's address (the one behind a trusted proxy; see
// trustedProxies.client), so that everything after it, the limiters and the
// dashboard included, sees the client, logs it once when done (never the
// key, the body or the query), and turns a panic into a 500 without
// internals.
func observe(log *zap.Logger, tel telemetry, timeout time.Duration, proxies trustedProxies, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		id := callerRequestID(r.Header)
		if id == "" {
			id = newRequestID()
		}
		r, span := tel.startServerSpan(r, id)
		w.Header().Set("X-Request-Id", id)
		w.Header().Set("X-Content-Type-Options", "nosniff")
		rec := &recorder{ResponseWriter: w}
		ctx := usecase.WithRequestID(context.WithValue(r.Context(), requestIDKey, id), id) // the use cases' log lines carry it too
		ctx, cancel := context.WithTimeout(ctx, timeout)
		defer cancel()
		r = r.WithContext(ctx) // a copy: its RemoteAddr may be changed
		client := r.RemoteAddr
		if ap, ok := proxies.client(r); ok {
			r.RemoteAddr = ap.String()
			client = ap.Addr().String()
		}
		defer func() {
			if v := recover(); v != nil {
				if v == http.ErrAbortHandler {
					panic(v)
				}
				log.Error("panic", zap.String("request_id", id), zap.Any("panic", v), zap.Stack("stack"))
				if rec.status == 0 {
					writeProblem(rec, r, CodeInternal, "", "something went wrong on our side; quote the request id when reporting it")
				}
			}
			log.Info("request",
				zap.String("request_id", id),
				zap.String("method", r.Method),
				zap.String("route", r.Pattern),
				zap.Int("status", rec.status),
				zap.Duration("duration", time.Since(start)),
				zap.String("key_id", string(rec.key)),
				zap.String("client", client),
			)
			tel.done(r, span, rec.status, time.Since(start))
		}()
		next.ServeHTTP(rec, r)
	})
}

// authenticated checks X-API-KEY before anything else about the request,
// then the key's rate limit, and puts the caller's principal in the
// context. Each attempt counts against its client address's failure bucket
// before the key is looked at, and is given back when the key is good: an
// address whose keys keep failing is refused before its key is even looked
// at, until the bucket refills, however many requests it sends at once.
func (a *api) authenticated(next http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		addr := clientAddr(r)
		try, wait, err := a.authFailures.admit(r.Context(), addr, a.cfg.Now)
		if err != nil {
			// The request's time ran out while this address's earlier
			// attempts, which hold every token left, were still running.
			rateLimited(w, r, time.Second, "too many requests from this address are being authenticated at once")
			return
		}
		if wait > 0 {
			rateLimited(w, r, wait, "too many requests from this address failed authentication")
			return
		}
		token := r.Header.Get("X-API-KEY")
		if token == "" {
			try.spend(a.cfg.Now())
			w.Header().Set("WWW-Authenticate", `ApiKey header="X-API-KEY"`)
			writeProblem(w, r, CodeMissingAPIKey, "", missingKeyDetail)
			return
		}
		p, err := a.d.Auth.Handle(r.Context(), token)
		if err != nil {
			if errors.Is(err, domain.ErrInvalidAPIKey) {
				try.spend(a.cfg.Now())
			} else {
				try.giveBack() // the store failed, not the key
			}
			writeError(w, r, a.log, err)
			return
		}
		try.giveBack()
		if rec, ok := w.(*recorder); ok {
			rec.key = p.Key
		}
		now := a.cfg.Now()
		wait, lim := a.keyLimits.take(string(p.Key), now)
		a.keyLimits.setRateLimitHeaders(w.Header(), lim, now, wait)
		if wait > 0 {
			rateLimited(w, r, wait, "this API key is over its rate limit")
			return
		}
		next(w, r.WithContext(context.WithValue(r.Context(), principalKey, p)))
	}
}

// rateLimited answers 429 rate_limited, retry after wait.
func rateLimited(w http.ResponseWriter, r *http.Request, wait time.Duration, why string) {
	secs := strconv.Itoa(retryAfterSeconds(wait))
	w.Header().Set("Retry-After", secs)
	writeProblem(w, r, CodeRateLimited, "", why+"; retry after "+secs+" s")
}
