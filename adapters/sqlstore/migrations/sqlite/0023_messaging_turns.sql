-- The messaging limit's turns, SQLite (decision 0028, "Batches and lock
-- order"). Same change as PostgreSQL's 0023_messaging_turns.sql.

-- +goose Up

-- SQLite's write transactions take turns anyway, and PostgreSQL's reaches
-- no longer lock a row: the table that kept the statements alike goes.
DROP TABLE messaging_portfolios;

-- +goose Down

CREATE TABLE messaging_portfolios (
    portfolio TEXT PRIMARY KEY
);
