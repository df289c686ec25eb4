package storage

import (
	"context"
	"hash/maphash"
	"strconv"
	"strings"
	"sync"
)

// A list read as the merge of ordered index ranges.
//
// A reader who sees few of an organization's spaces cannot be served by
// scanning the organization's spaces in order and keeping the visible ones:
// a page then reads every invisible space before the next visible one, and
// since spaces are ordered by tree (a collection's spaces are adjacent) the
// invisible run can be most of the organization. What a member sees is a
// union of parts each of which one index returns in list order: the spaces
// of one collection (spaces_by_parent), the top-level spaces
// (spaces_by_level: at the top level a space's sort key is its position),
// and the spaces granted to one principal (content_grants_by_space_order,
// migration 0029g). The page is then the first rows of the merge of those
// ranges, each range read from the cursor and cut at the page size: its
// cost is (number of ranges) x (page size) rows, whatever the size of the
// organization and whatever share of it the reader sees.
//
// The scan stays for readers whose view needs many ranges (many visible
// collections), where it is the cheaper one (cheaper): they see most
// spaces, so the scan finds a page after reading little more than a page.

// mergedList is the merged form of a list: Arms in the list's order, whose
// rows are those of the list, a row being in at most MaxDup arms.
type mergedList struct {
	Arms []listArm
	// SortOrd and IDOrd are the positions (from 1) of the sort key and of
	// the id in the selected columns, the same in every arm.
	SortOrd, IDOrd int
	MaxDup         int
	// Whole counts the rows the scan would read (the organization's live
	// spaces), to compare the two costs.
	Whole countPart
}

// listArm is one ordered range: rows of From (FROM ... WHERE ...) ordered
// by SortCol then IDCol, an index order.
type listArm struct {
	Select, From   string
	Args           []any
	SortCol, IDCol string
}

// maxScanArms: up to this many ranges the merge is always used (its cost is
// bounded by ranges x page whatever the order of the visible rows); past it,
// only when the reader sees fewer than one row in len(Arms) of the whole,
// the point where a uniform scan reads as many rows as the merge.
const maxScanArms = 32

// maxMergedArms bounds the ranges of one merge (the statement's size; SQLite
// refuses compound SELECTs of more than 500 parts): past it the list scans.
const maxMergedArms = 256

// cheaper tells whether the merge costs less than the scan for a list of
// count rows.
func (m *mergedList) cheaper(ctx context.Context, db *DB, tx queryer, count int) (bool, error) {
	switch db.listRanges.Load() {
	case rangesAlways:
		return len(m.Arms) <= maxMergedArms, nil
	case rangesNever:
		return false, nil
	}
	if len(m.Arms) <= maxScanArms {
		return true, nil
	}
	if len(m.Arms) > maxMergedArms {
		return false, nil
	}
	var whole int
	if err := db.counts.count(ctx, tx, m.Whole, &whole); err != nil {
		return false, err
	}
	return len(m.Arms)*count < whole, nil
}

// query is the merge's SQL and arguments for one page: each arm from the
// cursor, ordered and cut at the page size plus one, then all of them
// ordered and cut at what may hold the page plus one distinct rows
// (duplicates are adjacent, and runList skips them).
//
// Where the engine merges lazily (dialect.mergesLazily), the parts are not
// cut: each is read in its index order only as far as the merge takes
// rows from it, so a page costs about its size plus one seek per range;
// for that each part selects its order columns in the positions SortOrd
// and IDOrd.
//
// The SQL text is the same for every page of a view (the cursor and the
// limit are arguments) and, for a reader who sees into many collections,
// long (a range each: about 1 KB of text per range): it is kept in
// mergedTexts rather than written again for every request.
func (m *mergedList) query(spec listSpec, pq PageQuery, lazy bool) (string, []any) {
	var args []any
	for _, a := range m.Arms {
		args = append(args, a.Args...)
		if pq.After != nil {
			if spec.Text {
				args = append(args, pq.After.S, pq.After.ID)
			} else {
				args = append(args, pq.After.N, pq.After.ID)
			}
		}
		if !lazy {
			args = append(args, pq.Limit+1)
		}
	}
	args = append(args, (pq.Limit+1)*max(1, m.MaxDup))
	shape := mergedShape{after: pq.After != nil, desc: spec.Desc, lazy: lazy, sortOrd: m.SortOrd, idOrd: m.IDOrd}
	return mergedTexts.get(m.Arms, shape, func() string { return m.text(shape) }), args
}

