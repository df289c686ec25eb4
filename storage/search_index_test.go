package storage

import (
	"context"
	"fmt"
	"math"
	"math/rand"
	"os"
	"sort"
	"strings"
	"testing"
)

// sectionsAnalyzer reads a test page's sections from its body: sections
// separated by "\n;\n", each "title|body".
type sectionsAnalyzer struct{}

func (sectionsAnalyzer) Links(*TreePage, *Tree) []PageLink { return nil }
func (sectionsAnalyzer) Sections(p *TreePage) []SearchSection {
	var out []SearchSection
	for i, s := range strings.Split(p.Markdown, "\n;\n") {
		title, body, _ := strings.Cut(s, "|")
		out = append(out, SearchSection{ID: fmt.Sprintf("s%d", i), Title: title, Body: body})
	}
	return out
}

var searchVocabulary = strings.Fields("alpha alphabet alps beta betamax gamma delta café cafe Cafeteria zeta zebra common rare x1 x10 x100 Ünïcode naïve Straße")

func randomText(r *rand.Rand, n int) string {
	w := make([]string, n)
	for i := range w {
		w[i] = searchVocabulary[r.Intn(len(searchVocabulary))]
		if r.Intn(4) == 0 {
			w[i] = strings.ToUpper(w[i])
		}
	}
	return strings.Join(w, []string{" ", ", ", ". ", " - "}[r.Intn(4)])
}

func randomSections(r *rand.Rand) string {
	var s []string
	for range 1 + r.Intn(3) {
		s = append(s, randomText(r, r.Intn(3))+"|"+randomText(r, r.Intn(30)))
	}
	return strings.Join(s, "\n;\n")
}

// searchModel is what a space's index should hold: indexed pages and
// their sections.
type searchModel map[string][]SearchSection

// reference ranks the model's pages for words by brute force: every page
// holding every word (the last as a prefix), BM25 over the model's stats.
func (m searchModel) reference(words []string) []scoredPage {
	type doc struct {
		tf  map[string]int
		len int
	}
	docs := map[string]doc{}
	total := 0
	df := map[string]int{}
	for id, s := range m {
		tf, n := pageTerms(s)
		docs[id] = doc{tf, n}
		total += n
		for t := range tf {
			df[t]++
		}
	}
	avg := 1.0
	if len(docs) > 0 && total > 0 {
		avg = float64(total) / float64(len(docs))
	}
	var out []scoredPage
	for id, d := range docs {
		score, ok := 0.0, true
		for i, w := range words {
			hit := false
			for t, f := range d.tf {
				if t == w || (i == len(words)-1 && strings.HasPrefix(t, w)) {
					hit = true
					idf := math.Log(1 + (float64(len(docs))-float64(df[t])+0.5)/(float64(df[t])+0.5))
					score += idf * float64(f) * (bm25K1 + 1) / (float64(f) + bm25K1*(1-bm25B+bm25B*float64(d.len)/avg))
				}
			}
			ok = ok && hit
		}
		if ok {
			out = append(out, scoredPage{pageID: id, score: score})
		}
	}
	sort.Slice(out, func(i, j int) bool { return better(out[i], out[j]) })
	return out
}

// checkRanking compares a result (page ids) to the reference: the same
// pages, in the reference's order up to float rounding on near ties.
func checkRanking(t *testing.T, what string, got []string, count int, want []scoredPage, offset int) {
	t.Helper()
	score := map[string]float64{}
	for _, p := range want {
		score[p.pageID] = p.score
	}
	if count != len(want) {
		t.Fatalf("%s: count %d, want %d", what, count, len(want))
	}
	wantPage := want[min(offset, len(want)):]
	if len(got) > len(wantPage) {
		t.Fatalf("%s: %d hits, want at most %d", what, len(got), len(wantPage))
	}
	for i, id := range got {
		s, ok := score[id]
		if !ok {
			t.Fatalf("%s: page %s does not match", what, id)
		}
		if w := wantPage[i]; id != w.pageID && math.Abs(s-w.score) > 1e-9 {
			t.Fatalf("%s: hit %d is %s (score %v), want %s (score %v)", what, offset+i, id, s, w.pageID, w.score)
		}
	}
}

