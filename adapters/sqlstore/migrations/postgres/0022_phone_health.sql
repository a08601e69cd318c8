-- Numbers' health and the messaging limit, PostgreSQL (decision 0028).
-- Same changes as SQLite's 0022_phone_health.sql.

-- +goose Up

-- What Meta last said of each business number (Meta's phone number id):
-- its quality rating and its portfolio's messaging limit tier, each with
-- the time it was learnt; empty when not said yet. Records of one number
-- lock its row, so each change names the value it replaced.
CREATE TABLE phone_health (
    number     text        PRIMARY KEY,
    quality    text        NOT NULL DEFAULT '',
    quality_at timestamptz,
    tier       text        NOT NULL DEFAULT '',
    tier_at    timestamptz
);

-- Every change of a number's quality or tier, with its time and source
-- (read from Meta's phone numbers endpoint, or a webhook and its event).
CREATE TABLE phone_health_changes (
    id               bigint      NOT NULL GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    number           text        NOT NULL,
    quality          text        NOT NULL,
    previous_quality text        NOT NULL,
    tier             text        NOT NULL,
    previous_tier    text        NOT NULL,
    source           text        NOT NULL,
    event            text        NOT NULL,
    at               timestamptz NOT NULL
);
CREATE INDEX phone_health_changes_number ON phone_health_changes (number, id);

-- The recipients each business portfolio's templates reached, with the
-- last time: the messaging limit counts those of the moving 24 hours. A
-- portfolio's reaches take turns on its row in messaging_portfolios.
CREATE TABLE messaging_portfolios (
    portfolio text PRIMARY KEY
);
CREATE TABLE messaging_reach (
    portfolio  text        NOT NULL,
    recipient  text        NOT NULL,
    reached_at timestamptz NOT NULL,
    PRIMARY KEY (portfolio, recipient)
);
CREATE INDEX messaging_reach_window ON messaging_reach (portfolio, reached_at);
CREATE INDEX messaging_reach_purge ON messaging_reach (reached_at);

-- Why Herald paused a campaign by itself (quality_red); empty for a
-- person's pause or none.
ALTER TABLE campaigns ADD COLUMN paused_reason text NOT NULL DEFAULT '';

-- +goose Down

ALTER TABLE campaigns DROP COLUMN paused_reason;
DROP TABLE messaging_reach;
DROP TABLE messaging_portfolios;
DROP TABLE phone_health_changes;
DROP TABLE phone_health;
