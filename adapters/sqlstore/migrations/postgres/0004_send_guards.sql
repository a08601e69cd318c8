-- Send guards, PostgreSQL: the Idempotency-Keys sends have claimed (kept 24
-- hours, then purged) and each workspace's accepted sends per UTC day and
-- mode, for the optional daily send cap. Same tables as SQLite's
-- 0004_send_guards.sql.

-- +goose Up
CREATE TABLE idempotency_keys (
    workspace_id text COLLATE "C" NOT NULL REFERENCES workspaces (id),
    key          text COLLATE "C" NOT NULL,
    fingerprint  text        NOT NULL,
    message_id   text COLLATE "C" NOT NULL,
    created_at   timestamptz NOT NULL,
    PRIMARY KEY (workspace_id, key)
);
CREATE INDEX idempotency_keys_created ON idempotency_keys (created_at);

CREATE TABLE send_counts (
    workspace_id text COLLATE "C" NOT NULL REFERENCES workspaces (id),
    mode         text        NOT NULL,
    day          timestamptz NOT NULL,
    sends        integer     NOT NULL,
    PRIMARY KEY (workspace_id, mode, day)
);

-- +goose Down
DROP TABLE send_counts;
DROP TABLE idempotency_keys;
