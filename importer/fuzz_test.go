package importer

import (
	"archive/zip"
	"bytes"
	"context"
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	"docsapi/internal/costcheck"
)

// checkResult: an import either fails with bad content or gives pages and
// files within the limits.
func checkResult(t *testing.T, res *Result, err error, lim Limits) {
	t.Helper()
	var bad *Error
	if err != nil {
		if !errors.As(err, &bad) {
			t.Fatalf("not a bad-content error: %T %v", err, err)
		}
		return
	}
	if lim.MaxImages > 0 && len(res.Files) > lim.MaxImages && lim.MaxImages != DefaultLimits.MaxFiles {
		t.Fatalf("%d files over the limit %d", len(res.Files), lim.MaxImages)
	}
	var walk func([]*Page)
	walk = func(ps []*Page) {
		for _, p := range ps {
			if p.Title == "" || p.Slug == "" {
				t.Fatalf("page without title or slug: %+v", p)
			}
			walk(p.Children)
		}
	}
	walk(res.Pages)
}

// FuzzZipImport: any bytes as a zip archive, converted in time and memory
// in proportion to the archive's declared size (bounded by DefaultLimits.MaxBytes).
func FuzzZipImport(f *testing.F) {
	f.Add(zipBytes(map[string]string{"deep.md": strings.Repeat("> ", 3000) + "x", "links.md": strings.Repeat("[a](", 3000)}))
	f.Fuzz(func(t *testing.T, body []byte) {
		var res *Result
		var err error
		costcheck.Linear(t, "zip import", len(body)+unzippedSize(body), func() { res, err = Zip(context.Background(), body) })
		checkResult(t, res, err, Limits{MaxImages: DefaultLimits.MaxFiles})
	})
}

// FuzzHTMLImport: any bytes as an HTML page, its images fetched from a
// fake site (no network), converted in time and memory in proportion to
// the page.
func FuzzHTMLImport(f *testing.F) {
	for _, seed := range []string{strings.Repeat("[", 20000), strings.Repeat("<blockquote>", 600) + "x", strings.Repeat("<p>a[b](c", 2000)} {
		f.Add([]byte(seed))
	}
	site := fuzzSite()
	f.Fuzz(func(t *testing.T, body []byte) {
		lim := Limits{MaxImages: 3, MaxPages: 5, Timeout: time.Second}
		var res *Result
		var err error
		costcheck.Linear(t, "HTML import", len(body), func() {
			res, err = HTML(context.Background(), site, &Resource{URL: "https://docs.example/", ContentType: "text/html", Body: body}, lim)
		})
		checkResult(t, res, err, lim)
	})
}

// zipBytes is an archive of entries.
func zipBytes(entries map[string]string) []byte {
	var b bytes.Buffer
	zw := zip.NewWriter(&b)
	for name, body := range entries {
		w, _ := zw.Create(name)
		w.Write([]byte(body))
	}
	zw.Close()
	return b.Bytes()
}

// unzippedSize is what an archive's entries hold uncompressed (read, not
// as declared: headers may lie), as far as Zip would read (0 for what is
// no archive).
func unzippedSize(body []byte) int {
	zr, err := zip.NewReader(bytes.NewReader(body), int64(len(body)))
	if err != nil {
		return 0
	}
	var n int64
	for _, f := range zr.File {
		if rc, err := f.Open(); err == nil {
			read, _ := io.Copy(io.Discard, io.LimitReader(rc, maxZipEntry+1))
			rc.Close()
			n += read
		}
		if n > DefaultLimits.MaxBytes {
			break
		}
	}
	return int(n)
}

// FuzzWebsiteImport: a crawl whose start page is the input and whose other
// pages are fixed; bounded by the page and image limits.
func FuzzWebsiteImport(f *testing.F) {
	f.Fuzz(func(t *testing.T, body []byte) {
		site := fuzzSite()
		site["https://docs.example/"] = &Resource{URL: "https://docs.example/", ContentType: "text/html", Body: body}
		lim := Limits{MaxImages: 3, MaxPages: 5, Timeout: 2 * time.Second}
		res, err := Website(context.Background(), site, "https://docs.example/", lim)
		if err == nil && res.Imported > lim.MaxPages {
			t.Fatalf("%d pages over the limit", res.Imported)
		}
		checkResult(t, res, err, lim)
	})
}

func fuzzSite() staticFetcher {
	return staticFetcher{
		"https://docs.example/guide":     {URL: "https://docs.example/guide", ContentType: "text/html", Body: []byte(`<main><h1>Guide</h1><p><a href="/">home</a> <img src="/a.png"></p></main>`)},
		"https://docs.example/guide/one": {URL: "https://docs.example/guide/one", ContentType: "text/html", Body: []byte(`<h1>One</h1><a href="../guide">up</a>`)},
		"https://docs.example/a.png":     {URL: "https://docs.example/a.png", ContentType: "image/png", Body: []byte("\x89PNG")},
	}
}

// FuzzRepository: any bytes as the layout file, the summary and a page
// (front matter included) of a repository, converted in time and memory
// in proportion to them.
func FuzzRepository(f *testing.F) {
	f.Add([]byte("---\ndescription: d\nlayout:\n  title:\n    visible: false\n---\n# T\n\n* [A](a.md#x)\n## G\n* [B](b.md \"B\")\n"))
	f.Add([]byte("root: ./docs/\nstructure:\n  readme: a.md\n"))
	f.Fuzz(func(t *testing.T, body []byte) {
		files := map[string][]byte{".gitbook.yaml": body, "SUMMARY.md": body, "a.md": body, "b/README.md": body}
		var res *Result
		var err error
		costcheck.Linear(t, "repository import", 4*len(body), func() { res, err = Repository(context.Background(), files, Limits{}) })
		checkResult(t, res, err, Limits{})
	})
}
