-- Dashboard operators, PostgreSQL: the people who sign in to a workspace's
-- dashboard and their sign-ins, and the indexes the dashboard's lists page
-- through. Same changes as SQLite's 0005_operators.sql; times are
-- timestamptz, ids collate as bytes ("C").

-- +goose Up
-- An email address (stored normalised: trimmed, lower case) names one
-- operator across all workspaces, so sign-in finds it by address alone.
-- password_hash is the hasher's own encoded form.
CREATE TABLE operators (
    id            text COLLATE "C" NOT NULL PRIMARY KEY,
    workspace_id  text COLLATE "C" NOT NULL REFERENCES workspaces (id),
    email         text        NOT NULL,
    password_hash text        NOT NULL,
    created_at    timestamptz NOT NULL
);

CREATE UNIQUE INDEX operators_email ON operators (email);

-- A sign-in, found by the hex SHA-256 of its token (the token itself is
-- never stored); it goes with its operator. Workspace and email are copied
-- from the operator so a request needs one lookup.
CREATE TABLE operator_sessions (
    token_hash   text COLLATE "C" NOT NULL PRIMARY KEY,
    operator_id  text COLLATE "C" NOT NULL REFERENCES operators (id) ON DELETE CASCADE,
    workspace_id text COLLATE "C" NOT NULL REFERENCES workspaces (id),
    email        text        NOT NULL,
    created_at   timestamptz NOT NULL,
    expires_at   timestamptz NOT NULL
);

-- The purge of ended sign-ins reads only those.
CREATE INDEX operator_sessions_expires ON operator_sessions (expires_at);

-- A workspace's contacts and a campaign's messages are listed newest first,
-- a page at a time, by id (ids sort by creation time). Without these
-- indexes the planner walks the primary key backwards and filters: a small
-- workspace among large ones, or a small campaign among large ones, read
-- every newer row of the others first (measured: 198,000 and 299,000 rows
-- filtered out for one page); with them a page reads its own rows in order,
-- from the cursor.
CREATE INDEX contacts_workspace ON contacts (workspace_id, id);
CREATE INDEX messages_campaign ON messages (workspace_id, campaign_id, id);

-- +goose Down
DROP INDEX messages_campaign;
DROP INDEX contacts_workspace;
DROP TABLE operator_sessions;
DROP TABLE operators;
