-- Test and live traffic kept apart, PostgreSQL (decision 0015): each
-- contact and each thread entry has the mode of the traffic it belongs to,
-- and a phone number has a contact per workspace and mode. (A campaign's
-- counts read one mode from the messages_campaign index, which carries the
-- mode since 0007.) Same changes as SQLite's 0009_modes.sql.
--
-- It cannot be undone: once it is applied a number may have a live and a
-- test contact in one workspace, which version 8's unique index on
-- (workspace_id, phone_number) cannot hold, and which of the two to keep is
-- not a choice a migration should make.

-- +goose Up
-- A contact only test sends reached (no live message, nothing the person
-- wrote) is a test contact. Any other is live: one that live traffic
-- reached, and one synced but never sent to, since who synced it is not
-- known and live is the side a test key may not read. Test messages sent
-- to a contact that is live keep pointing at it.
ALTER TABLE contacts ADD COLUMN mode text NOT NULL DEFAULT 'live';
UPDATE contacts SET mode = 'test'
WHERE EXISTS (SELECT 1 FROM messages m WHERE m.contact_id = contacts.id AND m.mode = 'test')
  AND NOT EXISTS (SELECT 1 FROM messages m WHERE m.contact_id = contacts.id AND m.mode <> 'test')
  AND NOT EXISTS (SELECT 1 FROM conversation_entries e WHERE e.contact_id = contacts.id AND e.direction = 'inbound');
ALTER TABLE contacts ALTER COLUMN mode DROP DEFAULT;

DROP INDEX contacts_workspace_phone;
CREATE UNIQUE INDEX contacts_workspace_phone ON contacts (workspace_id, mode, phone_number);

-- An outbound entry has its message's mode; what a contact wrote came from
-- Meta, and is live.
ALTER TABLE conversation_entries ADD COLUMN mode text NOT NULL DEFAULT 'live';
UPDATE conversation_entries SET mode = m.mode
FROM messages m WHERE m.id = conversation_entries.message_id AND m.mode <> 'live';
ALTER TABLE conversation_entries ALTER COLUMN mode DROP DEFAULT;
