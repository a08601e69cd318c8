-- Webhooks, PostgreSQL: what contacts write (their WhatsApp id, profile name
-- and opt-out time; inbound thread entries with media and replies), Meta's
-- pricing and each message's status timeline, status events parked until
-- their message is known, and the durable inbox of webhook calls. Same
-- changes as SQLite's 0003_webhooks.sql; times are timestamptz, JSON is
-- jsonb, ids collate as bytes ("C").

-- +goose Up
ALTER TABLE contacts ADD COLUMN wa_id text NOT NULL DEFAULT '';
ALTER TABLE contacts ADD COLUMN profile_name text NOT NULL DEFAULT '';
ALTER TABLE contacts ADD COLUMN opt_out_changed_at timestamptz;

-- An inbound message concerns the contacts with its number in every
-- workspace.
CREATE INDEX contacts_phone ON contacts (phone_number);

-- pricing: {"model", "type", "category", "billable"}, NULL until a status
-- event reports it. The *_at columns are when the message first reached
-- each status (domain.Message.ReachedAt), written with every write of the
-- message; accepted (queued) is created_at.
ALTER TABLE messages ADD COLUMN pricing jsonb;
ALTER TABLE messages ADD COLUMN sent_at timestamptz;
ALTER TABLE messages ADD COLUMN delivered_at timestamptz;
ALTER TABLE messages ADD COLUMN read_at timestamptz;
ALTER TABLE messages ADD COLUMN failed_at timestamptz;

-- Backfill the timeline from the history, whose times are RFC 3339 UTC
-- strings with at most microseconds. Reaching a status implies those before
-- it: read counts as delivered and sent, delivered as sent.
UPDATE messages
SET sent_at = t.sent_at, delivered_at = t.delivered_at, read_at = t.read_at, failed_at = t.failed_at
FROM (
    SELECT m.id,
           min(CAST(h ->> 'at' AS timestamptz)) FILTER (WHERE h ->> 'status' IN ('sent', 'delivered', 'read')) AS sent_at,
           min(CAST(h ->> 'at' AS timestamptz)) FILTER (WHERE h ->> 'status' IN ('delivered', 'read'))         AS delivered_at,
           min(CAST(h ->> 'at' AS timestamptz)) FILTER (WHERE h ->> 'status' = 'read')                         AS read_at,
           min(CAST(h ->> 'at' AS timestamptz)) FILTER (WHERE h ->> 'status' = 'failed')                       AS failed_at
    FROM messages m
    CROSS JOIN LATERAL jsonb_array_elements(CASE jsonb_typeof(m.history) WHEN 'array' THEN m.history ELSE '[]' END) AS h
    GROUP BY m.id
) AS t
WHERE messages.id = t.id;

-- A campaign's timeline reads only its own index entries: each status's
-- times are in the index.
CREATE INDEX messages_campaign_timeline
    ON messages (workspace_id, campaign_id, created_at, sent_at, delivered_at, read_at, failed_at);

-- kind: template for outbound entries, the WhatsApp message type for inbound
-- ones. provider_id: the inbound message's wamid, recorded once per
-- workspace. media: {"id", "mimeType", "sha256", "filename"}. reply_to: the
-- message the entry answers (no foreign key: the reference is informative).
ALTER TABLE conversation_entries ADD COLUMN kind text NOT NULL DEFAULT '';
ALTER TABLE conversation_entries ADD COLUMN provider_id text;
ALTER TABLE conversation_entries ADD COLUMN payload text NOT NULL DEFAULT '';
ALTER TABLE conversation_entries ADD COLUMN media jsonb;
ALTER TABLE conversation_entries ADD COLUMN reply_to text;

UPDATE conversation_entries SET kind = 'template' WHERE direction = 'outbound';

CREATE UNIQUE INDEX conversation_entries_provider_id
    ON conversation_entries (workspace_id, provider_id) WHERE provider_id IS NOT NULL;

-- A status event for a wamid no message holds yet (Meta may report a status
-- before the send that got the wamid has committed), kept once per status.
-- message_id is '' when the event carried none.
CREATE TABLE parked_statuses (
    provider_id   text        NOT NULL,
    status        text        NOT NULL,
    message_id    text        NOT NULL,
    at            timestamptz NOT NULL,
    failure_code  integer,
    failure_title text,
    pricing       jsonb,
    parked_at     timestamptz NOT NULL,
    PRIMARY KEY (provider_id, status)
);

CREATE INDEX parked_statuses_parked_at ON parked_statuses (parked_at);

-- Every authenticated webhook call, as it arrived, stored once per body.
CREATE TABLE webhook_events (
    id          text COLLATE "C" NOT NULL PRIMARY KEY,
    body        bytea       NOT NULL,
    sha256      text        NOT NULL,
    received_at timestamptz NOT NULL,
    applied_at  timestamptz,
    attempts    integer     NOT NULL,
    last_error  text        NOT NULL
);

CREATE UNIQUE INDEX webhook_events_sha256 ON webhook_events (sha256);
-- Events waiting to be applied, oldest first.
CREATE INDEX webhook_events_unapplied ON webhook_events (id) WHERE applied_at IS NULL;

-- +goose Down
-- What webhooks wrote goes with the columns and tables that held it.
DROP TABLE webhook_events;
DROP TABLE parked_statuses;

DROP INDEX conversation_entries_provider_id;
ALTER TABLE conversation_entries DROP COLUMN reply_to;
ALTER TABLE conversation_entries DROP COLUMN media;
ALTER TABLE conversation_entries DROP COLUMN payload;
ALTER TABLE conversation_entries DROP COLUMN provider_id;
ALTER TABLE conversation_entries DROP COLUMN kind;

DROP INDEX messages_campaign_timeline;
ALTER TABLE messages DROP COLUMN failed_at;
ALTER TABLE messages DROP COLUMN read_at;
ALTER TABLE messages DROP COLUMN delivered_at;
ALTER TABLE messages DROP COLUMN sent_at;
ALTER TABLE messages DROP COLUMN pricing;

DROP INDEX contacts_phone;
ALTER TABLE contacts DROP COLUMN opt_out_changed_at;
ALTER TABLE contacts DROP COLUMN profile_name;
ALTER TABLE contacts DROP COLUMN wa_id;
