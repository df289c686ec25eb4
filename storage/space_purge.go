package storage

// Purging a trashed space for good, in bounded writes. A space of 100,000
// pages has hundreds of thousands of rows (its main line, overlays, files,
// search index, the page versions and links only it uses); deleted in one
// transaction they held the single writer (SQLite) or the installation's
// lock (PostgreSQL) for seconds, and every other write waited. Instead:
//
//  1. The claim, one write: the space is checked to be still expired and
//     is recorded in space_purges (from then on RestoreSpace refuses it,
//     and a sweep that stopped halfway takes it up again). Then the spaces
//     that read its rows or its index's chunks (duplicates) take them in,
//     a bounded number of pages or chunks a write.
//  2. Its content, purgeBatchRows rows of one table a write: the index's
//     postings and pages, the main line's rows, each revision's overlay
//     rows and files, with the page versions (and their links) and file
//     blobs that no row uses any more once a write's rows are gone.
//  3. The space itself, one write: its removal hooks (sites,
//     installations, its index's stats and whatever content rows a write
//     added meanwhile), its grants and its row (revisions, change requests
//     and comments go with it by ON DELETE CASCADE).
//
// No reader reaches a trashed space's content, and the claim and the last
// write bump the change counter; the content's writes do not, so they do not
// empty every request's caches a few hundred times.

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"
)

// purgeBatchRows bounds the rows of one table that one write of a purge
// deletes (a page's other main-line rows go with it, a term's other
// postings too); 0 deletes everything in the last write, as one
// transaction. A variable: tests lower it, and compare with 0.
var purgeBatchRows = 500

// purgeable is the condition of a space PurgeSpaces removes: trashed at
// or before the cutoff (its argument).
const purgeable = `deleted_at IS NOT NULL AND deleted_at <= ?`

// notPurging keeps out of a read of spaces (as "spaces") the spaces whose
// purge has begun.
const notPurging = ` AND NOT EXISTS (SELECT 1 FROM space_purges p WHERE p.space_id = spaces.id)`

// PurgeSpaces removes for good the spaces trashed at or before cutoff, with
// their revisions and grants, and returns how many it removed. Each space
// goes in writes of its own, each bounded (the file's comment): a request's
// write waits for one batch at most. A failure stops the sweep; the spaces
// purged before it stay purged, the rest wait for the next sweep, which
// finishes a space it began.
func (db *DB) PurgeSpaces(ctx context.Context, cutoff time.Time) (int, error) {
	ids, err := queryIDs(db.r(), `SELECT id FROM spaces WHERE `+purgeable, ms(cutoff))
	if err != nil || len(ids) == 0 {
		return 0, err
	}
	n := 0
	for _, id := range ids {
		removed, err := db.purgeSpace(ctx, id, cutoff)
		if err != nil {
			return n, err
		}
		if removed {
			n++
		}
	}
	return n, nil
}

// purgeSpace removes one space, false when it is no longer expired.
func (db *DB) purgeSpace(ctx context.Context, id string, cutoff time.Time) (bool, error) {
	claimed := false
	if err := db.Write(ctx, func(tx *Tx) error {
		claimed = false
		if ok, err := stillPurgeable(tx, id, cutoff); err != nil || !ok {
			return err
		}
		claimed = true
		_, err := tx.exec(`INSERT INTO space_purges (space_id) VALUES (?) ON CONFLICT DO NOTHING`, id)
		return err
	}); err != nil || !claimed {
		return false, err
	}
	if purgeBatchRows > 0 {
		if err := db.handOver(ctx, id); err != nil {
			return false, err
		}
		if err := db.purgeContent(ctx, id); err != nil {
			return false, err
		}
	}
	var removed int64
	err := db.Write(ctx, func(tx *Tx) error {
		removed = 0
		if ok, err := stillPurgeable(tx, id, cutoff); err != nil || !ok {
			return err
		}
		if err := runSpaceHooks(tx, spaceRemovalHooks, id); err != nil {
			return err
		}
		if err := deleteGrantsOn(tx, KindSpace, id); err != nil {
			return err
		}
		res, err := tx.exec(`DELETE FROM spaces WHERE id = ?`, id)
		if err != nil {
			return err
		}
		removed, err = res.RowsAffected()
		return err
	})
	return removed > 0, err
}

