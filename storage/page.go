package storage

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// NewID returns an opaque random identifier: 20 characters of base32
// (100 bits), lower case so that it is safe in paths and hostnames.
func NewID() string {
	b := make([]byte, 13)
	rand.Read(b)
	return strings.ToLower(strings.TrimRight(b32.EncodeToString(b), "="))[:20]
}

// idAlphabet is NewID's character set (lower-case base32) in byte order.
const idAlphabet = "234567abcdefghijklmnopqrstuvwxyz"

// NewTimedID is an identifier of NewID's shape (20 characters of the same
// set) whose first ten characters are the current time in milliseconds and
// the last ten random (50 bits). Ids made later sort later, so the rows and
// index entries keyed by them are appended next to the previous ones
// instead of landing on a random leaf of a large b-tree (a read of a cold
// page, and now and then a split, on every create at a million spaces).
// Used for spaces and their first revision; nothing relies on an id being
// unguessable (every read checks the caller's access first).
func NewTimedID() string {
	return timedID(time.Now().UnixMilli())
}

func timedID(ms int64) string {
	var b [20]byte
	t := uint64(ms)
	for i := 9; i >= 0; i-- {
		b[i] = idAlphabet[t&31]
		t >>= 5
	}
	rand.Read(b[10:])
	for i := 10; i < 20; i++ {
		b[i] = idAlphabet[b[i]&31]
	}
	return string(b[:])
}

// Cursor marks the last row of a page in a keyset-ordered list: the value of
// the sort column (N for numbers, S for text) and the row's id as tiebreak.
type Cursor struct {
	N  int64  `json:"n,omitempty"`
	S  string `json:"s,omitempty"`
	ID string `json:"i"`
	// Start marks the position before the first row: the next page of a
	// first page read with limit 0.
	Start bool `json:"b,omitempty"`
	// List names the list the cursor belongs to (listSpec.tag): a cursor
	// of another list is refused (ErrForeignCursor) instead of paging
	// silently from a position that means nothing there. Cursors issued
	// before it existed have none and are accepted.
	List string `json:"l,omitempty"`
}

// ErrForeignCursor is returned for a page token issued by another list.
var ErrForeignCursor = errors.New("storage: page cursor of another list")

// checkCursor refuses pq's cursor when it names a list other than tag.
func checkCursor(pq PageQuery, tag string) error {
	if pq.After != nil && pq.After.List != "" && pq.After.List != tag {
		return ErrForeignCursor
	}
	return nil
}

// tag names the list spec reads: its table and order. Filters are left
// out, so a client that narrows a list between pages keeps its place, as
// before; the order is in, since a position in one order means nothing in
// another (spaces by title, by creation).
func (spec listSpec) tag() string {
	table := strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(spec.From), "FROM"))
	if i := strings.IndexAny(table, " \n\t"); i >= 0 {
		table = table[:i]
	}
	h := fnv.New32a()
	h.Write([]byte(table + "|" + spec.SortCol + "|" + spec.IDCol + "|" + strconv.FormatBool(spec.Desc)))
	return strconv.FormatUint(uint64(h.Sum32()), 36)
}

// ErrBadCursor is returned for a page token this service did not issue.
var ErrBadCursor = errors.New("storage: malformed page cursor")

// Encode makes the opaque `page` token handed to clients.
func (c Cursor) Encode() string {
	b, _ := json.Marshal(c)
	return base64.RawURLEncoding.EncodeToString(b)
}

// DecodeCursor parses a `page` token; the empty string means the first page.
func DecodeCursor(s string) (*Cursor, error) {
	if s == "" {
		return nil, nil
	}
	b, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil {
		return nil, ErrBadCursor
	}
	var c Cursor
	if err := json.Unmarshal(b, &c); err != nil {
		return nil, ErrBadCursor
	}
	if c.Start {
		return nil, nil
	}
	if c.ID == "" {
		return nil, ErrBadCursor
	}
	return &c, nil
}

// PageQuery asks for one page: after the cursor (nil for the first), at most
// Limit rows.
type PageQuery struct {
	After *Cursor
	Limit int
}

// Page is one page of a list: its rows, the cursor of the next page (nil on
// the last page) and the total number of rows of the filtered list.
type Page[T any] struct {
	Items []T
	Next  *Cursor
	Count int
}

// listSpec describes a keyset-paginated list. From must contain a WHERE
// clause; the keyset condition is appended to it with AND.
type listSpec struct {
	Select string // columns, without SELECT
	From   string // FROM ... WHERE ...
	Args   []any
	// CountFrom and CountArgs, when set, count the same rows more cheaply
	// (without joins that cannot change the total, such as a join along a
	// NOT NULL foreign key); the page still uses From.
	CountFrom string
	CountArgs []any
	// CountParts, when set, are the queries whose results add up to the
	// total (sums of stored counts instead of a count of rows), each cached
	// under its own counter.
	CountParts []countPart
	SortCol    string // column holding the sort key; empty: IDCol alone orders the list
	IDCol      string // unique tiebreak column (the sort key when SortCol is empty)
	Desc       bool
	Text       bool // the sort key is text (Cursor.S) rather than a number (Cursor.N)
	// Dynamic: the SQL varies with the reader (a visibility condition), so
	// its statements are prepared only while few such statements exist.
	Dynamic bool
	// Cache keeps the pages of this list between writes (see listPages):
	// only for lists whose callers read the items and never change them.
	Cache bool
	// Merged, when set, is another way to read the same page: the merge of
	// ordered index ranges (merged.go), used when it costs less than the
	// scan of From in order.
	Merged *mergedList
}

