package sqlstore

import (
	"context"
	"database/sql"
	"errors"

	"github.com/heraldhq/herald/domain"
)

type mediaRow struct {
	ID          string `db:"id"`
	WorkspaceID string `db:"workspace_id"`
	Mode        string `db:"mode"`
	Origin      string `db:"origin"`
	Kind        string `db:"kind"`
	MimeType    string `db:"mime_type"`
	Size        int64  `db:"size"`
	SHA256      string `db:"sha256"`
	Filename    string `db:"filename"`
	SourceURL   string `db:"source_url"`
	ProviderID  string `db:"provider_id"`
	CreatedAt   dbTime `db:"created_at"`
}

const mediaColumns = `id, workspace_id, mode, origin, kind, mime_type, size, sha256, filename, source_url, provider_id, created_at`

func toMediaRow(f domain.MediaFile) mediaRow {
	return mediaRow{ID: string(f.ID), WorkspaceID: string(f.Workspace), Mode: f.Mode.String(), Origin: f.Origin, Kind: f.Kind,
		MimeType: f.MimeType, Size: f.Size, SHA256: f.SHA256, Filename: f.Filename, SourceURL: f.SourceURL,
		ProviderID: f.ProviderID, CreatedAt: newDBTime(f.CreatedAt)}
}

func (r mediaRow) file() (domain.MediaFile, error) {
	m, err := parseStored("key mode", r.Mode, domain.ParseKeyMode)
	if err != nil {
		return domain.MediaFile{}, err
	}
	return domain.MediaFile{ID: domain.MediaID(r.ID), Workspace: domain.WorkspaceID(r.WorkspaceID), Mode: m, Origin: r.Origin,
		Kind: r.Kind, MimeType: r.MimeType, Size: r.Size, SHA256: r.SHA256, Filename: r.Filename, SourceURL: r.SourceURL,
		ProviderID: r.ProviderID, CreatedAt: r.CreatedAt.time()}, nil
}

// CreateMedia stores f, and the bytes of an uploaded file, in one
// transaction.
func (s *Store) CreateMedia(ctx context.Context, f domain.MediaFile, content []byte) error {
	const insert = `INSERT INTO media_files (` + mediaColumns + `)
VALUES (:id, :workspace_id, :mode, :origin, :kind, :mime_type, :size, :sha256, :filename, :source_url, :provider_id, :created_at)`
	const insertInbound = insert + ` ON CONFLICT (id) DO NOTHING`
	const q = `INSERT INTO media_contents (media_id, content) VALUES (:media_id, :content)`
	err := s.inTx(ctx, func(ctx context.Context, ts *Store) error {
		if f.Origin == domain.MediaInbound {
			_, err := ts.exec(ctx, insertInbound, toMediaRow(f))
			return err
		}
		if _, err := ts.exec(ctx, insert, toMediaRow(f)); err != nil {
			return err
		}
		_, err := ts.exec(ctx, q, map[string]any{"media_id": string(f.ID), "content": content})
		return err
	})
	return s.fail("create media", err, nil)
}

// GetMedia returns the workspace's file.
func (s *Store) GetMedia(ctx context.Context, ws domain.WorkspaceID, id domain.MediaID) (domain.MediaFile, error) {
	const q = `SELECT ` + mediaColumns + ` FROM media_files WHERE id = :id AND workspace_id = :workspace_id`
	return s.oneMedia(ctx, "get media", q, map[string]any{"id": string(id), "workspace_id": string(ws)}, true)
}

// FindUploadedMedia returns the oldest file sent to Herald with the
// SHA-256.
func (s *Store) FindUploadedMedia(ctx context.Context, ws domain.WorkspaceID, mode domain.KeyMode, sha256 string) (domain.MediaFile, bool, error) {
	const q = `SELECT ` + mediaColumns + ` FROM media_files
WHERE workspace_id = :workspace_id AND mode = :mode AND origin = 'uploaded' AND sha256 = :sha256 AND source_url = ''
ORDER BY created_at, id LIMIT 1`
	return s.findMedia(ctx, "find uploaded media", q, map[string]any{"workspace_id": string(ws), "mode": mode.String(), "sha256": sha256})
}

