-- The stored copies of Meta's webhook calls are whk_…, SQLite (decision
-- 0020): evt_ now names the events Herald tells the customer's systems.
-- Each id keeps its sortable part, so the inbox's order and a replay's
-- cursor do not change, and an id seen before the upgrade names the same
-- call under the new prefix. Nothing else stores these ids. Same change as
-- PostgreSQL's 0012_webhook_event_ids.sql.

-- +goose Up
UPDATE webhook_events SET id = 'whk_' || substr(id, 5) WHERE substr(id, 1, 4) = 'evt_';

-- +goose Down
-- The ids go back to the prefix the earlier build writes and parses.
UPDATE webhook_events SET id = 'evt_' || substr(id, 5) WHERE substr(id, 1, 4) = 'whk_';
