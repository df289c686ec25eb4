package server

import (
	"context"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2/ast"

	"docsapi/internal/sizedlru"
)

// weightedLRU is a cache of what is derived from GraphQL query texts
// (parsed documents, complexities, persisted queries, introspection
// answers) bounded by the total weight of its entries rather than their
// number: with gqlgen's caches of 1000 entries whatever their size, 30
// distinct valid documents of 2 MB kept 335 MB (a thousand would keep
// 11 GB). An entry heavier than maxEntry is not kept, so that a few large
// documents cannot push out all the others.
type weightedLRU[T any] struct {
	lru    *sizedlru.Cache[T]
	weight func(key string, value T) int
}

var _ graphql.Cache[int] = &weightedLRU[int]{}

func newWeightedLRU[T any](budget, maxEntry int, weight func(key string, value T) int) *weightedLRU[T] {
	return &weightedLRU[T]{lru: sizedlru.New[T](int64(budget), int64(maxEntry)), weight: weight}
}

func (c *weightedLRU[T]) Get(_ context.Context, key string) (T, bool) { return c.lru.Get(key) }

func (c *weightedLRU[T]) Add(_ context.Context, key string, value T) {
	c.lru.Add(key, value, int64(c.weight(key, value)))
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
