-- Several WhatsApp business numbers, SQLite (decision 0027). Same changes
-- as PostgreSQL's 0021_business_numbers.sql.
--
-- A business number is Meta's phone number with its business account, its
-- Meta app, its access token (sealed: "keyid:base64url", never in clear;
-- token_hint is its last four characters), its pace and the workspaces that
-- may use it (all_workspaces, or the JSON array workspaces). quality and
-- tier are Meta's, empty until read. A Meta app keeps its app secret
-- sealed the same way. Campaigns and messages name the number they send
-- from, and a contact the number they last wrote to; '' is none (rows from
-- before: the number HERALD_WHATSAPP_* defines).

-- +goose Up
CREATE TABLE business_numbers (
    id                TEXT    NOT NULL PRIMARY KEY,
    meta_id           TEXT    NOT NULL UNIQUE,
    display_number    TEXT    NOT NULL,
    verified_name     TEXT    NOT NULL,
    waba_id           TEXT    NOT NULL,
    app_id            TEXT    NOT NULL,
    access_token      TEXT    NOT NULL,
    token_hint        TEXT    NOT NULL,
    mps               INTEGER NOT NULL,
    all_workspaces    INTEGER NOT NULL CHECK (all_workspaces IN (0, 1)),
    workspaces        TEXT    NOT NULL CHECK (json_valid(workspaces)),
    status            TEXT    NOT NULL,
    quality           TEXT    NOT NULL,
    tier              TEXT    NOT NULL,
    health_checked_at INTEGER,
    created_at        INTEGER NOT NULL,
    updated_at        INTEGER NOT NULL
) STRICT;

CREATE TABLE meta_apps (
    id          TEXT    NOT NULL PRIMARY KEY,
    secret      TEXT    NOT NULL,
    secret_hint TEXT    NOT NULL,
    created_at  INTEGER NOT NULL,
    updated_at  INTEGER NOT NULL
) STRICT;

ALTER TABLE campaigns ADD COLUMN business_number_id TEXT NOT NULL DEFAULT '';
ALTER TABLE messages ADD COLUMN business_number_id TEXT NOT NULL DEFAULT '';
ALTER TABLE contacts ADD COLUMN last_number_id TEXT NOT NULL DEFAULT '';

-- +goose Down
ALTER TABLE contacts DROP COLUMN last_number_id;
ALTER TABLE messages DROP COLUMN business_number_id;
ALTER TABLE campaigns DROP COLUMN business_number_id;
DROP TABLE meta_apps;
DROP TABLE business_numbers;
