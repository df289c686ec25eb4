package rest_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/binary"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path"
	"strings"
	"testing"
	"time"

	"docsapi/apitest"
	"docsapi/graph"
	"docsapi/server"
	"docsapi/storage"
)

// webpHeader is the start of a lossless WebP image of w×h (what
// dimensions are read from).
func webpHeader(w, h int) []byte {
	bits := uint32(w-1) | uint32(h-1)<<14
	payload := append([]byte{0x2f}, binary.LittleEndian.AppendUint32(nil, bits)...)
	payload = append(payload, 0) // chunks are padded to an even size
	chunk := append([]byte("VP8L"), binary.LittleEndian.AppendUint32(nil, 5)...)
	chunk = append(chunk, payload...)
	b := append([]byte("RIFF"), binary.LittleEndian.AppendUint32(nil, uint32(4+len(chunk)))...)
	return append(append(b, "WEBP"...), chunk...)
}

// upload adds a file to space through the GraphQL mutation and returns it.
func upload(t *testing.T, env *apitest.Env, token, space, name string, data []byte) map[string]any {
	t.Helper()
	d, errs := env.GraphQL(token, `mutation($t: ContentTarget!, $n: String!, $d: String!) { uploadFile(target: $t, input: {name: $n, data: $d}) { revision file { id name contentType dimensions { width height } } } }`,
		map[string]any{"t": map[string]any{"space": space}, "n": name, "d": base64.StdEncoding.EncodeToString(data)})
	if len(errs) > 0 {
		t.Fatalf("upload %s: %v", name, errs)
	}
	return d["uploadFile"].(map[string]any)["file"].(map[string]any)
}

func TestImageDimensionsWebPAndSVG(t *testing.T) {
	env := apitest.New(t)
	space := newSpace(t, env, env.Org)
	for _, c := range []struct {
		name string
		data string
		want string // "WxH", "" for none
	}{
		{"photo.webp", string(webpHeader(300, 200)), "300x200"},
		{"sized.svg", `<?xml version="1.0"?><svg xmlns="http://www.w3.org/2000/svg" width="120px" height="80"><rect/></svg>`, "120x80"},
		{"viewbox.svg", `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 16"/>`, "24x16"},
		{"ratio.svg", `<svg xmlns="http://www.w3.org/2000/svg" width="48" viewBox="0,0,24,16"/>`, "48x32"},
		{"percent.svg", `<svg xmlns="http://www.w3.org/2000/svg" width="100%" height="100%"/>`, ""},
		{"other.xml", `<?xml version="1.0"?><feed/>`, ""},
	} {
		f := upload(t, env, env.Admin.Token, space, c.name, []byte(c.data))
		got := ""
		if d, ok := f["dimensions"].(map[string]any); ok {
			got = fmt.Sprintf("%vx%v", d["width"], d["height"])
		}
		if got != c.want {
			t.Errorf("%s: dimensions %q, want %q (%v)", c.name, got, c.want, f)
		}
	}
	files := env.Must(200, "GET", "/v1/spaces/"+space+"/content/files", env.Admin.Token, nil)
	if !bytes.Contains(files.Body, []byte(`"contentType":"image/webp","downloadURL"`)) || !bytes.Contains(files.Body, []byte(`"dimensions":{"width":300,"height":200}`)) {
		t.Errorf("REST files: %s", files.Body)
	}
}

// pageTree is "title=path" of a space's pages in tree order.
func pageTree(t *testing.T, env *apitest.Env, space string) string {
	t.Helper()
	type page struct {
		Title, Path string
		Pages       []page
	}
	var out struct{ Pages []page }
	env.Must(200, "GET", "/v1/spaces/"+space+"/content/pages", env.Admin.Token, nil).Decode(t, &out)
	var got []string
	var walk func([]page)
	walk = func(ps []page) {
		for _, p := range ps {
			got = append(got, p.Title+"="+p.Path)
			walk(p.Pages)
		}
	}
	walk(out.Pages)
	return strings.Join(got, " ")
}

