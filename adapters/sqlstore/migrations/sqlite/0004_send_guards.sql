-- Send guards, SQLite: the Idempotency-Keys sends have claimed (kept 24
-- hours, then purged) and each workspace's accepted sends per UTC day and
-- mode, for the optional daily send cap. Times are INTEGER Unix
-- microseconds (UTC).

-- +goose Up
CREATE TABLE idempotency_keys (
    workspace_id TEXT    NOT NULL REFERENCES workspaces (id),
    key          TEXT    NOT NULL,
    fingerprint  TEXT    NOT NULL,
    message_id   TEXT    NOT NULL,
    created_at   INTEGER NOT NULL,
    PRIMARY KEY (workspace_id, key)
);
CREATE INDEX idempotency_keys_created ON idempotency_keys (created_at);

CREATE TABLE send_counts (
    workspace_id TEXT    NOT NULL REFERENCES workspaces (id),
    mode         TEXT    NOT NULL,
    day          INTEGER NOT NULL,
    sends        INTEGER NOT NULL,
    PRIMARY KEY (workspace_id, mode, day)
);

-- +goose Down
DROP TABLE send_counts;
DROP TABLE idempotency_keys;
