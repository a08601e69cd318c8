-- Idempotency-Keys, SQLite: scoped by workspace and mode (decision 0009),
-- so a live key's send never replays a test key's message, nor the other
-- way round. SQLite cannot change a primary key, so the table is made again.

-- +goose Up
-- A record claimed before takes the mode of the message it stands for: the
-- key keeps replaying for sends of that mode, and is new for the other. A
-- record whose message is not stored cannot be replayed, and is left out.
CREATE TABLE idempotency_keys_by_mode (
    workspace_id TEXT    NOT NULL REFERENCES workspaces (id),
    mode         TEXT    NOT NULL,
    key          TEXT    NOT NULL,
    fingerprint  TEXT    NOT NULL,
    message_id   TEXT    NOT NULL,
    created_at   INTEGER NOT NULL,
    PRIMARY KEY (workspace_id, mode, key)
);
INSERT INTO idempotency_keys_by_mode (workspace_id, mode, key, fingerprint, message_id, created_at)
SELECT k.workspace_id, m.mode, k.key, k.fingerprint, k.message_id, k.created_at
FROM idempotency_keys k JOIN messages m ON m.id = k.message_id;
DROP TABLE idempotency_keys;
ALTER TABLE idempotency_keys_by_mode RENAME TO idempotency_keys;
CREATE INDEX idempotency_keys_created ON idempotency_keys (created_at);

-- +goose Down
-- A key claimed in both modes keeps its first claim (the earlier; live
-- before test at the same instant), so sends of the other mode with that
-- key are no longer replayed. Records the up step left out (their message
-- was not stored) stay gone.
CREATE TABLE idempotency_keys_by_key (
    workspace_id TEXT    NOT NULL REFERENCES workspaces (id),
    key          TEXT    NOT NULL,
    fingerprint  TEXT    NOT NULL,
    message_id   TEXT    NOT NULL,
    created_at   INTEGER NOT NULL,
    PRIMARY KEY (workspace_id, key)
);
INSERT OR IGNORE INTO idempotency_keys_by_key (workspace_id, key, fingerprint, message_id, created_at)
SELECT workspace_id, key, fingerprint, message_id, created_at FROM idempotency_keys ORDER BY created_at, mode;
DROP TABLE idempotency_keys;
ALTER TABLE idempotency_keys_by_key RENAME TO idempotency_keys;
CREATE INDEX idempotency_keys_created ON idempotency_keys (created_at);
