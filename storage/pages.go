package storage

import (
	"context"
	"database/sql"
	"slices"
	"strings"
)

// RevisionPages reads every page of a revision in tree order (assembled
// from parents and sibling positions), without bodies.
//
// A tree of at most maxCachedTreePages pages is kept between writes (like
// the spaces and lists: valid for the change counter it was read under),
// shared: callers only read it. A reader reloading a page of a large space
// then skips reading and ordering the tree.
func (db *DB) RevisionPages(ctx context.Context, revID string) ([]ContentPage, error) {
	c, cerr := readCounters(ctx, db.r())
	if cerr == nil {
		if out, ok := db.revPages.get(revID, c.n); ok {
			return out, nil
		}
	}
	out, err := revisionPages(ctx, db.r(), revID, "", "")
	out = inTreeOrder(out)
	if err == nil && cerr == nil && len(out) <= maxCachedTreePages {
		out = slices.Clip(out)
		db.revPages.put(revID, c.n, out)
	}
	return out, err
}

// Bounds of the cached revision trees: 32 trees of at most 5,000 pages
// (a page without its body is a few hundred bytes).
const (
	maxCachedTrees     = 32
	maxCachedTreePages = 5000
)

// revisionPages reads the pages of a revision that satisfy cond (on the
// page row x), ordered by order ("" for any order), without bodies.
func revisionPages(ctx context.Context, q queryer, revID, order, cond string, args ...any) ([]ContentPage, error) {
	rr, err := revisionRowsOf(ctx, q, revID)
	if err != nil {
		return nil, err
	}
	query, qargs := revisionPagesSQL(rr, order, cond, args...)
	rows, err := q.QueryContext(ctx, query, qargs...)
	var out []ContentPage
	return out, eachRow(rows, err, func(sc interface{ Scan(...any) error }) error {
		p, err := scanPage(sc)
		out = append(out, p)
		return err
	})
}

// revisionPagesSQL is revisionPages' statement on the revision's rows rr.
func revisionPagesSQL(rr revisionRows, order, cond string, args ...any) (string, []any) {
	from, fargs := rr.pages(cond, args...)
	if order != "" {
		from += ` ORDER BY ` + order
	}
	return `SELECT ` + pageCols + ` ` + from, fargs
}

// RevisionPage reads one page of a revision with its body, by id or (when
// byPath) by path.
func (db *DB) RevisionPage(ctx context.Context, revID, key string, byPath bool) (ContentPage, error) {
	by := "id"
	if byPath {
		by = "path"
	}
	return keptRead(ctx, db, keptKey("page", revID, by, key), func(p ContentPage) (int, int) { return 1, len(p.Markdown) },
		func() (ContentPage, error) { return db.revisionPage(ctx, revID, key, byPath) })
}

func (db *DB) revisionPage(ctx context.Context, revID, key string, byPath bool) (ContentPage, error) {
	q := db.r()
	rr, err := revisionRowsOf(ctx, q, revID)
	if err != nil {
		return ContentPage{}, err
	}
	query, args := revisionPageSQL(rr, key, byPath)
	var md string
	p, err := scanPage(q.QueryRowContext(ctx, query, args...), &md)
	p.Markdown = md
	return p, err
}

// revisionPageSQL is RevisionPage's statement on the revision's rows rr.
func revisionPageSQL(rr revisionRows, key string, byPath bool) (string, []any) {
	cond := "x.page_id = ?"
	if byPath {
		cond = "x.path = ?"
		key = strings.Trim(key, "/")
	}
	from, args := rr.pages(cond, key)
	return `SELECT ` + pageCols + `, v.markdown ` + from, args
}

// PageChildren reads the child pages of parentID in a revision (for the
// `pages` field of a single page), without bodies.
func (db *DB) PageChildren(ctx context.Context, revID, parentID string) ([]ContentPage, error) {
	return revisionPages(ctx, db.r(), revID, pageChildrenOrder, "x.parent_id = ?", parentID)
}

// pageChildrenOrder is the order of a page's children (PageChildren).
const pageChildrenOrder = "rp.position, rp.page_id"