func randomQuery(r *rand.Rand) []string {
	var words []string
	for range 1 + r.Intn(3) {
		words = append(words, foldTerm(searchVocabulary[r.Intn(len(searchVocabulary))]))
	}
	last := words[len(words)-1]
	if cut := r.Intn(len(last)); cut > 0 && r.Intn(2) == 0 { // a prefix, cut on a byte that starts a rune
		for cut > 0 && last[cut]&0xc0 == 0x80 {
			cut--
		}
		if cut > 0 {
			words[len(words)-1] = last[:cut]
		}
	}
	return words
}

// indexDump is what a space's index says per page: its term frequencies
// and length, from the posting and chunk rows; and the space's stats.
func indexDump(t *testing.T, db *DB, spaceID string) (map[string]map[string]uint32, map[string]uint32, spaceStats) {
	t.Helper()
	ctx := context.Background()
	byDoc := map[int64]string{}
	lens := map[string]uint32{}
	rows, err := db.read.QueryContext(ctx, `SELECT doc, page_id FROM search_pages WHERE space_id = ?`, spaceID)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var doc int64
		var id string
		if err := rows.Scan(&doc, &id); err != nil {
			t.Fatal(err)
		}
		byDoc[doc] = id
	}
	rows.Close()
	rows, err = db.read.QueryContext(ctx, `SELECT chunk, lens FROM search_chunks WHERE space_id = ?`, spaceID)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var ch int64
		var b []byte
		if err := rows.Scan(&ch, &b); err != nil {
			t.Fatal(err)
		}
		docs, err := decodeLengths(b)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range docs {
			id, ok := byDoc[ch<<chunkBits|int64(d.off)]
			if !ok {
				t.Fatalf("chunk %d: doc %d has no page", ch, d.off)
			}
			lens[id] = d.weight
		}
	}
	rows.Close()
	tf := map[string]map[string]uint32{}
	rows, err = db.read.QueryContext(ctx, `SELECT term, chunk, docs FROM search_postings WHERE space_id = ?`, spaceID)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var term string
		var ch int64
		var b []byte
		if err := rows.Scan(&term, &ch, &b); err != nil {
			t.Fatal(err)
		}
		docs, err := decodePostings(b)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range docs {
			id, ok := byDoc[ch<<chunkBits|int64(d.off)]
			if !ok {
				t.Fatalf("term %q: doc %d of chunk %d has no page", term, d.off, ch)
			}
			if lens[id] == 0 {
				t.Fatalf("term %q: page %s has no length", term, id)
			}
			if tf[id] == nil {
				tf[id] = map[string]uint32{}
			}
			tf[id][term] = d.weight
		}
	}
	rows.Close()
	stats, err := readSpaceStats(ctx, db.read, spaceID)
	if err != nil {
		t.Fatal(err)
	}
	return tf, lens, stats
}

func sameDump(t *testing.T, what string, db *DB, a, b string) {
	t.Helper()
	tfA, lenA, stA := indexDump(t, db, a)
	tfB, lenB, stB := indexDump(t, db, b)
	if fmt.Sprint(tfA) != fmt.Sprint(tfB) || fmt.Sprint(lenA) != fmt.Sprint(lenB) || stA.docs != stB.docs || stA.length != stB.length {
		t.Fatalf("%s: indexes differ:\n%v %v %+v\n%v %v %+v", what, tfA, lenA, stA, tfB, lenB, stB)
	}
}

