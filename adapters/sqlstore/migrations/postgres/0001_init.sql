-- Herald's first schema, PostgreSQL. Same tables and indexes as SQLite's
-- 0001_init.sql; times are timestamptz (microsecond precision), JSON is jsonb,
-- and ids collate as bytes ("C") so that ordering by id is ordering by time.
--
-- It has no down section: undoing it would drop every table, and every
-- row with it.

-- +goose Up
CREATE TABLE workspaces (
    id         text COLLATE "C" NOT NULL PRIMARY KEY,
    name       text        NOT NULL,
    is_default boolean     NOT NULL DEFAULT false,
    created_at timestamptz NOT NULL
);

-- At most one default workspace: concurrent first starts agree on one.
CREATE UNIQUE INDEX workspaces_one_default ON workspaces (is_default) WHERE is_default;

CREATE TABLE api_keys (
    id           text COLLATE "C" NOT NULL PRIMARY KEY,
    workspace_id text        NOT NULL REFERENCES workspaces (id),
    name         text        NOT NULL,
    mode         text        NOT NULL,
    identifier   text        NOT NULL,
    hash         bytea       NOT NULL CHECK (length(hash) = 32),
    created_at   timestamptz NOT NULL,
    last_used_at timestamptz,
    revoked_at   timestamptz,
    expires_at   timestamptz
);

CREATE UNIQUE INDEX api_keys_identifier ON api_keys (identifier);
CREATE INDEX api_keys_workspace ON api_keys (workspace_id, id);

CREATE TABLE campaigns (
    id            text COLLATE "C" NOT NULL PRIMARY KEY,
    workspace_id  text        NOT NULL REFERENCES workspaces (id),
    name          text        NOT NULL,
    template_name text        NOT NULL,
    language      text        NOT NULL,
    header_format text        NOT NULL,
    header_text   text        NOT NULL,
    body          text        NOT NULL,
    footer        text        NOT NULL,
    placeholders  jsonb       NOT NULL,
    status        text        NOT NULL,
    created_at    timestamptz NOT NULL,
    updated_at    timestamptz NOT NULL
);

CREATE INDEX campaigns_workspace ON campaigns (workspace_id, id);

CREATE TABLE contacts (
    id              text COLLATE "C" NOT NULL PRIMARY KEY,
    workspace_id    text        NOT NULL REFERENCES workspaces (id),
    conversation_id text        NOT NULL,
    phone_number    text        NOT NULL,
    name            text        NOT NULL,
    email           text        NOT NULL,
    attributes      jsonb       NOT NULL,
    tags            jsonb       NOT NULL,
    opted_out       boolean     NOT NULL,
    created_at      timestamptz NOT NULL,
    updated_at      timestamptz NOT NULL,
    last_message_at timestamptz
);

CREATE UNIQUE INDEX contacts_workspace_phone ON contacts (workspace_id, phone_number);

CREATE TABLE messages (
    id               text COLLATE "C" NOT NULL PRIMARY KEY,
    workspace_id     text        NOT NULL REFERENCES workspaces (id),
    campaign_id      text        NOT NULL REFERENCES campaigns (id),
    contact_id       text        NOT NULL REFERENCES contacts (id),
    key_id           text        NOT NULL,
    mode             text        NOT NULL,
    phone_number     text        NOT NULL,
    template_name    text        NOT NULL,
    language         text        NOT NULL,
    header_format    text        NOT NULL,
    variables        jsonb       NOT NULL,
    media_header_url text        NOT NULL,
    rendered_body    text        NOT NULL,
    status           text        NOT NULL,
    history          jsonb       NOT NULL,
    provider_id      text,
    failure_code     integer,
    failure_title    text,
    created_at       timestamptz NOT NULL,
    updated_at       timestamptz NOT NULL,
    -- The queue: due_at NULL means not due; a lease is held by lease_owner
    -- until lease_until.
    due_at           timestamptz,
    lease_owner      text,
    lease_until      timestamptz,
    attempts         integer     NOT NULL DEFAULT 0
);

CREATE INDEX messages_provider_id ON messages (provider_id) WHERE provider_id IS NOT NULL;
CREATE INDEX messages_due ON messages (due_at, id) WHERE due_at IS NOT NULL;
CREATE INDEX messages_campaign_status ON messages (workspace_id, campaign_id, status);
CREATE INDEX messages_contact ON messages (contact_id);

CREATE TABLE conversation_entries (
    id              text COLLATE "C" NOT NULL PRIMARY KEY,
    workspace_id    text        NOT NULL REFERENCES workspaces (id),
    contact_id      text        NOT NULL REFERENCES contacts (id),
    conversation_id text        NOT NULL,
    direction       text        NOT NULL,
    message_id      text        REFERENCES messages (id),
    status          text,
    body            text        NOT NULL,
    created_at      timestamptz NOT NULL
);

CREATE INDEX conversation_entries_contact ON conversation_entries (workspace_id, contact_id, id);
CREATE INDEX conversation_entries_message ON conversation_entries (message_id) WHERE message_id IS NOT NULL;