// FindMediaBySource returns the oldest file fetched from the link.
func (s *Store) FindMediaBySource(ctx context.Context, ws domain.WorkspaceID, mode domain.KeyMode, sourceURL string) (domain.MediaFile, bool, error) {
	const q = `SELECT ` + mediaColumns + ` FROM media_files
WHERE workspace_id = :workspace_id AND mode = :mode AND source_url = :source_url AND source_url <> ''
ORDER BY created_at, id LIMIT 1`
	return s.findMedia(ctx, "find media by source", q, map[string]any{"workspace_id": string(ws), "mode": mode.String(), "source_url": sourceURL})
}

func (s *Store) findMedia(ctx context.Context, op, q string, arg map[string]any) (domain.MediaFile, bool, error) {
	f, err := s.oneMedia(ctx, op, q, arg, false)
	if errors.Is(err, sql.ErrNoRows) {
		return domain.MediaFile{}, false, nil
	}
	return f, err == nil, err
}

// oneMedia reads one file; a missing row is domain.ErrMediaNotFound when
// notFound is set, sql.ErrNoRows otherwise.
func (s *Store) oneMedia(ctx context.Context, op, q string, arg map[string]any, notFound bool) (domain.MediaFile, error) {
	var row mediaRow
	err := s.get(ctx, &row, q, arg)
	if errors.Is(err, sql.ErrNoRows) && !notFound {
		return domain.MediaFile{}, sql.ErrNoRows
	}
	if err != nil {
		return domain.MediaFile{}, s.fail(op, err, domain.ErrMediaNotFound)
	}
	f, err := row.file()
	return f, s.fail(op, err, nil)
}

// GetMediaContent returns an uploaded file's bytes.
func (s *Store) GetMediaContent(ctx context.Context, ws domain.WorkspaceID, id domain.MediaID) ([]byte, error) {
	const q = `SELECT c.content FROM media_contents c JOIN media_files f ON f.id = c.media_id
WHERE c.media_id = :id AND f.workspace_id = :workspace_id`
	var content []byte
	err := s.get(ctx, &content, q, map[string]any{"id": string(id), "workspace_id": string(ws)})
	if err != nil {
		return nil, s.fail("get media content", err, domain.ErrMediaNotFound)
	}
	return content, nil
}

type mediaUploadRow struct {
	MediaID    string `db:"media_id"`
	Number     string `db:"number"`
	ProviderID string `db:"provider_id"`
	UploadedAt dbTime `db:"uploaded_at"`
}

// GetMediaUpload returns the file's upload for the number.
func (s *Store) GetMediaUpload(ctx context.Context, id domain.MediaID, number string) (domain.MediaUpload, bool, error) {
	const q = `SELECT media_id, number, provider_id, uploaded_at FROM media_uploads WHERE media_id = :media_id AND number = :number`
	var row mediaUploadRow
	err := s.get(ctx, &row, q, map[string]any{"media_id": string(id), "number": number})
	if errors.Is(err, sql.ErrNoRows) {
		return domain.MediaUpload{}, false, nil
	}
	if err != nil {
		return domain.MediaUpload{}, false, s.fail("get media upload", err, nil)
	}
	return domain.MediaUpload{Media: domain.MediaID(row.MediaID), Number: row.Number, ProviderID: row.ProviderID,
		UploadedAt: row.UploadedAt.time()}, true, nil
}

// SaveMediaUpload records the upload, replacing the previous one.
func (s *Store) SaveMediaUpload(ctx context.Context, u domain.MediaUpload) error {
	const q = `INSERT INTO media_uploads (media_id, number, provider_id, uploaded_at)
SELECT :media_id, :number, :provider_id, :uploaded_at WHERE EXISTS (SELECT 1 FROM media_files WHERE id = :media_id)
ON CONFLICT (media_id, number) DO UPDATE SET provider_id = excluded.provider_id, uploaded_at = excluded.uploaded_at`
	changed, err := s.execOne(ctx, q, map[string]any{"media_id": string(u.Media), "number": u.Number, "provider_id": u.ProviderID,
		"uploaded_at": newDBTime(u.UploadedAt)})
	if err != nil {
		return s.fail("save media upload", err, nil)
	}
	if !changed {
		return domain.NotFound(domain.ErrMediaNotFound)
	}
	return nil
}
