package storage

// Full-text search over the active revision of every space: the index
// (search_index.go) and its ranking (search_rank.go) are the same on both
// engines; the answers, their cache and pagination are here.

import (
	"context"
	"crypto/sha256"
	"fmt"
	"sort"
	"strings"
)

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
// query's folded words.
func searchKey(kind string, scope []string, offset, limit, per int, q string) string {
	h := sha256.New()
	for _, s := range scope {
		h.Write([]byte(s))
		h.Write([]byte{0})
	}
	return fmt.Sprintf("%s\x00%x\x00%d\x00%d\x00%d\x00%s", kind, h.Sum(nil), offset, limit, per, q)
}

// cachedSearch answers one page of a search from the search cache or runs
// it. Ranking a query that matches most of a large index reads and scores
// every match (some milliseconds for 100,000), so answers are kept while
// what they were computed from stands still (see versioned): stamp reads, in the reader
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

// SearchPages ranks the pages of one space matching text (every word on
// the page, the last as a prefix; BM25, ties by page id) and returns one
// page of them with up to 5 sections each, and the number of matching
// pages. Ranking is not stable under writes, so the cursor is an offset.
func (db *DB) SearchPages(ctx context.Context, spaceID, text string, offset, limit int) ([]PageHit, int, error) {
	words := searchWords(text)
	if len(words) == 0 {
		return nil, 0, nil
	}
	scope := []string{spaceID}
	if err := db.prepare(ctx, spaceRevisionSQL); err != nil {
		return nil, 0, err
	}
	stamp := untilContentChanges(searchKey("pages", scope, offset, limit, 5, strings.Join(words, " ")), spaceID)
	a, err := db.cachedSearch(ctx, stamp, func(tx queryer) (searchAnswer, error) {
		return searchPages(ctx, tx, &db.searchRows, spaceID, words, offset, limit)
	})
	return a.pages, a.count, err
}

// searchPages ranks a space's pages (SearchPages without the answer
// cache; rows of the index come from cache where it holds them).
func searchPages(ctx context.Context, tx queryer, cache *indexCache, spaceID string, words []string, offset, limit int) (a searchAnswer, err error) {
	matches, rankings, stats, err := rankSpaces(ctx, tx, words, []string{spaceID}, keep(offset, limit), cache)
	m := matches[spaceID]
	a.count = m.count
	if err != nil || offset >= len(m.best) {
		return a, err
	}
	listed := map[string][]match{spaceID: m.best[offset:min(len(m.best), offset+limit)]}
	a.pages, err = pageHits(ctx, tx, cache, words, rankings, stats, []string{spaceID}, listed, 5)
	return a, err
}

// keep is the number of best matches a page of results needs.
func keep(offset, limit int) int {
	if offset < 0 || limit <= 0 {
		return 0
	}
	return int(min(int64(offset)+int64(limit), 1<<31))
}

// SearchSpaces ranks the spaces matching text (by their best page) and
// returns one page of them with up to pagesPer pages each, and the number of
// matching spaces.
func (db *DB) SearchSpaces(ctx context.Context, spaceIDs []string, text string, offset, limit, pagesPer int) ([]SpaceHit, int, error) {
	words := searchWords(text)
	if len(words) == 0 || len(spaceIDs) == 0 {
		return nil, 0, nil
	}
	if err := db.prepare(ctx, changeCounterSQL); err != nil {
		return nil, 0, err
	}
	a, err := db.cachedSearch(ctx, untilAnyWrite(searchKey("spaces", spaceIDs, offset, limit, pagesPer, strings.Join(words, " "))), func(tx queryer) (a searchAnswer, err error) {
		a.spaces, a.count, err = searchSpaces(ctx, tx, &db.searchRows, spaceIDs, words, offset, limit, pagesPer)
		return a, err
	})
	return a.spaces, a.count, err
}

