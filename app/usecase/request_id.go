package usecase

import "context"

type requestIDKey struct{}

// WithRequestID returns ctx carrying the id of the request it serves (the
// API's X-Request-Id), so that what a use case logs can be found with the
// request's other lines.
func WithRequestID(ctx context.Context, id string) context.Context {
	return context.WithValue(ctx, requestIDKey{}, id)
}

// RequestID is the request id ctx carries, or "" outside a request (the
// workers, the command line).
func RequestID(ctx context.Context) string {
	id, _ := ctx.Value(requestIDKey{}).(string)
	return id
}