// mergedShape is what the merge's SQL text depends on besides its ranges.
type mergedShape struct {
	after, desc, lazy bool
	sortOrd, idOrd    int
}

// text writes the merge's SQL (the arguments are query's).
func (m *mergedList) text(sh mergedShape) string {
	cmp, dir := ">", " ASC"
	if sh.desc {
		cmp, dir = "<", " DESC"
	}
	var b strings.Builder
	for i, a := range m.Arms {
		if i > 0 {
			b.WriteString(" UNION ALL ")
		}
		if sh.lazy {
			b.WriteString("SELECT " + a.Select + " " + a.From)
		} else {
			b.WriteString("SELECT * FROM (SELECT " + a.Select + " " + a.From)
		}
		if sh.after {
			b.WriteString(" AND (" + a.SortCol + ", " + a.IDCol + ") " + cmp + " (?, ?)")
		}
		if !sh.lazy {
			b.WriteString(" ORDER BY " + a.SortCol + dir + ", " + a.IDCol + dir + " LIMIT ?) m" + strconv.Itoa(i))
		}
	}
	b.WriteString(" ORDER BY " + strconv.Itoa(sh.sortOrd) + dir + ", " + strconv.Itoa(sh.idOrd) + dir + " LIMIT ?")
	return b.String()
}

// mergedTexts keeps the SQL of recent merges, at most maxMergedTexts (it
// empties when full), found by a hash of the ranges' SQL and checked
// against them field by field, so that a hit is always the same text.
var mergedTexts = mergedTextCache{m: map[uint64]mergedText{}}

const maxMergedTexts = 256

type mergedTextCache struct {
	mu sync.Mutex
	m  map[uint64]mergedText
}

type mergedText struct {
	arms  []listArm
	shape mergedShape
	sql   string
}

var mergedSeed = maphash.MakeSeed()

func (c *mergedTextCache) get(arms []listArm, sh mergedShape, build func() string) string {
	var h maphash.Hash
	h.SetSeed(mergedSeed)
	for _, a := range arms {
		h.WriteString(a.Select)
		h.WriteByte(0)
		h.WriteString(a.From)
		h.WriteByte(0)
		h.WriteString(a.SortCol)
		h.WriteByte(0)
		h.WriteString(a.IDCol)
		h.WriteByte(0)
	}
	key := h.Sum64()
	c.mu.Lock()
	e, ok := c.m[key]
	c.mu.Unlock()
	if ok && e.shape == sh && sameArms(e.arms, arms) {
		return e.sql
	}
	q := build()
	kept := make([]listArm, len(arms))
	for i, a := range arms {
		kept[i] = listArm{Select: a.Select, From: a.From, SortCol: a.SortCol, IDCol: a.IDCol}
	}
	c.mu.Lock()
	if len(c.m) >= maxMergedTexts {
		clear(c.m)
	}
	c.m[key] = mergedText{arms: kept, shape: sh, sql: q}
	c.mu.Unlock()
	return q
}

// sameArms tells whether two lists of ranges have the same SQL (their
// arguments aside).
func sameArms(a, b []listArm) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].Select != b[i].Select || a[i].From != b[i].From || a[i].SortCol != b[i].SortCol || a[i].IDCol != b[i].IDCol {
			return false
		}
	}
	return true
}

// How lists with a merged form are read (DB.SetListRanges).
const (
	rangesByCost int32 = iota
	rangesAlways
	rangesNever
)

// SetListRanges makes the lists that have a merged form always read it
// (true), always scan (false), or choose by cost (nil, the default): both
// give the same pages, which tests check on each path.
func (db *DB) SetListRanges(merge *bool) {
	switch {
	case merge == nil:
		db.listRanges.Store(rangesByCost)
	case *merge:
		db.listRanges.Store(rangesAlways)
	default:
		db.listRanges.Store(rangesNever)
	}
}
