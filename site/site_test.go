package site_test

import (
	"io"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

func TestPublicSiteRoutes(t *testing.T) {
	f := newReaderFixture(t, "public")
	c := f.client(t)
	root := get(t, c, f.base)
	if root.status != 200 || !strings.Contains(root.body, "<h1>Overview</h1>") {
		t.Fatalf("site root: %d %s", root.status, root.body)
	}
	for _, want := range []string{
		`<h2 id="text-and-marks">`, "<strong>bold</strong>", "<em>italic</em>", "<s>struck</s>", "<code>code</code>",
		`href="` + f.basePath + `/install#requirements"`, `<ul class="tasks">`, `type="checkbox"`, "<blockquote>",
		`class="hint hint-info"`, `class="hint hint-warning"`, `<pre class="chroma" data-lang="go">`, `class="copy"`,
		"<table>", `text-align:center`, `<img src="`, `alt="A diagram"`, `width="600" height="200"`, "<hr>",
		`aria-current="page">Overview</a>`, `rel="canonical"`, `property="og:title"`, `class="toc"`, `rel="next"`,
		`href="` + f.basePath + `/_assets/site.`,
	} {
		if !strings.Contains(root.body, want) {
			t.Errorf("site root lacks %q", want)
		}
	}
	if csp := root.header.Get("Content-Security-Policy"); !strings.Contains(csp, "script-src 'self' 'sha256-") || !strings.Contains(csp, "frame-ancestors 'self'") {
		t.Errorf("CSP %q", csp)
	}
	if cc := root.header.Get("Cache-Control"); cc != "public, max-age=0, must-revalidate" || root.header.Get("ETag") == "" {
		t.Errorf("page caching: %q etag %q", cc, root.header.Get("ETag"))
	}
	nested := get(t, c, f.base+"/install/linux")
	if nested.status != 200 || !strings.Contains(nested.body, "<h1>On Linux</h1>") || !strings.Contains(nested.body, `class="crumbs"`) ||
		!strings.Contains(nested.body, `aria-current="page">On Linux</a>`) {
		t.Errorf("nested page: %d %s", nested.status, nested.body)
	}
	if r := get(t, c, f.base+"/install/linux", "If-None-Match", nested.header.Get("ETag")); r.status != 304 {
		t.Errorf("conditional GET: %d", r.status)
	}
	section := get(t, c, f.base+"/"+f.apiPath)
	if section.status != 200 || !strings.Contains(section.body, "<h1>Reference</h1>") || !strings.Contains(section.body, `class="tabs"`) {
		t.Errorf("section: %d %s", section.status, section.body)
	}
	variant := get(t, c, f.base+"/"+f.betaPath)
	if variant.status != 200 || !strings.Contains(variant.body, "<h1>Beta overview</h1>") || !strings.Contains(variant.body, `class="variants"`) {
		t.Errorf("variant: %d %s", variant.status, variant.body)
	}
	md := get(t, c, f.base+"/install.md")
	if md.status != 200 || !strings.HasPrefix(md.header.Get("Content-Type"), "text/markdown") || !strings.Contains(md.body, "## Requirements") {
		t.Errorf("markdown: %d %q %s", md.status, md.header.Get("Content-Type"), md.body)
	}
	robots := get(t, c, f.base+"/robots.txt")
	if robots.status != 200 || !strings.Contains(robots.body, "Sitemap: ") {
		t.Errorf("robots: %d %s", robots.status, robots.body)
	}
	sitemap := get(t, c, f.base+"/sitemap.xml")
	if sitemap.status != 200 || !strings.Contains(sitemap.body, "/install/linux</loc>") || !strings.Contains(sitemap.body, "/reference</loc>") {
		t.Errorf("sitemap: %d %s", sitemap.status, sitemap.body)
	}
	llms := get(t, c, f.base+"/llms.txt")
	if llms.status != 200 || !strings.Contains(llms.body, "# Acme Docs") || !strings.Contains(llms.body, "/install.md)") {
		t.Errorf("llms.txt: %d %s", llms.status, llms.body)
	}
	full := get(t, c, f.base+"/llms-full.txt")
	if full.status != 200 || !strings.Contains(full.body, "searchable-penguin") {
		t.Errorf("llms-full.txt: %d %s", full.status, full.body)
	}
	missing := get(t, c, f.base+"/no/such/page")
	if missing.status != 404 || !strings.Contains(missing.body, "Page not found") || missing.header.Get("Cache-Control") != "no-store" {
		t.Errorf("404: %d %s", missing.status, missing.body)
	}
	css := ""
	if i := strings.Index(root.body, f.basePath+"/_assets/site."); i >= 0 {
		css = root.body[i : i+strings.IndexByte(root.body[i:], '"')]
	}
	asset := get(t, c, f.HTTP.URL+css, "Accept-Encoding", "gzip")
	if asset.status != 200 || asset.header.Get("Cache-Control") != "public, max-age=31536000, immutable" {
		t.Errorf("asset %s: %d %v", css, asset.status, asset.header)
	}
	search := get(t, c, f.base+"/_search?q=penguin", "Accept", "application/json")
	if search.status != 200 || !strings.Contains(search.body, `"href":"`+f.basePath+`/install/linux"`) {
		t.Errorf("search: %d %s", search.status, search.body)
	}
	if r := get(t, c, f.base+"/_search?q=penguin"); r.status != 200 || !strings.Contains(r.body, "On Linux") {
		t.Errorf("search page: %d %s", r.status, r.body)
	}
	// The API's own paths still answer as the API.
	if r := get(t, c, f.HTTP.URL+"/no-such-route"); r.status != 404 || !strings.Contains(r.header.Get("Content-Type"), "json") {
		t.Errorf("API 404: %d %v", r.status, r.header)
	}
	if r := get(t, c, f.HTTP.URL+"/sites/"+f.Org+"/no-such-site"); r.status != 404 || !strings.Contains(r.body, "Page not found") {
		t.Errorf("unknown site: %d", r.status)
	}
	// Unpublished: gone for readers.
	f.Must(200, "POST", f.site+"/unpublish", f.Admin.Token, nil)
	if r := get(t, c, f.base); r.status != 404 {
		t.Errorf("unpublished site: %d", r.status)
	}
}

func TestHostnameSite(t *testing.T) {
	f := newReaderFixture(t, "public")
	f.Must(200, "PATCH", f.site, f.Admin.Token, map[string]any{"hostname": "docs.example.com"})
	req, _ := http.NewRequest("GET", f.HTTP.URL+"/install", nil)
	req.Host = "docs.example.com"
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(res.Body)
	res.Body.Close()
	body := string(b)
	if res.StatusCode != 200 || !strings.Contains(body, `<a href="/install/linux">On Linux</a>`) || !strings.Contains(body, `href="/_assets/site.`) ||
		!strings.Contains(body, `<link rel="canonical" href="https://docs.example.com/install">`) {
		t.Errorf("hostname site: %d %s", res.StatusCode, body)
	}
}

// A kept rendering is served until any write: a new page shows at once.
func TestCachedPagesFollowWrites(t *testing.T) {
	f := newReaderFixture(t, "public")
	c := f.client(t)
	first := get(t, c, f.base+"/install")
	again := get(t, c, f.base+"/install")
	if first.header.Get("ETag") != again.header.Get("ETag") || first.body != again.body {
		t.Errorf("the same page twice differs")
	}
	createPage(t, f.Env, f.guide, map[string]any{"title": "Fresh page", "slug": "fresh"})
	after := get(t, c, f.base+"/install")
	if after.status != 200 || !strings.Contains(after.body, "Fresh page") || after.header.Get("ETag") == first.header.Get("ETag") {
		t.Errorf("after a new page: %d, sidebar kept the old revision", after.status)
	}
	if r := get(t, c, f.base+"/fresh"); r.status != 200 {
		t.Errorf("new page: %d", r.status)
	}
	for _, p := range []string{"/install.md", "/robots.txt", "/sitemap.xml", "/llms.txt"} {
		r := get(t, c, f.base+p)
		if r.status != 200 || r.header.Get("Cache-Control") != "public, max-age=0, must-revalidate" || r.header.Get("ETag") == "" {
			t.Errorf("%s: %d %q", p, r.status, r.header.Get("Cache-Control"))
		}
	}
	if r := get(t, c, f.base+"/_search?q=install"); r.header.Get("Cache-Control") != "private, no-store" {
		t.Errorf("search caching: %q", r.header.Get("Cache-Control"))
	}
	if r := get(t, c, f.base+"/install", "Accept-Encoding", "gzip"); r.header.Get("Content-Encoding") != "gzip" || !strings.Contains(r.header.Get("Vary"), "Cookie") {
		t.Errorf("gzip: %v", r.header)
	}
}

// A page with its stylesheet and script, gzipped, weighs under 100 KB
// (images aside).
func TestPageWeight(t *testing.T) {
	f := newReaderFixture(t, "public")
	c := f.client(t)
	page := get(t, c, f.base+"/overview", "Accept-Encoding", "gzip")
	plain := get(t, c, f.base+"/overview").body
	total, parts := len(page.body), []string{}
	for _, m := range regexp.MustCompile(`(?:href|src)="([^"]*/_assets/[^"]+)"`).FindAllStringSubmatch(plain, -1) {
		a := get(t, c, f.HTTP.URL+m[1], "Accept-Encoding", "gzip")
		if a.header.Get("Content-Encoding") != "gzip" {
			t.Errorf("%s not gzipped", m[1])
		}
		total += len(a.body)
		parts = append(parts, m[1]+": "+strconv.Itoa(len(a.body)))
	}
	t.Logf("page weight gzipped: %d bytes (page %d, %v)", total, len(page.body), parts)
	if len(parts) != 2 || total > 100<<10 {
		t.Errorf("page weight %d bytes, assets %v", total, parts)
	}
}
