package storage

import (
	"context"
	"time"
)

// The few places where content storage touches the spaces family's tables
// (spaces.revision, revisions) are kept in this file.

// SpaceHead is what the content engine needs to know about a space.
type SpaceHead struct {
	ID             string
	OrganizationID string
	Title          string
	Revision       string // the active revision
	Locked         bool   // editMode locked: no content change
}

func spaceHead(ctx context.Context, q queryer, spaceID string) (SpaceHead, error) {
	var h SpaceHead
	var mode string
	err := q.QueryRowContext(ctx, `SELECT id, organization_id, title, revision, edit_mode FROM spaces WHERE id = ? AND deleted_at IS NULL`, spaceID).
		Scan(&h.ID, &h.OrganizationID, &h.Title, &h.Revision, &mode)
	h.Locked = mode == "locked"
	return h, notFound(err)
}

// SpaceHead reads a live (not deleted) space's organization and active revision.
func (db *DB) SpaceHead(ctx context.Context, spaceID string) (SpaceHead, error) {
	return spaceHead(ctx, db.r(), spaceID)
}

func insertRevisionRow(tx *Tx, id, spaceID string, parents []string, typ string) error {
	if typ == "" {
		typ = "edits"
	}
	_, err := tx.exec(`INSERT INTO revisions (id, space_id, parents, type, created_at) VALUES (?, ?, ?, ?, ?)`, id, spaceID, jsonText(parents), typ, ms(tx.Now))
	return err
}

func setActiveRevision(tx *Tx, spaceID, revID string) error {
	_, err := tx.exec(`UPDATE spaces SET revision = ?, updated_at = ? WHERE id = ?`, revID, ms(tx.Now), spaceID)
	return err
}

// CreateSpaceStub creates a bare space with an empty first revision. STUB for
// tests until the spaces family lands.
func (db *DB) CreateSpaceStub(ctx context.Context, orgID, title string) (string, error) {
	id, rev := NewID(), NewID()
	err := db.Write(ctx, func(tx *Tx) error {
		now := ms(tx.Now)
		if _, err := tx.exec(`INSERT INTO spaces (id, organization_id, title, revision, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)`, id, orgID, title, rev, now, now); err != nil {
			return err
		}
		return insertRevisionRow(tx, rev, id, []string{}, "edits")
	})
	return id, err
}

// SetSpaceLockedStub sets editMode. STUB for tests until spaces land.
func (db *DB) SetSpaceLockedStub(ctx context.Context, spaceID string, locked bool) error {
	mode := "live"
	if locked {
		mode = "locked"
	}
	return db.Write(ctx, func(tx *Tx) error {
		_, err := tx.exec(`UPDATE spaces SET edit_mode = ? WHERE id = ?`, mode, spaceID)
		return err
	})
}

// ReadableSpaces lists the live spaces of orgID (id -> title) for the
// organization-wide search.
func (db *DB) ReadableSpaces(ctx context.Context, orgID string) (map[string]string, error) {
	rows, err := db.r().QueryContext(ctx, `SELECT id, title FROM spaces WHERE organization_id = ? AND deleted_at IS NULL`, orgID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[string]string{}
	for rows.Next() {
		var id, title string
		if err := rows.Scan(&id, &title); err != nil {
			return nil, err
		}
		out[id] = title
	}
	return out, rows.Err()
}

var _ = time.Now