// TestSearchIndexAgainstBruteForce writes random revisions of a space
// (pages added, edited, moved, made noIndex, deleted, and a change request
// merged) and after each compares searches (ranking, count, pages of
// results) with a brute-force reference; then that the index built
// incrementally equals one rebuilt at once, and one backfilled from the
// old engines' sections at open.
func TestSearchIndexAgainstBruteForce(t *testing.T) {
	ctx := context.Background()
	target := testTarget(t)
	db, err := Open(target, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { db.Close() }()
	b, err := db.CreateOrganizationWithAdmin(ctx, "Org", "a@example.com", "A", "h1")
	if err != nil {
		t.Fatal(err)
	}
	sp := Space{OrganizationID: b.Organization.ID, Title: "S", Visibility: "private", EditMode: "live"}
	if err := db.CreateSpace(ctx, &sp); err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewSource(15))
	model := searchModel{}
	bodies := map[string]string{}
	edit := func(tr *Tree) error {
		var all []*TreePage
		tr.Walk(func(p, _ *TreePage) bool { all = append(all, p); return true })
		for _, p := range all {
			switch r.Intn(8) {
			case 0: // edit
				bodies[p.ID] = randomSections(r)
				p.SetBody(bodies[p.ID])
			case 1: // noIndex flips
				p.Meta.NoIndex = !p.Meta.NoIndex
				p.Dirty = true
			}
		}
		// Delete a few top-level pages (with their children), move one.
		for range r.Intn(3) {
			if len(tr.Pages) > 0 {
				i := r.Intn(len(tr.Pages))
				tr.Pages = append(tr.Pages[:i], tr.Pages[i+1:]...)
			}
		}
		if len(tr.Pages) > 1 && r.Intn(2) == 0 {
			p := tr.Pages[0]
			tr.Pages = tr.Pages[1:]
			tr.Pages[len(tr.Pages)-1].Children = append(tr.Pages[len(tr.Pages)-1].Children, p)
			tr.Pages[len(tr.Pages)-1].Dirty = true
		}
		for range 5 + r.Intn(40) {
			p := &TreePage{ContentPage: ContentPage{ID: NewID(), Type: "document", Title: "P"}}
			p.Slug = p.ID
			bodies[p.ID] = randomSections(r)
			p.SetBody(bodies[p.ID])
			tr.Pages = append(tr.Pages, p)
		}
		return nil
	}
	modelOf := func(revision string) searchModel {
		tr, err := db.RevisionTree(ctx, revision)
		if err != nil {
			t.Fatal(err)
		}
		m := searchModel{}
		tr.Walk(func(p, _ *TreePage) bool {
			if p.Type == "document" && !p.Meta.NoIndex {
				m[p.ID] = sectionsAnalyzer{}.Sections(&TreePage{ContentPage: ContentPage{Markdown: bodies[p.ID]}})
			}
			return true
		})
		return m
	}
	check := func(round int) {
		for q := range 12 {
			words := randomQuery(r)
			text := strings.Join(words, " ")
			want := model.reference(words)
			hits, n, err := db.SearchPages(ctx, sp.ID, text, 0, 1000)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, h := range hits {
				got = append(got, h.Page.ID)
				if len(h.Sections) == 0 || len(h.Sections) > 5 {
					t.Fatalf("round %d %q: page %s with %d sections", round, text, h.Page.ID, len(h.Sections))
				}
			}
			checkRanking(t, fmt.Sprintf("round %d query %d %q", round, q, text), got, n, want, 0)
			off, lim := r.Intn(10), 1+r.Intn(5)
			hits, n, err = db.SearchPages(ctx, sp.ID, text, off, lim)
			if err != nil {
				t.Fatal(err)
			}
			got = got[:0]
			for _, h := range hits {
				got = append(got, h.Page.ID)
			}
			if len(got) != min(lim, max(0, len(want)-off)) {
				t.Fatalf("round %d %q page (%d, %d): %d hits of %d", round, text, off, lim, len(got), len(want))
			}
			checkRanking(t, fmt.Sprintf("round %d query %d %q page", round, q, text), got, n, want, off)
		}
	}
	for round := range 8 {
		rev, err := db.CreateRevision(ctx, RevisionChange{SpaceID: sp.ID, Activate: true, Analyzer: sectionsAnalyzer{}, Edit: edit})
		if err != nil {
			t.Fatal(err)
		}
		model = modelOf(rev)
		check(round)
	}
	// A change request edited and merged.
	cr, err := db.CreateChangeRequest(ctx, NewID(), sp.ID, b.User.ID, "cr", nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.CreateRevision(ctx, RevisionChange{SpaceID: sp.ID, ChangeRequest: cr.ID, Author: b.User.ID, Analyzer: sectionsAnalyzer{}, Edit: edit}); err != nil {
		t.Fatal(err)
	}
	rev, err := db.MergeChangeRequest(ctx, MergeChange{SpaceID: sp.ID, ChangeRequest: cr.ID, Analyzer: sectionsAnalyzer{},
		Merge: func(_, _, branch *Tree) (*Tree, error) { return branch, nil }})
	if err != nil {
		t.Fatal(err)
	}
	model = modelOf(rev)
	check(100)
	if len(model) < 20 {
		t.Fatalf("only %d pages indexed: the test exercises little", len(model))
	}

	// Incremental equals rebuilt: the model indexed at once under another
	// space id.
	if err := db.Write(ctx, func(tx *Tx) error { return updateIndex(tx, "rebuilt", nil, model) }); err != nil {
		t.Fatal(err)
	}
	sameDump(t, "incremental against rebuilt", db, sp.ID, "rebuilt")

	// Backfill: the model's sections as migration 0010 leaves the old
	// engines' ones, the index emptied; the next open builds it again.
	err = db.Write(ctx, func(tx *Tx) error {
		if _, err := tx.exec(`CREATE TABLE search_legacy (space_id TEXT, page_id TEXT, section_id TEXT, ordinal INTEGER, title TEXT, body TEXT)`); err != nil {
			return err
		}
		var rows [][]any
		for id, ss := range model {
			for i, s := range ss {
				rows = append(rows, []any{sp.ID, id, s.ID, i, s.Title, s.Body})
			}
		}
		if err := insertBatch(tx, `INSERT INTO search_legacy (space_id, page_id, section_id, ordinal, title, body) VALUES `, 6, rows); err != nil {
			return err
		}
		if _, err := tx.exec(`INSERT INTO search_backfill (pending) VALUES (1)`); err != nil {
			return err
		}
		return dropSearchSpace(tx, sp.ID)
	})
	if err != nil {
		t.Fatal(err)
	}
	db.Close()
	if db, err = Open(target, Options{}); err != nil {
		t.Fatal(err)
	}
	sameDump(t, "backfilled against rebuilt", db, sp.ID, "rebuilt")
	check(200)
	var left int
	if err := db.read.QueryRowContext(ctx, `SELECT COUNT(*) FROM search_backfill`).Scan(&left); err != nil || left != 0 {
		t.Fatalf("backfill marker left: %d (%v)", left, err)
	}
}

// TestSearchSpacesAgainstBruteForce searches an organization of many
// spaces (more than readPostings reads in one query) and compares the
// spaces' ranking, count and pages with the reference.
func TestSearchSpacesAgainstBruteForce(t *testing.T) {
	ctx := context.Background()
	db, err := Open(testTarget(t), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	b, err := db.CreateOrganizationWithAdmin(ctx, "Org", "a@example.com", "A", "h1")
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewSource(16))
	models := map[string]searchModel{}
	var spaces []string
	for range searchBatch/10 + 20 {
		sp := Space{OrganizationID: b.Organization.ID, Title: "S", Visibility: "private", EditMode: "live"}
		if err := db.CreateSpace(ctx, &sp); err != nil {
			t.Fatal(err)
		}
		spaces = append(spaces, sp.ID)
		m := searchModel{}
		_, err := db.CreateRevision(ctx, RevisionChange{SpaceID: sp.ID, Activate: true, Analyzer: sectionsAnalyzer{}, Edit: func(tr *Tree) error {
			for range 1 + r.Intn(4) {
				p := &TreePage{ContentPage: ContentPage{ID: NewID(), Type: "document", Title: "P"}}
				p.Slug = p.ID
				p.SetBody(randomSections(r))
				m[p.ID] = sectionsAnalyzer{}.Sections(p)
				tr.Pages = append(tr.Pages, p)
			}
			return nil
		}})
		if err != nil {
			t.Fatal(err)
		}
		models[sp.ID] = m
	}
	for q := range 20 {
		words := randomQuery(r)
		text := strings.Join(words, " ")
		scope := spaces
		if q%2 == 1 {
			scope = spaces[:10] // a few spaces: one query
		}
		var want []scoredPage // per space: id and best score
		wantPages := map[string][]scoredPage{}
		for _, s := range scope {
			if ref := models[s].reference(words); len(ref) > 0 {
				want = append(want, scoredPage{pageID: s, score: ref[0].score})
				wantPages[s] = ref
			}
		}
		sort.Slice(want, func(i, j int) bool { return better(want[i], want[j]) })
		hits, n, err := db.SearchSpaces(ctx, scope, text, 0, 1000, 2)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, h := range hits {
			got = append(got, h.SpaceID)
			var pages []string
			for _, p := range h.Pages {
				pages = append(pages, p.Page.ID)
				if len(p.Sections) == 0 || len(p.Sections) > 3 {
					t.Fatalf("%q: page with %d sections", text, len(p.Sections))
				}
			}
			checkRanking(t, fmt.Sprintf("query %q, pages of space %s", text, h.SpaceID), pages, len(wantPages[h.SpaceID]), wantPages[h.SpaceID], 0)
			if len(pages) != min(2, len(wantPages[h.SpaceID])) {
				t.Fatalf("%q: space %s with %d pages", text, h.SpaceID, len(pages))
			}
		}
		checkRanking(t, fmt.Sprintf("query %q spaces", text), got, n, want, 0)
	}
}

// FuzzPostingCodec decodes any bytes as a posting row and as a chunk row
// without panicking, and encodes any docs so that they decode back the
// same.
func FuzzPostingCodec(f *testing.F) {
	f.Add([]byte{2, 0, 3, 5, 1}, uint16(7))
	f.Add(encodePostings([]posting{{0, 1}, {1023, 9}}), uint16(1))
	f.Add(encodeLengths([]posting{{0, 1}, {3, 70000}}), uint16(300))
	f.Add([]byte{0xff, 0xff, 0xff}, uint16(0))
	f.Fuzz(func(t *testing.T, b []byte, seed uint16) {
		if docs, err := decodePostings(b); err == nil {
			for i := range docs {
				if docs[i].off >= chunkDocs || i > 0 && docs[i].off <= docs[i-1].off {
					t.Fatalf("decoded offsets out of order: %v", docs)
				}
			}
		}
		if docs, err := decodeLengths(b); err == nil {
			for _, d := range docs {
				if d.off >= chunkDocs || d.weight == 0 {
					t.Fatalf("decoded lengths: %v", docs)
				}
			}
		}
		// A row from the bytes: sorted distinct offsets, any weights.
		seen := map[uint32]bool{}
		var docs []posting
		for i := 0; i+2 < len(b); i += 3 {
			off := (uint32(b[i])<<8 | uint32(b[i+1])) % chunkDocs
			if seen[off] {
				continue
			}
			seen[off] = true
			docs = append(docs, posting{off: off, weight: 1 + uint32(b[i+2])*uint32(seed)})
		}
		sort.Slice(docs, func(i, j int) bool { return docs[i].off < docs[j].off })
		back, err := decodePostings(encodePostings(docs))
		if err != nil || len(docs) > 0 && fmt.Sprint(back) != fmt.Sprint(docs) {
			t.Fatalf("postings round trip of %v: %v (%v)", docs, back, err)
		}
		lens, err := decodeLengths(encodeLengths(docs))
		for i := range docs {
			docs[i].weight = min(docs[i].weight, maxLength)
		}
		if err != nil || len(docs) > 0 && fmt.Sprint(lens) != fmt.Sprint(docs) {
			t.Fatalf("lengths round trip of %v: %v (%v)", docs, lens, err)
		}
	})
}

// searchBenchDB opens the seeded database the search benchmarks name
// (DOCSAPI_SEARCH_BENCH_DB, closed when the benchmark ends) and its search
// space (DOCSAPI_SEARCH_BENCH_SPACE); skipped without them.
func searchBenchDB(b *testing.B) (*DB, string) {
	b.Helper()
	path, space := os.Getenv("DOCSAPI_SEARCH_BENCH_DB"), os.Getenv("DOCSAPI_SEARCH_BENCH_SPACE")
	if path == "" || space == "" {
		b.Skip("DOCSAPI_SEARCH_BENCH_DB and DOCSAPI_SEARCH_BENCH_SPACE name a seeded database")
	}
	db, err := Open(path, Options{})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { db.Close() })
	return db, space
}

