package rest_test

import (
	"archive/zip"
	"bytes"
	"encoding/base64"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"docsapi/apitest"
	"docsapi/server"
)

// newSpace creates a space in orgID (as its admin, env.Admin for env.Org)
// with an empty first revision.
func newSpace(t testing.TB, env *apitest.Env, orgID string) string {
	t.Helper()
	r := env.Do("POST", "/v1/orgs/"+orgID+"/spaces", env.Admin.Token, map[string]any{"title": "Docs"})
	if r.Status != 201 {
		t.Fatalf("create space: %d %s", r.Status, r.Body)
	}
	return r.JSON()["id"].(string)
}

// pngBytes is a w×h PNG image.
func pngBytes(w, h int) []byte {
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	img.Set(0, 0, color.RGBA{255, 0, 0, 255})
	var b bytes.Buffer
	png.Encode(&b, img)
	return b.Bytes()
}

func zipOf(t testing.TB, files map[string][]byte) []byte {
	var b bytes.Buffer
	zw := zip.NewWriter(&b)
	for name, data := range files {
		w, err := zw.Create(name)
		if err != nil {
			t.Fatal(err)
		}
		w.Write(data)
	}
	zw.Close()
	return b.Bytes()
}

// contentSite serves the fixtures imports are tested against.
func contentSite(t testing.TB) *httptest.Server {
	mux := http.NewServeMux()
	mux.HandleFunc("/guide.md", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/markdown")
		fmt.Fprint(w, "# Guide\n\nRead the [install page](install.md) and [home](https://example.com).\n\n## Setup\n\nThe quantum flux capacitor needs setup.\n")
	})
	mux.HandleFunc("/docs.zip", func(w http.ResponseWriter, r *http.Request) {
		w.Write(zipOf(t, map[string][]byte{
			"SUMMARY.md":         []byte("# Summary\n\n* [Welcome](README.md)\n* [Usage](usage/README.md)\n  * [Advanced usage](usage/advanced.md)\n"),
			"README.md":          []byte("# Welcome\n\nSee [advanced](usage/advanced.md).\n\n![diagram](images/diagram.png)\n"),
			"usage/README.md":    []byte("# Usage\n\nHow to use it.\n"),
			"usage/advanced.md":  []byte("# Advanced usage\n\nBack to [welcome](../README.md).\n"),
			"extra/notes.md":     []byte("# Notes\n\nUnlisted notes.\n"),
			"images/diagram.png": pngBytes(4, 3),
			"images/.DS_Store":   []byte("junk"),
		}))
	})
	mux.HandleFunc("/page.html", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<html><head><title>HTML page</title></head><body><nav>menu</nav><main><h1>Converted</h1><p>Some <strong>bold</strong> text and a <a href="/other">link</a>.</p><img src="/logo.png" alt="logo"></main></body></html>`)
	})
	mux.HandleFunc("/logo.png", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "image/png")
		w.Write(pngBytes(8, 6))
	})
	site := map[string]string{
		"/site/":  `<h1>Site home</h1><p><a href="/site/a">A</a> <a href="/site/b">B</a> <a href="https://elsewhere.test/x">out</a></p>`,
		"/site/a": `<h1>Page A</h1><p>Alpha content. <a href="/site/b">to B</a></p><img src="/logo.png">`,
		"/site/b": `<h1>Page B</h1><p>Beta content. <a href="/site/c">to C</a></p>`,
		"/site/c": `<h1>Page C</h1><p>Gamma content.</p>`,
	}
	for p, body := range site {
		body := body
		mux.HandleFunc(p, func(w http.ResponseWriter, r *http.Request) {
			if _, ok := site[r.URL.Path]; !ok {
				http.NotFound(w, r)
				return
			}
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			fmt.Fprintf(w, "<html><head><title>t</title></head><body>%s</body></html>", body)
		})
	}
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

func importInto(t *testing.T, env *apitest.Env, space, source, url string) map[string]any {
	t.Helper()
	r := env.Must(201, "POST", "/v1/spaces/"+space+"/content/import", env.Admin.Token, map[string]any{"url": url, "source": source})
	res := r.JSON()
	if loc := r.Header.Get("Location"); loc != env.HTTP.URL+"/v1/spaces/"+space+"/revisions/"+res["revision"].(string) {
		t.Errorf("Location %q", loc)
	}
	return res
}

func TestContentImportAndRead(t *testing.T) {
	env := apitest.New(t)
	site := contentSite(t)
	space := newSpace(t, env, env.Org)
	base := "/v1/spaces/" + space
	reader := env.NewUser("reader@acme.test", env.Org, "read")
	guest := env.NewUser("guest@acme.test", env.Org, "guest")
	_, foreign := env.NewOrg("Other", "admin@other.test")

	res := importInto(t, env, space, "markdown", site.URL+"/guide.md")
	apitest.Keys(t, res, "revision", "importedResources", "totalResources")
	if res["importedResources"].(float64) != 1 {
		t.Fatalf("import: %v", res)
	}
	rev := res["revision"].(string)

	var guideID string
	env.Run(t, []apitest.Scenario{
		{Name: "revision", Method: "GET", Path: base + "/content", Token: reader.Token, Status: 200, Check: func(r apitest.Response) {
			v := r.JSON()
			apitest.Keys(t, v, "object", "id", "type", "parents", "pages", "files", "reusableContents", "variables", "createdAt", "urls")
			if v["id"] != rev || v["object"] != "revision" || v["type"] != "edits" || len(v["parents"].([]any)) != 1 {
				t.Errorf("revision: %v", v)
			}
			page := v["pages"].([]any)[0].(map[string]any)
			guideID = page["id"].(string)
			apitest.Keys(t, page, "id", "title", "createdAt", "updatedAt", "kind", "type", "urls", "slug", "path", "pages", "layout", "hidden", "noIndex", "noRobotsIndex")
			if page["title"] != "Guide" || page["path"] != "guide" || page["kind"] != "sheet" {
				t.Errorf("page: %v", page)
			}
		}},
		{Name: "revision by id", Method: "GET", Path: base + "/revisions/" + rev, Token: reader.Token, Status: 200, Contains: []string{`"id":"` + rev + `"`}},
		{Name: "pages", Method: "GET", Path: base + "/content/pages?metadata=false&computed=false", Token: reader.Token, Status: 200, Contains: []string{`"pages":[{`, `"title":"Guide"`}},
		{Name: "pages at revision", Method: "GET", Path: base + "/revisions/" + rev + "/pages", Token: reader.Token, Status: 200, Contains: []string{`"title":"Guide"`}},
		{Name: "by path", Method: "GET", Path: base + "/content/path/guide", Token: reader.Token, Status: 200, Contains: []string{`"markdown":"Read the [install page](install.md)`}},
		{Name: "by path at revision", Method: "GET", Path: base + "/revisions/" + rev + "/path/guide?format=document", Token: reader.Token, Status: 200, Contains: []string{`"document":{"object":"document"`, `"type":"heading-2"`}},
		{Name: "unknown path", Method: "GET", Path: base + "/content/path/nope", Token: reader.Token, Status: 404},
		{Name: "unknown revision", Method: "GET", Path: base + "/revisions/nope", Token: reader.Token, Status: 404},
		{Name: "unknown space", Method: "GET", Path: "/v1/spaces/nope/content", Token: reader.Token, Status: 404},
		{Name: "guest cannot see the space", Method: "GET", Path: base + "/content", Token: guest.Token, Status: 404},
		{Name: "other organization", Method: "GET", Path: base + "/content", Token: foreign.Token, Status: 404},
		{Name: "no token", Method: "GET", Path: base + "/content", Status: 401},
		{Name: "bad metadata", Method: "GET", Path: base + "/content?metadata=maybe", Token: reader.Token, Status: 400, Contains: []string{"metadata"}},
		{Name: "reader cannot import", Method: "POST", Path: base + "/content/import", Token: reader.Token, Body: map[string]any{"url": site.URL + "/guide.md", "source": "markdown"}, Status: 403},
		{Name: "unsupported source", Method: "POST", Path: base + "/content/import", Token: env.Admin.Token, Body: map[string]any{"url": site.URL + "/x.docx", "source": "docx"}, Status: 400,
			Contains: []string{"docx is not supported", "markdown, zip, html, website"}},
		{Name: "unknown source", Method: "POST", Path: base + "/content/import", Token: env.Admin.Token, Body: map[string]any{"url": site.URL, "source": "pdf"}, Status: 400, Contains: []string{"source"}},
		{Name: "bad url", Method: "POST", Path: base + "/content/import", Token: env.Admin.Token, Body: map[string]any{"url": "ftp://x", "source": "markdown"}, Status: 400, Contains: []string{"url"}},
		{Name: "missing url", Method: "POST", Path: base + "/content/import", Token: env.Admin.Token, Body: map[string]any{"url": site.URL + "/missing.md", "source": "markdown"}, Status: 400, Contains: []string{"404"}},
	})

	pagePath := base + "/content/page/" + guideID
	env.Run(t, []apitest.Scenario{
		{Name: "page markdown", Method: "GET", Path: pagePath, Token: reader.Token, Status: 200, Check: func(r apitest.Response) {
			v := r.JSON()
			apitest.Keys(t, v, "id", "title", "createdAt", "updatedAt", "kind", "type", "markdown", "urls", "slug", "path", "pages", "layout", "hidden", "noIndex", "noRobotsIndex")
		}},
		{Name: "page document", Method: "GET", Path: pagePath + "?format=document&evaluated=true", Token: reader.Token, Status: 200, Contains: []string{`"schemaVersion":1`, `"type":"paragraph"`}},
		{Name: "bad format", Method: "GET", Path: pagePath + "?format=pdf", Token: reader.Token, Status: 400, Contains: []string{"format"}},
		{Name: "page at revision", Method: "GET", Path: base + "/revisions/" + rev + "/page/" + guideID, Token: reader.Token, Status: 200},
		{Name: "unknown page", Method: "GET", Path: base + "/content/page/nope", Token: reader.Token, Status: 404},
		{Name: "page links", Method: "GET", Path: pagePath + "/links", Token: reader.Token, Status: 200, Check: func(r apitest.Response) {
			v := r.JSON()
			apitest.Keys(t, v, "count", "items", "stats")
			stats := v["stats"].(map[string]any)
			if stats["total"].(float64) != 2 || stats["broken"].(map[string]any)["total"].(float64) != 1 {
				t.Errorf("stats: %v", v)
			}
			item := v["items"].([]any)[0].(map[string]any)
			apitest.Keys(t, item, "status", "relation", "targetReference", "locationReferences")
		}},
		{Name: "broken links", Method: "GET", Path: base + "/links?status=broken", Token: reader.Token, Status: 200, Contains: []string{`"count":1`, `"status":"broken"`, `"url":"install.md"`}},
		{Name: "ok links", Method: "GET", Path: base + "/links?status=ok", Token: reader.Token, Status: 200, Contains: []string{`"count":1`, `"url":"https://example.com"`}},
		{Name: "bad status", Method: "GET", Path: base + "/links?status=weird", Token: reader.Token, Status: 400, Contains: []string{"status"}},
		{Name: "search", Method: "GET", Path: base + "/search?query=quantum+flux", Token: reader.Token, Status: 200, Check: func(r apitest.Response) {
			v := r.JSON()
			items := v["items"].([]any)
			if len(items) != 1 {
				t.Fatalf("search: %s", r.Body)
			}
			item := items[0].(map[string]any)
			apitest.Keys(t, item, "id", "title", "path", "sections", "urls")
			sec := item["sections"].([]any)[0].(map[string]any)
			apitest.Keys(t, sec, "id", "title", "path", "body", "urls")
			if sec["id"] != "setup" || sec["path"] != "guide#setup" || !strings.Contains(sec["body"].(string), "quantum") {
				t.Errorf("section: %v", sec)
			}
		}},
		{Name: "search prefix", Method: "GET", Path: base + "/search?query=capac", Token: reader.Token, Status: 200, Contains: []string{`"count":1`}},
		{Name: "search nothing", Method: "GET", Path: base + "/search?query=zebra", Token: reader.Token, Status: 200, Contains: []string{`"count":0`, `"items":[]`}},
		{Name: "search without query", Method: "GET", Path: base + "/search", Token: reader.Token, Status: 400, Contains: []string{"query"}},
		{Name: "search query too long", Method: "GET", Path: base + "/search?query=" + strings.Repeat("a", 513), Token: reader.Token, Status: 400, Contains: []string{"512"}},
		{Name: "org search", Method: "GET", Path: "/v1/orgs/" + env.Org + "/search?query=quantum", Token: reader.Token, Status: 200, Check: func(r apitest.Response) {
			items := r.JSON()["items"].([]any)
			if len(items) != 1 {
				t.Fatalf("org search: %s", r.Body)
			}
			apitest.Keys(t, items[0].(map[string]any), "id", "title", "pages")
		}},
		{Name: "org search other org", Method: "GET", Path: "/v1/orgs/" + env.Org + "/search?query=quantum", Token: foreign.Token, Status: 404},
	})

	// GraphQL gives the same page.
	data, errs := env.GraphQL(reader.Token, `query($s: ID!, $p: ID!) { spacePage(spaceId: $s, pageId: $p, format: DOCUMENT) { id title type kind path document } }`, map[string]any{"s": space, "p": guideID})
	if len(errs) > 0 || data["spacePage"].(map[string]any)["path"] != "guide" || data["spacePage"].(map[string]any)["type"] != "DOCUMENT" {
		t.Fatalf("graphql page: %v %v", data, errs)
	}
	_, errs = env.GraphQL(foreign.Token, `query($s: ID!) { spaceContent(spaceId: $s) { id } }`, map[string]any{"s": space})
	if len(errs) != 1 || errs[0].Code() != "NOT_FOUND" {
		t.Fatalf("graphql foreign: %v", errs)
	}
}

