package storage

// Full-text search over the active revision of every space. The index
// and the matching are the dialect's searchEngine (FTS5 on SQLite,
// search_sqlite.go; tsvector and GIN on PostgreSQL, search_postgres.go);
// ranking, grouping by page or space and pagination are shared here.

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"fmt"
	"sort"
	"strings"
	"unicode"
)

// reindexSpace brings the index of spaceID from its active revision to
// tree (the revision becoming active): rows of pages that changed or went
// away are dropped, and changed or new pages are indexed. Unchanged pages
// keep their rows, so the work follows the size of the change.
func reindexSpace(tx *Tx, spaceID, _ string, _ string, t *Tree, an Analyzer) error {
	head, err := spaceHead(tx.ctx, tx, spaceID)
	if err != nil {
		return err
	}
	old := map[string]string{}
	rows, err := tx.QueryContext(tx.ctx, `SELECT page_id, version FROM revision_pages WHERE revision_id = ?`, head.Revision)
	if err != nil {
		return err
	}
	for rows.Next() {
		var id, v string
		if err := rows.Scan(&id, &v); err != nil {
			rows.Close()
			return err
		}
		old[id] = v
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	engine := tx.db.search
	drop := func(pageID string) error { return engine.dropPage(tx, spaceID, pageID) }
	var werr error
	t.Walk(func(p, _ *TreePage) bool {
		prev, had := old[p.ID]
		delete(old, p.ID)
		if had && prev == p.Version {
			return true
		}
		if had {
			if werr = drop(p.ID); werr != nil {
				return false
			}
		}
		if p.Type != "document" || p.Meta.NoIndex || an == nil {
			return true
		}
		for i, s := range an.Sections(p) {
			if werr = engine.add(tx, spaceID, p.ID, i, s); werr != nil {
				return false
			}
		}
		return true
	})
	if werr != nil {
		return werr
	}
	for id := range old {
		if err := drop(id); err != nil {
			return err
		}
	}
	return nil
}

// SearchHit is one matching section.
type SearchHit struct {
	SectionID string
	Title     string
	Excerpt   string
}

// PageHit is a matching page of a space's active revision with its best
// matching sections.
type PageHit struct {
	SpaceID  string
	Page     ContentPage
	Sections []SearchHit
}

// SpaceHit is a space with its best matching pages.
type SpaceHit struct {
	SpaceID string
	Pages   []PageHit
}

// searchEngine is a dialect's full-text index of sections and its
// matching. Scores are lower-is-better (bm25's sign).
type searchEngine interface {
	// query is the engine's query for words (searchWords, at least one):
	// every word must match, the last one as a prefix (search-as-you-type).
	query(words []string) string
	// add indexes one section of a page.
	add(tx *Tx, spaceID, pageID string, ordinal int, s SearchSection) error
	dropPage(tx *Tx, spaceID, pageID string) error
	dropSpace(tx *Tx, spaceID string) error
	// copySpace gives toSpace the index rows of fromSpace (a duplicate).
	copySpace(tx *Tx, fromSpace, toSpace string) error
	// matches is a query of the rows of the given spaces that match q, with
	// cols (of d, the search_docs row) and a column score, and its arguments.
	matches(cols, q string, spaces []string) (string, []any)
	// sections is, of the given search_docs rows, those matching q: rowid,
	// title, excerpt, score.
	sections(ctx context.Context, tx queryer, q string, rowids []int64) (*sql.Rows, error)
	// sectionsOf is every indexed section: space id, page id, section id,
	// ordinal, title, body (admin copy-db).
	sectionsOf(ctx context.Context, q queryer) (*sql.Rows, error)
}

// searchWords is the words of free text; operators typed by the user are
// taken as plain words (nil when the text has none).
func searchWords(text string) []string {
	return strings.FieldsFunc(text, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
}

// searchQuery is the engine's query for text, "" when the text has no word.
func (db *DB) searchQuery(text string) string {
	words := searchWords(text)
	if len(words) == 0 {
		return ""
	}
	return db.search.query(words)
}

// rankedGroups runs one ranking query: the groups (pages or spaces) of the
// matching rows, best first, one page of them, with the number of groups.
func rankedGroups(ctx context.Context, tx queryer, m string, args []any, col string, offset, limit int) ([]string, int, error) {
	rows, err := tx.QueryContext(ctx, `WITH x AS MATERIALIZED (`+m+`) SELECT `+col+`, COUNT(*) OVER () FROM x GROUP BY `+col+` ORDER BY MIN(score), `+col+` LIMIT ? OFFSET ?`,
		append(args, limit, offset)...)
	if err != nil {
		return nil, 0, err
	}
	var ids []string
	count := -1
	for rows.Next() {
		var id string
		if err := rows.Scan(&id, &count); err != nil {
			rows.Close()
			return nil, 0, err
		}
		ids = append(ids, id)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, 0, err
	}
	if count < 0 { // a page past the end (or limit 0): count separately
		err = tx.QueryRowContext(ctx, `WITH x AS MATERIALIZED (`+m+`) SELECT COUNT(DISTINCT `+col+`) FROM x`, args...).Scan(&count)
	}
	return ids, count, err
}

// searchAnswer is one page of search results with the number of matches:
// pages (SearchPages) or spaces (SearchSpaces).
type searchAnswer struct {
	pages  []PageHit
	spaces []SpaceHit
	count  int
}

// maxCachedSearchHits bounds the memory of the search cache: an answer
// with more pages and sections than this (a page of up to 1,000 results)
// is not kept, so 128 entries hold some tens of megabytes at most.
const maxCachedSearchHits = 1000

// weight is the number of pages and sections in the answer.
func (a searchAnswer) weight() int {
	n := 0
	for _, p := range a.pages {
		n += 1 + len(p.Sections)
	}
	for _, s := range a.spaces {
		for _, p := range s.Pages {
			n += 1 + len(p.Sections)
		}
	}
	return n
}

// searchKey names one page of one search: the kind, the scope (the spaces
// searched, hashed: an organization may have thousands), the page and the
// FTS query.
func searchKey(kind string, scope []string, offset, limit, per int, q string) string {
	h := sha256.New()
	for _, s := range scope {
		h.Write([]byte(s))
		h.Write([]byte{0})
	}
	return fmt.Sprintf("%s\x00%x\x00%d\x00%d\x00%d\x00%s", kind, h.Sum(nil), offset, limit, per, q)
}

// cachedSearch answers one page of a search from the search cache or runs
// it. Ranking a query that matches most of a large index is bm25 over every
// matching section (about 1 µs each in this SQLite: 100,000 matches cost
// some 100 ms whatever the LIMIT), so answers are kept while what they were
// computed from stands still (see versioned): stamp reads, in the reader
// pool or in a read snapshot, the entry's key and version. The first search
// after a change runs the query in a snapshot whose stamp names the entry.
// The answer is shared between requests: read it, never change it.
func (db *DB) cachedSearch(ctx context.Context, stamp searchStamp, run func(tx queryer) (searchAnswer, error)) (searchAnswer, error) {
	key, version, err := stamp(ctx, db.r())
	if err != nil {
		return searchAnswer{}, err
	}
	if a, ok := db.searches.get(key, version); ok {
		return a, nil
	}
	var a searchAnswer
	err = db.ReadTx(ctx, func(tx queryer) error {
		// The snapshot may be newer than the stamp read above.
		if key, version, err = stamp(ctx, tx); err != nil {
			return err
		}
		if a, err = run(tx); err != nil {
			return err
		}
		if a.weight() <= maxCachedSearchHits {
			db.searches.put(key, version, a)
		}
		return nil
	})
	return a, err
}

// searchStamp names a cached search answer: its key and the version it is
// valid for, read in q.
type searchStamp func(ctx context.Context, q queryer) (key string, version int64, err error)

// untilAnyWrite stamps a search of several spaces: valid until the next
// write anywhere (the change counter).
func untilAnyWrite(key string) searchStamp {
	return func(ctx context.Context, q queryer) (string, int64, error) {
		v, err := changeVersion(ctx, q)
		return key, v, err
	}
}

// spaceRevisionSQL is the active revision of a space: the search index of a
// space is its active revision's (reindexed in the transaction that
// changes it), and so are the pages a hit names.
const spaceRevisionSQL = `SELECT revision_id FROM spaces WHERE id = ?`

// untilContentChanges stamps a search of one space: valid while the
// space's active revision stands, whatever else is written (renames,
// members, other spaces), since the answer is read from that revision's
// index and pages only.
func untilContentChanges(key, spaceID string) searchStamp {
	return func(ctx context.Context, q queryer) (string, int64, error) {
		var rev string
		if err := q.QueryRowContext(ctx, spaceRevisionSQL, spaceID).Scan(&rev); err != nil {
			return "", 0, notFound(err)
		}
		return key + "\x00" + rev, 0, nil
	}
}

// SearchPages ranks the pages of one space matching text (best section
// first) and returns one page of them with up to 5 sections each, and the
// number of matching pages. Ranking is not stable under writes, so the
// cursor is an offset.
func (db *DB) SearchPages(ctx context.Context, spaceID, text string, offset, limit int) ([]PageHit, int, error) {
	q := db.searchQuery(text)
	if q == "" {
		return nil, 0, nil
	}
	scope := []string{spaceID}
	if err := db.prepare(ctx, spaceRevisionSQL); err != nil {
		return nil, 0, err
	}
	stamp := untilContentChanges(searchKey("pages", scope, offset, limit, 5, q), spaceID)
	a, err := db.cachedSearch(ctx, stamp, func(tx queryer) (a searchAnswer, err error) {
		m, margs := db.search.matches(`d.page_id`, q, scope)
		ids, n, err := rankedGroups(ctx, tx, m, margs, "page_id", offset, limit)
		a.count = n
		if err != nil || len(ids) == 0 {
			return a, err
		}
		a.pages, err = pageHits(ctx, tx, db.search, q, scope, ids, 5)
		return a, err
	})
	return a.pages, a.count, err
}

// SearchSpaces ranks the spaces matching text (by their best section) and
// returns one page of them with up to pagesPer pages each, and the number of
// matching spaces.
func (db *DB) SearchSpaces(ctx context.Context, spaceIDs []string, text string, offset, limit, pagesPer int) ([]SpaceHit, int, error) {
	q := db.searchQuery(text)
	if q == "" || len(spaceIDs) == 0 {
		return nil, 0, nil
	}
	if err := db.prepare(ctx, changeCounterSQL); err != nil {
		return nil, 0, err
	}
	a, err := db.cachedSearch(ctx, untilAnyWrite(searchKey("spaces", spaceIDs, offset, limit, pagesPer, q)), func(tx queryer) (a searchAnswer, err error) {
		a.spaces, a.count, err = searchSpaces(ctx, tx, db.search, spaceIDs, q, offset, limit, pagesPer)
		return a, err
	})
	return a.spaces, a.count, err
}

func searchSpaces(ctx context.Context, tx queryer, engine searchEngine, spaceIDs []string, q string, offset, limit, pagesPer int) ([]SpaceHit, int, error) {
	m, margs := engine.matches(`d.space_id`, q, spaceIDs)
	spaces, count, err := rankedGroups(ctx, tx, m, margs, "space_id", offset, limit)
	if err != nil || len(spaces) == 0 {
		return nil, count, err
	}
	// The best pages of each listed space, in one query.
	m2, margs2 := engine.matches(`d.space_id, d.page_id`, q, spaces)
	prow, err := tx.QueryContext(ctx, `WITH x AS MATERIALIZED (`+m2+`) SELECT space_id, page_id FROM (
 SELECT space_id, page_id, ROW_NUMBER() OVER (PARTITION BY space_id ORDER BY MIN(score), page_id) AS n FROM x GROUP BY space_id, page_id
) ranked WHERE n <= ? ORDER BY space_id, n`, append(margs2, pagesPer)...)
	if err != nil {
		return nil, 0, err
	}
	var pageIDs []string
	for prow.Next() {
		var s, p string
		if err := prow.Scan(&s, &p); err != nil {
			prow.Close()
			return nil, 0, err
		}
		pageIDs = append(pageIDs, p)
	}
	prow.Close()
	if err := prow.Err(); err != nil {
		return nil, 0, err
	}
	hits, err := pageHits(ctx, tx, engine, q, spaces, pageIDs, 3)
	if err != nil {
		return nil, 0, err
	}
	bySpace := map[string][]PageHit{}
	for _, h := range hits {
		bySpace[h.SpaceID] = append(bySpace[h.SpaceID], h)
	}
	out := make([]SpaceHit, 0, len(spaces))
	for _, s := range spaces {
		out = append(out, SpaceHit{SpaceID: s, Pages: bySpace[s]})
	}
	return out, count, nil
}

// pageHits loads, for the given pages (in that order), their title and path
// in their space's active revision and their best matching sections.
func pageHits(ctx context.Context, tx queryer, engine searchEngine, q string, spaces, pageIDs []string, sectionsPer int) ([]PageHit, error) {
	in, sin := placeholders(len(pageIDs)), placeholders(len(spaces))
	rows, err := tx.QueryContext(ctx, `SELECT s.id, `+pageCols+` FROM spaces s JOIN revision_pages rp ON rp.revision_id = s.revision_id
 JOIN page_versions v ON v.hash = rp.version WHERE s.id IN (`+sin+`) AND rp.page_id IN (`+in+`)`, append(anySlice(spaces), anySlice(pageIDs)...)...)
	if err != nil {
		return nil, err
	}
	byID := map[string]*PageHit{}
	for rows.Next() {
		var h PageHit
		p, err := scanPageWith(rows, &h.SpaceID)
		if err != nil {
			rows.Close()
			return nil, err
		}
		h.Page = p
		byID[p.ID] = &h
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	// Their sections (an index read), then which of them match, how well
	// and their excerpts: one pass over the query's matches without a join,
	// excerpts only for these rows (a broad query matches every section;
	// joining them all to find these pages cost more than ranking them).
	type section struct {
		pageID  string
		ordinal int
		score   float64
		hit     SearchHit
	}
	bySection := map[int64]*section{}
	var rowids []int64
	drows, err := tx.QueryContext(ctx, `SELECT rowid, page_id, section_id, ordinal FROM search_docs WHERE space_id IN (`+sin+`) AND page_id IN (`+in+`)`,
		append(anySlice(spaces), anySlice(pageIDs)...)...)
	if err != nil {
		return nil, err
	}
	for drows.Next() {
		var id int64
		var s section
		if err := drows.Scan(&id, &s.pageID, &s.hit.SectionID, &s.ordinal); err != nil {
			drows.Close()
			return nil, err
		}
		bySection[id] = &s
		rowids = append(rowids, id)
	}
	drows.Close()
	if err := drows.Err(); err != nil {
		return nil, err
	}
	srows, err := engine.sections(ctx, tx, q, rowids)
	if err != nil {
		return nil, err
	}
	var found []*section
	for srows.Next() {
		var id int64
		var title, excerpt string
		var score float64
		if err := srows.Scan(&id, &title, &excerpt, &score); err != nil {
			srows.Close()
			return nil, err
		}
		if s := bySection[id]; s != nil {
			s.hit.Title, s.hit.Excerpt, s.score = title, excerpt, score
			found = append(found, s)
		}
	}
	srows.Close()
	if err := srows.Err(); err != nil {
		return nil, err
	}
	// Each page's best sections first, in the order of the sections on ties.
	sort.Slice(found, func(i, j int) bool {
		a, b := found[i], found[j]
		if a.pageID != b.pageID {
			return a.pageID < b.pageID
		}
		if a.score != b.score {
			return a.score < b.score
		}
		return a.ordinal < b.ordinal
	})
	for _, s := range found {
		if h := byID[s.pageID]; h != nil && len(h.Sections) < sectionsPer {
			h.Sections = append(h.Sections, s.hit)
		}
	}
	out := make([]PageHit, 0, len(pageIDs))
	for _, id := range pageIDs {
		if h := byID[id]; h != nil {
			out = append(out, *h)
		}
	}
	return out, nil
}
