package openapi

import (
	"context"
	"runtime"
	"testing"
	"time"
)

// Bounds of one fuzzed document of at most fuzzMaxInput bytes: its parse,
// render and decode together take less than fuzzMaxTime and allocate less
// than fuzzMaxAlloc. They hold for documents of that size under the nesting
// bound (MaxDepth), with room for a loaded machine; a quadratic or
// exponential step shows up as a breach long before it becomes an outage.
const (
	fuzzMaxInput = 64 << 10
	fuzzMaxTime  = 2 * time.Second
	fuzzMaxAlloc = 256 << 20
)

// FuzzOpenAPIIngestion: any bytes as an OpenAPI document: refused with a
// parse error, or accepted and then rendered as Markdown (within the page
// cap) without a panic; either way within the time and allocation bounds.
func FuzzOpenAPIIngestion(f *testing.F) {
	f.Add([]byte(`{"openapi":"3.0.3","info":{"title":"t","version":"1"},"paths":{}}`))
	f.Add(nestedSpec(200))
	f.Add(refChainSpec(200))
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > fuzzMaxInput {
			return
		}
		took, alloc := measure(func() {
			ctx := context.Background()
			if _, err := Parse(ctx, data); err != nil {
				return
			}
			md, err := RenderMarkdown(ctx, data, true, 1<<20)
			if err != nil {
				t.Fatalf("an accepted document does not render: %v", err)
			}
			if len(md) > 1<<20 {
				t.Fatalf("rendered %d bytes, over the %d asked", len(md), 1<<20)
			}
			if _, err := DecodeJSON(data, FormatOf(data)); err != nil {
				t.Fatalf("an accepted document does not decode: %v", err)
			}
		})
		if took > slowdown*fuzzMaxTime || alloc > fuzzMaxAlloc {
			t.Fatalf("%d bytes took %v and allocated %d MB (bounds %v, %d MB)", len(data), took, alloc>>20, fuzzMaxTime, fuzzMaxAlloc>>20)
		}
	})
}

// measure runs fn and returns its time and the bytes it allocated (of the
// whole process: fuzz workers run one input at a time).
func measure(fn func()) (time.Duration, uint64) {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	start := time.Now()
	fn()
	took := time.Since(start)
	runtime.ReadMemStats(&after)
	return took, after.TotalAlloc - before.TotalAlloc
}
