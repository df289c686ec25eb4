package storage

// The search index's rows kept in memory between writes. A search reads
// the posting rows of its words, the length rows of the chunks that can
// hold a match and the rows of the pages it lists; after a write the
// readers' page caches start over (SQLite empties a connection's cache
// when the database changed), so a cold search read them all again,
// though a one-page edit rewrites only its page's chunk. Here what a
// search read of a chunk (decoded) is kept under the chunk's stamp
// (search_spaces.stamps, migration 0022: random, changed by every write
// of that chunk's rows), read with the space's stats in the search's own
// snapshot: an entry serves while its chunk's stamp stands, whatever
// else is written, so after a one-page edit only that page's chunk is
// read again. The same on both engines; another process's writes change
// the stamps too.

import (
	"container/list"
	"encoding/binary"
	"math/rand/v2"
	"sync"
)

// searchCacheBytes bounds the cache's memory (the bytes of the rows it
// holds plus a fixed overhead per row): a 100,000-page space's length
// rows are 200 KB, a word on every page 300 KB of posting rows.
const searchCacheBytes = 32 << 20

// chunkKey names a chunk of a space's index, or (docs) a group of its
// doc numbers.
type chunkKey struct {
	space string
	chunk int64
	docs  bool
}

// termDocs is one posting row of a chunk: its term and encoded docs.
type termDocs struct {
	term string
	docs []byte
}

// indexedDoc is a doc's search_pages row: its page and sections.
type indexedDoc struct {
	pageID   string
	sections []SearchSection
}

// chunkEntry is what searches read of one chunk while it had one stamp.
type chunkEntry struct {
	key     chunkKey
	stamp   uint64
	lens    []byte // nil: not read
	words   map[string][]termDocs
	docs    map[int64]indexedDoc
	size    int
	element *list.Element
}

// indexCache holds chunk entries, least recently used first out.
type indexCache struct {
	mu      sync.Mutex
	entries map[chunkKey]*chunkEntry
	order   list.List // of *chunkEntry, most recent at the front
	size    int
	max     int // 0: searchCacheBytes
}

// rowOverhead is counted per cached row on top of its bytes.
const rowOverhead = 64

// entry is k's entry under stamp (nil when absent, stale or stamp 0),
// moved to the front; mu held.
func (c *indexCache) entry(k chunkKey, stamp uint64) *chunkEntry {
	e := c.entries[k]
	if e == nil || stamp == 0 || e.stamp != stamp {
		return nil
	}
	c.order.MoveToFront(e.element)
	return e
}

// words is the posting rows of a word pattern (wordPattern) in a chunk.
func (c *indexCache) words(k chunkKey, stamp uint64, pattern string) ([]termDocs, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if e := c.entry(k, stamp); e != nil {
		rows, ok := e.words[pattern]
		return rows, ok
	}
	return nil, false
}

// lengths is a chunk's length row.
func (c *indexCache) lengths(k chunkKey, stamp uint64) ([]byte, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if e := c.entry(k, stamp); e != nil && e.lens != nil {
		return e.lens, true
	}
	return nil, false
}

// doc is a doc's page and sections.
func (c *indexCache) doc(k chunkKey, stamp uint64, doc int64) (indexedDoc, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if e := c.entry(k, stamp); e != nil {
		d, ok := e.docs[doc]
		return d, ok
	}
	return indexedDoc{}, false
}

