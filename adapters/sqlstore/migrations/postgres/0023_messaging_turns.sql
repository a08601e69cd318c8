-- The messaging limit's turns, PostgreSQL (decision 0028, "Batches and
-- lock order"). Same change as SQLite's 0023_messaging_turns.sql.

-- +goose Up

-- A portfolio's reaches take turns on a transaction-level advisory lock,
-- which writes no row: the table whose rows they locked goes.
DROP TABLE messaging_portfolios;

-- +goose Down

CREATE TABLE messaging_portfolios (
    portfolio text PRIMARY KEY
);
