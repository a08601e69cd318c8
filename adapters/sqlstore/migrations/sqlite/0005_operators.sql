-- Dashboard operators, SQLite: the people who sign in to a workspace's
-- dashboard and their sign-ins, and the indexes the dashboard's lists page
-- through. Times are INTEGER Unix microseconds (UTC).

-- +goose Up
-- An email address (stored normalised: trimmed, lower case) names one
-- operator across all workspaces, so sign-in finds it by address alone.
-- password_hash is the hasher's own encoded form.
CREATE TABLE operators (
    id            TEXT    NOT NULL PRIMARY KEY,
    workspace_id  TEXT    NOT NULL REFERENCES workspaces (id),
    email         TEXT    NOT NULL,
    password_hash TEXT    NOT NULL,
    created_at    INTEGER NOT NULL
) STRICT;

CREATE UNIQUE INDEX operators_email ON operators (email);

-- A sign-in, found by the hex SHA-256 of its token (the token itself is
-- never stored); it goes with its operator. Workspace and email are copied
-- from the operator so a request needs one lookup.
CREATE TABLE operator_sessions (
    token_hash   TEXT    NOT NULL PRIMARY KEY,
    operator_id  TEXT    NOT NULL REFERENCES operators (id) ON DELETE CASCADE,
    workspace_id TEXT    NOT NULL REFERENCES workspaces (id),
    email        TEXT    NOT NULL,
    created_at   INTEGER NOT NULL,
    expires_at   INTEGER NOT NULL
) STRICT;

-- The purge of ended sign-ins reads only those.
CREATE INDEX operator_sessions_expires ON operator_sessions (expires_at);

-- A workspace's contacts and a campaign's messages are listed newest first,
-- a page at a time, by id (ids sort by creation time). Without these
-- indexes every page read all the workspace's contacts (through
-- contacts_workspace_phone) or all the campaign's messages (through
-- messages_campaign_timeline) and sorted them in a temporary B-tree; with
-- them a page reads its own rows in order, from the cursor.
CREATE INDEX contacts_workspace ON contacts (workspace_id, id);
CREATE INDEX messages_campaign ON messages (workspace_id, campaign_id, id);

-- +goose Down
DROP INDEX messages_campaign;
DROP INDEX contacts_workspace;
DROP TABLE operator_sessions;
DROP TABLE operators;
