-- Session messages and the service window, PostgreSQL (decision 0024).
-- Same changes as SQLite's 0016_session_messages.sql.
--
-- A message is a campaign's template or a session message: its kind, the
-- content of a session message (JSON, Herald's own form of it) and the
-- wamid it quotes. A session message has no campaign: campaign_id takes
-- NULL.
--
-- A contact's last inbound message opens their 24-hour window: its time
-- is kept apart from the last message either way, and starts as the time
-- of the latest inbound thread entry.

-- +goose Up
ALTER TABLE messages ALTER COLUMN campaign_id DROP NOT NULL;
ALTER TABLE messages ADD COLUMN kind text NOT NULL DEFAULT 'template' CHECK (kind IN ('template', 'session'));
ALTER TABLE messages ADD COLUMN session jsonb;
ALTER TABLE messages ADD COLUMN reply_to text NOT NULL DEFAULT '';

ALTER TABLE contacts ADD COLUMN last_inbound_at timestamptz;
UPDATE contacts SET last_inbound_at = e.at
FROM (SELECT contact_id, max(created_at) AS at FROM conversation_entries
      WHERE direction = 'inbound' GROUP BY contact_id) e
WHERE e.contact_id = contacts.id;

-- +goose Down
-- Session messages cannot be kept without a campaign: they and their
-- thread entries go.
ALTER TABLE contacts DROP COLUMN last_inbound_at;
DELETE FROM conversation_entries WHERE message_id IN (SELECT id FROM messages WHERE kind = 'session');
DELETE FROM messages WHERE kind = 'session';
ALTER TABLE messages DROP COLUMN reply_to;
ALTER TABLE messages DROP COLUMN session;
ALTER TABLE messages DROP COLUMN kind;
ALTER TABLE messages ALTER COLUMN campaign_id SET NOT NULL;
