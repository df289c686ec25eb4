package site_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"docsapi/site"
)

// The reader site's figures, as benchmarks (`make bench-site`, part of `make
// bench`): a cached page served against http.FileServer serving the same
// bytes, in the same run, as a throughput ratio (target >= 0.5x), and the
// first render of a page of a 1,000-page space (target < 20 ms p50).

// serve runs one request through h and fails on a status other than 200.
func serve(tb testing.TB, h http.Handler, path string) *httptest.ResponseRecorder {
	req := httptest.NewRequest("GET", path, nil)
	req.Header.Set("Accept-Encoding", "gzip")
	w := httptest.NewRecorder()
	h.ServeHTTP(w, req)
	if w.Code != 200 {
		tb.Fatalf("GET %s: %d", path, w.Code)
	}
	return w
}

// cachedPair is the whole server answering a cached page, and a file
// server answering the bytes of that answer from disk.
func cachedPair(tb testing.TB) (srv http.Handler, page string, files http.Handler, file string) {
	f := newReaderFixture(tb, "public")
	page = f.base + "/install"
	w := serve(tb, f.Server, page) // renders and keeps it
	dir := tb.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "install.html"), w.Body.Bytes(), 0o644); err != nil {
		tb.Fatal(err)
	}
	return f.Server, page, http.FileServer(http.Dir(dir)), "/install.html"
}

func benchHandler(b *testing.B, h http.Handler, path string) {
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			req := httptest.NewRequest("GET", path, nil)
			req.Header.Set("Accept-Encoding", "gzip")
			w := httptest.NewRecorder()
			h.ServeHTTP(w, req)
			if w.Code != 200 {
				b.Fatalf("%d", w.Code)
			}
		}
	})
}

func BenchmarkCachedPage(b *testing.B) {
	srv, page, files, file := cachedPair(b)
	b.Run("site", func(b *testing.B) { benchHandler(b, srv, page) })
	b.Run("fileserver", func(b *testing.B) { benchHandler(b, files, file) })
}

// throughput is the requests per second h answers for path over d, from
// GOMAXPROCS goroutines (as RunParallel).
func throughput(tb testing.TB, h http.Handler, path string, d time.Duration) float64 {
	var n atomic.Int64
	stop := time.Now().Add(d)
	var wg sync.WaitGroup
	for range runtime.GOMAXPROCS(0) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for time.Now().Before(stop) {
				req := httptest.NewRequest("GET", path, nil)
				req.Header.Set("Accept-Encoding", "gzip")
				w := httptest.NewRecorder()
				h.ServeHTTP(w, req)
				if w.Code != 200 {
					tb.Errorf("%d", w.Code)
					return
				}
				n.Add(1)
			}
		}()
	}
	wg.Wait()
	return float64(n.Load()) / d.Seconds()
}

// BenchmarkCachedPageVsFileServer measures both in one run, alternating
// three times (a shared machine's load falls on both), and reports the
// cached page's throughput as a ratio of the file server's: x-fileserver
// >= 0.5 is the target.
func BenchmarkCachedPageVsFileServer(b *testing.B) {
	srv, page, files, file := cachedPair(b)
	var site, fs float64
	for range 3 {
		site += throughput(b, srv, page, time.Second)
		fs += throughput(b, files, file, time.Second)
	}
	w := serve(b, srv, page)
	b.ReportMetric(0, "ns/op")
	b.ReportMetric(site/3, "site-req/s")
	b.ReportMetric(fs/3, "fileserver-req/s")
	b.ReportMetric(site/fs, "x-fileserver")
	b.ReportMetric(float64(w.Body.Len()), "gzipped-bytes")
}

// firstRenders renders n pages of a 1,000-page space, each for the first
// time (a fresh reader site over the same resolvers: no kept answer), and
// returns the durations sorted.
func firstRenders(tb testing.TB, n int) ([]time.Duration, int) {
	f := newReaderFixture(tb, "public")
	seedGuide(tb, f.Env, f.guide, 1000)
	h := site.New(f.Server.Resolver, nil, nil)
	var out []time.Duration
	size := 0
	if p := os.Getenv("DOCSAPI_RENDER_PROFILE"); p != "" {
		// The render loop's CPU profile, without the seeding's.
		pf, err := os.Create(p)
		if err != nil {
			tb.Fatal(err)
		}
		pprof.StartCPUProfile(pf)
		defer pprof.StopCPUProfile()
	}
	for i := range n {
		path := fmt.Sprintf("%s/topic-%d", f.base, i*7%1000)
		req := httptest.NewRequest("GET", path, nil)
		ctx, err := f.DB.WithCounters(req.Context()) // what the server's middleware does
		if err != nil {
			tb.Fatal(err)
		}
		w := httptest.NewRecorder()
		start := time.Now()
		h.ServeHTTP(w, req.WithContext(ctx))
		out = append(out, time.Since(start))
		if w.Code != 200 {
			tb.Fatalf("GET %s: %d", path, w.Code)
		}
		size = w.Body.Len()
	}
	slices.Sort(out)
	return out, size
}

func BenchmarkFirstRender1000Pages(b *testing.B) {
	d, size := firstRenders(b, 100)
	b.ReportMetric(float64(size), "page-bytes")
	b.ReportMetric(float64(d[len(d)/2].Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(d[len(d)*9/10].Microseconds())/1000, "p90-ms")
}
