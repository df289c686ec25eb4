package server

import (
	"container/list"
	"context"
	"sync"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2/ast"
)

// weightedLRU is a cache of what is derived from GraphQL query texts
// (parsed documents, complexities, persisted queries, introspection
// answers) bounded by the total weight of its entries rather than their
// number: with gqlgen's caches of 1000 entries whatever their size, 30
// distinct valid documents of 2 MB kept 335 MB (a thousand would keep
// 11 GB). An entry heavier than maxEntry is not kept, so that a few large
// documents cannot push out all the others.
type weightedLRU[T any] struct {
	budget, maxEntry int
	weight           func(key string, value T) int

	mu      sync.Mutex
	used    int
	order   list.List // of *weightedEntry[T], most recently used first
	entries map[string]*list.Element
}

type weightedEntry[T any] struct {
	key    string
	value  T
	weight int
}

var _ graphql.Cache[int] = &weightedLRU[int]{}

func newWeightedLRU[T any](budget, maxEntry int, weight func(key string, value T) int) *weightedLRU[T] {
	return &weightedLRU[T]{budget: budget, maxEntry: maxEntry, weight: weight, entries: map[string]*list.Element{}}
}

func (c *weightedLRU[T]) Get(_ context.Context, key string) (T, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.entries[key]; ok {
		c.order.MoveToFront(e)
		return e.Value.(*weightedEntry[T]).value, true
	}
	var none T
	return none, false
}

func (c *weightedLRU[T]) Add(_ context.Context, key string, value T) {
	w := c.weight(key, value)
	if w > c.maxEntry {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.entries[key]; ok {
		c.used -= e.Value.(*weightedEntry[T]).weight
		c.order.Remove(e)
	}
	c.entries[key] = c.order.PushFront(&weightedEntry[T]{key: key, value: value, weight: w})
	c.used += w
	for c.used > c.budget {
		oldest := c.order.Back()
		entry := oldest.Value.(*weightedEntry[T])
		c.order.Remove(oldest)
		delete(c.entries, entry.key)
		c.used -= entry.weight
	}
}

// Budgets of the caches of query texts, and their largest entries.
const (
	documentCacheBytes, largestCachedDocument     = 32 << 20, 512 << 10 // the standard introspection query weighs 120 KB
	complexityCacheBytes, largestComplexityKey    = 8 << 20, 128 << 10
	persistedQueryBytes, largestPersistedQuery    = 8 << 20, 128 << 10 // larger: the client is asked for the text again
	introspectionCacheBytes, largestIntrospection = 8 << 20, 1 << 20   // the standard answer is 480 KB
	// astBytesPerToken is about what the parser allocates per token of a
	// document (a value or field, its position), rounded up.
	astBytesPerToken = 256
)

// documentWeight is what a parsed document costs in memory, about: its
// text and its syntax tree.
func documentWeight(query string, _ *ast.QueryDocument) int {
	return len(query) + astBytesPerToken*countTokens(query, 1<<30)
}

// textWeight is the weight of an entry whose key and value are texts.
func textWeight(key, value string) int { return len(key) + len(value) }

// keyWeight is the weight of an entry whose value is small beside its key.
func keyWeight[T any](key string, _ T) int { return len(key) + 64 }
