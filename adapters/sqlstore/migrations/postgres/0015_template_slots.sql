-- Template slots, PostgreSQL (decision 0021): every value a template takes
-- on a send (header, body, buttons, offer, cards) with the campaign's
-- mapping from variables, on campaigns and synced templates; and each
-- message's slots with the values it sends. NULL everywhere for rows
-- written before: a campaign or template without slots has the ones it
-- always had (the body's {{1}}…{{n}} from variables 1…n, a media header
-- from mediaHeaderUrl), and a message without them sends its variables as
-- the body and its media header URL as the header, as it would have.

-- +goose Up
ALTER TABLE campaigns ADD COLUMN slots jsonb;
ALTER TABLE templates ADD COLUMN slots jsonb;
ALTER TABLE messages ADD COLUMN parameters jsonb;

-- +goose Down
ALTER TABLE messages DROP COLUMN parameters;
ALTER TABLE templates DROP COLUMN slots;
ALTER TABLE campaigns DROP COLUMN slots;
