-- The dashboard inbox: how far each contact's thread has been read
-- (the id of the last entry shown when it was opened; entry ids sort in
-- the order entries were recorded), and an index that lists a workspace's
-- conversations by last activity. Threads read before the inbox existed
-- count as read through their newest inbound entry, so the inbox does not
-- open with every old message unread.

-- +goose Up
ALTER TABLE contacts ADD COLUMN read_through TEXT;
UPDATE contacts SET read_through = (
    SELECT MAX(e.id) FROM conversation_entries e
    WHERE e.workspace_id = contacts.workspace_id AND e.contact_id = contacts.id AND e.direction = 'inbound');
CREATE INDEX contacts_last_activity ON contacts (workspace_id, last_message_at DESC, id DESC)
    WHERE last_message_at IS NOT NULL;

-- +goose Down
DROP INDEX contacts_last_activity;
ALTER TABLE contacts DROP COLUMN read_through;
