-- Numbers' health and the messaging limit, SQLite (decision 0028).
-- Same changes as PostgreSQL's 0022_phone_health.sql; times are Unix
-- microseconds.

-- +goose Up

CREATE TABLE phone_health (
    number     TEXT    PRIMARY KEY,
    quality    TEXT    NOT NULL DEFAULT '',
    quality_at INTEGER,
    tier       TEXT    NOT NULL DEFAULT '',
    tier_at    INTEGER
);

CREATE TABLE phone_health_changes (
    id               INTEGER PRIMARY KEY AUTOINCREMENT,
    number           TEXT    NOT NULL,
    quality          TEXT    NOT NULL,
    previous_quality TEXT    NOT NULL,
    tier             TEXT    NOT NULL,
    previous_tier    TEXT    NOT NULL,
    source           TEXT    NOT NULL,
    event            TEXT    NOT NULL,
    at               INTEGER NOT NULL
);
CREATE INDEX phone_health_changes_number ON phone_health_changes (number, id);

-- SQLite's write transactions already take turns; the table keeps the
-- statements alike.
CREATE TABLE messaging_portfolios (
    portfolio TEXT PRIMARY KEY
);
CREATE TABLE messaging_reach (
    portfolio  TEXT    NOT NULL,
    recipient  TEXT    NOT NULL,
    reached_at INTEGER NOT NULL,
    PRIMARY KEY (portfolio, recipient)
);
CREATE INDEX messaging_reach_window ON messaging_reach (portfolio, reached_at);
CREATE INDEX messaging_reach_purge ON messaging_reach (reached_at);

ALTER TABLE campaigns ADD COLUMN paused_reason TEXT NOT NULL DEFAULT '';

-- +goose Down

ALTER TABLE campaigns DROP COLUMN paused_reason;
DROP TABLE messaging_reach;
DROP TABLE messaging_portfolios;
DROP TABLE phone_health_changes;
DROP TABLE phone_health;
