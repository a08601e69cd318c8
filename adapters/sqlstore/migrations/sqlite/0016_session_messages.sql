-- Session messages and the service window, SQLite (decision 0024). Same
-- changes as PostgreSQL's 0016_session_messages.sql.
--
-- A message is a campaign's template or a session message: its kind, the
-- content of a session message (JSON, Herald's own form of it) and the
-- wamid it quotes. A session message has no campaign, so campaign_id takes
-- NULL. SQLite cannot drop a NOT NULL, so the table is made again: the rows
-- wait in a copy while messages is dropped and made anew. Thread entries
-- point at messages; with the foreign-key checks deferred to the commit,
-- the rows put back satisfy them again.
--
-- A contact's last inbound message opens their 24-hour window: its time
-- is kept apart from the last message either way, and starts as the time
-- of the latest inbound thread entry.

-- +goose Up
PRAGMA defer_foreign_keys = ON;
CREATE TABLE messages_0016 AS SELECT id, workspace_id, campaign_id, contact_id, key_id, mode, phone_number, template_name, language, header_format,
    variables, media_header_url, rendered_body, status, history, provider_id, failure_code, failure_title,
    created_at, updated_at, due_at, lease_owner, lease_until, attempts, wa_id, pricing, sent_at, delivered_at,
    read_at, failed_at, media_filename, failure_herald_code, parameters FROM messages;
DROP TABLE messages;
CREATE TABLE messages (
    id               TEXT    NOT NULL PRIMARY KEY,
    workspace_id     TEXT    NOT NULL REFERENCES workspaces (id),
    campaign_id      TEXT    REFERENCES campaigns (id),
    contact_id       TEXT    NOT NULL REFERENCES contacts (id),
    key_id           TEXT    NOT NULL,
    mode             TEXT    NOT NULL,
    phone_number     TEXT    NOT NULL,
    template_name    TEXT    NOT NULL,
    language         TEXT    NOT NULL,
    header_format    TEXT    NOT NULL,
    variables        TEXT    NOT NULL CHECK (json_valid(variables)),
    media_header_url TEXT    NOT NULL,
    rendered_body    TEXT    NOT NULL,
    status           TEXT    NOT NULL,
    history          TEXT    NOT NULL CHECK (json_valid(history)),
    provider_id      TEXT,
    failure_code     INTEGER,
    failure_title    TEXT,
    created_at       INTEGER NOT NULL,
    updated_at       INTEGER NOT NULL,
    -- The queue: due_at NULL means not due; a lease is held by lease_owner
    -- until lease_until.
    due_at           INTEGER,
    lease_owner      TEXT,
    lease_until      INTEGER,
    attempts         INTEGER NOT NULL DEFAULT 0,
    wa_id            TEXT    NOT NULL DEFAULT '',
    pricing          TEXT    CHECK (json_valid(pricing)),
    sent_at          INTEGER,
    delivered_at     INTEGER,
    read_at          INTEGER,
    failed_at        INTEGER,
    media_filename   TEXT    NOT NULL DEFAULT '',
    failure_herald_code TEXT NOT NULL DEFAULT '',
    parameters          TEXT    CHECK (parameters IS NULL OR json_valid(parameters)),
    kind                TEXT    NOT NULL DEFAULT 'template' CHECK (kind IN ('template', 'session')),
    session             TEXT    CHECK (json_valid(session)),
    reply_to            TEXT    NOT NULL DEFAULT ''
) STRICT;
INSERT INTO messages (id, workspace_id, campaign_id, contact_id, key_id, mode, phone_number, template_name, language, header_format,
    variables, media_header_url, rendered_body, status, history, provider_id, failure_code, failure_title,
    created_at, updated_at, due_at, lease_owner, lease_until, attempts, wa_id, pricing, sent_at, delivered_at,
    read_at, failed_at, media_filename, failure_herald_code, parameters)
SELECT id, workspace_id, campaign_id, contact_id, key_id, mode, phone_number, template_name, language, header_format,
    variables, media_header_url, rendered_body, status, history, provider_id, failure_code, failure_title,
    created_at, updated_at, due_at, lease_owner, lease_until, attempts, wa_id, pricing, sent_at, delivered_at,
    read_at, failed_at, media_filename, failure_herald_code, parameters FROM messages_0016;
DROP TABLE messages_0016;
CREATE INDEX messages_provider_id ON messages (provider_id) WHERE provider_id IS NOT NULL;
CREATE INDEX messages_due ON messages (due_at, id) WHERE due_at IS NOT NULL;
CREATE INDEX messages_campaign ON messages (workspace_id, campaign_id, id,
    mode, status, failure_code, failure_herald_code, created_at, sent_at, delivered_at, read_at, failed_at);
CREATE INDEX messages_mode ON messages (workspace_id, mode, id);

ALTER TABLE contacts ADD COLUMN last_inbound_at INTEGER;
UPDATE contacts SET last_inbound_at = (
    SELECT max(e.created_at) FROM conversation_entries e
    WHERE e.contact_id = contacts.id AND e.direction = 'inbound');

-- +goose Down
-- Session messages cannot be kept without a campaign: they and their
-- thread entries go.
PRAGMA defer_foreign_keys = ON;
ALTER TABLE contacts DROP COLUMN last_inbound_at;
DELETE FROM conversation_entries WHERE message_id IN (SELECT id FROM messages WHERE kind = 'session');
DELETE FROM messages WHERE kind = 'session';
CREATE TABLE messages_0016 AS SELECT id, workspace_id, campaign_id, contact_id, key_id, mode, phone_number, template_name, language, header_format,
    variables, media_header_url, rendered_body, status, history, provider_id, failure_code, failure_title,
    created_at, updated_at, due_at, lease_owner, lease_until, attempts, wa_id, pricing, sent_at, delivered_at,
    read_at, failed_at, media_filename, failure_herald_code, parameters FROM messages;
DROP TABLE messages;
CREATE TABLE messages (
    id               TEXT    NOT NULL PRIMARY KEY,
    workspace_id     TEXT    NOT NULL REFERENCES workspaces (id),
    campaign_id      TEXT    NOT NULL REFERENCES campaigns (id),
    contact_id       TEXT    NOT NULL REFERENCES contacts (id),
    key_id           TEXT    NOT NULL,
    mode             TEXT    NOT NULL,
    phone_number     TEXT    NOT NULL,
    template_name    TEXT    NOT NULL,
    language         TEXT    NOT NULL,
    header_format    TEXT    NOT NULL,
    variables        TEXT    NOT NULL CHECK (json_valid(variables)),
    media_header_url TEXT    NOT NULL,
    rendered_body    TEXT    NOT NULL,
    status           TEXT    NOT NULL,
    history          TEXT    NOT NULL CHECK (json_valid(history)),
    provider_id      TEXT,
    failure_code     INTEGER,
    failure_title    TEXT,
    created_at       INTEGER NOT NULL,
    updated_at       INTEGER NOT NULL,
    -- The queue: due_at NULL means not due; a lease is held by lease_owner
    -- until lease_until.
    due_at           INTEGER,
    lease_owner      TEXT,
    lease_until      INTEGER,
    attempts         INTEGER NOT NULL DEFAULT 0,
    wa_id            TEXT    NOT NULL DEFAULT '',
    pricing          TEXT    CHECK (json_valid(pricing)),
    sent_at          INTEGER,
    delivered_at     INTEGER,
    read_at          INTEGER,
    failed_at        INTEGER,
    media_filename   TEXT    NOT NULL DEFAULT '',
    failure_herald_code TEXT NOT NULL DEFAULT '',
    parameters          TEXT    CHECK (parameters IS NULL OR json_valid(parameters))
) STRICT;
INSERT INTO messages (id, workspace_id, campaign_id, contact_id, key_id, mode, phone_number, template_name, language, header_format,
    variables, media_header_url, rendered_body, status, history, provider_id, failure_code, failure_title,
    created_at, updated_at, due_at, lease_owner, lease_until, attempts, wa_id, pricing, sent_at, delivered_at,
    read_at, failed_at, media_filename, failure_herald_code, parameters)
SELECT id, workspace_id, campaign_id, contact_id, key_id, mode, phone_number, template_name, language, header_format,
    variables, media_header_url, rendered_body, status, history, provider_id, failure_code, failure_title,
    created_at, updated_at, due_at, lease_owner, lease_until, attempts, wa_id, pricing, sent_at, delivered_at,
    read_at, failed_at, media_filename, failure_herald_code, parameters FROM messages_0016;
DROP TABLE messages_0016;
CREATE INDEX messages_provider_id ON messages (provider_id) WHERE provider_id IS NOT NULL;
CREATE INDEX messages_due ON messages (due_at, id) WHERE due_at IS NOT NULL;
CREATE INDEX messages_campaign ON messages (workspace_id, campaign_id, id,
    mode, status, failure_code, failure_herald_code, created_at, sent_at, delivered_at, read_at, failed_at);
CREATE INDEX messages_mode ON messages (workspace_id, mode, id);