func brokenLinks(t *testing.T, env *apitest.Env, space string) float64 {
	t.Helper()
	links := env.Must(200, "GET", "/v1/spaces/"+space+"/links", env.Admin.Token, nil).JSON()
	return links["stats"].(map[string]any)["broken"].(map[string]any)["total"].(float64)
}

func TestWebsiteImportNestsPagesAndHonoursLimits(t *testing.T) {
	env := apitest.New(t)
	site := contentSite(t)
	space := newSpace(t, env, env.Org)
	importInto(t, env, space, "website", site.URL+"/site/")
	if got, want := pageTree(t, env, space), "Site home=site Page A=site/a Page B=site/b Page C=site/c"; got != want {
		t.Fatalf("website tree:\n got %s\nwant %s", got, want)
	}
	a := env.Must(200, "GET", "/v1/spaces/"+space+"/content/path/site/a", env.Admin.Token, nil).JSON()
	if md := a["markdown"].(string); !strings.Contains(md, "[to B](b)") {
		t.Errorf("links between crawled pages are relative: %q", md)
	}
	if n := brokenLinks(t, env, space); n != 0 {
		t.Errorf("broken links after a website import: %v", n)
	}
	// Imported under a page, the relative links still resolve.
	host := env.Must(200, "GET", "/v1/spaces/"+space+"/content/path/site/c", env.Admin.Token, nil).JSON()["id"].(string)
	env.Must(201, "POST", "/v1/spaces/"+space+"/content/page/"+host+"/import", env.Admin.Token, map[string]any{"url": site.URL + "/site/", "source": "website"})
	if !strings.Contains(pageTree(t, env, space), "Page B=site/c/site/b") {
		t.Fatalf("nested import: %s", pageTree(t, env, space))
	}
	if n := brokenLinks(t, env, space); n != 0 {
		t.Errorf("broken links after a page-level website import: %v", n)
	}

	// The deployment's limit (--import-max-pages) bounds the crawl.
	small := apitest.New(t, apitest.Options{Config: func(c *server.Config) { c.ImportMaxPages = 2; c.ImportTimeout = 5 * time.Second }})
	sp := newSpace(t, small, small.Org)
	res := importInto(t, small, sp, "website", site.URL+"/site/")
	if res["importedResources"].(float64) != 3 { // 2 pages and the logo of page A
		t.Errorf("limited import: %v", res)
	}
	if got := pageTree(t, small, sp); got != "Site home=site Page A=site/a" {
		t.Errorf("limited tree: %s", got)
	}
}

func TestZipImportUnescapesLinks(t *testing.T) {
	env := apitest.New(t)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Write(zipOf(t, map[string][]byte{
			"start.md":            []byte("# Start\n\nSee [my notes](my%20notes.md#top) and ![shot](img/screen%20shot.png).\n"),
			"my notes.md":         []byte("# My notes\n\nBack to [start](start.md).\n"),
			"img/screen shot.png": pngBytes(2, 2),
		}))
	}))
	t.Cleanup(srv.Close)
	space := newSpace(t, env, env.Org)
	importInto(t, env, space, "zip", srv.URL+"/docs.zip")
	start := env.Must(200, "GET", "/v1/spaces/"+space+"/content/path/start", env.Admin.Token, nil).JSON()
	if md := start["markdown"].(string); !strings.Contains(md, "[my notes](my-notes#top)") || !strings.Contains(md, "![shot](screen%20shot.png)") {
		t.Errorf("rewritten links: %q", md)
	}
	links := env.Must(200, "GET", "/v1/spaces/"+space+"/links", env.Admin.Token, nil).JSON()
	if links["count"].(float64) != 3 || brokenLinks(t, env, space) != 0 {
		t.Errorf("links (page, file, page) resolve: %v", links)
	}
}