// stillPurgeable checks, inside a purge's write, that the space is still
// expired (a restore may have won the race for a space not yet claimed);
// when not, the write changes nothing.
func stillPurgeable(tx *Tx, id string, cutoff time.Time) (bool, error) {
	var one int
	err := tx.QueryRowContext(tx.ctx, `SELECT 1 FROM spaces WHERE id = ? AND `+purgeable, id, ms(cutoff)).Scan(&one)
	if errors.Is(err, sql.ErrNoRows) {
		tx.unchanged()
		return false, nil
	}
	return err == nil, err
}

// purgeChunks bounds the index chunks (of 4,096 docs each) that one write
// of a purge hands to the space's duplicates.
const purgeChunks = 1

// handOver gives a claimed space's duplicates what they read of it, in
// bounded writes (step 1 of the file's comment): the rows of
// purgeBatchRows pages, or purgeChunks chunks of its index, a write.
func (db *DB) handOver(ctx context.Context, spaceID string) error {
	after := ""
	for _, step := range []func(tx *Tx) (bool, error){
		func(tx *Tx) (bool, error) { return handOverRowsUpTo(tx, spaceID, &after, purgeBatchRows) },
		func(tx *Tx) (bool, error) { return handOverChunksUpTo(tx, spaceID, purgeChunks) },
	} {
		if err := db.writeWhileMore(ctx, step); err != nil {
			return err
		}
	}
	return nil
}

// writeWhileMore runs step, each time in a write of its own that leaves
// the change counter alone (no reader reaches a trashed space's content),
// while it says more is left.
func (db *DB) writeWhileMore(ctx context.Context, step func(tx *Tx) (bool, error)) error {
	for {
		more := false
		err := db.writeTx(ctx, false, func(tx *Tx) error {
			var err error
			more, err = step(tx)
			return err
		})
		if err != nil || !more {
			return err
		}
	}
}

// purgeContent deletes a claimed space's content, a bounded write at a
// time (step 2 of the file's comment): the parts of the space, then those
// of each revision that has rows in them (read once: a claimed space gets
// no new revision).
func (db *DB) purgeContent(ctx context.Context, spaceID string) error {
	for _, p := range spaceParts {
		if err := db.purgePart(ctx, p, spaceID); err != nil {
			return err
		}
	}
	for _, p := range revisionParts {
		revs, err := queryIDsCtx(ctx, db.r(), `SELECT r.id FROM revisions r WHERE r.space_id = ? AND EXISTS (SELECT 1 FROM `+p.table+` x WHERE x.revision_id = r.id)`, spaceID)
		if err != nil {
			return err
		}
		for _, rev := range revs {
			if err := db.purgePart(ctx, p, rev); err != nil {
				return err
			}
		}
	}
	return nil
}

// contentPart is a table of a space's content: the rows of one owner (a
// space or a revision) in the order of a key its primary key starts with
// after the owner, some of them using a page version or a file blob
// (used), which collect deletes once no row uses it.
type contentPart struct {
	table, owner, key, used string
	collect                 func(tx *Tx, hashes []string) error
}

var (
	spaceParts = []contentPart{
		{table: "search_postings", owner: "space_id", key: "term"},
		{table: "search_pages", owner: "space_id", key: "doc"},
		{table: "main_pages", owner: "space_id", key: "page_id", used: "version", collect: collectVersions},
	}
	revisionParts = []contentPart{
		{table: "overlay_pages", owner: "revision_id", key: "page_id", used: "version", collect: collectVersions},
		{table: "revision_files", owner: "revision_id", key: "file_id", used: "blob", collect: collectBlobs},
	}
)

