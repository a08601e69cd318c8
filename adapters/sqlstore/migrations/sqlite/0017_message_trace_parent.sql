-- The W3C traceparent of the request that accepted a message (empty when
-- tracing was off), so that the dispatcher's span of its send links back
-- to that request's trace (decision 0023). Written once, with the message.

-- +goose Up
ALTER TABLE messages ADD COLUMN trace_parent TEXT NOT NULL DEFAULT '';

-- +goose Down
ALTER TABLE messages DROP COLUMN trace_parent;
