package storage

import (
	"context"
	"fmt"
	"math/rand"
	"reflect"
	"sort"
	"strings"
	"testing"
)

// retireIndex is an index built in memory: its posting rows (terms sorted,
// then chunks) and chunk rows, with the stats a reader would read.
type retireIndex struct {
	postings map[termChunk][]byte
	lengths  map[int64][]byte
	stats    spaceStats
}

func buildRetireIndex(t *testing.T, docs map[int64][]SearchSection, live map[int64]bool) retireIndex {
	t.Helper()
	c := newIndexChange("s")
	var next int64
	for doc, sections := range docs {
		c.add(doc, sections)
		next = max(next, doc+1)
	}
	ix := retireIndex{postings: map[termChunk][]byte{}, lengths: map[int64][]byte{}, stats: spaceStats{next: next}}
	for k, e := range c.postings {
		if p := e.apply(nil); len(p) > 0 {
			ix.postings[k] = encodePostings(p)
		}
	}
	for ch, e := range c.chunks {
		ix.lengths[ch] = encodeLengths(e.apply(nil))
	}
	for doc, sections := range docs {
		if live[doc] {
			_, n := pageTerms(sections)
			ix.stats.docs++
			ix.stats.length += int64(n)
		}
	}
	return ix
}

// rows is what a query reads: for each word the rows of the terms it
// serves (the last word as a prefix), in term then chunk order.
func (ix retireIndex) rows(words []string) []postingRow {
	keys := make([]termChunk, 0, len(ix.postings))
	for k := range ix.postings {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		if keys[i].term != keys[j].term {
			return keys[i].term < keys[j].term
		}
		return keys[i].chunk < keys[j].chunk
	})
	var out []postingRow
	for w, word := range words {
		for _, k := range keys {
			if k.term == word || (w == len(words)-1 && strings.HasPrefix(k.term, word)) {
				out = append(out, postingRow{word: w, term: k.term, chunk: k.chunk, docs: ix.postings[k]})
			}
		}
	}
	return out
}

func (ix retireIndex) rank(t *testing.T, words []string, retired retiredDocs) ([]match, map[string]float64) {
	t.Helper()
	s, err := newSpaceRankingRetired(words, ix.stats, ix.rows(words), retired)
	if err != nil {
		t.Fatal(err)
	}
	m, err := s.rank(s.chunks(), ix.lengths)
	if err != nil {
		t.Fatal(err)
	}
	return bestOf(m, len(m)), s.idf
}

