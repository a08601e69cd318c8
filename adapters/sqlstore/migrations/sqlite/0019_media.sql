-- Media files, SQLite (decision 0025): files uploaded to send by id, with
-- their bytes, and files contacts sent, whose bytes stay at Meta; and each
-- file's latest upload to Meta per business number. Same tables as
-- PostgreSQL's 0019_media.sql; times are INTEGER Unix microseconds.

-- +goose Up
CREATE TABLE media_files (
    id           TEXT    NOT NULL PRIMARY KEY,
    workspace_id TEXT    NOT NULL REFERENCES workspaces (id),
    mode         TEXT    NOT NULL,
    origin       TEXT    NOT NULL,
    kind         TEXT    NOT NULL,
    mime_type    TEXT    NOT NULL,
    size         INTEGER NOT NULL,
    sha256       TEXT    NOT NULL,
    filename     TEXT    NOT NULL,
    source_url   TEXT    NOT NULL,
    provider_id  TEXT    NOT NULL,
    created_at   INTEGER NOT NULL
) STRICT;

-- Reusing an upload of the same bytes, and a header link fetched before.
CREATE INDEX media_files_sha256 ON media_files (workspace_id, mode, sha256) WHERE origin = 'uploaded';
CREATE INDEX media_files_source ON media_files (workspace_id, mode, source_url) WHERE source_url <> '';

-- The bytes of uploaded files, apart so that listing metadata never reads
-- them.
CREATE TABLE media_contents (
    media_id TEXT NOT NULL PRIMARY KEY REFERENCES media_files (id) ON DELETE CASCADE,
    content  BLOB NOT NULL
) STRICT;

CREATE TABLE media_uploads (
    media_id    TEXT    NOT NULL REFERENCES media_files (id) ON DELETE CASCADE,
    number      TEXT    NOT NULL,
    provider_id TEXT    NOT NULL,
    uploaded_at INTEGER NOT NULL,
    PRIMARY KEY (media_id, number)
) STRICT;

-- The files of inbound messages received before, named after their entries
-- as new ones are (domain.InboundMediaID); the SHA-256 is kept as Meta gave
-- it (base64), which the API shows in hex.
INSERT INTO media_files (id, workspace_id, mode, origin, kind, mime_type, size, sha256, filename, source_url, provider_id, created_at)
SELECT 'med' || substr(id, 4), workspace_id, mode, 'inbound',
       CASE WHEN kind IN ('image', 'video', 'audio', 'document', 'sticker') THEN kind ELSE 'document' END,
       coalesce(json_extract(media, '$.mimeType'), ''), 0, coalesce(json_extract(media, '$.sha256'), ''),
       coalesce(json_extract(media, '$.filename'), ''), '', json_extract(media, '$.id'), created_at
FROM conversation_entries
WHERE direction = 'inbound' AND media IS NOT NULL AND coalesce(json_extract(media, '$.id'), '') <> '';

-- +goose Down
DROP TABLE media_uploads;
DROP TABLE media_contents;
DROP TABLE media_files;
