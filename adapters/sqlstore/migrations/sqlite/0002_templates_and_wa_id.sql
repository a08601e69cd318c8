-- Template sync, SQLite: Meta's review status on campaigns, the recipient's
-- WhatsApp id on messages, and each business account's synced templates.

-- +goose Up
ALTER TABLE campaigns ADD COLUMN template_status TEXT NOT NULL DEFAULT '';

-- Template status changes reach every campaign that sends the template.
CREATE INDEX campaigns_template ON campaigns (template_name, language);

ALTER TABLE messages ADD COLUMN wa_id TEXT NOT NULL DEFAULT '';

-- A template without a definition Herald can send has empty definition
-- columns, null placeholders and the reason in unsupported.
CREATE TABLE templates (
    account       TEXT    NOT NULL,
    name          TEXT    NOT NULL,
    language      TEXT    NOT NULL,
    provider_id   TEXT    NOT NULL,
    status        TEXT    NOT NULL,
    category      TEXT    NOT NULL,
    header_format TEXT    NOT NULL,
    header_text   TEXT    NOT NULL,
    body          TEXT    NOT NULL,
    footer        TEXT    NOT NULL,
    placeholders  TEXT    NOT NULL CHECK (json_valid(placeholders)),
    unsupported   TEXT    NOT NULL,
    synced_at     INTEGER NOT NULL,
    PRIMARY KEY (account, name, language)
) STRICT;

-- +goose Down
DROP TABLE templates;
ALTER TABLE messages DROP COLUMN wa_id;
DROP INDEX campaigns_template;
ALTER TABLE campaigns DROP COLUMN template_status;