// TestRetiredDocsRankLikeRemovedDocs: an index still holding the old docs
// of changed pages (beside their new docs past them), with those old docs
// retired, ranks every query as the index without them: the same matches,
// scores (bit for bit) and idf of every term that keeps a doc.
func TestRetiredDocsRankLikeRemovedDocs(t *testing.T) {
	vocab := []string{"alpha", "alpine", "beta", "betting", "gamma", "delta", "omega"}
	queries := [][]string{{"alpha"}, {"beta"}, {"al"}, {"gamma", "bet"}, {"delta", "alpha"}, {"omega", "gamma", "a"}}
	for seed := int64(1); seed <= 20; seed++ {
		rnd := rand.New(rand.NewSource(seed))
		page := func() []SearchSection {
			var title, body []string
			for range rnd.Intn(3) {
				title = append(title, vocab[rnd.Intn(len(vocab))])
			}
			for range 1 + rnd.Intn(12) {
				body = append(body, vocab[rnd.Intn(len(vocab))])
			}
			return []SearchSection{{Title: strings.Join(title, " "), Body: strings.Join(body, " ")}}
		}
		// Old docs spread over two chunks, new docs of the changed pages
		// in a chunk past them (as a stage reserves them).
		withOld := map[int64][]SearchSection{}
		without := map[int64][]SearchSection{}
		liveA, liveB := map[int64]bool{}, map[int64]bool{}
		retired := retiredDocs{}
		next := int64(3 * chunkDocs)
		for i := range int64(300) {
			doc := i * 23
			sections := page()
			withOld[doc] = sections
			if rnd.Intn(3) > 0 {
				without[doc] = sections
				liveA[doc], liveB[doc] = true, true
				continue
			}
			retired.retire(doc)
			changed := page()
			withOld[next], without[next] = changed, changed
			liveA[next], liveB[next] = true, true
			next++
		}
		a := buildRetireIndex(t, withOld, liveA)
		b := buildRetireIndex(t, without, liveB)
		if a.stats.docs != b.stats.docs || a.stats.length != b.stats.length {
			t.Fatalf("seed %d: stats %+v and %+v", seed, a.stats, b.stats)
		}
		for _, q := range queries {
			gotM, gotIDF := a.rank(t, q, retired)
			wantM, wantIDF := b.rank(t, q, nil)
			if !reflect.DeepEqual(gotM, wantM) {
				t.Fatalf("seed %d, query %v: matches with retired docs\n%v\nwithout them\n%v", seed, q, gotM, wantM)
			}
			for term, idf := range wantIDF {
				if gotIDF[term] != idf {
					t.Fatalf("seed %d, query %v: idf of %q %v, want %v", seed, q, term, gotIDF[term], idf)
				}
			}
			// Not skipping them would be seen: the old docs match too.
			if stale, _ := a.rank(t, q, nil); len(wantM) > 0 && reflect.DeepEqual(stale, wantM) {
				t.Fatalf("seed %d, query %v: the retired docs change nothing, the test tells nothing", seed, q)
			}
		}
	}
}

