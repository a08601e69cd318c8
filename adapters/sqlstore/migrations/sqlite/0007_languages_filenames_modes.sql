-- Template languages in one form, document names, counts per mode; SQLite.
-- Same changes as PostgreSQL's 0007_languages_filenames_modes.sql.

-- +goose Up
-- Meta writes one language as pt_BR, pt-BR or pt_br. Herald stores the
-- canonical form (domain.CanonicalLanguage): "-" read as "_", the first
-- subtag in lower case and the rest in upper case. Two forms are one
-- language when they are equal ignoring case once "-" is "_". A template
-- stored under two forms keeps the row synced last (the next sync rewrites
-- it anyway).
DELETE FROM templates WHERE EXISTS (
    SELECT 1 FROM templates t
    WHERE t.account = templates.account AND t.name = templates.name
      AND lower(replace(t.language, '-', '_')) = lower(replace(templates.language, '-', '_'))
      AND (t.synced_at > templates.synced_at
           OR (t.synced_at = templates.synced_at AND t.language < templates.language)));

UPDATE templates SET language = replace(language, '-', '_') WHERE instr(language, '-') > 0;
UPDATE templates SET language = lower(substr(language, 1, instr(language, '_') - 1)) || upper(substr(language, instr(language, '_')))
WHERE instr(language, '_') > 0
  AND language <> lower(substr(language, 1, instr(language, '_') - 1)) || upper(substr(language, instr(language, '_')));
UPDATE templates SET language = lower(language) WHERE instr(language, '_') = 0 AND language <> lower(language);

UPDATE campaigns SET language = replace(language, '-', '_') WHERE instr(language, '-') > 0;
UPDATE campaigns SET language = lower(substr(language, 1, instr(language, '_') - 1)) || upper(substr(language, instr(language, '_')))
WHERE instr(language, '_') > 0
  AND language <> lower(substr(language, 1, instr(language, '_') - 1)) || upper(substr(language, instr(language, '_')));
UPDATE campaigns SET language = lower(language) WHERE instr(language, '_') = 0 AND language <> lower(language);

-- Messages still to be sent carry the code to Meta: only those change (the
-- others are history, and due_at's index finds these).
UPDATE messages SET language = replace(language, '-', '_') WHERE due_at IS NOT NULL AND instr(language, '-') > 0;
UPDATE messages SET language = lower(substr(language, 1, instr(language, '_') - 1)) || upper(substr(language, instr(language, '_')))
WHERE due_at IS NOT NULL AND instr(language, '_') > 0
  AND language <> lower(substr(language, 1, instr(language, '_') - 1)) || upper(substr(language, instr(language, '_')));
UPDATE messages SET language = lower(language)
WHERE due_at IS NOT NULL AND instr(language, '_') = 0 AND language <> lower(language);

-- A document header's file name, sent to Meta with the link so the
-- recipient sees the document's name; empty for other headers.
ALTER TABLE messages ADD COLUMN media_filename TEXT NOT NULL DEFAULT '';

-- A campaign's statistics count live and test messages apart: the index
-- that serves the counts without visiting rows carries the mode too.
DROP INDEX messages_campaign;
CREATE INDEX messages_campaign ON messages (workspace_id, campaign_id, id,
    mode, status, failure_code, created_at, sent_at, delivered_at, read_at, failed_at);

-- +goose Down
-- Languages stay in their canonical form: the forms they arrived in were not
-- kept.
DROP INDEX messages_campaign;
CREATE INDEX messages_campaign ON messages (workspace_id, campaign_id, id,
    status, failure_code, created_at, sent_at, delivered_at, read_at, failed_at);

ALTER TABLE messages DROP COLUMN media_filename;