// pageChildrenSQL is PageChildren's statement on the revision's rows rr.
func pageChildrenSQL(rr revisionRows, parentID string) (string, []any) {
	return revisionPagesSQL(rr, pageChildrenOrder, "x.parent_id = ?", parentID)
}

const fileCols = `f.file_id, f.name, f.content_type, f.blob, b.size, b.width, b.height`

func scanFile(sc interface{ Scan(...any) error }) (File, error) {
	var f File
	var w, h sql.NullInt64
	if err := sc.Scan(&f.ID, &f.Name, &f.ContentType, &f.Blob, &f.Size, &w, &h); err != nil {
		return f, notFound(err)
	}
	if w.Valid && h.Valid {
		wi, hi := int(w.Int64), int(h.Int64)
		f.Width, f.Height = &wi, &hi
	}
	return f, nil
}

// filesOwner is, for a revision id argument, the revision whose
// revision_files rows are its files (revisions.files_of, migration 0025):
// compare revision_files.revision_id with it, never with the id itself.
const filesOwner = `(SELECT COALESCE(fo.files_of, fo.id) FROM revisions fo WHERE fo.id = ?)`

func revisionFiles(ctx context.Context, q queryer, revID string) ([]File, error) {
	rows, err := q.QueryContext(ctx, `SELECT `+fileCols+` FROM revision_files f JOIN file_blobs b ON b.hash = f.blob WHERE f.revision_id = `+filesOwner+` ORDER BY f.name, f.file_id`, revID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []File
	for rows.Next() {
		f, err := scanFile(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, f)
	}
	return out, rows.Err()
}

// RevisionFiles reads every file of a revision (the Revision object).
func (db *DB) RevisionFiles(ctx context.Context, revID string) ([]File, error) {
	return keptRead(ctx, db, keptKey("revision files", revID), rowsOf(func(fs []File) int { return len(fs) }), func() ([]File, error) {
		fs, err := revisionFiles(ctx, db.r(), revID)
		return slices.Clip(fs), err
	})
}

// ListRevisionFiles pages through a revision's files by name.
func (db *DB) ListRevisionFiles(ctx context.Context, revID string, pq PageQuery) (Page[File], error) {
	spec := listSpec{Select: fileCols, From: `FROM revision_files f JOIN file_blobs b ON b.hash = f.blob WHERE f.revision_id = ` + filesOwner,
		Args: []any{revID}, SortCol: "f.name", IDCol: "f.file_id", Text: true}
	return runList(ctx, db, spec, pq, func(rows *sql.Rows) (File, Cursor, error) {
		f, err := scanFile(rows)
		return f, Cursor{S: f.Name, ID: f.ID}, err
	})
}

// RevisionFile reads one file of a revision.
func (db *DB) RevisionFile(ctx context.Context, revID, fileID string) (File, error) {
	return scanFile(db.r().QueryRowContext(ctx, `SELECT `+fileCols+` FROM revision_files f JOIN file_blobs b ON b.hash = f.blob WHERE f.revision_id = `+filesOwner+` AND f.file_id = ?`, revID, fileID))
}

// FilesBytes reads the bytes of many blobs (a revision's files, for an
// export), a few hundred a query rather than a query a file; a blob not
// stored is absent from the answer.
func (db *DB) FilesBytes(ctx context.Context, blobs []string) (map[string][]byte, error) {
	out := make(map[string][]byte, len(blobs))
	for chunk := range slices.Chunk(blobs, 500) {
		rows, err := db.r().QueryContext(ctx, `SELECT hash, bytes FROM file_bytes WHERE hash IN (`+placeholders(len(chunk))+`)`, anySlice(chunk)...) // variable arity: not cached
		if err := eachRow(rows, err, func(sc interface{ Scan(...any) error }) error {
			var h string
			var b []byte
			err := sc.Scan(&h, &b)
			out[h] = b
			return err
		}); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// FileBytes reads the bytes of a stored blob.
func (db *DB) FileBytes(ctx context.Context, blob string) ([]byte, error) {
	var b []byte
	err := db.r().QueryRowContext(ctx, `SELECT bytes FROM file_bytes WHERE hash = ?`, blob).Scan(&b)
	return b, notFound(err)
}
