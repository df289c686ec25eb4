package importer

import (
	"context"
	"errors"
	"testing"
	"time"
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
	if lim.MaxImages > 0 && len(res.Files) > lim.MaxImages && lim.MaxImages != maxZipEntries {
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

// FuzzZipImport: any bytes as a zip archive.
func FuzzZipImport(f *testing.F) {
	f.Fuzz(func(t *testing.T, body []byte) {
		res, err := Zip(context.Background(), body)
		checkResult(t, res, err, Limits{MaxImages: maxZipEntries})
	})
}

// FuzzHTMLImport: any bytes as an HTML page, its images fetched from a
// fake site (no network).
func FuzzHTMLImport(f *testing.F) {
	site := fuzzSite()
	f.Fuzz(func(t *testing.T, body []byte) {
		lim := Limits{MaxImages: 3, MaxPages: 5, Timeout: time.Second}
		res, err := HTML(context.Background(), site, &Resource{URL: "https://docs.example/", ContentType: "text/html", Body: body}, lim)
		checkResult(t, res, err, lim)
	})
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