// listPages keeps pages of the lists marked Cache, by SQL and arguments
// (the cursor and limit among them), under the change counter of the
// snapshot they were read in, like the single reads (versioned): between
// writes a page costs the request's counter reading. Pages are shared:
// their Items are clipped so that an append by a caller copies them.
const maxCachedPages = 256

// runList reads one page and the list's total in one read snapshot. scan
// reads one row and returns the item and the cursor that points at it.
func runList[T any](ctx context.Context, db *DB, spec listSpec, pq PageQuery, scan func(*sql.Rows) (T, Cursor, error)) (Page[T], error) {
	var page Page[T]
	tag := spec.tag()
	if err := checkCursor(pq, tag); err != nil {
		return page, err
	}
	cmp, dir := ">", "ASC"
	if spec.Desc {
		cmp, dir = "<", "DESC"
	}
	q := "SELECT " + spec.Select + " " + spec.From
	args := append([]any{}, spec.Args...)
	order := spec.IDCol + " " + dir
	switch {
	case pq.After != nil && spec.SortCol == "":
		q += " AND " + spec.IDCol + " " + cmp + " ?"
		args = append(args, pq.After.ID)
	case pq.After != nil:
		q += " AND (" + spec.SortCol + ", " + spec.IDCol + ") " + cmp + " (?, ?)"
		if spec.Text {
			args = append(args, pq.After.S, pq.After.ID)
		} else {
			args = append(args, pq.After.N, pq.After.ID)
		}
	}
	if spec.SortCol != "" {
		order = spec.SortCol + " " + dir + ", " + order
	}
	q += " ORDER BY " + order + " LIMIT ?"
	args = append(args, pq.Limit+1)

	countFrom, countArgs := spec.From, spec.Args
	if spec.CountFrom != "" {
		countFrom, countArgs = spec.CountFrom, spec.CountArgs
	}
	parts := spec.CountParts
	if len(parts) == 0 {
		parts = []countPart{{Query: "SELECT COUNT(*) " + countFrom, Args: countArgs}}
	}
	queries := []string{q}
	for _, p := range parts {
		queries = append(queries, p.Query)
	}
	var mq string
	var margs []any
	if spec.Merged != nil {
		mq, margs = spec.Merged.query(spec, pq, db.dialect.mergesLazily())
		queries = append(queries, mq, spec.Merged.Whole.Query)
	}
	if err := db.prepare(ctx, changeCounterSQL, countersSQL); err != nil {
		return page, err
	}
	var key string
	var version int64
	if spec.Cache {
		key = countKey(q, args)
		if spec.Merged != nil {
			// Both forms give the same page; a forced form (tests) is
			// read, not served from the other's cache.
			key += string(rune('0' + db.listRanges.Load()))
		}
		if c, err := readCounters(ctx, db.r()); err == nil {
			if p, ok := db.pages.get(key, c.n); ok {
				return p.(Page[T]), nil
			}
		}
	}
	if spec.Dynamic {
		db.prepareDynamic(ctx, queries...)
	} else if err := db.prepare(ctx, queries...); err != nil {
		return page, err
	}
	err := db.ReadTx(ctx, func(tx queryer) error {
		if spec.Cache {
			c, err := readCounters(ctx, tx)
			if err != nil {
				return err
			}
			version = c.n
		}
		for _, p := range parts {
			var n int
			if err := db.counts.count(ctx, tx, p, &n); err != nil {
				return err
			}
			page.Count += n
		}
		query, qargs, merged := q, args, false
		if spec.Merged != nil {
			m, err := spec.Merged.cheaper(ctx, db, tx, page.Count)
			if err != nil {
				return err
			}
			if merged = m; merged {
				query, qargs = mq, margs
			}
		}
		rows, err := tx.QueryContext(ctx, query, qargs...)
		if err != nil {
			return err
		}
		defer rows.Close()
		var last Cursor
		for rows.Next() {
			item, cur, err := scan(rows)
			if err != nil {
				return err
			}
			if merged && len(page.Items) > 0 && cur.ID == last.ID {
				continue // the same row from another range (merged.go)
			}
			if len(page.Items) == pq.Limit {
				next := last
				if pq.Limit == 0 { // nothing read: the next page starts where this one did
					next = Cursor{Start: true}
					if pq.After != nil {
						next = *pq.After
					}
				}
				next.List = tag
				page.Next = &next
				break
			}
			page.Items = append(page.Items, item)
			last = cur
		}
		return rows.Err()
	})
	if err == nil && spec.Cache {
		page.Items = slices.Clip(page.Items)
		db.pages.put(key, version, page)
	}
	return page, err
}

