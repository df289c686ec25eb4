package site_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime/pprof"
	"slices"
	"testing"
	"time"

	"docsapi/site"
)

// Figures of issue 28: a cached page served against http.FileServer
// serving the same bytes, in the same run (target >= 0.5x its throughput),
// and the first render of a page of a 1,000-page space (target < 20 ms
// p50). `go test -run XXX -bench . ./site` prints them; with
// DOCSAPI_BENCH=1, TestFigures checks the targets.

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
	d, _ := firstRenders(b, 100)
	b.ReportMetric(float64(d[len(d)/2].Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(d[len(d)*9/10].Microseconds())/1000, "p90-ms")
}

func TestFigures(t *testing.T) {
	if os.Getenv("DOCSAPI_BENCH") == "" {
		t.Skip("set DOCSAPI_BENCH=1 to measure")
	}
	srv, page, files, file := cachedPair(t)
	s := testing.Benchmark(func(b *testing.B) { benchHandler(b, srv, page) })
	fs := testing.Benchmark(func(b *testing.B) { benchHandler(b, files, file) })
	ratio := float64(fs.NsPerOp()) / float64(s.NsPerOp())
	w := serve(t, srv, page)
	t.Logf("cached page: %s; file server: %s; throughput ratio %.2fx; page %d bytes gzipped", s, fs, ratio, w.Body.Len())
	if ratio < 0.5 {
		t.Errorf("cached page at %.2fx the file server's throughput, want >= 0.5x", ratio)
	}
	d, size := firstRenders(t, 100)
	t.Logf("a page of the 1,000-page space (its sidebar lists every page): %d bytes", size)
	t.Logf("first render, 1,000-page space: p50 %v, p90 %v, slowest (the revision's first page) %v", d[len(d)/2], d[len(d)*9/10], d[len(d)-1])
	if d[len(d)/2] > 20*time.Millisecond {
		t.Errorf("first render p50 %v, want < 20ms", d[len(d)/2])
	}
}
