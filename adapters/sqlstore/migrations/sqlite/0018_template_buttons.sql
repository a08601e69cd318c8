-- A template's own buttons in order (type, text, and a static button's URL
-- or phone number), on synced templates and on the campaigns that copy
-- them, kept for listing and previews: the slots hold only the buttons
-- that take a value. NULL for rows written before, whose buttons are
-- unknown (a template's until the next sync); they send as they did.

-- +goose Up
ALTER TABLE templates ADD COLUMN buttons TEXT CHECK (buttons IS NULL OR json_valid(buttons));
ALTER TABLE campaigns ADD COLUMN buttons TEXT CHECK (buttons IS NULL OR json_valid(buttons));

-- +goose Down
ALTER TABLE campaigns DROP COLUMN buttons;
ALTER TABLE templates DROP COLUMN buttons;
