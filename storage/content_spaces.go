package storage

import (
	"context"
)

// The few places where content storage touches the spaces family's tables
// (spaces.revision_id, revisions) are kept in this file.

// SpaceHead is what the content engine needs to know about a space.
type SpaceHead struct {
	ID             string
	OrganizationID string
	Title          string
	Revision       string // the active revision
	Locked         bool   // editMode locked: no content change
	Visibility     string // who reads its published content (revision URLs)
}

// HeadOf is the content view of a space.
func HeadOf(s Space) SpaceHead {
	return SpaceHead{ID: s.ID, OrganizationID: s.OrganizationID, Title: s.Title, Revision: s.RevisionID, Locked: s.EditMode == "locked", Visibility: s.Visibility}
}

func spaceHead(ctx context.Context, q queryer, spaceID string) (SpaceHead, error) {
	var h SpaceHead
	var mode string
	err := q.QueryRowContext(ctx, `SELECT id, organization_id, title, revision_id, edit_mode, visibility FROM spaces WHERE id = ? AND deleted_at IS NULL`, spaceID).
		Scan(&h.ID, &h.OrganizationID, &h.Title, &h.Revision, &mode, &h.Visibility)
	h.Locked = mode == "locked"
	return h, notFound(err)
}

// SpaceHead reads a live (not deleted) space's organization and active revision.
func (db *DB) SpaceHead(ctx context.Context, spaceID string) (SpaceHead, error) {
	return spaceHead(ctx, db.r(), spaceID)
}

func setActiveRevision(tx *Tx, spaceID, revID string) error {
	_, err := tx.exec(`UPDATE spaces SET revision_id = ?, updated_at = ? WHERE id = ?`, revID, ms(tx.Now), spaceID)
	return err
}

func init() {
	// A purged space takes its search rows and its content along: the rows
	// of its revisions, and the page versions and file bytes that no other
	// space's revision shares (its revisions themselves go by ON DELETE
	// CASCADE with the space).
	spaceRemovalHooks = append(spaceRemovalHooks, func(tx *Tx, spaceID string) error {
		if err := dropSearchSpace(tx, spaceID); err != nil {
			return err
		}
		// Its forks first take in the rows they read of it.
		if err := handOverRows(tx, spaceID); err != nil {
			return err
		}
		return removeSpaceContent(tx, spaceID)
	})
}

// removeSpaceContent deletes the page rows of a space (its main line and
// its revisions' overlays) and its revisions' files, and then the page
// versions (with their links) and file blobs that no row uses any more
// (collectVersions, collectBlobs: the purge's batches collect the same
// way). Versions and blobs are shared by content address, so the ones
// another space still uses (a duplicate) stay.
func removeSpaceContent(tx *Tx, spaceID string) error {
	const ofSpace = `IN (SELECT id FROM revisions WHERE space_id = ?)`
	versions, err := queryIDs(tx, `SELECT version FROM main_pages WHERE space_id = ?
 UNION SELECT version FROM overlay_pages WHERE revision_id `+ofSpace+` AND version <> ''`, spaceID, spaceID)
	if err != nil {
		return err
	}
	blobs, err := queryIDs(tx, `SELECT DISTINCT blob FROM revision_files WHERE revision_id `+ofSpace, spaceID)
	if err != nil {
		return err
	}
	for _, q := range []string{
		`DELETE FROM main_pages WHERE space_id = ?`,
		`DELETE FROM overlay_pages WHERE revision_id ` + ofSpace,
		`DELETE FROM revision_files WHERE revision_id ` + ofSpace,
	} {
		if _, err := tx.exec(q, spaceID); err != nil {
			return err
		}
	}
	if err := collectVersions(tx, versions); err != nil {
		return err
	}
	return collectBlobs(tx, blobs)
}

// deleteIn runs query (ending in "IN ") over keys, in batches.
func deleteIn(tx *Tx, query string, keys []string) error {
	return inChunks(keys, func(chunk []string) error {
		_, err := tx.exec(query+"("+placeholders(len(chunk))+")", anySlice(chunk)...)
		return err
	})
}

