// Package costcheck asserts, in fuzz targets and tests, that work on an
// input costs in proportion to its size: time and allocated bytes within a
// base plus a per-byte allowance. A parser that goes quadratic on some
// shape fails it long before the fuzzer's own timeout notices.
package costcheck

import (
	"runtime"
	"testing"
	"time"
)

// Allowances of Linear. They are loose on purpose (fuzz workers share the
// machine): a linear parser stays far below them at every size, a
// quadratic one crosses them from a few kilobytes.
const (
	BaseTime    = 250 * time.Millisecond
	TimePerByte = 20 * time.Microsecond
	BaseAlloc   = 1 << 20
	AllocPerKB  = 8 << 20 // bytes allocated per KiB of input
)

// Linear runs fn on an input of n bytes and fails t when it took longer
// than BaseTime + n*TimePerByte (times raceFactor under the race
// detector) or allocated more than BaseAlloc + n/1KiB*AllocPerKB.
func Linear(t testing.TB, what string, n int, fn func()) {
	t.Helper()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	start := time.Now()
	fn()
	took := time.Since(start)
	runtime.ReadMemStats(&after)
	maxTime := (BaseTime + time.Duration(n)*TimePerByte) * raceFactor
	maxAlloc := uint64(BaseAlloc) + uint64(n)*AllocPerKB/1024
	if took > maxTime {
		t.Errorf("%s of %d bytes took %v, more than %v", what, n, took, maxTime)
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > maxAlloc {
		t.Errorf("%s of %d bytes allocated %d bytes, more than %d", what, n, alloc, maxAlloc)
	}
}