// BenchmarkSearchCold ranks searches without the answer cache (with the
// cache of index rows, search_cache.go) on a seeded database (bench/seed --pages): DOCSAPI_SEARCH_BENCH_DB names it and
// DOCSAPI_SEARCH_BENCH_SPACE its search_space; skipped without them.
func BenchmarkSearchCold(b *testing.B) {
	db, space := searchBenchDB(b)
	ctx := context.Background()
	for _, q := range []string{"common subject", "topic42", "item12345", "lorem ipsum dolor"} {
		b.Run(strings.ReplaceAll(q, " ", "+"), func(b *testing.B) {
			// One search first, as the server's earlier ones: the cache
			// of index rows holds what the later writes leave standing.
			if err := db.ReadTx(ctx, func(tx queryer) error {
				_, err := searchPages(ctx, tx, &db.searchRows, space, searchWords(q), 0, 10)
				return err
			}); err != nil {
				b.Fatal(err)
			}
			for b.Loop() {
				// A write first (not timed): the readers' page caches
				// start over, as for the first search after an edit.
				b.StopTimer()
				if _, err := db.CreateRevision(ctx, RevisionChange{SpaceID: space, Activate: true, Analyzer: sectionsAnalyzer{}, Edit: func(t *Tree) error {
					p := t.Pages[0].Children[0]
					p.SetBody("Introduction|Introduction of page 0 about topic0 and the common subject, edited.")
					return nil
				}}); err != nil {
					b.Fatal(err)
				}
				b.StartTimer()
				err := db.ReadTx(ctx, func(tx queryer) error {
					a, err := searchPages(ctx, tx, &db.searchRows, space, searchWords(q), 0, 10)
					if err == nil && a.count == 0 {
						err = fmt.Errorf("%q: no match", q)
					}
					return err
				})
				if err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestSearchTiesByDocNumber gives many pages the same score: a results
// page lists them in the order they entered the index (pages entering in
// one change by page id), whatever their ids, offsets included.
func TestSearchTiesByDocNumber(t *testing.T) {
	ctx := context.Background()
	db, sp := testSpace(t)
	var err error
	var ids, few []string
	_, err = db.CreateRevision(ctx, RevisionChange{SpaceID: sp.ID, Activate: true, Analyzer: sectionsAnalyzer{}, Edit: func(tr *Tree) error {
		for i := range 1200 {
			p := &TreePage{ContentPage: ContentPage{ID: NewID(), Type: "document", Title: "P"}}
			p.Slug = p.ID
			body := "T|same words here"
			if i%100 == 0 { // as long: the same score for "same"
				body = "T|same words rare"
				few = append(few, p.ID)
			}
			p.SetBody(body)
			ids = append(ids, p.ID)
			tr.Pages = append(tr.Pages, p)
		}
		return nil
	}})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(ids)
	sort.Strings(few)
	// A later change adds pages that tie with them: they come after, even
	// those whose ids sort first.
	var later []string
	_, err = db.CreateRevision(ctx, RevisionChange{SpaceID: sp.ID, Activate: true, Analyzer: sectionsAnalyzer{}, Edit: func(tr *Tree) error {
		for i := range 30 {
			p := &TreePage{ContentPage: ContentPage{ID: fmt.Sprintf("0%02d", i), Type: "document", Title: "P"}}
			p.Slug = "later" + p.ID
			p.SetBody("T|same words rare")
			later = append(later, p.ID)
			tr.Pages = append(tr.Pages, p)
		}
		return nil
	}})
	if err != nil {
		t.Fatal(err)
	}
	ids = append(ids, later...)
	few = append(few, later...)
	for _, c := range []struct {
		query         string
		want          []string
		offset, limit int
	}{{"same", ids, 0, 5}, {"same word", ids, 1100, 50}, {"same word", ids, 1190, 30}, {"rare", few, 3, 4}, {"same rare", few, 0, 20}, {"rare", few, 10, 100}} {
		hits, n, err := db.SearchPages(ctx, sp.ID, c.query, c.offset, c.limit)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, h := range hits {
			got = append(got, h.Page.ID)
		}
		want := c.want[min(c.offset, len(c.want)):min(c.offset+c.limit, len(c.want))]
		if n != len(c.want) || fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("%q (%d, %d): %d pages %v, want %d %v", c.query, c.offset, c.limit, n, got, len(c.want), want)
		}
	}
}

// BenchmarkSearchIndexEdit re-indexes one page of the seeded space (the
// index's share of a one-page edit), on the database BenchmarkSearchCold
// names.
func BenchmarkSearchIndexEdit(b *testing.B) {
	db, space := searchBenchDB(b)
	ctx := context.Background()
	var page string
	if err := db.read.QueryRowContext(ctx, `SELECT page_id FROM search_pages WHERE space_id = ? AND doc = 5000`, space).Scan(&page); err != nil {
		b.Fatal(err)
	}
	i := 0
	for b.Loop() {
		i++
		body := fmt.Sprintf("Introduction of page 5000 about topic0 and the common subject, edit %d.\n\nDetails of item5000, with what it is for and how to use it.", i)
		err := db.Write(ctx, func(tx *Tx) error {
			return updateIndex(tx, space, nil, map[string][]SearchSection{page: {{ID: "s0", Title: "Page 5000", Body: body}}})
		})
		if err != nil {
			b.Fatal(err)
		}
	}
}

// TestSearchWords: words are runs of letters, digits and marks, folded to
// lower case without accents, cut at maxTermBytes; anything else splits.
func TestSearchWords(t *testing.T) {
	for in, want := range map[string]string{
		"Naïve CAFÉ!":                "naive cafe",
		"e\u0301te\u0301 x1-X2":      "ete x1 x2",
		`"quoted" AND OR NOT(a*b)`:   "quoted and or not a b",
		"Straße ÜNÏCODE":             "straße unicode",
		"日本語 テキスト":                   "日本語 テキスト",
		strings.Repeat("é", 40):      strings.Repeat("e", 40),
		strings.Repeat("ab", 40):     strings.Repeat("ab", 32),
		"\xff\xfe bad utf8 \x00 nul": "bad utf8 nul",
	} {
		if got := strings.Join(searchWords(in), " "); got != want {
			t.Errorf("searchWords(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestSearchManyWords: a query of more words than one compound SELECT
// takes (and the prefix repeating an exact word) still answers.
func TestSearchManyWords(t *testing.T) {
	ctx := context.Background()
	db, sp := testSpace(t)
	var err error
	var words []string
	for i := range 300 {
		words = append(words, fmt.Sprintf("w%d", i))
	}
	_, err = db.CreateRevision(ctx, RevisionChange{SpaceID: sp.ID, Activate: true, Analyzer: sectionsAnalyzer{}, Edit: func(tr *Tree) error {
		p := &TreePage{ContentPage: ContentPage{ID: NewID(), Type: "document", Title: "P", Slug: "p"}}
		p.SetBody("T|" + strings.Join(words, " "))
		tr.Pages = append(tr.Pages, p)
		return nil
	}})
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{strings.Join(words, " "), strings.Join(words, " ") + " w29", "w1 w1 w1"} {
		hits, n, err := db.SearchPages(ctx, sp.ID, q, 0, 10)
		if err != nil || n != 1 || len(hits) != 1 {
			t.Fatalf("%d words: %d hits, count %d, %v", len(searchWords(q)), len(hits), n, err)
		}
	}
}