// runFilteredList is runList for lists whose rows the reader may or may not
// see, decided in Go by keep (which uses state loaded once per request, not
// a query per row). Every row of the list is read once, in order, so that
// the count is exact; the page holds the kept rows after the cursor. With a
// nil keep it is runList.
func runFilteredList[T any](ctx context.Context, db *DB, spec listSpec, pq PageQuery, scan func(*sql.Rows) (T, Cursor, error), keep func(T) bool) (Page[T], error) {
	if keep == nil {
		return runList(ctx, db, spec, pq, scan)
	}
	var page Page[T]
	tag := spec.tag()
	if err := checkCursor(pq, tag); err != nil {
		return page, err
	}
	dir := "ASC"
	if spec.Desc {
		dir = "DESC"
	}
	q := "SELECT " + spec.Select + " " + spec.From + " ORDER BY " + spec.SortCol + " " + dir + ", " + spec.IDCol + " " + dir
	err := db.ReadTx(ctx, func(tx queryer) error {
		rows, err := tx.QueryContext(ctx, q, spec.Args...)
		if err != nil {
			return err
		}
		defer rows.Close()
		var last Cursor
		for rows.Next() {
			item, cur, err := scan(rows)
			if err != nil {
				return err
			}
			if !keep(item) {
				continue
			}
			page.Count++
			if pq.After != nil && !cursorAfter(cur, *pq.After, spec) {
				continue
			}
			if len(page.Items) == pq.Limit {
				if page.Next == nil {
					next := last
					next.List = tag
					page.Next = &next
				}
				continue
			}
			page.Items = append(page.Items, item)
			last = cur
		}
		return rows.Err()
	})
	return page, err
}

// cursorAfter tells whether row c comes after cursor a in spec's order (the
// same comparison the keyset condition of runList makes in SQL).
func cursorAfter(c, a Cursor, spec listSpec) bool {
	cmp := 0
	if spec.Text {
		cmp = strings.Compare(c.S, a.S)
	} else if c.N != a.N {
		cmp = 1
		if c.N < a.N {
			cmp = -1
		}
	}
	if cmp == 0 {
		cmp = strings.Compare(c.ID, a.ID)
	}
	if spec.Desc {
		return cmp < 0
	}
	return cmp > 0
}

// countCache keeps list totals between writes. Counting a large list (10,000
// members) costs far more than reading a page of it, and totals only change
// when something is written. An entry is keyed by the count query and its
// arguments and remembers the change counter of the snapshot it was counted
// in; a list reads the counter in its own snapshot and reuses the total only
// when the counter is the same, so the total is always that snapshot's.
type countCache struct {
	mu sync.RWMutex
	m  map[string]countEntry
}

type countEntry struct {
	version int64
	n       int
}

// maxCountEntries bounds the cache (text searches make many distinct keys).
const maxCountEntries = 10_000

const changeCounterSQL = `SELECT n FROM change_counter WHERE id = 1`

// countPart is a query giving part of a list's total. ByAccess: its result
// only changes with the access counter (migration 0013), so it stays
// cached across other writes.
type countPart struct {
	Query    string
	Args     []any
	ByAccess bool
}

// count sets *n to the result of p's query in tx's snapshot.
func (c *countCache) count(ctx context.Context, tx queryer, p countPart, n *int) error {
	cs, err := readCounters(ctx, tx)
	if err != nil {
		return err
	}
	version, query, args := cs.n, p.Query, p.Args
	if p.ByAccess {
		version = cs.access
	}
	key := countKey(query, args)
	c.mu.RLock()
	e, hit := c.m[key]
	c.mu.RUnlock()
	if hit && e.version == version {
		*n = e.n
		return nil
	}
	if err := tx.QueryRowContext(ctx, query, args...).Scan(n); err != nil {
		return err
	}
	c.mu.Lock()
	if len(c.m) >= maxCountEntries {
		clear(c.m)
	}
	if old, ok := c.m[key]; !ok || old.version < version {
		c.m[key] = countEntry{version: version, n: *n}
	}
	c.mu.Unlock()
	return nil
}

// countKey tags each argument with its type so that distinct argument lists
// never make the same key.
func countKey(query string, args []any) string {
	var b strings.Builder
	b.WriteString(query)
	for _, a := range args {
		switch v := a.(type) {
		case string:
			b.WriteString("\x00s")
			b.WriteString(v)
		case int64:
			b.WriteString("\x00i")
			b.WriteString(strconv.FormatInt(v, 10))
		case int:
			b.WriteString("\x00i")
			b.WriteString(strconv.Itoa(v))
		case nil:
			b.WriteString("\x00n")
		default:
			fmt.Fprintf(&b, "\x00%T:%v", v, v)
		}
	}
	return b.String()
}
