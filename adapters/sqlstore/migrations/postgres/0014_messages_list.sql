-- The workspace's message list (GET /v1/messages), PostgreSQL: newest
-- first, usually for one mode (a key sees its own mode's messages). The
-- campaign's index serves the list filtered by campaign; this one serves
-- the rest, walking a mode's messages in id order (ids sort by creation
-- time) and stopping after a page. Status and phone number are filters on
-- that walk: one more index per send is the price of this one, and the
-- send path pays for every index.

-- +goose Up
CREATE INDEX messages_mode ON messages (workspace_id, mode, id);

-- +goose Down
DROP INDEX messages_mode;