func TestContentImportSources(t *testing.T) {
	env := apitest.New(t)
	site := contentSite(t)

	t.Run("zip", func(t *testing.T) {
		space := newSpace(t, env, env.Org)
		res := importInto(t, env, space, "zip", site.URL+"/docs.zip")
		if res["importedResources"].(float64) != 5 || res["totalResources"].(float64) != 6 {
			t.Errorf("zip import counts: %v", res)
		}
		r := env.Must(200, "GET", "/v1/spaces/"+space+"/content/pages", env.Admin.Token, nil)
		var out struct {
			Pages []struct {
				Title, Path string
				Pages       []struct{ Title, Path string }
			}
		}
		r.Decode(t, &out)
		got := []string{}
		for _, p := range out.Pages {
			got = append(got, p.Title+"="+p.Path)
			for _, c := range p.Pages {
				got = append(got, c.Title+"="+c.Path)
			}
		}
		want := "Welcome=welcome Usage=usage Advanced usage=usage/advanced extra=extra Notes=extra/notes"
		if strings.Join(got, " ") != want {
			t.Fatalf("zip tree:\n got %s\nwant %s", strings.Join(got, " "), want)
		}
		links := env.Must(200, "GET", "/v1/spaces/"+space+"/links", env.Admin.Token, nil).JSON()
		if links["stats"].(map[string]any)["broken"].(map[string]any)["total"].(float64) != 0 || links["count"].(float64) != 3 {
			t.Errorf("zip links (page, page, file) all resolve: %v", links)
		}
		files := env.Must(200, "GET", "/v1/spaces/"+space+"/content/files", env.Admin.Token, nil).JSON()
		f := files["items"].([]any)[0].(map[string]any)
		apitest.Keys(t, f, "id", "name", "contentType", "downloadURL", "size", "dimensions")
		if f["name"] != "diagram.png" || f["contentType"] != "image/png" || f["dimensions"].(map[string]any)["width"].(float64) != 4 {
			t.Errorf("file: %v", f)
		}
		fileID := f["id"].(string)
		back := env.Must(200, "GET", "/v1/spaces/"+space+"/content/files/"+fileID+"/backlinks", env.Admin.Token, nil).JSON()
		if back["count"].(float64) != 1 {
			t.Fatalf("file backlinks: %v", back)
		}
		loc := back["items"].([]any)[0].(map[string]any)
		apitest.Keys(t, loc, "kind", "organization", "space", "versionContext", "page")
		// 0.130.0 locations carry objects: the organization, the space, the
		// page, and the revision read.
		if loc["organization"].(map[string]any)["object"] != "organization" || loc["space"].(map[string]any)["id"] != space ||
			loc["page"].(map[string]any)["title"] == nil || loc["versionContext"].(map[string]any)["revision"].(map[string]any)["object"] != "revision" {
			t.Errorf("location objects: %v", loc)
		}
		// The signed link works without a token; a forged one does not.
		dl := strings.TrimPrefix(f["downloadURL"].(string), env.HTTP.URL)
		if r := env.Do("GET", dl, "", nil); r.Status != 200 || !bytes.Equal(r.Body, pngBytes(4, 3)) || r.Header.Get("Content-Type") != "image/png" {
			t.Fatalf("signed download: %d %s", r.Status, r.Header)
		}
		if r := env.Do("GET", dl[:strings.Index(dl, "?")]+"?token=forged", "", nil); r.Status != 401 {
			t.Fatalf("forged download: %d", r.Status)
		}
		if r := env.Do("GET", dl[:strings.Index(dl, "?")], env.Admin.Token, nil); r.Status != 200 {
			t.Fatalf("download with bearer token: %d", r.Status)
		}
		if r := env.Do("GET", dl[:strings.Index(dl, "?")], "", nil); r.Status != 401 {
			t.Fatalf("download without anything: %d", r.Status)
		}
		env.Must(200, "GET", "/v1/spaces/"+space+"/content/files/"+fileID, env.Admin.Token, nil)
		env.Must(404, "GET", "/v1/spaces/"+space+"/content/files/nope", env.Admin.Token, nil)
		env.Must(404, "GET", "/v1/spaces/"+space+"/content/files/nope/backlinks", env.Admin.Token, nil)
	})

	t.Run("html", func(t *testing.T) {
		space := newSpace(t, env, env.Org)
		res := importInto(t, env, space, "html", site.URL+"/page.html")
		if res["importedResources"].(float64) != 2 {
			t.Errorf("html import: %v", res)
		}
		pages := env.Must(200, "GET", "/v1/spaces/"+space+"/content/path/converted", env.Admin.Token, nil).JSON()
		md := pages["markdown"].(string)
		if !strings.Contains(md, "**bold**") || !strings.Contains(md, "![logo](logo.png)") || strings.Contains(md, "menu") {
			t.Errorf("html markdown: %q", md)
		}
	})

	t.Run("website", func(t *testing.T) {
		space := newSpace(t, env, env.Org)
		res := importInto(t, env, space, "website", site.URL+"/site/")
		if res["importedResources"].(float64) != 5 { // 4 pages and the logo
			t.Errorf("website import: %v", res)
		}
		r := env.Must(200, "GET", "/v1/spaces/"+space+"/content/pages", env.Admin.Token, nil)
		for _, frag := range []string{`"title":"Site home"`, `"title":"Page A"`, `"title":"Page B"`, `"title":"Page C"`} {
			if !bytes.Contains(r.Body, []byte(frag)) {
				t.Errorf("website pages lack %s: %s", frag, r.Body)
			}
		}
		links := env.Must(200, "GET", "/v1/spaces/"+space+"/links?status=ok", env.Admin.Token, nil).JSON()
		if links["stats"].(map[string]any)["broken"].(map[string]any)["total"].(float64) != 0 {
			t.Errorf("crawled links should resolve: %v", links)
		}
	})

	t.Run("page import", func(t *testing.T) {
		space := newSpace(t, env, env.Org)
		importInto(t, env, space, "markdown", site.URL+"/guide.md")
		page := env.Must(200, "GET", "/v1/spaces/"+space+"/content/path/guide", env.Admin.Token, nil).JSON()
		env.Must(201, "POST", "/v1/spaces/"+space+"/content/page/"+page["id"].(string)+"/import", env.Admin.Token, map[string]any{"url": site.URL + "/page.html", "source": "html"})
		after := env.Must(200, "GET", "/v1/spaces/"+space+"/content/page/"+page["id"].(string), env.Admin.Token, nil).JSON()
		if !strings.Contains(after["markdown"].(string), "**bold**") {
			t.Errorf("page import replaced the body: %v", after["markdown"])
		}
		env.Must(404, "POST", "/v1/spaces/"+space+"/content/page/nope/import", env.Admin.Token, map[string]any{"url": site.URL + "/page.html", "source": "html"})
	})
}