// A relative link to a page that does not exist yet is broken, and becomes
// ok in the first revision that has the page (without the linking page
// changing); links to collections and spaces of other organizations, or
// that do not exist, are broken.
func TestLinksFollowTheirRevision(t *testing.T) {
	env := apitest.New(t)
	site := contentSite(t)
	space := newSpace(t, env, env.Org)
	base := "/v1/spaces/" + space
	importInto(t, env, space, "markdown", site.URL+"/guide.md")
	guide := env.Must(200, "GET", base+"/content/path/guide", env.Admin.Token, nil).JSON()["id"].(string)
	before := env.Must(200, "GET", base+"/content", env.Admin.Token, nil).JSON()["id"].(string)
	env.Must(200, "GET", base+"/links?status=broken", env.Admin.Token, nil)
	if n := brokenLinks(t, env, space); n != 1 {
		t.Fatalf("install.md is broken before the page exists: %v", n)
	}
	target := map[string]any{"space": space}
	d, errs := env.GraphQL(env.Admin.Token, `mutation($t: ContentTarget!) { createPage(target: $t, input: {title: "Install"}) { page { id path } } }`, map[string]any{"t": target})
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	install := d["createPage"].(map[string]any)["page"].(map[string]any)["id"].(string)
	if n := brokenLinks(t, env, space); n != 0 {
		t.Fatalf("install.md resolves once the page exists: %v", n)
	}
	r := env.Must(200, "GET", base+"/content/page/"+guide+"/links?status=ok", env.Admin.Token, nil)
	if !bytes.Contains(r.Body, []byte(`"kind":"page"`)) || !bytes.Contains(r.Body, []byte(`"page":{"id":"`+install+`"`)) {
		t.Errorf("the link targets the new page: %s", r.Body)
	}
	back := env.Must(200, "GET", base+"/content/page/"+install+"/backlinks", env.Admin.Token, nil).JSON()
	if back["count"].(float64) != 1 || back["items"].([]any)[0].(map[string]any)["page"].(map[string]any)["id"] != guide {
		t.Errorf("backlinks of the new page: %v", back)
	}
	// The older revision is unchanged: the link was broken there.
	if _, stats, err := env.DB.ListLinks(context.Background(), before, "", "broken", storage.PageQuery{Limit: 10}); err != nil || stats.Broken != 1 {
		t.Errorf("broken links of the older revision: %+v %v", stats, err)
	}
	// Deleting the page breaks the link again.
	if _, errs := env.GraphQL(env.Admin.Token, `mutation($t: ContentTarget!, $p: ID!) { deletePage(target: $t, pageId: $p) { revision } }`, map[string]any{"t": target, "p": install}); len(errs) > 0 {
		t.Fatal(errs)
	}
	if n := brokenLinks(t, env, space); n != 1 {
		t.Errorf("install.md is broken again: %v", n)
	}

	// Collections and spaces: of this organization ok, unknown or of another organization broken.
	col := env.Must(201, "POST", "/v1/orgs/"+env.Org+"/collections", env.Admin.Token, map[string]any{"title": "Mine"}).JSON()["id"].(string)
	otherOrg, other := env.NewOrg("Other", "admin@other.test")
	foreignCol := env.Must(201, "POST", "/v1/orgs/"+otherOrg+"/collections", other.Token, map[string]any{"title": "Theirs"}).JSON()["id"].(string)
	foreignSpace := newSpaceAs(t, env, otherOrg, other.Token)
	app := env.HTTP.URL
	md := fmt.Sprintf("[mine](%s/collections/%s) [theirs](%s/collections/%s) [none](%s/collections/nope) [their space](%s/spaces/%s) [this space](%s/spaces/%s)",
		app, col, app, foreignCol, app, app, foreignSpace, app, space)
	d, errs = env.GraphQL(env.Admin.Token, `mutation($t: ContentTarget!, $m: String!) { createPage(target: $t, input: {title: "Refs", markdown: $m}) { page { id } } }`, map[string]any{"t": target, "m": md})
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	refs := d["createPage"].(map[string]any)["page"].(map[string]any)["id"].(string)
	var out struct {
		Items []struct {
			Status          string
			TargetReference struct {
				Kind, URL         string
				Collection, Space struct{ ID string }
			}
		}
	}
	env.Must(200, "GET", base+"/content/page/"+refs+"/links", env.Admin.Token, nil).Decode(t, &out)
	// Readable targets are collection and space objects; the others (broken)
	// stay URL locations, keyed here by the id their URL ends with.
	got := map[string]string{}
	for _, it := range out.Items {
		tr := it.TargetReference
		key := tr.Collection.ID + tr.Space.ID
		if tr.Kind == "url" {
			key = path.Base(tr.URL)
		} else if it.Status != "ok" {
			t.Errorf("an object target is %s: %+v", it.Status, tr)
		}
		got[key] = it.Status
	}
	want := map[string]string{col: "ok", foreignCol: "broken", "nope": "broken", foreignSpace: "broken", space: "ok"}
	for id, status := range want {
		if got[id] != status {
			t.Errorf("link to %s: %q, want %q (all: %v)", id, got[id], status, got)
		}
	}
}

