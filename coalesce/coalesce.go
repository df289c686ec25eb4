// Package coalesce runs one computation per key however many callers ask
// for it at once, stops it when every caller has left, and keeps its
// results in a cache bounded by their total size. Renderers use it: a
// rendered version never changes, so identical concurrent reads share one
// render and later reads reuse it.
//
// golang.org/x/sync/singleflight coalesces too, but its work runs on the
// first caller's context: it either stops when that caller leaves (failing
// the others) or runs on after everyone left. Here the work has its own
// context, cancelled when its last waiter goes.
package coalesce

import (
	"context"
	"fmt"
	"sync"

	"docsapi/internal/sizedlru"
)

// Group coalesces and caches values of type V. The zero Group coalesces
// without caching.
type Group[V any] struct {
	// MaxBytes bounds the total Size of the cached values (least recently
	// used first out); a value larger than MaxBytes/4 is not cached, so one
	// answer cannot flush the others.
	MaxBytes int
	// Size is a value's cost in the cache (its bytes).
	Size func(V) int

	mu      sync.Mutex
	flights map[string]*flight[V]
	cache   *sizedlru.Cache[V] // made on first store, from MaxBytes
}

type flight[V any] struct {
	done    chan struct{}
	cancel  context.CancelFunc
	waiters int
	v       V
	err     error
}

// Do returns the cached value of key, or waits for its computation by fn,
// starting one when none is running. fn runs on a context that keeps ctx's
// values and ends when every caller waiting for it has left. Errors are
// not cached. A caller that leaves gets ctx.Err().
func (g *Group[V]) Do(ctx context.Context, key string, fn func(context.Context) (V, error)) (V, error) {
	g.mu.Lock()
	if g.cache != nil {
		if v, ok := g.cache.Get(key); ok {
			g.mu.Unlock()
			return v, nil
		}
	}
	f, ok := g.flights[key]
	if !ok {
		work, cancel := context.WithCancel(context.WithoutCancel(ctx))
		f = &flight[V]{done: make(chan struct{}), cancel: cancel}
		if g.flights == nil {
			g.flights = map[string]*flight[V]{}
		}
		g.flights[key] = f
		go g.run(work, key, f, fn)
	}
	f.waiters++
	g.mu.Unlock()

	select {
	case <-f.done:
		return f.v, f.err
	case <-ctx.Done():
		g.mu.Lock()
		f.waiters--
		if f.waiters == 0 {
			// Nobody waits any more: stop, and let the next caller start
			// afresh rather than join a cancelled run.
			f.cancel()
			if g.flights[key] == f {
				delete(g.flights, key)
			}
		}
		g.mu.Unlock()
		var zero V
		return zero, ctx.Err()
	}
}

func (g *Group[V]) run(ctx context.Context, key string, f *flight[V], fn func(context.Context) (V, error)) {
	defer close(f.done)
	defer f.cancel()
	func() {
		defer func() {
			// The work runs outside any request: a panic here would end
			// the process, not one request.
			if p := recover(); p != nil {
				f.err = fmt.Errorf("coalesce: %v", p)
			}
		}()
		f.v, f.err = fn(ctx)
	}()
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.flights[key] == f {
		delete(g.flights, key)
	}
	if f.err == nil && ctx.Err() == nil {
		g.store(key, f.v)
	}
}

// store caches v under key: values over MaxBytes/4 are not kept, the
// least recently used go over MaxBytes. g.mu is held.
func (g *Group[V]) store(key string, v V) {
	if g.MaxBytes <= 0 {
		return
	}
	if g.cache == nil {
		g.cache = sizedlru.New[V](int64(g.MaxBytes), int64(g.MaxBytes/4))
	}
	size := 1
	if g.Size != nil {
		size = g.Size(v)
	}
	g.cache.Add(key, v, int64(size))
}

// Cached reports the number of cached values and their total size.
func (g *Group[V]) Cached() (n, bytes int) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.cache == nil {
		return 0, 0
	}
	n, size := g.cache.Len()
	return n, int(size)
}