func TestImportURLGuard(t *testing.T) {
	env := apitest.New(t, apitest.Options{Config: func(c *server.Config) { c.AllowPrivateFetch = false }})
	site := contentSite(t)
	space := newSpace(t, env, env.Org)
	r := env.Must(400, "POST", "/v1/spaces/"+space+"/content/import", env.Admin.Token, map[string]any{"url": site.URL + "/guide.md", "source": "markdown"})
	if !bytes.Contains(r.Body, []byte("loopback")) {
		t.Fatalf("guard message: %s", r.Body)
	}
	r = env.Must(400, "POST", "/v1/spaces/"+space+"/content/import", env.Admin.Token, map[string]any{"url": "http://169.254.169.254/latest", "source": "html"})
	if !bytes.Contains(r.Body, []byte("link-local")) {
		t.Fatalf("guard message: %s", r.Body)
	}
}

func TestTemplatesAndPageMutations(t *testing.T) {
	env := apitest.New(t)
	space := newSpace(t, env, env.Org)
	base := "/v1/spaces/" + space
	editor := env.NewUser("editor@acme.test", env.Org, "edit")
	commenter := env.NewUser("commenter@acme.test", env.Org, "comment")
	env.Run(t, []apitest.Scenario{
		{Name: "blank", Method: "POST", Path: base + "/content/template", Token: editor.Token, Body: map[string]any{"id": "blank"}, Status: 201, Check: func(r apitest.Response) {
			if len(r.Body) != 0 {
				t.Errorf("template answers no body: %s", r.Body)
			}
		}},
		{Name: "getting started", Method: "POST", Path: base + "/content/template", Token: editor.Token, Body: map[string]any{"id": "getting-started"}, Status: 201},
		{Name: "unknown template", Method: "POST", Path: base + "/content/template", Token: editor.Token, Body: map[string]any{"id": "nope"}, Status: 400, Contains: []string{"blank"}},
		{Name: "commenter refused", Method: "POST", Path: base + "/content/template", Token: commenter.Token, Body: map[string]any{"id": "blank"}, Status: 403},
		{Name: "tree", Method: "GET", Path: base + "/content/pages", Token: editor.Token, Status: 200, Contains: []string{`"path":"untitled"`, `"path":"introduction"`, `"path":"quick-start"`}},
		{Name: "template links resolve", Method: "GET", Path: base + "/links?status=broken", Token: editor.Token, Status: 200, Contains: []string{`"count":0`}},
	})

	gql := func(token, q string, vars map[string]any) (map[string]any, []apitest.GraphQLError) {
		return env.GraphQL(token, q, vars)
	}
	target := map[string]any{"space": space}
	data, errs := gql(editor.Token, `mutation($t: ContentTarget!) { createPage(target: $t, input: {title: "New page", markdown: "Links to [intro](introduction.md) and [gone](nowhere.md)"}) { revision page { id path markdown } } }`, map[string]any{"t": target})
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	created := data["createPage"].(map[string]any)
	pageID := created["page"].(map[string]any)["id"].(string)
	if created["page"].(map[string]any)["path"] != "new-page" {
		t.Fatalf("created: %v", created)
	}
	space0 := env.Must(200, "GET", base+"/content", editor.Token, nil).JSON()
	if space0["id"] != created["revision"] {
		t.Fatalf("the mutation's revision is active: %v", space0["id"])
	}
	// Moving under introduction changes the path; the links stay resolved.
	intro := env.Must(200, "GET", base+"/content/path/introduction", editor.Token, nil).JSON()
	data, errs = gql(editor.Token, `mutation($t: ContentTarget!, $p: ID!, $parent: ID) { movePage(target: $t, pageId: $p, input: {parent: $parent}) { page { path } } }`,
		map[string]any{"t": target, "p": pageID, "parent": intro["id"]})
	if len(errs) > 0 || data["movePage"].(map[string]any)["page"].(map[string]any)["path"] != "introduction/new-page" {
		t.Fatalf("move: %v %v", data, errs)
	}
	back := env.Must(200, "GET", base+"/content/page/"+intro["id"].(string)+"/backlinks", editor.Token, nil).JSON()
	if back["count"].(float64) != 2 { // FAQ and the new page
		t.Fatalf("page backlinks: %v", back)
	}
	// Moving a page under itself is refused.
	_, errs = gql(editor.Token, `mutation($t: ContentTarget!, $p: ID!) { movePage(target: $t, pageId: $p, input: {parent: $p}) { revision } }`, map[string]any{"t": target, "p": pageID})
	if len(errs) != 1 || errs[0].Code() != "BAD_REQUEST" {
		t.Fatalf("move under itself: %v", errs)
	}
	data, errs = gql(editor.Token, `mutation($t: ContentTarget!, $p: ID!) { updatePage(target: $t, pageId: $p, input: {title: "Renamed", markdown: "# Body\n\nzebra stripes"}) { page { title markdown } } }`,
		map[string]any{"t": target, "p": pageID})
	if len(errs) > 0 || data["updatePage"].(map[string]any)["page"].(map[string]any)["title"] != "Renamed" {
		t.Fatalf("update: %v %v", data, errs)
	}
	env.Must(200, "GET", base+"/search?query=zebra", editor.Token, nil)
	if r := env.Must(200, "GET", base+"/search?query=zebra", editor.Token, nil).JSON(); r["count"].(float64) != 1 {
		t.Fatalf("search follows the active revision: %v", r)
	}
	// Upload a file.
	data, errs = gql(editor.Token, `mutation($t: ContentTarget!, $d: String!) { uploadFile(target: $t, input: {name: "shot.png", data: $d}) { revision file { id name contentType size dimensions { width height } } } }`,
		map[string]any{"t": target, "d": base64.StdEncoding.EncodeToString(pngBytes(10, 7))})
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	file := data["uploadFile"].(map[string]any)["file"].(map[string]any)
	if file["contentType"] != "image/png" || file["dimensions"].(map[string]any)["height"].(float64) != 7 {
		t.Fatalf("upload: %v", file)
	}
	_, errs = gql(editor.Token, `mutation($t: ContentTarget!) { uploadFile(target: $t, input: {name: "x", data: "%%%"}) { revision } }`, map[string]any{"t": target})
	if len(errs) != 1 || errs[0].Extensions["field"] != "data" {
		t.Fatalf("bad base64: %v", errs)
	}
	// Delete removes the page; search forgets it.
	_, errs = gql(editor.Token, `mutation($t: ContentTarget!, $p: ID!) { deletePage(target: $t, pageId: $p) { revision } }`, map[string]any{"t": target, "p": pageID})
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	env.Must(404, "GET", base+"/content/page/"+pageID, editor.Token, nil)
	if r := env.Must(200, "GET", base+"/search?query=zebra", editor.Token, nil).JSON(); r["count"].(float64) != 0 {
		t.Fatalf("deleted page still found: %v", r)
	}
	// Refusals: commenter, unknown page, change requests, locked space.
	_, errs = gql(commenter.Token, `mutation($t: ContentTarget!) { createPage(target: $t, input: {title: "x"}) { revision } }`, map[string]any{"t": target})
	if len(errs) != 1 || errs[0].Code() != "FORBIDDEN" {
		t.Fatalf("commenter: %v", errs)
	}
	_, errs = gql(editor.Token, `mutation($t: ContentTarget!) { deletePage(target: $t, pageId: "nope") { revision } }`, map[string]any{"t": target})
	if len(errs) != 1 || errs[0].Code() != "NOT_FOUND" {
		t.Fatalf("unknown page: %v", errs)
	}
	_, errs = gql(editor.Token, `mutation { createPage(target: {changeRequest: "cr"}, input: {title: "x"}) { revision } }`, nil)
	if len(errs) != 1 || errs[0].Code() != "BAD_REQUEST" {
		t.Fatalf("change request target: %v", errs)
	}
	_, errs = gql(editor.Token, `mutation($t: ContentTarget!) { createPage(target: $t, input: {title: ""}) { revision } }`, map[string]any{"t": target})
	if len(errs) != 1 || errs[0].Extensions["field"] != "title" {
		t.Fatalf("empty title: %v", errs)
	}
	env.Must(200, "PATCH", base, env.Admin.Token, map[string]any{"editMode": "locked"})
	_, errs = gql(editor.Token, `mutation($t: ContentTarget!) { createPage(target: $t, input: {title: "x"}) { revision } }`, map[string]any{"t": target})
	if len(errs) != 1 || errs[0].Code() != "CONFLICT" {
		t.Fatalf("locked: %v", errs)
	}
	env.Must(409, "POST", base+"/content/template", editor.Token, map[string]any{"id": "blank"})
}

