package importer

import (
	"context"
	"errors"
	"strings"
	"testing"
)

// leavingFetcher answers like its site, then the client leaves (ctx is
// canceled) as the body arrives.
type leavingFetcher struct {
	site   staticFetcher
	cancel context.CancelFunc
}

func (f leavingFetcher) Fetch(ctx context.Context, u string) (*Resource, error) {
	defer f.cancel()
	return f.site.Fetch(ctx, u)
}

// TestImportStopsWhenTheClientLeaves: an import whose client left during
// the fetch converts nothing further and answers the context's error (its
// caller writes nothing), for each source.
func TestImportStopsWhenTheClientLeaves(t *testing.T) {
	list := "# Long\n\n" + strings.Repeat("- item [x](y.md)\n", 5000)
	site := staticFetcher{
		"https://example.com/a.md":   {URL: "https://example.com/a.md", ContentType: "text/markdown", Body: []byte(list)},
		"https://example.com/a.html": {URL: "https://example.com/a.html", ContentType: "text/html", Body: []byte("<main><h1>A</h1>" + strings.Repeat("<p>para <img src=\"/i.png\"></p>", 2000) + "</main>")},
		"https://example.com/a.zip":  {URL: "https://example.com/a.zip", ContentType: "application/zip", Body: zipBytes(map[string]string{"a.md": list, "b.md": list})},
		"https://example.com/i.png":  {URL: "https://example.com/i.png", ContentType: "image/png", Body: []byte("\x89PNG")},
	}
	for source, u := range map[string]string{"markdown": "https://example.com/a.md", "html": "https://example.com/a.html", "zip": "https://example.com/a.zip"} {
		ctx, cancel := context.WithCancel(context.Background())
		res, err := Import(ctx, leavingFetcher{site, cancel}, source, u, Limits{})
		if !errors.Is(err, context.Canceled) {
			t.Errorf("%s: %v (%d files), want context.Canceled", source, err, len(filesOf(res)))
		}
	}
}

func filesOf(r *Result) []*File {
	if r == nil {
		return nil
	}
	return r.Files
}