// newSpaceAs creates a space in orgID with token.
func newSpaceAs(t *testing.T, env *apitest.Env, orgID, token string) string {
	t.Helper()
	return env.Must(201, "POST", "/v1/orgs/"+orgID+"/spaces", token, map[string]any{"title": "Docs"}).JSON()["id"].(string)
}

func TestRevisionVariables(t *testing.T) {
	env := apitest.New(t)
	space := newSpace(t, env, env.Org)
	base := "/v1/spaces/" + space
	reader := env.NewUser("reader@acme.test", env.Org, "read")
	_, foreign := env.NewOrg("Other", "admin@other.test")
	env.Must(201, "POST", base+"/content/template", env.Admin.Token, map[string]any{"id": "getting-started"})
	rev := env.Must(200, "GET", base+"/content", reader.Token, nil).JSON()
	if v := rev["variables"].(map[string]any); v["product"] != "Product" || v["version"] != "1.0" {
		t.Fatalf("template variables: %v", rev["variables"])
	}
	env.Must(201, "POST", base+"/content/template", env.Admin.Token, map[string]any{"id": "knowledge-base"})
	rev = env.Must(200, "GET", base+"/content", reader.Token, nil).JSON()
	rc := rev["reusableContents"].([]any)
	if len(rc) != 1 {
		t.Fatalf("reusable contents: %v", rev["reusableContents"])
	}
	apitest.Keys(t, rc[0].(map[string]any), "id", "title", "document") // document: its body
	if rev["variables"].(map[string]any)["product"] != "Product" {
		t.Fatalf("variables are carried to the next revision: %v", rev["variables"])
	}

	set := `mutation($s: ID!, $v: JSONObject!) { setSpaceVariables(spaceId: $s, variables: $v) { revision variables } }`
	d, errs := env.GraphQL(env.Admin.Token, set, map[string]any{"s": space, "v": map[string]any{"product": "Acme", "beta": true, "seats": 5, "version": nil}})
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	change := d["setSpaceVariables"].(map[string]any)
	want := map[string]any{"product": "Acme", "beta": true, "seats": float64(5)}
	if fmt.Sprint(change["variables"]) != fmt.Sprint(want) {
		t.Fatalf("variables after the change: %v", change["variables"])
	}
	rev = env.Must(200, "GET", base+"/content", reader.Token, nil).JSON()
	if rev["id"] != change["revision"] || fmt.Sprint(rev["variables"]) != fmt.Sprint(want) || len(rev["reusableContents"].([]any)) != 1 {
		t.Fatalf("the new revision is active with the variables: %v", rev)
	}
	// GraphQL reads the same revision.
	d, errs = env.GraphQL(reader.Token, `query($s: ID!) { spaceContent(spaceId: $s) { id variables reusableContents } }`, map[string]any{"s": space})
	if len(errs) > 0 || fmt.Sprint(d["spaceContent"].(map[string]any)["variables"]) != fmt.Sprint(want) {
		t.Fatalf("graphql revision: %v %v", d, errs)
	}
	// A page change keeps them.
	if _, errs := env.GraphQL(env.Admin.Token, `mutation($t: ContentTarget!) { createPage(target: $t, input: {title: "More"}) { revision } }`, map[string]any{"t": map[string]any{"space": space}}); len(errs) > 0 {
		t.Fatal(errs)
	}
	if v := env.Must(200, "GET", base+"/content", reader.Token, nil).JSON()["variables"]; fmt.Sprint(v) != fmt.Sprint(want) {
		t.Fatalf("variables after a page change: %v", v)
	}

	for _, c := range []struct {
		name, token, space string
		vars               map[string]any
		code, field        string
	}{
		{"bad name", env.Admin.Token, space, map[string]any{"1st": "x"}, "BAD_REQUEST", "variables.1st"},
		{"object value", env.Admin.Token, space, map[string]any{"x": map[string]any{"a": 1}}, "BAD_REQUEST", "variables.x"},
		{"long value", env.Admin.Token, space, map[string]any{"x": strings.Repeat("a", 257)}, "BAD_REQUEST", "variables.x"},
		{"reader", reader.Token, space, map[string]any{"x": "y"}, "FORBIDDEN", ""},
		{"other organization", foreign.Token, space, map[string]any{"x": "y"}, "NOT_FOUND", ""},
		{"unknown space", env.Admin.Token, "nope", map[string]any{"x": "y"}, "NOT_FOUND", ""},
		{"no token", "", space, map[string]any{"x": "y"}, "UNAUTHENTICATED", ""},
	} {
		_, errs := env.GraphQL(c.token, set, map[string]any{"s": c.space, "v": c.vars})
		if len(errs) != 1 || errs[0].Code() != c.code || (c.field != "" && errs[0].Extensions["field"] != c.field) {
			t.Errorf("%s: %v", c.name, errs)
		}
	}
	env.Must(200, "PATCH", base, env.Admin.Token, map[string]any{"editMode": "locked"})
	if _, errs := env.GraphQL(env.Admin.Token, set, map[string]any{"s": space, "v": map[string]any{"x": "y"}}); len(errs) != 1 || errs[0].Code() != "CONFLICT" {
		t.Errorf("locked space: %v", errs)
	}
}