// A duplicated space gets the content and the search index of the original
// (rows only: page versions and file bytes are shared); a purge-free delete
// hides both.
func TestDuplicatedSpaceKeepsContent(t *testing.T) {
	env := apitest.New(t)
	site := contentSite(t)
	space := newSpace(t, env, env.Org)
	importInto(t, env, space, "zip", site.URL+"/docs.zip")
	copyID := env.Must(201, "POST", "/v1/spaces/"+space+"/duplicate", env.Admin.Token, nil).JSON()["id"].(string)
	orig := env.Must(200, "GET", "/v1/spaces/"+space+"/content/pages", env.Admin.Token, nil)
	dup := env.Must(200, "GET", "/v1/spaces/"+copyID+"/content/pages", env.Admin.Token, nil)
	if !bytes.Equal(orig.Body, bytes.ReplaceAll(dup.Body, []byte(copyID), []byte(space))) {
		t.Fatalf("pages differ:\n%s\n%s", orig.Body, dup.Body)
	}
	if r := env.Must(200, "GET", "/v1/spaces/"+copyID+"/search?query=unlisted", env.Admin.Token, nil).JSON(); r["count"].(float64) != 1 {
		t.Fatalf("search in the copy: %v", r)
	}
	files := env.Must(200, "GET", "/v1/spaces/"+copyID+"/content/files", env.Admin.Token, nil).JSON()
	if files["count"].(float64) != 1 {
		t.Fatalf("files of the copy: %v", files)
	}
	env.Must(205, "DELETE", "/v1/spaces/"+copyID, env.Admin.Token, nil)
	env.Must(404, "GET", "/v1/spaces/"+copyID+"/search?query=unlisted", env.Admin.Token, nil)
	if r := env.Must(200, "GET", "/v1/orgs/"+env.Org+"/search?query=unlisted", env.Admin.Token, nil).JSON(); r["count"].(float64) != 1 {
		t.Fatalf("organization search skips trashed spaces: %v", r)
	}
}