// retiredSpaces is a database with two spaces indexing the same 1,200
// pages: in gone some of them were removed, in kept their docs are
// retired (their rows still there, the stats without them).
func retiredSpaces(t *testing.T) (db *DB, kept, gone string, leaving []string) {
	t.Helper()
	ctx := context.Background()
	db, spaces := twoSpaces(t)
	kept, gone = spaces[0], spaces[1]
	set := map[string][]SearchSection{}
	for i := range 1200 {
		id := fmt.Sprintf("p%04d", i)
		set[id] = []SearchSection{{ID: "s", Title: fmt.Sprintf("Page %d", i), Body: fmt.Sprintf("common words of page %d, topic%d and tag%d", i, i%97, i%5)}}
		if i%3 == 1 || i%97 == 4 {
			leaving = append(leaving, id)
		}
	}
	if err := db.Write(ctx, func(tx *Tx) error {
		if err := updateIndex(tx, kept, nil, set); err != nil {
			return err
		}
		if err := updateIndex(tx, gone, nil, set); err != nil {
			return err
		}
		if err := updateIndex(tx, gone, leaving, nil); err != nil {
			return err
		}
		stats, err := readSpaceStats(tx.ctx, tx, kept)
		if err != nil {
			return err
		}
		old, err := readIndexedPages(tx.ctx, tx, kept, stats, leaving)
		if err != nil {
			return err
		}
		retired := retiredDocs{}
		for _, p := range old {
			_, n := pageTerms(p.sections)
			retired.retire(p.doc)
			stats.docs--
			stats.length -= int64(n)
		}
		if err := writeSpaceStats(tx, kept, stats); err != nil {
			return err
		}
		_, err = tx.exec(`UPDATE search_spaces SET retired = ? WHERE space_id = ?`, encodeRetired(retired), kept)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	return db, kept, gone, leaving
}

// retiredAndDuplicate is retiredSpaces with a duplicate of kept, made
// while its docs are retired, checked to search as gone does, like kept.
func retiredAndDuplicate(t *testing.T) (db *DB, kept, gone, dup string, leaving []string) {
	t.Helper()
	db, kept, gone, leaving = retiredSpaces(t)
	dup, err := db.DuplicateSpace(context.Background(), kept, "copy")
	if err != nil {
		t.Fatal(err)
	}
	sameSearches(t, db, gone, kept, dup)
	return db, kept, gone, dup, leaving
}

// TestRetiredDocsHiddenFromSearch, on the engine: a space whose stats row
// retires some pages' docs (their rows still in the index, the stats
// without them, as a publishing write would leave it) searches as a space
// from which those pages were removed, and so does its duplicate (it reads
// the same chunks and takes the set with the stats row).
func TestRetiredDocsHiddenFromSearch(t *testing.T) {
	db, _, gone, _, leaving := retiredAndDuplicate(t)
	if all, _ := ranked(t, db, &indexCache{}, []string{gone}, "common"); !strings.HasPrefix(all, fmt.Sprintf("%s %d:", gone, 1200-len(leaving))) {
		t.Fatalf("the search counts other than the pages left: %.200s", all)
	}
}

// sameSearches checks that searches in spaces rank and count as in want.
func sameSearches(t *testing.T, db *DB, want string, spaces ...string) {
	t.Helper()
	of := func(space, q string) string {
		out, _ := ranked(t, db, &db.searchRows, []string{space}, q)
		return strings.TrimPrefix(out, space)
	}
	for _, q := range []string{"common", "topic4", "tag1 common", "page 12", "page 1", "top", "zzz"} {
		w := of(want, q)
		for _, space := range spaces {
			if got := of(space, q); got != w {
				t.Fatalf("%q in %s, with retired docs:\n%.2000s\nwith the pages removed:\n%.2000s", q, space, got, w)
			}
		}
	}
}

// TestSweepRetiredLeavesTheRemovedIndex: sweeping a space's retired docs,
// a bounded number per write, leaves at every step the searches of a space
// without them (through the cache of index rows: the sweep restamps what
// it rewrites), and at the end the very rows of that space; a duplicate
// made before, which read those chunks of it, searches the same
// throughout (it took its copy first) and its own set is swept after, by
// the periodic sweep, which finds it.
func TestSweepRetiredLeavesTheRemovedIndex(t *testing.T) {
	ctx := context.Background()
	db, kept, gone, dup, leaving := retiredAndDuplicate(t)
	if indexRows(t, db, kept) == indexRows(t, db, gone) {
		t.Fatal("the retired docs left no rows to sweep")
	}
	const per = 150
	writes := 0
	for left := -1; left != 0; writes++ {
		if err := db.Write(ctx, func(tx *Tx) (err error) {
			left, err = sweepRetired(tx, kept, per)
			return err
		}); err != nil {
			t.Fatal(err)
		}
		sameSearches(t, db, gone, kept, dup)
	}
	if want := (len(leaving) + per - 1) / per; writes != want {
		t.Fatalf("%d sweeping writes for %d docs, want %d", writes, len(leaving), want)
	}
	if got, want := indexRows(t, db, kept), indexRows(t, db, gone); got != want {
		t.Fatalf("after the sweep:\n%.3000s\nwithout the pages:\n%.3000s", got, want)
	}
	// The duplicate sweeps its own set, from its own copy of the chunks:
	// the periodic sweep finds it (SweepRetiredDocs), then none.
	if n, err := db.SweepRetiredDocs(ctx, 10); err != nil || n != 1 {
		t.Fatalf("the periodic sweep swept %d spaces (%v), want the duplicate", n, err)
	}
	if n, err := db.SweepRetiredDocs(ctx, 10); err != nil || n != 0 {
		t.Fatalf("the periodic sweep swept %d spaces again (%v)", n, err)
	}
	sameSearches(t, db, gone, dup)
	for _, space := range []string{kept, dup} {
		stats, err := readSpaceStats(ctx, db.r(), space)
		if err != nil || stats.retired != nil {
			t.Fatalf("%s: retired docs left: %v %v", space, stats.retired, err)
		}
	}
}
