package markdown

import (
	"crypto/sha256"
	"encoding/hex"
	"sync"

	"docsapi/internal/sizedlru"
)

// memo is a bounded LRU of computed values keyed by content, whose
// concurrent computations of one key run once (the others wait for it).
// A value costing more than a quarter of the capacity is handed out but
// not kept (one huge body must not flush every other).
type memo[V any] struct {
	mu      sync.Mutex
	kept    *sizedlru.Cache[V]
	running map[string]*memoCall[V]
}

type memoCall[V any] struct {
	done chan struct{}
	val  V
	ok   bool // compute returned (did not panic)
}

func newMemo[V any](capacity int64) *memo[V] {
	return &memo[V]{kept: sizedlru.New[V](capacity, capacity/4), running: map[string]*memoCall[V]{}}
}

// get answers key's value, computing it with compute (value and cost in
// bytes) when absent.
func (m *memo[V]) get(key string, compute func() (V, int64)) V {
	m.mu.Lock()
	if v, ok := m.kept.Get(key); ok {
		m.mu.Unlock()
		return v
	}
	if c, ok := m.running[key]; ok {
		m.mu.Unlock()
		<-c.done
		if !c.ok {
			v, _ := compute() // its panic is this caller's too
			return v
		}
		return c.val
	}
	c := &memoCall[V]{done: make(chan struct{})}
	m.running[key] = c
	m.mu.Unlock()

	var cost int64
	defer func() {
		m.mu.Lock()
		delete(m.running, key)
		if cost > 0 { // 0: compute panicked (or the value costs nothing): not kept
			m.kept.Add(key, c.val, cost)
		}
		m.mu.Unlock()
		close(c.done) // also when compute panics: the waiters compute themselves
	}()
	c.val, cost = compute()
	c.ok = true
	return c.val
}

// contentKey is the cache key of src (with a suffix for what else the
// value depends on).
func contentKey(src, suffix string) string {
	sum := sha256.Sum256([]byte(src))
	return hex.EncodeToString(sum[:]) + suffix
}
