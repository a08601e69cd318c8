-- Marketing opt-outs and template categories, SQLite (decision 0019).
-- Same changes as PostgreSQL's 0011_marketing_opt_out.sql.

-- +goose Up

-- Whether a contact stopped the business's marketing messages on WhatsApp
-- (Meta's user_preferences webhook, or a send refused with 131050), and the
-- time of that word: an older stop or resume changes nothing.
ALTER TABLE contacts ADD COLUMN marketing_stopped INTEGER NOT NULL DEFAULT 0 CHECK (marketing_stopped IN (0, 1));
ALTER TABLE contacts ADD COLUMN marketing_changed_at INTEGER;

-- A campaign's template category: MARKETING, UTILITY, AUTHENTICATION, or
-- empty when not known (which counts as marketing). A campaign takes the
-- category of the synced template of its name and language, the one synced
-- last if several accounts have it; the next sync writes it anyway.
ALTER TABLE campaigns ADD COLUMN category TEXT NOT NULL DEFAULT '';
UPDATE campaigns SET category = (
    SELECT upper(t.category) FROM templates t
    WHERE t.name = campaigns.template_name AND t.language = campaigns.language
    ORDER BY t.synced_at DESC LIMIT 1)
WHERE EXISTS (SELECT 1 FROM templates t
              WHERE t.name = campaigns.template_name AND t.language = campaigns.language AND t.category <> '');

-- Herald's own code on a message it failed without sending it
-- (contact_opted_out); empty for Meta's failures. A campaign's failures
-- are counted by both codes from the index that serves its counts, so the
-- index carries it too.
ALTER TABLE messages ADD COLUMN failure_herald_code TEXT NOT NULL DEFAULT '';
DROP INDEX messages_campaign;
CREATE INDEX messages_campaign ON messages (workspace_id, campaign_id, id,
    mode, status, failure_code, failure_herald_code, created_at, sent_at, delivered_at, read_at, failed_at);

-- +goose Down
-- Contacts' stops of marketing messages, campaigns' categories and
-- Herald's code on the messages an opt-out failed go with their columns;
-- those messages stay failed, with no code of Herald's (their title still
-- says why). Upgraded again, a campaign gets its category back from the
-- next template sync, a contact its stop from Meta's next 131050 or
-- user_preferences stop.
DROP INDEX messages_campaign;
CREATE INDEX messages_campaign ON messages (workspace_id, campaign_id, id,
    mode, status, failure_code, created_at, sent_at, delivered_at, read_at, failed_at);
ALTER TABLE messages DROP COLUMN failure_herald_code;
ALTER TABLE campaigns DROP COLUMN category;
ALTER TABLE contacts DROP COLUMN marketing_changed_at;
ALTER TABLE contacts DROP COLUMN marketing_stopped;