// purgePart deletes owner's rows of p, each write its first
// purgeBatchRows rows in the key's order (with the other rows of the last
// key: a page's other main-line rows, a term's other chunks), until none
// is left.
func (db *DB) purgePart(ctx context.Context, p contentPart, owner string) error {
	return db.writeWhileMore(ctx, func(tx *Tx) (bool, error) { return purgeStep(tx, p, owner) })
}

// purgeStep is one write of purgePart; more says rows are left. Its rows
// are a range of the primary key (the owner's keys up to the last one
// read), so every engine reads them by the index whatever its statistics.
func purgeStep(tx *Tx, p contentPart, owner string) (more bool, err error) {
	var last any
	err = tx.QueryRowContext(tx.ctx, `SELECT `+p.key+` FROM `+p.table+` WHERE `+p.owner+` = ? ORDER BY `+p.key+` LIMIT 1 OFFSET ?`, owner, purgeBatchRows-1).Scan(&last)
	switch {
	case errors.Is(err, sql.ErrNoRows): // fewer rows left than a batch: all of them
	case err != nil:
		return false, err
	default:
		more = true
	}
	where, args := p.owner+` = ?`, []any{owner}
	if more {
		where, args = where+` AND `+p.key+` <= ?`, append(args, last)
	}
	var used []string
	if p.used != "" {
		if used, err = queryIDs(tx, `SELECT DISTINCT `+p.used+` FROM `+p.table+` WHERE `+where+` AND `+p.used+` <> ''`, args...); err != nil {
			return false, err
		}
	}
	res, err := tx.exec(`DELETE FROM `+p.table+` WHERE `+where, args...)
	if err != nil {
		return false, err
	}
	if n, err := res.RowsAffected(); err != nil || n == 0 {
		tx.unchanged()
		return false, err
	}
	if len(used) > 0 {
		err = p.collect(tx, used)
	}
	return more, err
}

// unusedSQL reads which of a list of hashes (the VALUES of n rows) no row
// of any of the tables (table.column) uses: one index probe per hash and
// table, whatever the engine's statistics (a join could read a table whole).
func unusedSQL(n int, uses ...string) string {
	var b strings.Builder
	b.WriteString(`SELECT u.column1 FROM (VALUES `)
	for i := range n {
		if i > 0 {
			b.WriteString(`, `)
		}
		b.WriteString(`(?)`)
	}
	b.WriteString(`) u WHERE `)
	for i, use := range uses {
		if i > 0 {
			b.WriteString(` AND `)
		}
		table, column, _ := strings.Cut(use, ".")
		fmt.Fprintf(&b, `(SELECT 1 FROM %s o WHERE o.%s = u.column1 LIMIT 1) IS NULL`, table, column)
	}
	return b.String()
}

// collectVersions deletes the page versions (and their links) among
// hashes that no main-line or overlay row uses any more.
func collectVersions(tx *Tx, hashes []string) error {
	return inChunks(hashes, func(chunk []string) error {
		unused, err := queryIDs(tx, unusedSQL(len(chunk), "main_pages.version", "overlay_pages.version"), anySlice(chunk)...)
		if err != nil {
			return err
		}
		if err := deleteIn(tx, `DELETE FROM page_links WHERE version IN `, unused); err != nil {
			return err
		}
		return deleteIn(tx, `DELETE FROM page_versions WHERE hash IN `, unused)
	})
}

// collectBlobs deletes the file blobs (and their bytes) among hashes that
// no revision's file uses any more.
func collectBlobs(tx *Tx, hashes []string) error {
	return inChunks(hashes, func(chunk []string) error {
		unused, err := queryIDs(tx, unusedSQL(len(chunk), "revision_files.blob"), anySlice(chunk)...)
		if err != nil {
			return err
		}
		if err := deleteIn(tx, `DELETE FROM file_bytes WHERE hash IN `, unused); err != nil {
			return err
		}
		return deleteIn(tx, `DELETE FROM file_blobs WHERE hash IN `, unused)
	})
}