// put adds to k's entry under stamp (replacing an entry under another
// stamp) what add stores, which returns the bytes it added; then evicts
// the least recently used entries over the bound. Stamp 0 (unknown) is
// never kept.
func (c *indexCache) put(k chunkKey, stamp uint64, add func(e *chunkEntry) int) {
	if stamp == 0 {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.entries == nil {
		c.entries = map[chunkKey]*chunkEntry{}
	}
	e := c.entries[k]
	if e != nil && e.stamp != stamp {
		c.remove(e)
		e = nil
	}
	if e == nil {
		e = &chunkEntry{key: k, stamp: stamp, words: map[string][]termDocs{}, docs: map[int64]indexedDoc{}}
		e.element = c.order.PushFront(e)
		c.entries[k] = e
	} else {
		c.order.MoveToFront(e.element)
	}
	n := add(e)
	e.size += n
	c.size += n
	limit := c.max
	if limit <= 0 {
		limit = searchCacheBytes
	}
	for c.size > limit && c.order.Len() > 0 {
		c.remove(c.order.Back().Value.(*chunkEntry))
	}
}

func (c *indexCache) remove(e *chunkEntry) {
	c.order.Remove(e.element)
	delete(c.entries, e.key)
	c.size -= e.size
}

func (c *indexCache) putWords(k chunkKey, stamp uint64, pattern string, rows []termDocs) {
	c.put(k, stamp, func(e *chunkEntry) int {
		if _, ok := e.words[pattern]; ok {
			return 0
		}
		e.words[pattern] = rows
		n := rowOverhead + len(pattern)
		for _, r := range rows {
			n += rowOverhead + len(r.term) + len(r.docs)
		}
		return n
	})
}

func (c *indexCache) putLengths(k chunkKey, stamp uint64, lens []byte) {
	c.put(k, stamp, func(e *chunkEntry) int {
		if e.lens != nil || lens == nil {
			return 0
		}
		e.lens = lens
		return rowOverhead + len(lens)
	})
}

func (c *indexCache) putDoc(k chunkKey, stamp uint64, doc int64, d indexedDoc) {
	c.put(k, stamp, func(e *chunkEntry) int {
		if _, ok := e.docs[doc]; ok {
			return 0
		}
		e.docs[doc] = d
		n := rowOverhead + len(d.pageID)
		for _, s := range d.sections {
			n += rowOverhead + len(s.ID) + len(s.Title) + len(s.Body)
		}
		return n
	})
}

// groupBits: a stamp covers a group of 1<<groupBits doc numbers, so a
// chunk's posting and length rows are valid while its 16 groups' stamps
// stand (chunkStamp), and a listed page's row while its own group's does:
// a one-page edit sends back to the database the rows of its chunk but
// only the listed pages of its group.
const (
	groupBits      = 8
	groupsPerChunk = 1 << (chunkBits - groupBits)
)

// groupStamp is a group's stamp in a search_spaces stamps value (0:
// unknown).
func groupStamp(stamps []byte, group int64) uint64 {
	if group < 0 || 8*group+8 > int64(len(stamps)) {
		return 0
	}
	return binary.LittleEndian.Uint64(stamps[8*group:])
}

// chunkStamp combines the stamps of a chunk's groups (those the value
// holds; 0 when one is unknown): it changes whenever one of them does.
func chunkStamp(stamps []byte, chunk int64) uint64 {
	first := chunk * groupsPerChunk
	if groupStamp(stamps, first) == 0 {
		return 0
	}
	h := uint64(14695981039346656037)
	for g := first; g < first+groupsPerChunk && 8*g+8 <= int64(len(stamps)); g++ {
		st := groupStamp(stamps, g)
		if st == 0 {
			return 0
		}
		h = (h ^ st) * 1099511628211
	}
	return h | 1
}

// restamp is stamps with a new random stamp for each group holding a doc
// of touched (by chunk: the docs a write changed), grown to hold groups
// 0..last.
func restamp(stamps []byte, last int64, touched map[int64]*rowEdit) []byte {
	changed := map[int64]bool{}
	for ch, e := range touched {
		for off := range e.drop {
			changed[(ch<<chunkBits|int64(off))>>groupBits] = true
		}
		for off := range e.put {
			changed[(ch<<chunkBits|int64(off))>>groupBits] = true
		}
	}
	n := max(int64(len(stamps))/8, last+1)
	for g := range changed {
		n = max(n, g+1)
	}
	out := make([]byte, 8*n)
	copy(out, stamps)
	for g := range n {
		if changed[g] || groupStamp(out, g) == 0 {
			binary.LittleEndian.PutUint64(out[8*g:], rand.Uint64()|1)
		}
	}
	return out
}