// copyRevisionContent gives duplicated revisions (old id -> new id) the
// content of their originals (rows only: versions and blobs are shared),
// and the new space the search rows of the old one. The main line is copied
// whole, history included, with its sequence numbers (each copied revision
// keeps its seq or base_seq), so every copied revision reads the same: one
// row per page and per change the space's main line recorded, instead of
// one row per page per revision.
//
// shareMain (duplicateShared): the main line is not copied; the new space
// reads the old one's rows instead (space_sources.go).
func copyRevisionContent(tx *Tx, fromSpace, toSpace string, ids map[string]string, shareMain bool) error {
	if shareMain {
		at, err := lastSeq(tx, fromSpace)
		if err != nil {
			return err
		}
		if err := recordSources(tx, toSpace, fromSpace, at); err != nil {
			return err
		}
	} else {
		// A row a batched import closed ahead (past the last seq,
		// import_batch.go) is alive in the copy.
		last := `(SELECT COALESCE(MAX(seq), 0) FROM revisions WHERE space_id = ? AND seq IS NOT NULL)`
		if _, err := tx.exec(`INSERT INTO main_pages (space_id, page_id, from_seq, to_seq, version, parent_id, position, path)
 SELECT ?, page_id, from_seq, CASE WHEN to_seq > `+last+` THEN ? ELSE to_seq END, version, parent_id, position, path FROM main_pages WHERE space_id = ?
 AND from_seq <= `+last, toSpace, fromSpace, aliveSeq, fromSpace, fromSpace); err != nil {
			return err
		}
		// A sharing duplicate copied whole: the rows it reads of its
		// sources too.
		srcs, err := sourcesOf(tx.ctx, tx, fromSpace)
		if err != nil {
			return err
		}
		if err := takeRows(tx, toSpace, srcs, 0, nil); err != nil {
			return err
		}
	}
	// Revisions that share another's files (files_of) share the copy's.
	filesOf := map[string]string{}
	rows, err := tx.QueryContext(tx.ctx, `SELECT id, files_of FROM revisions WHERE space_id = ? AND files_of IS NOT NULL`, fromSpace)
	if err := eachRow(rows, err, func(sc interface{ Scan(...any) error }) error {
		var id, owner string
		err := sc.Scan(&id, &owner)
		filesOf[id] = owner
		return err
	}); err != nil {
		return err
	}
	for old, nw := range ids {
		if owner, ok := ids[filesOf[old]]; ok {
			if _, err := tx.exec(`UPDATE revisions SET files_of = ? WHERE id = ?`, owner, nw); err != nil {
				return err
			}
		} else if filesOf[old] != "" {
			// Its owner is not copied (never so today): the copy holds its own rows.
			if _, err := tx.exec(`INSERT INTO revision_files (revision_id, file_id, name, content_type, blob) SELECT ?, file_id, name, content_type, blob FROM revision_files WHERE revision_id = ?`, nw, filesOf[old]); err != nil {
				return err
			}
		}
		for _, q := range []string{
			`INSERT INTO overlay_pages (revision_id, page_id, version, parent_id, position, path) SELECT ?, page_id, version, parent_id, position, path FROM overlay_pages WHERE revision_id = ?`,
			`INSERT INTO revision_files (revision_id, file_id, name, content_type, blob) SELECT ?, file_id, name, content_type, blob FROM revision_files WHERE revision_id = ?`,
		} {
			if _, err := tx.exec(q, nw, old); err != nil {
				return err
			}
		}
		if _, err := tx.exec(`UPDATE revisions SET (seq, base_seq, variables, reusable_contents) = (SELECT o.seq, o.base_seq, o.variables, o.reusable_contents FROM revisions o WHERE o.id = ?)
 WHERE id = ? AND EXISTS (SELECT 1 FROM revisions o WHERE o.id = ?)`, old, nw, old); err != nil {
			return err
		}
	}
	if shareMain {
		return shareSearchSpace(tx, fromSpace, toSpace)
	}
	return copySearchSpace(tx, fromSpace, toSpace)
}
