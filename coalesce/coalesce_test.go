package coalesce

import (
	"context"
	"errors"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

func TestConcurrentCallersShareOneRun(t *testing.T) {
	g := &Group[string]{MaxBytes: 1 << 20, Size: func(s string) int { return len(s) }}
	var runs atomic.Int32
	release := make(chan struct{})
	var wg sync.WaitGroup
	for range 10 {
		wg.Go(func() {
			v, err := g.Do(context.Background(), "k", func(context.Context) (string, error) {
				runs.Add(1)
				<-release
				return "rendered", nil
			})
			if err != nil || v != "rendered" {
				t.Errorf("%q %v", v, err)
			}
		})
	}
	time.Sleep(50 * time.Millisecond)
	close(release)
	wg.Wait()
	if n := runs.Load(); n != 1 {
		t.Fatalf("%d runs for 10 concurrent callers", n)
	}
	// Cached: a later caller does not run it again.
	if v, _ := g.Do(context.Background(), "k", func(context.Context) (string, error) { runs.Add(1); return "again", nil }); v != "rendered" || runs.Load() != 1 {
		t.Fatalf("%q after %d runs: not cached", v, runs.Load())
	}
}

func TestRunStopsWhenEveryCallerLeft(t *testing.T) {
	var g Group[int]
	stopped := make(chan struct{})
	started := make(chan struct{})
	fn := func(ctx context.Context) (int, error) {
		close(started)
		<-ctx.Done()
		close(stopped)
		return 0, ctx.Err()
	}
	ctx1, cancel1 := context.WithCancel(context.Background())
	ctx2, cancel2 := context.WithCancel(context.Background())
	errs := make(chan error, 2)
	go func() { _, err := g.Do(ctx1, "k", fn); errs <- err }()
	<-started
	go func() { _, err := g.Do(ctx2, "k", fn); errs <- err }()
	time.Sleep(20 * time.Millisecond)
	cancel1()
	if err := <-errs; !errors.Is(err, context.Canceled) {
		t.Fatalf("the caller that left got %v", err)
	}
	select {
	case <-stopped:
		t.Fatal("the run stopped while a caller still waited")
	case <-time.After(50 * time.Millisecond):
	}
	cancel2()
	<-errs
	select {
	case <-stopped:
	case <-time.After(time.Second):
		t.Fatal("the run goes on after every caller left")
	}
	// The next caller starts afresh rather than joining the stopped run.
	v, err := g.Do(context.Background(), "k", func(context.Context) (int, error) { return 7, nil })
	if v != 7 || err != nil {
		t.Fatalf("%d %v", v, err)
	}
}

func TestCacheIsBoundedBySize(t *testing.T) {
	g := &Group[string]{MaxBytes: 1000, Size: func(s string) int { return len(s) }}
	for i := range 20 {
		g.Do(context.Background(), strings.Repeat("k", i+1), func(context.Context) (string, error) { return strings.Repeat("x", 200), nil })
	}
	if n, size := g.Cached(); size > 1000 || n != 5 {
		t.Fatalf("%d values, %d bytes cached (bound 1000)", n, size)
	}
	// A value over a quarter of the bound is answered, not cached.
	big, _ := g.Do(context.Background(), "big", func(context.Context) (string, error) { return strings.Repeat("x", 300), nil })
	if _, size := g.Cached(); len(big) != 300 || size > 1000 {
		t.Fatal("the large value displaced the cache")
	}
	// Errors are not cached.
	var runs int
	for range 2 {
		g.Do(context.Background(), "failing", func(context.Context) (string, error) { runs++; return "", errors.New("down") })
	}
	if runs != 2 {
		t.Fatalf("an error was cached (%d runs)", runs)
	}
}

func TestPanicIsAnError(t *testing.T) {
	var g Group[int]
	if _, err := g.Do(context.Background(), "k", func(context.Context) (int, error) { panic("boom") }); err == nil || !strings.Contains(err.Error(), "boom") {
		t.Fatalf("%v", err)
	}
}
