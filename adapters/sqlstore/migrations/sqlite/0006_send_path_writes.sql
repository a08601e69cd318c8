-- What an accepted send writes, SQLite: every index of messages and of
-- conversation_entries gets an entry once per send. This migration keeps
-- the reads they served and writes less per send.

-- +goose Up
-- A campaign's three reads (its messages newest first, its counts by
-- status and failure code, its timeline) share one index: the campaign's
-- messages in id order (ids sort by creation time), followed by the columns
-- the counts and the timeline read, so none of them visits a row. It
-- replaces three indexes, and messages_contact, which no query used.
DROP INDEX messages_campaign_status;
DROP INDEX messages_campaign_timeline;
DROP INDEX messages_campaign;
DROP INDEX messages_contact;
CREATE INDEX messages_campaign ON messages (workspace_id, campaign_id, id,
    status, failure_code, created_at, sent_at, delivered_at, read_at, failed_at);

-- +goose Down
DROP INDEX messages_campaign;
CREATE INDEX messages_campaign_status ON messages (workspace_id, campaign_id, status);
CREATE INDEX messages_contact ON messages (contact_id);
CREATE INDEX messages_campaign_timeline
    ON messages (workspace_id, campaign_id, created_at, sent_at, delivered_at, read_at, failed_at);
CREATE INDEX messages_campaign ON messages (workspace_id, campaign_id, id);
