package storage

import (
	"context"
	"strconv"
	"strings"
)

// Reads kept between writes. A page view reads the same few rows on every
// request: the comments of a space, their reactions and authors, the pages
// they are on, the revision and its files, where the revision's page rows
// are, the collections of the space's path. Like the spaces and page trees
// (SpaceAccess, RevisionPages), these are kept under the change counter of
// the request that read them, so between writes a request costs the one
// counter reading it already makes (WithCounters); the first write, by
// any process, moves the counter and retires every entry. Only reads on
// the reader pool of a request carrying its counters are kept: inside a
// transaction, or once the request has written, they read the database.
// Entries are shared between requests: callers read them, never change
// them. Each holds at most maxKeptRows rows and maxKeptBytes of bodies
// (a larger value is read every time), and the cache at most maxKeptReads
// entries (it empties when full, like the others): at most 16 MiB of
// bodies in all.

const (
	maxKeptReads = 512
	maxKeptRows  = 1000
	maxKeptBytes = 32 << 10
)

// keptRead is read's value, kept between writes under key (see above);
// size says how many rows and bytes of bodies a value holds.
func keptRead[T any](ctx context.Context, db *DB, key string, size func(T) (rows, bytes int), read func() (T, error)) (T, error) {
	s := snapshotFor(ctx, db.r())
	if s == nil {
		return read()
	}
	if v, ok := db.kept.get(key, s.n); ok {
		return v.(T), nil
	}
	v, err := read()
	if rows, bytes := size(v); err == nil && rows <= maxKeptRows && bytes <= maxKeptBytes {
		db.kept.put(key, s.n, v)
	}
	return v, err
}

// keptKey is the key of a read of kind with these arguments, each after
// its length: no two lists of arguments (ids come from requests) share one.
func keptKey(kind string, args ...string) string {
	var b strings.Builder
	b.WriteString(kind)
	for _, a := range args {
		b.WriteByte(0)
		b.WriteString(strconv.Itoa(len(a)))
		b.WriteByte(':')
		b.WriteString(a)
	}
	return b.String()
}

// one is the size of a single row without a body.
func one[T any](T) (rows, bytes int) { return 1, 0 }

// rowsOf is the size of a slice or map of rows without bodies.
func rowsOf[T any](n func(T) int) func(T) (rows, bytes int) {
	return func(v T) (int, int) { return n(v), 0 }
}