func searchSpaces(ctx context.Context, tx queryer, cache *indexCache, spaceIDs, words []string, offset, limit, pagesPer int) ([]SpaceHit, int, error) {
	matches, rankings, stats, err := rankSpaces(ctx, tx, words, spaceIDs, max(pagesPer, 1), cache)
	if err != nil {
		return nil, 0, err
	}
	ranked := make([]scoredPage, 0, len(matches)) // per space: its id and best score
	for s, m := range matches {
		ranked = append(ranked, scoredPage{pageID: s, score: m.best[0].score})
	}
	sort.Slice(ranked, func(i, j int) bool { return better(ranked[i], ranked[j]) })
	if offset >= len(ranked) || limit <= 0 {
		return nil, len(ranked), nil
	}
	ranked = ranked[offset:min(len(ranked), offset+limit)]
	var spaces []string
	listed := map[string][]match{}
	for _, s := range ranked {
		spaces = append(spaces, s.pageID)
		listed[s.pageID] = matches[s.pageID].best[:min(pagesPer, len(matches[s.pageID].best))]
	}
	hits, err := pageHits(ctx, tx, cache, words, rankings, stats, spaces, listed, 3)
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
	return out, len(matches), nil
}

// pageHits loads, for the listed matches of spaces (in that order), their
// page's title and path in their space's active revision and their best
// matching sections, cut from their indexed sections only.
func pageHits(ctx context.Context, tx queryer, cache *indexCache, words []string, rankings map[string]*spaceRanking, stats map[string]spaceStats,
	spaces []string, listed map[string][]match, sectionsPer int) ([]PageHit, error) {
	docs := map[string][]int64{}
	for s, ms := range listed {
		for _, m := range ms {
			docs[s] = append(docs[s], m.doc)
		}
	}
	indexed, err := readDocs(ctx, tx, docs, stats, cache)
	if err != nil {
		return nil, err
	}
	var pageIDs []string
	for _, s := range spaces {
		for _, m := range listed[s] {
			if d, ok := indexed[s][m.doc]; ok {
				pageIDs = append(pageIDs, d.pageID)
			}
		}
	}
	if len(pageIDs) == 0 {
		return nil, nil
	}
	in, sin := placeholders(len(pageIDs)), placeholders(len(spaces))
	// A space's active revision is its main line's rows at its last seq:
	// found by (space, page) on the primary key (the unary + keeps SQLite,
	// which has no statistics, from scanning the space's alive rows
	// instead); not the rows a batched import wrote ahead (past the last
	// seq), and the rows it closed ahead (at that seq) still.
	last := `(SELECT COALESCE(MAX(r.seq), 0) FROM revisions r WHERE r.space_id = rp.space_id AND r.seq IS NOT NULL)`
	rows, err := tx.QueryContext(ctx, `SELECT rp.space_id, `+pageCols+` FROM main_pages rp
 JOIN page_versions v ON v.hash = rp.version WHERE rp.space_id IN (`+sin+`) AND rp.page_id IN (`+in+`)
 AND rp.from_seq <= `+last+` AND +rp.to_seq > `+last,
		append(anySlice(spaces), anySlice(pageIDs)...)...)
	byID := map[spacePage]*PageHit{}
	if err := eachRow(rows, err, func(sc interface{ Scan(...any) error }) error {
		var h PageHit
		p, err := scanPageWith(sc, &h.SpaceID)
		h.Page = p
		byID[spacePage{h.SpaceID, p.ID}] = &h
		return err
	}); err != nil {
		return nil, err
	}
	// A sharing duplicate reads its inherited pages from its sources.
	if err := sharedPageHits(ctx, tx, spaces, pageIDs, byID); err != nil {
		return nil, err
	}
	out := make([]PageHit, 0, len(pageIDs))
	for _, s := range spaces {
		var idf map[string]float64
		if r := rankings[s]; r != nil {
			idf = r.idf
		}
		for _, m := range listed[s] {
			d, ok := indexed[s][m.doc]
			if !ok {
				continue
			}
			if h := byID[spacePage{s, d.pageID}]; h != nil {
				h.Sections = sectionHits(words, idf, d.sections, sectionsPer)
				out = append(out, *h)
			}
		}
	}
	return out, nil
}

// spacePage names a page of a space (a duplicated space keeps its pages'
// ids).
type spacePage struct{ space, page string }
