-- Webhooks, SQLite: what contacts write (their WhatsApp id, profile name and
-- opt-out time; inbound thread entries with media and replies), Meta's
-- pricing and each message's status timeline, status events parked until
-- their message is known, and the durable inbox of webhook calls.
-- Times are INTEGER Unix microseconds (UTC), JSON is TEXT, booleans are 0/1.

-- +goose Up
ALTER TABLE contacts ADD COLUMN wa_id TEXT NOT NULL DEFAULT '';
ALTER TABLE contacts ADD COLUMN profile_name TEXT NOT NULL DEFAULT '';
ALTER TABLE contacts ADD COLUMN opt_out_changed_at INTEGER;

-- An inbound message concerns the contacts with its number in every
-- workspace.
CREATE INDEX contacts_phone ON contacts (phone_number);

-- pricing: {"model", "type", "category", "billable"}, NULL until a status
-- event reports it. The *_at columns are when the message first reached
-- each status (domain.Message.ReachedAt), written with every write of the
-- message; accepted (queued) is created_at.
ALTER TABLE messages ADD COLUMN pricing TEXT CHECK (json_valid(pricing));
ALTER TABLE messages ADD COLUMN sent_at INTEGER;
ALTER TABLE messages ADD COLUMN delivered_at INTEGER;
ALTER TABLE messages ADD COLUMN read_at INTEGER;
ALTER TABLE messages ADD COLUMN failed_at INTEGER;

-- Backfill the timeline from the history: its times are RFC 3339 UTC
-- strings ("2025-03-04T05:06:07.123456Z", the fraction trimmed of trailing
-- zeros or absent). Whole seconds come from strftime over the part without
-- the fraction (so no SQLite version's rounding of fractions matters),
-- microseconds from the fraction padded to six digits. Reaching a status implies those before
-- it: read counts as delivered and sent, delivered as sent.
UPDATE messages
SET sent_at = t.sent_at, delivered_at = t.delivered_at, read_at = t.read_at, failed_at = t.failed_at
FROM (
    SELECT id,
           min(CASE WHEN status IN ('sent', 'delivered', 'read') THEN at END) AS sent_at,
           min(CASE WHEN status IN ('delivered', 'read') THEN at END)         AS delivered_at,
           min(CASE WHEN status = 'read' THEN at END)                         AS read_at,
           min(CASE WHEN status = 'failed' THEN at END)                       AS failed_at
    FROM (
        SELECT m.id, json_extract(h.value, '$.status') AS status,
               CAST(strftime('%s', substr(json_extract(h.value, '$.at'), 1, 19)) AS INTEGER) * 1000000
               + CASE WHEN substr(json_extract(h.value, '$.at'), 20, 1) = '.'
                      THEN CAST(substr(substr(json_extract(h.value, '$.at'), 21,
                                              length(json_extract(h.value, '$.at')) - 21) || '000000', 1, 6) AS INTEGER)
                      ELSE 0 END AS at
        FROM messages m, json_each(m.history) h
    )
    GROUP BY id
) AS t
WHERE messages.id = t.id;

-- A campaign's timeline reads only its own index entries: each status's
-- times are in the index, so no row is visited.
CREATE INDEX messages_campaign_timeline
    ON messages (workspace_id, campaign_id, created_at, sent_at, delivered_at, read_at, failed_at);

-- kind: template for outbound entries, the WhatsApp message type for inbound
-- ones. provider_id: the inbound message's wamid, recorded once per
-- workspace. media: {"id", "mimeType", "sha256", "filename"}. reply_to: the
-- message the entry answers (no foreign key: the reference is informative).
ALTER TABLE conversation_entries ADD COLUMN kind TEXT NOT NULL DEFAULT '';
ALTER TABLE conversation_entries ADD COLUMN provider_id TEXT;
ALTER TABLE conversation_entries ADD COLUMN payload TEXT NOT NULL DEFAULT '';
ALTER TABLE conversation_entries ADD COLUMN media TEXT CHECK (json_valid(media));
ALTER TABLE conversation_entries ADD COLUMN reply_to TEXT;

UPDATE conversation_entries SET kind = 'template' WHERE direction = 'outbound';

CREATE UNIQUE INDEX conversation_entries_provider_id
    ON conversation_entries (workspace_id, provider_id) WHERE provider_id IS NOT NULL;

-- A status event for a wamid no message holds yet (Meta may report a status
-- before the send that got the wamid has committed), kept once per status.
-- message_id is '' when the event carried none.
CREATE TABLE parked_statuses (
    provider_id   TEXT    NOT NULL,
    status        TEXT    NOT NULL,
    message_id    TEXT    NOT NULL,
    at            INTEGER NOT NULL,
    failure_code  INTEGER,
    failure_title TEXT,
    pricing       TEXT    CHECK (json_valid(pricing)),
    parked_at     INTEGER NOT NULL,
    PRIMARY KEY (provider_id, status)
) STRICT;

CREATE INDEX parked_statuses_parked_at ON parked_statuses (parked_at);

-- Every authenticated webhook call, as it arrived, stored once per body.
CREATE TABLE webhook_events (
    id          TEXT    NOT NULL PRIMARY KEY,
    body        BLOB    NOT NULL,
    sha256      TEXT    NOT NULL,
    received_at INTEGER NOT NULL,
    applied_at  INTEGER,
    attempts    INTEGER NOT NULL,
    last_error  TEXT    NOT NULL
) STRICT;

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
