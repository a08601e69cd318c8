-- Several WhatsApp business numbers, PostgreSQL (decision 0027). Same
-- changes as SQLite's 0021_business_numbers.sql.
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
    id                text COLLATE "C" NOT NULL PRIMARY KEY,
    meta_id           text        NOT NULL UNIQUE,
    display_number    text        NOT NULL,
    verified_name     text        NOT NULL,
    waba_id           text        NOT NULL,
    app_id            text        NOT NULL,
    access_token      text        NOT NULL,
    token_hint        text        NOT NULL,
    mps               integer     NOT NULL,
    all_workspaces    boolean     NOT NULL,
    workspaces        jsonb       NOT NULL,
    status            text        NOT NULL,
    quality           text        NOT NULL,
    tier              text        NOT NULL,
    health_checked_at timestamptz,
    created_at        timestamptz NOT NULL,
    updated_at        timestamptz NOT NULL
);

CREATE TABLE meta_apps (
    id          text COLLATE "C" NOT NULL PRIMARY KEY,
    secret      text        NOT NULL,
    secret_hint text        NOT NULL,
    created_at  timestamptz NOT NULL,
    updated_at  timestamptz NOT NULL
);

ALTER TABLE campaigns ADD COLUMN business_number_id text NOT NULL DEFAULT '';
ALTER TABLE messages ADD COLUMN business_number_id text NOT NULL DEFAULT '';
ALTER TABLE contacts ADD COLUMN last_number_id text NOT NULL DEFAULT '';

-- +goose Down
ALTER TABLE contacts DROP COLUMN last_number_id;
ALTER TABLE messages DROP COLUMN business_number_id;
ALTER TABLE campaigns DROP COLUMN business_number_id;
DROP TABLE meta_apps;
DROP TABLE business_numbers;
