// Package sizedlru is a least-recently-used cache bounded by the total size
// of its values rather than their number: the caches of rendered and
// parsed content (documents, PDFs, computed pages, GraphQL documents) hold
// values from a few bytes to megabytes, and a count bound would let a few
// large ones take all the memory. A value larger than the cache's largest
// entry is not kept, so that a few large values cannot push out all the
// others.
package sizedlru

import (
	"container/list"
	"sync"
)

// Cache is safe for concurrent use.
type Cache[V any] struct {
	budget, maxEntry int64

	mu      sync.Mutex
	used    int64
	order   list.List // of *entry[V], most recently used first
	entries map[string]*list.Element
}

type entry[V any] struct {
	key  string
	val  V
	size int64
}

// New is a cache of at most budget bytes in all, keeping no value over
// maxEntry bytes.
func New[V any](budget, maxEntry int64) *Cache[V] {
	return &Cache[V]{budget: budget, maxEntry: maxEntry, entries: map[string]*list.Element{}}
}

// Get returns key's value and marks it used.
func (c *Cache[V]) Get(key string) (V, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.entries[key]; ok {
		c.order.MoveToFront(el)
		return el.Value.(*entry[V]).val, true
	}
	var none V
	return none, false
}

// Add keeps v under key at the given size (at least 1), replacing what key
// held, and drops the least recently used values over the budget. A value
// over the largest entry is not kept.
func (c *Cache[V]) Add(key string, v V, size int64) {
	size = max(size, 1)
	if size > c.maxEntry {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.entries[key]; ok {
		c.used -= el.Value.(*entry[V]).size
		c.order.Remove(el)
	}
	c.entries[key] = c.order.PushFront(&entry[V]{key: key, val: v, size: size})
	c.used += size
	for c.used > c.budget {
		oldest := c.order.Back()
		e := oldest.Value.(*entry[V])
		c.order.Remove(oldest)
		delete(c.entries, e.key)
		c.used -= e.size
	}
}

// Len is the number of values kept and their total size.
func (c *Cache[V]) Len() (n int, size int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.entries), c.used
}
