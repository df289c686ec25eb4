package importer

import (
	"archive/zip"
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"
	"time"
)

// fakeSite answers fetches from a map of URL to HTML body; limits, when
// set, are the deployment's (like Guarded's).
type fakeSite struct {
	pages   map[string]string
	limits  *Limits
	fetched []string
	delay   time.Duration
}

func (s *fakeSite) Fetch(ctx context.Context, u string) (*Resource, error) {
	s.fetched = append(s.fetched, u)
	if s.delay > 0 {
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(s.delay):
		}
	}
	body, ok := s.pages[u]
	if !ok {
		return nil, errors.New("404")
	}
	return &Resource{URL: u, ContentType: "text/html", Body: []byte("<html><body>" + body + "</body></html>")}, nil
}

type limitedSite struct{ *fakeSite }

func (s limitedSite) ImportLimits() Limits { return *s.limits }

const host = "http://docs.test"

func site() *fakeSite {
	return &fakeSite{pages: map[string]string{
		host + "/":                    `<h1>Home</h1><a href="/guide/">Guide</a> <a href="/api/ref.html">Ref</a> <a href="/about">About</a>`,
		host + "/guide/":              `<h1>Guide</h1><a href="/guide/install">Install</a> <a href="/guide/install/linux">Linux</a>`,
		host + "/guide/install":       `<h1>Install</h1><a href="/guide/install/linux#apt">Linux</a> <a href="/">Home</a>`,
		host + "/guide/install/linux": `<h1>Linux</h1><a href="/guide/">back</a>`,
		host + "/api/ref.html":        `<h1>Reference</h1>`,
		host + "/about":               `<h1>About</h1>`,
	}}
}

// outline is "title=path" of every page in tree order.
func outline(pages []*Page) string {
	paths := map[*Page]string{}
	assignPaths(pages, "", paths)
	var out []string
	var walk func([]*Page)
	walk = func(ps []*Page) {
		for _, p := range ps {
			out = append(out, p.Title+"="+paths[p])
			walk(p.Children)
		}
	}
	walk(pages)
	return strings.Join(out, " ")
}

func TestWebsiteNestsPagesByURLPath(t *testing.T) {
	res, err := Website(context.Background(), site(), host+"/", Limits{})
	if err != nil {
		t.Fatal(err)
	}
	// /api/ref.html has no crawled /api page: it goes under the root page.
	want := "Home=home Guide=home/guide Install=home/guide/install Linux=home/guide/install/linux Reference=home/ref About=home/about"
	if got := outline(res.Pages); got != want {
		t.Fatalf("tree:\n got %s\nwant %s", got, want)
	}
	install := res.Pages[0].Children[0].Children[0]
	// Links between crawled pages are relative to the linking page's folder.
	if !strings.Contains(install.Markdown, "[Linux](install/linux#apt)") || !strings.Contains(install.Markdown, "[Home](../../home)") {
		t.Fatalf("install links: %q", install.Markdown)
	}
}

func TestWebsiteLimitsFromTheDeployment(t *testing.T) {
	s := site()
	res, err := Website(context.Background(), limitedSite{&fakeSite{pages: s.pages, limits: &Limits{MaxPages: 2}}}, host+"/", Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Imported != 2 || outline(res.Pages) != "Home=home Guide=home/guide" {
		t.Fatalf("max pages 2: %d %s", res.Imported, outline(res.Pages))
	}
	// A caller's own limit wins over the deployment's.
	res, _ = Website(context.Background(), limitedSite{&fakeSite{pages: s.pages, limits: &Limits{MaxPages: 2}}}, host+"/", Limits{MaxPages: 3})
	if res.Imported != 3 {
		t.Fatalf("caller limit: %d", res.Imported)
	}
	// The time limit stops the crawl; what was converted stays.
	slow := &fakeSite{pages: s.pages, delay: 30 * time.Millisecond, limits: &Limits{Timeout: 80 * time.Millisecond}}
	start := time.Now()
	res, err = Website(context.Background(), limitedSite{slow}, host+"/", Limits{})
	if err != nil || time.Since(start) > time.Second || res.Imported == 0 || res.Imported >= 6 {
		t.Fatalf("timeout: %v imported %d in %s", err, res.Imported, time.Since(start))
	}
}

func TestRelLink(t *testing.T) {
	for _, c := range [][3]string{
		{"a", "b", "b"}, {"a", "a/b", "a/b"}, {"a/b", "a/c", "c"}, {"a/b", "a", "../a"},
		{"x/y/z", "x/q", "../q"}, {"x/y", "p/q/r", "../p/q/r"},
	} {
		if got := relLink(c[0], c[1]); got != c[2] {
			t.Errorf("relLink(%s, %s) = %s, want %s", c[0], c[1], got, c[2])
		}
	}
}

func TestZipUnescapesLinkDestinations(t *testing.T) {
	var b bytes.Buffer
	zw := zip.NewWriter(&b)
	for name, body := range map[string]string{
		"SUMMARY.md":          "* [Start](start.md)\n* [My notes](my%20notes.md)\n",
		"start.md":            "# Start\n\nSee [notes](my%20notes.md#top), [again](<my notes.md>) and ![shot](img/screen%20shot.png).\n",
		"my notes.md":         "# My notes\n\nBack to [start](start.md).\n",
		"img/screen shot.png": "png",
	} {
		w, _ := zw.Create(name)
		w.Write([]byte(body))
	}
	zw.Close()
	res, err := Zip(context.Background(), b.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	if got := outline(res.Pages); got != "Start=start My notes=my-notes" {
		t.Fatalf("tree: %s", got)
	}
	md := res.Pages[0].Markdown
	for _, want := range []string{"[notes](my-notes#top)", "[again](my-notes)", "![shot](screen%20shot.png)"} {
		if !strings.Contains(md, want) {
			t.Errorf("start lacks %s: %q", want, md)
		}
	}
}
