-- Idempotency-Keys, PostgreSQL: scoped by workspace and mode (decision
-- 0009), so a live key's send never replays a test key's message, nor the
-- other way round. Same change as SQLite's 0008_idempotency_mode.sql.

-- +goose Up
-- A record claimed before takes the mode of the message it stands for: the
-- key keeps replaying for sends of that mode, and is new for the other. A
-- record whose message is not stored cannot be replayed, and goes.
DELETE FROM idempotency_keys WHERE NOT EXISTS (SELECT 1 FROM messages m WHERE m.id = idempotency_keys.message_id);
ALTER TABLE idempotency_keys ADD COLUMN mode text;
UPDATE idempotency_keys SET mode = m.mode FROM messages m WHERE m.id = idempotency_keys.message_id;
ALTER TABLE idempotency_keys ALTER COLUMN mode SET NOT NULL;
ALTER TABLE idempotency_keys DROP CONSTRAINT idempotency_keys_pkey;
ALTER TABLE idempotency_keys ADD PRIMARY KEY (workspace_id, mode, key);

-- +goose Down
-- A key claimed in both modes keeps its first claim (the earlier; live
-- before test at the same instant), so sends of the other mode with that
-- key are no longer replayed. Records the up step dropped (their message
-- was not stored) stay gone.
DELETE FROM idempotency_keys WHERE EXISTS (
    SELECT 1 FROM idempotency_keys k
    WHERE k.workspace_id = idempotency_keys.workspace_id AND k.key = idempotency_keys.key
      AND (k.created_at < idempotency_keys.created_at
           OR (k.created_at = idempotency_keys.created_at AND k.mode < idempotency_keys.mode)));
ALTER TABLE idempotency_keys DROP CONSTRAINT idempotency_keys_pkey;
ALTER TABLE idempotency_keys DROP COLUMN mode;
ALTER TABLE idempotency_keys ADD PRIMARY KEY (workspace_id, key);