func TestTemplateContentRefs(t *testing.T) {
	env := apitest.New(t)
	space := newSpace(t, env, env.Org)
	base := "/v1/spaces/" + space
	logo := upload(t, env, env.Admin.Token, space, "logo.png", pngBytes(3, 3))["id"].(string)
	env.Must(201, "POST", base+"/content/template", env.Admin.Token, map[string]any{"id": "blank"})
	help := env.Must(200, "GET", base+"/content/path/untitled", env.Admin.Token, nil).JSON()["id"].(string)

	tpl := func(refs map[string]any) map[string]any {
		return map[string]any{"id": "getting-started", "params": map[string]any{"contentRefs": refs}}
	}
	env.Run(t, []apitest.Scenario{
		{Name: "unknown reference name", Method: "POST", Path: base + "/content/template", Token: env.Admin.Token, Body: tpl(map[string]any{"nope": map[string]any{"kind": "url", "url": "https://x.test"}}),
			Status: 400, Contains: []string{"params.contentRefs.nope", "logo (file)"}},
		{Name: "unknown file", Method: "POST", Path: base + "/content/template", Token: env.Admin.Token, Body: tpl(map[string]any{"logo": map[string]any{"kind": "file", "file": "missing"}}),
			Status: 400, Contains: []string{"params.contentRefs.logo.file", "does not exist"}},
		{Name: "unknown page", Method: "POST", Path: base + "/content/template", Token: env.Admin.Token, Body: tpl(map[string]any{"support": map[string]any{"kind": "page", "page": "missing"}}),
			Status: 400, Contains: []string{"params.contentRefs.support.page"}},
		{Name: "wrong kind", Method: "POST", Path: base + "/content/template", Token: env.Admin.Token, Body: tpl(map[string]any{"logo": map[string]any{"kind": "page", "page": help}}),
			Status: 400, Contains: []string{"params.contentRefs.logo", "kind file"}},
		{Name: "bad url", Method: "POST", Path: base + "/content/template", Token: env.Admin.Token, Body: tpl(map[string]any{"support": map[string]any{"kind": "url", "url": "ftp://x"}}),
			Status: 400, Contains: []string{"params.contentRefs.support.url"}},
		{Name: "not an object", Method: "POST", Path: base + "/content/template", Token: env.Admin.Token, Body: map[string]any{"id": "getting-started", "params": map[string]any{"contentRefs": "logo"}},
			Status: 400, Contains: []string{"params.contentRefs"}},
		{Name: "file and page", Method: "POST", Path: base + "/content/template", Token: env.Admin.Token,
			Body: tpl(map[string]any{"logo": map[string]any{"kind": "file", "file": logo}, "support": map[string]any{"kind": "page", "page": help}}), Status: 201},
	})
	// GraphQL gives the same refusal.
	_, errs := env.GraphQL(env.Admin.Token, `mutation($s: ID!, $p: JSONObject) { applyTemplate(spaceId: $s, input: {id: "getting-started", params: $p}) }`,
		map[string]any{"s": space, "p": map[string]any{"contentRefs": map[string]any{"nope": map[string]any{"kind": "url", "url": "https://x.test"}}}})
	if len(errs) != 1 || errs[0].Code() != "BAD_REQUEST" || errs[0].Extensions["field"] != "params.contentRefs.nope" {
		t.Errorf("graphql unknown reference: %v", errs)
	}
	intro := env.Must(200, "GET", base+"/content/path/introduction", env.Admin.Token, nil).JSON()
	if md := intro["markdown"].(string); !strings.HasPrefix(md, "![Logo](logo.png)\n\nWelcome!") {
		t.Errorf("introduction: %q", md)
	}
	faq := env.Must(200, "GET", base+"/content/path/faq", env.Admin.Token, nil).JSON()
	if md := faq["markdown"].(string); !strings.Contains(md, "Still stuck? Read [support](/untitled).") {
		t.Errorf("faq: %q", md)
	}
	if n := brokenLinks(t, env, space); n != 0 {
		t.Errorf("template references resolve: %v", n)
	}
	back := env.Must(200, "GET", base+"/content/files/"+logo+"/backlinks", env.Admin.Token, nil).JSON()
	if back["count"].(float64) != 1 || back["items"].([]any)[0].(map[string]any)["page"].(map[string]any)["id"] != intro["id"] {
		t.Errorf("the logo's backlinks: %v", back)
	}
}

