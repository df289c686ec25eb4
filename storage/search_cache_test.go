package storage

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"sync"
	"testing"
)

// recordingQueryer records the SQL run through it.
type recordingQueryer struct {
	queryer
	mu  sync.Mutex
	sql []string
}

func (r *recordingQueryer) QueryContext(ctx context.Context, q string, args ...any) (*sql.Rows, error) {
	r.mu.Lock()
	r.sql = append(r.sql, q)
	r.mu.Unlock()
	return r.queryer.QueryContext(ctx, q, args...)
}

// ranked is what a search computes from the index: per space the count,
// the best docs with their scores, and those docs' pages and sections.
func ranked(t *testing.T, db *DB, cache *indexCache, spaces []string, q string) (string, []string) {
	t.Helper()
	ctx := context.Background()
	var out string
	var run []string
	err := db.ReadTx(ctx, func(tx queryer) error {
		rec := &recordingQueryer{queryer: tx}
		matches, _, stats, err := rankSpaces(ctx, rec, searchWords(q), spaces, 50, cache)
		if err != nil {
			return err
		}
		docs := map[string][]int64{}
		for s, m := range matches {
			for _, b := range m.best {
				docs[s] = append(docs[s], b.doc)
			}
		}
		indexed, err := readDocs(ctx, rec, docs, stats, cache)
		if err != nil {
			return err
		}
		for _, s := range spaces {
			m := matches[s]
			out += fmt.Sprintf("%s %d:", s, m.count)
			for _, b := range m.best {
				out += fmt.Sprintf(" %d/%.9f/%s/%v", b.doc, b.score, indexed[s][b.doc].pageID, indexed[s][b.doc].sections)
			}
			out += "\n"
		}
		run = rec.sql
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out, run
}

// TestSearchCacheFollowsChunkStamps indexes a space of three chunks and
// checks that searches served from the cache of index rows answer as
// searches with an empty cache, before and after a change of one chunk
// (a page edited, one removed, one added), that the change restamps only
// the chunks it wrote, and that afterwards only the changed chunk's rows
// are read again.
func TestSearchCacheFollowsChunkStamps(t *testing.T) {
	ctx := context.Background()
	db, sp := testSpace(t)
	set := map[string][]SearchSection{}
	for i := range 2*chunkDocs + 100 {
		body := fmt.Sprintf("common words of page %d, topic%d and tag%d", i, i%97, i%5)
		if i%1000 == 7 {
			body += " rare"
		}
		set[fmt.Sprintf("p%05d", i)] = []SearchSection{{ID: "s", Title: fmt.Sprintf("Page %d", i), Body: body}}
	}
	if err := db.Write(ctx, func(tx *Tx) error { return updateIndex(tx, sp.ID, nil, set) }); err != nil {
		t.Fatal(err)
	}
	queries := []string{"common", "rare", "topic1", "tag3 common", "rare page", "zzz", "page 12"}
	check := func(when string) map[string][]string {
		runs := map[string][]string{}
		for _, q := range queries {
			fresh, _ := ranked(t, db, &indexCache{}, []string{sp.ID}, q)
			cached, run := ranked(t, db, &db.searchRows, []string{sp.ID}, q)
			if cached != fresh {
				t.Fatalf("%s, %q: from the cache\n%s\nfrom the database\n%s", when, q, cached, fresh)
			}
			runs[q] = run
		}
		return runs
	}
	check("first")
	// Two listed pages of chunk 1, read once.
	if _, err := readDocsOnce(db, sp.ID, 4500, 5001); err != nil {
		t.Fatal(err)
	}
	// Everything is cached now: only the stats are read.
	for q, run := range check("again") {
		if len(run) != 1 || !strings.Contains(run[0], "search_spaces") {
			t.Fatalf("%q read %q with every chunk cached", q, run)
		}
	}
	before, err := readSpaceStats(ctx, db.read, sp.ID)
	if err != nil {
		t.Fatal(err)
	}
	// Chunk 1: page 5000 gets other words and page 4100 goes; chunk 2: a
	// new page comes (doc 8292).
	edit := map[string][]SearchSection{
		"p05000": {{ID: "s", Title: "Edited", Body: "rare and new words, topic1"}},
		"new":    {{ID: "s", Title: "New", Body: "common rare topic1"}},
	}
	if err := db.Write(ctx, func(tx *Tx) error { return updateIndex(tx, sp.ID, []string{"p04100"}, edit) }); err != nil {
		t.Fatal(err)
	}
	after, err := readSpaceStats(ctx, db.read, sp.ID)
	if err != nil {
		t.Fatal(err)
	}
	if chunkStamp(after.stamps, 0) != chunkStamp(before.stamps, 0) || chunkStamp(after.stamps, 0) == 0 {
		t.Fatalf("chunk 0 restamped by a change of chunks 1 and 2")
	}
	for _, ch := range []int64{1, 2} {
		if chunkStamp(after.stamps, ch) == chunkStamp(before.stamps, ch) {
			t.Fatalf("chunk %d keeps its stamp after a change", ch)
		}
	}
	for g := range int64(len(after.stamps) / 8) {
		changed := groupStamp(after.stamps, g) != groupStamp(before.stamps, g)
		if want := g == 4100>>groupBits || g == 5000>>groupBits || g == 8292>>groupBits; changed != want {
			t.Fatalf("group %d: restamped %v, want %v", g, changed, want)
		}
	}
	// A listed page of an unchanged group of a changed chunk comes from
	// the cache; one of the changed group is read again.
	for doc, reads := range map[int64]int{4500: 0, 5001: 1} {
		err := db.ReadTx(ctx, func(tx queryer) error {
			rec := &recordingQueryer{queryer: tx}
			got, err := readDocs(ctx, rec, map[string][]int64{sp.ID: {doc}}, map[string]spaceStats{sp.ID: after}, &db.searchRows)
			if err == nil && (len(rec.sql) != reads || got[sp.ID][doc].pageID != fmt.Sprintf("p%05d", doc)) {
				err = fmt.Errorf("doc %d: %d reads (want %d), page %q", doc, len(rec.sql), reads, got[sp.ID][doc].pageID)
			}
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	runs := check("after the change")
	for q, run := range runs {
		for _, s := range run {
			if strings.Contains(s, "search_postings") && !strings.Contains(s, "chunk IN") {
				t.Fatalf("%q read every chunk's postings after a change of two: %s", q, s)
			}
		}
	}
	if got, _ := ranked(t, db, &db.searchRows, []string{sp.ID}, "rare edited"); !strings.Contains(got, " 1:") {
		t.Fatalf("the edited page is not found by its new words: %s", got)
	}
	// The space goes: nothing is served from the cache.
	if err := db.Write(ctx, func(tx *Tx) error { return dropSearchSpace(tx, sp.ID) }); err != nil {
		t.Fatal(err)
	}
	if got, _ := ranked(t, db, &db.searchRows, []string{sp.ID}, "common"); got != sp.ID+" 0:\n" {
		t.Fatalf("a dropped index still answers: %s", got)
	}
}

// TestSearchCacheBound: the cache evicts the least recently used chunks
// past its bound, and never keeps rows under an unknown stamp.
func TestSearchCacheBound(t *testing.T) {
	c := &indexCache{max: 10_000}
	rows := []termDocs{{term: "t", docs: make([]byte, 1000)}}
	for ch := range int64(40) {
		c.putWords(chunkKey{space: "s", chunk: ch}, uint64(ch+1), "=t", rows)
		if ch == 5 {
			c.words(chunkKey{space: "s", chunk: 0}, 1, "=t") // used: stays
		}
	}
	if c.size > c.max {
		t.Fatalf("size %d over the bound %d", c.size, c.max)
	}
	if _, ok := c.words(chunkKey{space: "s", chunk: 39}, 40, "=t"); !ok {
		t.Fatal("the last chunk put was evicted")
	}
	if _, ok := c.words(chunkKey{space: "s", chunk: 1}, 2, "=t"); ok {
		t.Fatal("the least recently used chunk stayed")
	}
	if _, ok := c.words(chunkKey{space: "s", chunk: 39}, 41, "=t"); ok {
		t.Fatal("served under another stamp")
	}
	c.putWords(chunkKey{space: "s", chunk: 100}, 0, "=t", rows)
	if _, ok := c.words(chunkKey{space: "s", chunk: 100}, 0, "=t"); ok {
		t.Fatal("kept under stamp 0")
	}
	n := 0
	for e := c.order.Front(); e != nil; e = e.Next() {
		n += e.Value.(*chunkEntry).size
	}
	if n != c.size || len(c.entries) != c.order.Len() {
		t.Fatalf("accounting: %d bytes listed, %d counted; %d entries, %d listed", n, c.size, len(c.entries), c.order.Len())
	}
	if s := restamp(nil, 2, nil); len(s) != 24 || groupStamp(s, 2) == 0 || groupStamp(s, 3) != 0 || chunkStamp(s, 0) == 0 || chunkStamp(s, 1) != 0 {
		t.Fatalf("restamp of groups 0..2: %x", s)
	}
}

func readDocsOnce(db *DB, space string, docs ...int64) (map[string]map[int64]indexedDoc, error) {
	ctx := context.Background()
	var out map[string]map[int64]indexedDoc
	err := db.ReadTx(ctx, func(tx queryer) error {
		stats, err := readSpacesStats(ctx, tx, []string{space})
		if err == nil {
			out, err = readDocs(ctx, tx, map[string][]int64{space: docs}, stats, &db.searchRows)
		}
		return err
	})
	return out, err
}
