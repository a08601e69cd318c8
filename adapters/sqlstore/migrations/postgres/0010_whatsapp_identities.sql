-- WhatsApp users as Meta reports them, PostgreSQL (decision 0018); the same
-- changes as SQLite's 0010_whatsapp_identities.sql. A contact is
-- found by its number in any form WhatsApp writes it (number_key, Go's
-- domain.NumberKey: Brazil's ninth digit, Mexico's 1 after 52, Argentina's
-- 9 after 54), by its wa_id, and by its business-scoped user id (user_id).
-- A contact known only by its BSUID has no number: phone_number is '' and
-- number_key NULL; one known only by a wa_id Herald cannot address keys on
-- the wa_id. NULL keys are not unique, so such contacts do not collide.
--
-- It cannot be undone: it merges contacts that version 9 kept apart, and
-- which of their rows, messages and thread entries belonged to which is not
-- kept.

-- +goose Up
ALTER TABLE contacts ADD COLUMN number_key text COLLATE "C";
ALTER TABLE contacts ADD COLUMN user_id text COLLATE "C";
ALTER TABLE contacts ADD COLUMN parent_user_id text NOT NULL DEFAULT '';
ALTER TABLE contacts ADD COLUMN username text NOT NULL DEFAULT '';

-- Every stored number is E.164: "+" and 8 to 15 digits.
UPDATE contacts SET number_key = CASE
    WHEN length(phone_number) = 14 AND substr(phone_number, 1, 3) = '+55'
         AND substr(phone_number, 4, 1) <> '0' AND substr(phone_number, 5, 1) <> '0'
         AND substr(phone_number, 6, 1) = '9' AND substr(phone_number, 7, 1) IN ('6', '7', '8', '9')
        THEN substr(phone_number, 2, 4) || substr(phone_number, 7)
    WHEN length(phone_number) = 14 AND substr(phone_number, 1, 4) IN ('+521', '+549')
        THEN substr(phone_number, 2, 2) || substr(phone_number, 5)
    ELSE substr(phone_number, 2)
END;

-- Contacts split before: one person under both forms of a number in one
-- workspace and mode, the long form (the key differs from its digits) and
-- the short one (its digits are the key). The one Herald sent to (it has
-- messages) stays, else the older; the other's messages and thread move to
-- it, and it takes the other's details where it has none. Attributes merge
-- key by key (the staying contact's value wins), tags join, the later
-- opt-out decision wins (a STOP and a START at the same time leave the
-- contact opted out), and wa_id and profile name come from the one that
-- wrote last.
CREATE TEMP TABLE contact_merges ON COMMIT DROP AS
SELECT p.workspace_id,
       CASE WHEN p.keep_long THEN p.short_id ELSE p.long_id END AS loser,
       CASE WHEN p.keep_long THEN p.long_id ELSE p.short_id END AS survivor
FROM (
    SELECT l.workspace_id, l.id AS long_id, s.id AS short_id,
           CASE
               WHEN EXISTS (SELECT 1 FROM messages m WHERE m.contact_id = l.id)
                    <> EXISTS (SELECT 1 FROM messages m WHERE m.contact_id = s.id)
                   THEN EXISTS (SELECT 1 FROM messages m WHERE m.contact_id = l.id)
               ELSE l.created_at < s.created_at OR (l.created_at = s.created_at AND l.id < s.id)
           END AS keep_long
    FROM contacts l
    JOIN contacts s ON s.workspace_id = l.workspace_id AND s.mode = l.mode AND s.phone_number = '+' || l.number_key
    WHERE l.number_key <> substr(l.phone_number, 2)
) AS p;

UPDATE contacts SET
    name = CASE WHEN contacts.name <> '' THEN contacts.name ELSE l.name END,
    email = CASE WHEN contacts.email <> '' THEN contacts.email ELSE l.email END,
    attributes = l.attributes || contacts.attributes,
    tags = (SELECT COALESCE(jsonb_agg(t.tag ORDER BY t.tag COLLATE "C"), '[]') FROM (
        SELECT jsonb_array_elements_text(contacts.tags) UNION SELECT jsonb_array_elements_text(l.tags)
    ) AS t (tag)),
    opted_out = CASE
        WHEN l.opt_out_changed_at IS NOT NULL AND (contacts.opt_out_changed_at IS NULL
             OR l.opt_out_changed_at > contacts.opt_out_changed_at
             OR (l.opt_out_changed_at = contacts.opt_out_changed_at AND l.opted_out)) THEN l.opted_out
        WHEN l.opt_out_changed_at IS NULL AND contacts.opt_out_changed_at IS NULL
            THEN contacts.opted_out OR l.opted_out
        ELSE contacts.opted_out
    END,
    opt_out_changed_at = CASE
        WHEN l.opt_out_changed_at IS NOT NULL AND (contacts.opt_out_changed_at IS NULL
             OR l.opt_out_changed_at > contacts.opt_out_changed_at) THEN l.opt_out_changed_at
        ELSE contacts.opt_out_changed_at
    END,
    wa_id = CASE
        WHEN l.wa_id <> '' AND (contacts.wa_id = '' OR (l.last_message_at IS NOT NULL
             AND (contacts.last_message_at IS NULL OR l.last_message_at > contacts.last_message_at))) THEN l.wa_id
        ELSE contacts.wa_id
    END,
    profile_name = CASE
        WHEN l.profile_name <> '' AND (contacts.profile_name = '' OR (l.last_message_at IS NOT NULL
             AND (contacts.last_message_at IS NULL OR l.last_message_at > contacts.last_message_at))) THEN l.profile_name
        ELSE contacts.profile_name
    END,
    created_at = LEAST(contacts.created_at, l.created_at),
    updated_at = GREATEST(contacts.updated_at, l.updated_at),
    last_message_at = CASE
        WHEN l.last_message_at IS NOT NULL AND (contacts.last_message_at IS NULL
             OR l.last_message_at > contacts.last_message_at) THEN l.last_message_at
        ELSE contacts.last_message_at
    END
FROM contact_merges AS m
JOIN contacts AS l ON l.id = m.loser
WHERE contacts.id = m.survivor;

UPDATE messages SET contact_id = (SELECT m.survivor FROM contact_merges m WHERE m.loser = messages.contact_id)
WHERE contact_id IN (SELECT loser FROM contact_merges);

UPDATE conversation_entries SET contact_id = m.survivor, conversation_id = s.conversation_id
FROM contact_merges AS m
JOIN contacts AS s ON s.id = m.survivor
WHERE conversation_entries.workspace_id = m.workspace_id AND conversation_entries.contact_id = m.loser;

DELETE FROM contacts WHERE id IN (SELECT loser FROM contact_merges);

-- A number, in any form, has one contact per workspace and mode, and so
-- has a BSUID; each leads its index, so that an inbound message finds its
-- contacts in every workspace from the one index.
DROP INDEX contacts_workspace_phone;
DROP INDEX contacts_phone;
CREATE UNIQUE INDEX contacts_number ON contacts (number_key, workspace_id, mode);
CREATE UNIQUE INDEX contacts_user ON contacts (user_id, workspace_id, mode);
CREATE INDEX contacts_wa_id ON contacts (wa_id) WHERE wa_id <> '';
