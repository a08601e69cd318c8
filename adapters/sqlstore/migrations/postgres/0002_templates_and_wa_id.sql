-- Template sync, PostgreSQL: Meta's review status on campaigns, the
-- recipient's WhatsApp id on messages, and each business account's synced
-- templates. Same changes as SQLite's 0002_templates_and_wa_id.sql; template
-- names and languages collate as bytes ("C") so that listing orders them as
-- the other stores do.

-- +goose Up
ALTER TABLE campaigns ADD COLUMN template_status text NOT NULL DEFAULT '';

-- Template status changes reach every campaign that sends the template.
CREATE INDEX campaigns_template ON campaigns (template_name, language);

ALTER TABLE messages ADD COLUMN wa_id text NOT NULL DEFAULT '';

-- A template without a definition Herald can send has empty definition
-- columns, null placeholders and the reason in unsupported.
CREATE TABLE templates (
    account       text COLLATE "C" NOT NULL,
    name          text COLLATE "C" NOT NULL,
    language      text COLLATE "C" NOT NULL,
    provider_id   text        NOT NULL,
    status        text        NOT NULL,
    category      text        NOT NULL,
    header_format text        NOT NULL,
    header_text   text        NOT NULL,
    body          text        NOT NULL,
    footer        text        NOT NULL,
    placeholders  jsonb       NOT NULL,
    unsupported   text        NOT NULL,
    synced_at     timestamptz NOT NULL,
    PRIMARY KEY (account, name, language)
);

-- +goose Down
DROP TABLE templates;
ALTER TABLE messages DROP COLUMN wa_id;
DROP INDEX campaigns_template;
ALTER TABLE campaigns DROP COLUMN template_status;
