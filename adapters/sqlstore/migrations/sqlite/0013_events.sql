-- Events to the customer's systems, SQLite (decision 0020): the events
-- themselves, the webhook endpoints with their subscriptions and secrets,
-- one delivery per event and endpoint, and every attempt at one. Same
-- tables and indexes as PostgreSQL's 0013_events.sql; times are INTEGER
-- Unix microseconds.

-- +goose Up

-- body is the exact bytes receivers get and the signature covers. appended
-- is the order in which events were written (the rowid, which SQLite's one
-- writer hands out in order; declared, so that VACUUM keeps it): two events
-- of one message are written by transactions that both lock it, so the
-- later one is appended later. seq is the pull API's order, NULL until the
-- sequencer gives it one after commit.
CREATE TABLE events (
    appended     INTEGER NOT NULL PRIMARY KEY,
    id           TEXT    NOT NULL UNIQUE,
    workspace_id TEXT    NOT NULL REFERENCES workspaces (id),
    mode         TEXT    NOT NULL,
    type         TEXT    NOT NULL,
    subject      TEXT    NOT NULL,
    occurred_at  INTEGER NOT NULL,
    body         BLOB    NOT NULL,
    seq          INTEGER
) STRICT;

-- The pull API: a workspace's events of one mode after a cursor.
CREATE INDEX events_pull ON events (workspace_id, mode, seq) WHERE seq IS NOT NULL;
-- The sequencer's work, oldest appended first; rows leave it once sequenced.
CREATE INDEX events_unsequenced ON events (appended) WHERE seq IS NULL;
-- Retention purges, and recovering an endpoint's events since a time.
CREATE INDEX events_occurred ON events (occurred_at);

-- The last seq given: seq never goes back, even when every event has been
-- purged, so a reader's cursor never skips what comes next.
CREATE TABLE event_sequence (
    last_seq INTEGER NOT NULL
) STRICT;
INSERT INTO event_sequence (last_seq) VALUES (0);

-- status: enabled or disabled; disabled_reason: manual, gone or failing.
CREATE TABLE webhook_endpoints (
    id              TEXT    NOT NULL PRIMARY KEY,
    workspace_id    TEXT    NOT NULL REFERENCES workspaces (id),
    mode            TEXT    NOT NULL,
    url             TEXT    NOT NULL,
    description     TEXT    NOT NULL,
    status          TEXT    NOT NULL,
    disabled_reason TEXT    NOT NULL,
    disabled_at     INTEGER,
    failing_since   INTEGER,
    created_at      INTEGER NOT NULL,
    updated_at      INTEGER NOT NULL
) STRICT;

-- A workspace's endpoints of one mode: listing them, and the fan-out.
CREATE INDEX webhook_endpoints_workspace ON webhook_endpoints (workspace_id, mode, id);

-- An endpoint's subscription, one row per event type, or one row '*' for
-- every type, so that the fan-out matches with type IN (:type, '*').
CREATE TABLE webhook_endpoint_events (
    endpoint_id TEXT NOT NULL REFERENCES webhook_endpoints (id),
    type        TEXT NOT NULL,
    PRIMARY KEY (endpoint_id, type)
) STRICT;

-- An endpoint's signing secrets, newest first (position 0). The keys are
-- kept as they are: every delivery is signed with them.
CREATE TABLE webhook_endpoint_secrets (
    endpoint_id TEXT    NOT NULL REFERENCES webhook_endpoints (id),
    position    INTEGER NOT NULL,
    secret      BLOB    NOT NULL,
    created_at  INTEGER NOT NULL,
    expires_at  INTEGER,
    PRIMARY KEY (endpoint_id, position)
) STRICT;

-- One event's delivery to one endpoint. state: pending, succeeded or
-- given_up. subject and event_order are the event's subject and appended,
-- copied for the ordering rule: on each endpoint, a delivery waits while an
-- earlier pending delivery (smaller event_order) has its non-empty subject.
-- attempts counts the attempts of the current series (redelivering starts
-- a new one); a worker's lease is lease_owner until lease_until.
-- next_attempt_at is when a pending delivery is due, NULL while its
-- endpoint is disabled.
CREATE TABLE event_deliveries (
    event_id        TEXT    NOT NULL REFERENCES events (id),
    endpoint_id     TEXT    NOT NULL REFERENCES webhook_endpoints (id),
    subject         TEXT    NOT NULL,
    event_order     INTEGER NOT NULL,
    state           TEXT    NOT NULL,
    attempts        INTEGER NOT NULL,
    next_attempt_at INTEGER,
    lease_owner     TEXT,
    lease_until     INTEGER,
    updated_at      INTEGER NOT NULL,
    PRIMARY KEY (event_id, endpoint_id)
) STRICT;

-- Due pending deliveries, oldest due first: the claim walks this.
CREATE INDEX event_deliveries_due ON event_deliveries (next_attempt_at, event_order) WHERE state = 'pending';
-- An endpoint's deliveries of one subject in order: the ordering check,
-- and everything done to one endpoint's deliveries.
CREATE INDEX event_deliveries_endpoint ON event_deliveries (endpoint_id, subject, event_order);

-- Every attempt at a delivery, as the endpoint answered it (status 0: no
-- answer; error says why). response_head is the first KiB of the answer.
-- appended orders attempts made at the same time.
CREATE TABLE event_attempts (
    appended      INTEGER NOT NULL PRIMARY KEY,
    event_id      TEXT    NOT NULL,
    endpoint_id   TEXT    NOT NULL,
    attempted_at  INTEGER NOT NULL,
    status        INTEGER NOT NULL,
    duration_us   INTEGER NOT NULL,
    error         TEXT    NOT NULL,
    response_head BLOB    NOT NULL,
    FOREIGN KEY (event_id, endpoint_id) REFERENCES event_deliveries (event_id, endpoint_id)
) STRICT;

-- A delivery's attempts, and an endpoint's most recent attempts.
CREATE INDEX event_attempts_delivery ON event_attempts (event_id, endpoint_id, attempted_at);
CREATE INDEX event_attempts_endpoint ON event_attempts (endpoint_id, attempted_at);

-- +goose Down
-- The events, endpoints and everything delivered go with their tables.
DROP TABLE event_attempts;
DROP TABLE event_deliveries;
DROP TABLE webhook_endpoint_secrets;
DROP TABLE webhook_endpoint_events;
DROP TABLE webhook_endpoints;
DROP TABLE event_sequence;
DROP TABLE events;
