-- Herald's first schema, SQLite.
-- Times are INTEGER Unix microseconds (UTC); JSON columns are TEXT; tables are
-- STRICT so a value of the wrong type fails instead of being stored as is.
--
-- It has no down section: undoing it would drop every table, and every
-- row with it.

-- +goose Up
CREATE TABLE workspaces (
    id         TEXT    NOT NULL PRIMARY KEY,
    name       TEXT    NOT NULL,
    is_default INTEGER NOT NULL DEFAULT 0 CHECK (is_default IN (0, 1)),
    created_at INTEGER NOT NULL
) STRICT;

-- At most one default workspace: concurrent first starts agree on one.
CREATE UNIQUE INDEX workspaces_one_default ON workspaces (is_default) WHERE is_default;

CREATE TABLE api_keys (
    id           TEXT    NOT NULL PRIMARY KEY,
    workspace_id TEXT    NOT NULL REFERENCES workspaces (id),
    name         TEXT    NOT NULL,
    mode         TEXT    NOT NULL,
    identifier   TEXT    NOT NULL,
    hash         BLOB    NOT NULL CHECK (length(hash) = 32),
    created_at   INTEGER NOT NULL,
    last_used_at INTEGER,
    revoked_at   INTEGER,
    expires_at   INTEGER
) STRICT;

CREATE UNIQUE INDEX api_keys_identifier ON api_keys (identifier);
CREATE INDEX api_keys_workspace ON api_keys (workspace_id, id);

CREATE TABLE campaigns (
    id            TEXT    NOT NULL PRIMARY KEY,
    workspace_id  TEXT    NOT NULL REFERENCES workspaces (id),
    name          TEXT    NOT NULL,
    template_name TEXT    NOT NULL,
    language      TEXT    NOT NULL,
    header_format TEXT    NOT NULL,
    header_text   TEXT    NOT NULL,
    body          TEXT    NOT NULL,
    footer        TEXT    NOT NULL,
    placeholders  TEXT    NOT NULL CHECK (json_valid(placeholders)),
    status        TEXT    NOT NULL,
    created_at    INTEGER NOT NULL,
    updated_at    INTEGER NOT NULL
) STRICT;

CREATE INDEX campaigns_workspace ON campaigns (workspace_id, id);

CREATE TABLE contacts (
    id              TEXT    NOT NULL PRIMARY KEY,
    workspace_id    TEXT    NOT NULL REFERENCES workspaces (id),
    conversation_id TEXT    NOT NULL,
    phone_number    TEXT    NOT NULL,
    name            TEXT    NOT NULL,
    email           TEXT    NOT NULL,
    attributes      TEXT    NOT NULL CHECK (json_valid(attributes)),
    tags            TEXT    NOT NULL CHECK (json_valid(tags)),
    opted_out       INTEGER NOT NULL CHECK (opted_out IN (0, 1)),
    created_at      INTEGER NOT NULL,
    updated_at      INTEGER NOT NULL,
    last_message_at INTEGER
) STRICT;

CREATE UNIQUE INDEX contacts_workspace_phone ON contacts (workspace_id, phone_number);

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
    attempts         INTEGER NOT NULL DEFAULT 0
) STRICT;

CREATE INDEX messages_provider_id ON messages (provider_id) WHERE provider_id IS NOT NULL;
CREATE INDEX messages_due ON messages (due_at, id) WHERE due_at IS NOT NULL;
CREATE INDEX messages_campaign_status ON messages (workspace_id, campaign_id, status);
CREATE INDEX messages_contact ON messages (contact_id);

CREATE TABLE conversation_entries (
    id              TEXT    NOT NULL PRIMARY KEY,
    workspace_id    TEXT    NOT NULL REFERENCES workspaces (id),
    contact_id      TEXT    NOT NULL REFERENCES contacts (id),
    conversation_id TEXT    NOT NULL,
    direction       TEXT    NOT NULL,
    message_id      TEXT    REFERENCES messages (id),
    status          TEXT,
    body            TEXT    NOT NULL,
    created_at      INTEGER NOT NULL
) STRICT;

CREATE INDEX conversation_entries_contact ON conversation_entries (workspace_id, contact_id, id);
CREATE INDEX conversation_entries_message ON conversation_entries (message_id) WHERE message_id IS NOT NULL;