// Purging a space removes its page versions and file bytes unless another
// space (its duplicate) still uses them; purging that one too leaves no
// content rows behind.
func TestPurgeRemovesUnsharedContent(t *testing.T) {
	env := apitest.New(t)
	site := contentSite(t)
	ctx := context.Background()
	original := newSpace(t, env, env.Org)
	importInto(t, env, original, "zip", site.URL+"/docs.zip")
	dup := env.Must(201, "POST", "/v1/spaces/"+original+"/duplicate", env.Admin.Token, nil).JSON()["id"].(string)
	// Content of the original only: a page and a file the duplicate lacks.
	if _, errs := env.GraphQL(env.Admin.Token, `mutation($t: ContentTarget!) { createPage(target: $t, input: {title: "Only here", markdown: "[x](welcome)"}) { revision } }`, map[string]any{"t": map[string]any{"space": original}}); len(errs) > 0 {
		t.Fatal(errs)
	}
	upload(t, env, env.Admin.Token, original, "only.png", pngBytes(9, 9))
	// And a space that never shared anything.
	other := newSpace(t, env, env.Org)
	importInto(t, env, other, "markdown", site.URL+"/guide.md")

	orphans := func() map[string]int {
		return map[string]int{
			"page_versions": countRows(t, env, "page_versions v WHERE NOT EXISTS (SELECT 1 FROM main_pages rp WHERE rp.version = v.hash) AND NOT EXISTS (SELECT 1 FROM overlay_pages rp WHERE rp.version = v.hash)"),
			"page_links":    countRows(t, env, "page_links l WHERE NOT EXISTS (SELECT 1 FROM page_versions v WHERE v.hash = l.version)"),
			"file_blobs":    countRows(t, env, "file_blobs b WHERE NOT EXISTS (SELECT 1 FROM revision_files f WHERE f.blob = b.hash)"),
			"file_bytes":    countRows(t, env, "file_bytes y WHERE NOT EXISTS (SELECT 1 FROM file_blobs b WHERE b.hash = y.hash)"),
			"revision rows": countRows(t, env, "main_pages WHERE space_id NOT IN (SELECT id FROM spaces)") +
				countRows(t, env, "overlay_pages WHERE revision_id NOT IN (SELECT id FROM revisions)") +
				countRows(t, env, "revision_files WHERE revision_id NOT IN (SELECT id FROM revisions)"),
		}
	}
	purge := func(space string) {
		t.Helper()
		env.Must(205, "DELETE", "/v1/spaces/"+space, env.Admin.Token, nil)
		env.Clock.Advance(graph.TrashRetention + time.Second)
		if n, err := env.Server.Resolver.PurgeTrash(ctx); err != nil || n != 1 {
			t.Fatalf("purge: %d %v", n, err)
		}
	}
	versions, blobs := countRows(t, env, "page_versions"), countRows(t, env, "file_blobs")

	purge(original)
	if o := orphans(); fmt.Sprint(o) != fmt.Sprint(map[string]int{"file_blobs": 0, "file_bytes": 0, "page_links": 0, "page_versions": 0, "revision rows": 0}) {
		t.Fatalf("orphans after purging the original: %v", o)
	}
	if v, b := countRows(t, env, "page_versions"), countRows(t, env, "file_blobs"); v != versions-1 || b != blobs-1 {
		t.Errorf("the original's own page version and file went, the shared ones stayed: versions %d -> %d, blobs %d -> %d", versions, v, blobs, b)
	}
	// The duplicate still reads its pages, links and file bytes.
	if got := pageTree(t, env, dup); !strings.Contains(got, "Advanced usage=usage/advanced") {
		t.Fatalf("duplicate pages: %s", got)
	}
	f := env.Must(200, "GET", "/v1/spaces/"+dup+"/content/files", env.Admin.Token, nil).JSON()["items"].([]any)[0].(map[string]any)
	if r := env.Do("GET", strings.TrimPrefix(f["downloadURL"].(string), env.HTTP.URL), "", nil); r.Status != 200 || !bytes.Equal(r.Body, pngBytes(4, 3)) {
		t.Fatalf("duplicate file download: %d", r.Status)
	}
	if n := brokenLinks(t, env, dup); n != 0 {
		t.Errorf("duplicate links: %v", n)
	}

	purge(dup)
	if o := orphans(); fmt.Sprint(o) != fmt.Sprint(map[string]int{"file_blobs": 0, "file_bytes": 0, "page_links": 0, "page_versions": 0, "revision rows": 0}) {
		t.Fatalf("orphans after purging the duplicate: %v", o)
	}
	// Only the untouched space's content is left.
	if v := countRows(t, env, "page_versions"); v != 1 {
		t.Errorf("page versions left: %d (the other space's guide)", v)
	}
	if b, y := countRows(t, env, "file_blobs"), countRows(t, env, "file_bytes"); b != 0 || y != 0 {
		t.Errorf("file blobs left: %d, their bytes: %d", b, y)
	}
	env.Must(200, "GET", "/v1/spaces/"+other+"/content/path/guide", env.Admin.Token, nil)
}
