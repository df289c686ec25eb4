package rest_test

import (
	"fmt"
	"io"
	"net/http"
	"sort"
	"strings"
	"sync"
	"testing"

	lpdf "github.com/ledongthuc/pdf"

	"docsapi/apitest"
)

// body8 is a page body of eight lines; edits change single lines of it.
const body8 = "line 1\nline 2\nline 3\nline 4\nline 5\nline 6\nline 7\nline 8\n"

// crSpace is a space with pages A, B and C (bodies body8) and a change
// request; it returns the space, the change request id and the page ids.
type crFixture struct {
	env   *apitest.Env
	space string
	cr    string
	pages map[string]string // title -> id
}

func (f crFixture) base() string { return "/v1/spaces/" + f.space }
func (f crFixture) crBase() string {
	return "/v1/spaces/" + f.space + "/change-requests/" + f.cr
}

func newCRFixture(t testing.TB, env *apitest.Env) crFixture {
	t.Helper()
	f := crFixture{env: env, space: newSpace(t, env, env.Org), pages: map[string]string{}}
	for _, title := range []string{"A", "B", "C"} {
		data := f.edit(t, env.Admin.Token, nil, `createPage(target: $t, input: {title: "`+title+`", markdown: "`+strings.ReplaceAll(body8, "\n", `\n`)+`"}) { page { id } }`)
		f.pages[title] = data["page"].(map[string]any)["id"].(string)
	}
	f.cr = env.Must(201, "POST", f.base()+"/change-requests", env.Admin.Token, map[string]any{"subject": "Review"}).JSON()["id"].(string)
	return f
}

// edit runs a page mutation on the main content (cr nil) or a change
// request and returns its ContentChange.
func (f crFixture) edit(t testing.TB, token string, cr *string, mutation string) map[string]any {
	t.Helper()
	target := map[string]any{"space": f.space}
	if cr != nil {
		target["changeRequest"] = *cr
	}
	data, errs := f.env.GraphQL(token, `mutation($t: ContentTarget!) { x: `+mutation+` }`, map[string]any{"t": target})
	if len(errs) > 0 {
		t.Fatalf("%s: %v", mutation, errs)
	}
	return data["x"].(map[string]any)
}

// setBody replaces line n of page title's body8 with text.
func (f crFixture) setLine(t *testing.T, cr *string, title string, n int, text string) {
	t.Helper()
	lines := strings.Split(strings.TrimSuffix(f.body(t, cr, title), "\n"), "\n")
	lines[n-1] = text
	md := strings.Join(lines, `\n`) + `\n`
	f.edit(t, f.env.Admin.Token, cr, `updatePage(target: $t, pageId: "`+f.pages[title]+`", input: {markdown: "`+md+`"}) { revision }`)
}

func (f crFixture) body(t *testing.T, cr *string, title string) string {
	t.Helper()
	base := f.base()
	if cr != nil {
		base += "/change-requests/" + *cr
	}
	return f.env.Must(200, "GET", base+"/content/page/"+f.pages[title], f.env.Admin.Token, nil).JSON()["markdown"].(string)
}

func TestChangeRequestLifecycle(t *testing.T) {
	env := apitest.New(t)
	f := newCRFixture(t, env)
	cr := &f.cr
	editor := env.NewUser("editor@acme.test", env.Org, "edit")
	reader := env.NewUser("reader@acme.test", env.Org, "read")
	_, foreign := env.NewOrg("Other", "admin@other.test")
	space0 := env.Must(200, "GET", f.base(), env.Admin.Token, nil).JSON()

	env.Run(t, []apitest.Scenario{
		{Name: "get by id", Method: "GET", Path: f.crBase(), Token: reader.Token, Status: 200, Check: func(r apitest.Response) {
			v := r.JSON()
			apitest.Keys(t, v, "object", "id", "number", "status", "subject", "createdBy", "createdAt", "updatedAt", "revision",
				"revisionInitial", "comments", "outdated", "urls")
			if v["object"] != "change-request" || v["number"].(float64) != 1 || v["status"] != "draft" || v["subject"] != "Review" ||
				v["revisionInitial"] != space0["revision"] || v["revision"] != space0["revision"] || v["outdated"] != false {
				t.Errorf("change request: %v", v)
			}
			apitest.Keys(t, v["urls"].(map[string]any), "location", "app")
		}},
		{Name: "get by number", Method: "GET", Path: f.base() + "/change-requests/1", Token: reader.Token, Status: 200, Contains: []string{`"id":"` + f.cr + `"`}},
		{Name: "default list is open ones", Method: "GET", Path: f.base() + "/change-requests", Token: reader.Token, Status: 200, Contains: []string{`"count":0`}},
		{Name: "drafts", Method: "GET", Path: f.base() + "/change-requests?status=draft", Token: reader.Token, Status: 200, Contains: []string{`"count":1`}},
		{Name: "contributor", Method: "GET", Path: f.base() + "/change-requests?status=draft&contributor=" + editor.ID, Token: reader.Token, Status: 200, Contains: []string{`"count":0`}},
		{Name: "bad status filter", Method: "GET", Path: f.base() + "/change-requests?status=nope", Token: reader.Token, Status: 400, Contains: []string{"status"}},
		{Name: "open it", Method: "PATCH", Path: f.crBase(), Token: editor.Token, Body: map[string]any{"status": "open", "subject": "Ready"}, Status: 200, Contains: []string{`"status":"open"`, `"subject":"Ready"`}},
		{Name: "merged by PATCH", Method: "PATCH", Path: f.crBase(), Token: editor.Token, Body: map[string]any{"status": "merged"}, Status: 400, Contains: []string{"status"}},
		{Name: "long subject", Method: "PATCH", Path: f.crBase(), Token: editor.Token, Body: map[string]any{"subject": strings.Repeat("x", 101)}, Status: 400, Contains: []string{"subject"}},
		{Name: "reader cannot change", Method: "PATCH", Path: f.crBase(), Token: reader.Token, Body: map[string]any{"subject": "x"}, Status: 403},
		{Name: "other organization", Method: "GET", Path: f.crBase(), Token: foreign.Token, Status: 404},
		{Name: "unknown", Method: "GET", Path: f.base() + "/change-requests/nope", Token: reader.Token, Status: 404},
		{Name: "unknown number", Method: "GET", Path: f.base() + "/change-requests/9", Token: reader.Token, Status: 404},
		{Name: "counters", Method: "GET", Path: f.base(), Token: reader.Token, Status: 200, Contains: []string{`"changeRequests":1`, `"changeRequestsOpen":1`, `"changeRequestsDraft":0`}},
	})

	// The branch moves on its own: the main content does not see its edits.
	f.setLine(t, cr, "A", 7, "branch seven")
	f.edit(t, editor.Token, cr, `createPage(target: $t, input: {title: "D", markdown: "new in branch\n"}) { page { id } }`)
	if got := f.body(t, nil, "A"); got != body8 {
		t.Fatalf("main content changed by a branch edit: %q", got)
	}
	if got := f.body(t, cr, "A"); !strings.Contains(got, "branch seven") {
		t.Fatalf("branch body: %q", got)
	}
	if r := env.Must(200, "GET", f.base()+"/change-requests?contributor="+editor.ID, reader.Token, nil).JSON(); r["count"].(float64) != 1 {
		t.Fatalf("the editor contributed: %v", r)
	}
	if p := env.Must(200, "GET", f.crBase()+"/content/path/d", reader.Token, nil).JSON(); p["title"] != "D" {
		t.Fatalf("page by path in the change request: %v", p)
	}
	pages := env.Must(200, "GET", f.crBase()+"/content/pages", reader.Token, nil).JSON()["pages"].([]any)
	if len(pages) != 4 {
		t.Fatalf("branch pages: %v", pages)
	}
	env.Must(404, "GET", f.base()+"/content/path/d", reader.Token, nil)

	// Main moves: the change request is outdated until updated.
	f.setLine(t, nil, "A", 1, "main one")
	if v := env.Must(200, "GET", f.crBase(), reader.Token, nil).JSON(); v["outdated"] != true {
		t.Fatalf("outdated: %v", v)
	}
	env.Must(403, "POST", f.crBase()+"/update", reader.Token, nil)
	up := env.Must(200, "POST", f.crBase()+"/update", editor.Token, nil).JSON()
	apitest.Keys(t, up, "revision", "result")
	if up["result"] != "update" {
		t.Fatalf("update: %v", up)
	}
	v := env.Must(200, "GET", f.crBase(), reader.Token, nil).JSON()
	main := env.Must(200, "GET", f.base(), reader.Token, nil).JSON()["revision"]
	if v["outdated"] != false || v["revision"] != up["revision"] || v["revisionMergedAncestor"] != main {
		t.Fatalf("after update: %v (main %v)", v, main)
	}
	rev := env.Must(200, "GET", f.base()+"/revisions/"+up["revision"].(string), reader.Token, nil).JSON()
	if rev["type"] != "update" || len(rev["parents"].([]any)) != 2 {
		t.Fatalf("update revision: %v", rev)
	}
	if got := f.body(t, cr, "A"); !strings.Contains(got, "main one") || !strings.Contains(got, "branch seven") {
		t.Fatalf("branch after update: %q", got)
	}

	// More on both sides, then merge: one-side pages take that side, page A
	// merges line by line.
	f.setLine(t, nil, "A", 3, "main three")
	f.edit(t, env.Admin.Token, nil, `updatePage(target: $t, pageId: "`+f.pages["B"]+`", input: {title: "B renamed"}) { revision }`)
	f.setLine(t, cr, "C", 2, "branch two")
	env.Must(403, "POST", f.crBase()+"/merge", editor.Token, nil) // merging needs review
	reviewer := env.NewUser("reviewer@acme.test", env.Org, "review")
	m := env.Must(200, "POST", f.crBase()+"/merge", reviewer.Token, nil).JSON()
	apitest.Keys(t, m, "revision", "result")
	if m["result"] != "merge" {
		t.Fatalf("merge: %v", m)
	}
	content := env.Must(200, "GET", f.base()+"/content", reader.Token, nil).JSON()
	if content["id"] != m["revision"] || content["type"] != "merge" || len(content["parents"].([]any)) != 2 {
		t.Fatalf("merged revision: %v", content)
	}
	if mf := content["mergedFrom"].(map[string]any); mf["id"] != f.cr || mf["status"] != "merged" {
		t.Fatalf("mergedFrom: %v", mf)
	}
	if got := f.body(t, nil, "A"); got != "main one\nline 2\nmain three\nline 4\nline 5\nline 6\nbranch seven\nline 8\n" {
		t.Fatalf("merged A: %q", got)
	}
	if got := f.body(t, nil, "C"); !strings.Contains(got, "branch two") {
		t.Fatalf("merged C: %q", got)
	}
	titles := []string{}
	for _, p := range content["pages"].([]any) {
		titles = append(titles, p.(map[string]any)["title"].(string))
	}
	if strings.Join(titles, ",") != "A,B renamed,C,D" {
		t.Fatalf("merged pages: %v", titles)
	}
	v = env.Must(200, "GET", f.crBase(), reader.Token, nil).JSON()
	if v["status"] != "merged" || v["revisionMerged"] != m["revision"] {
		t.Fatalf("merged change request: %v", v)
	}
	if r := env.Must(200, "GET", f.base()+"/search?query=branch", reader.Token, nil).JSON(); r["count"].(float64) < 2 {
		t.Fatalf("search does not see the merged pages: %v", r)
	}
	env.Run(t, []apitest.Scenario{
		{Name: "counters after merge", Method: "GET", Path: f.base(), Token: reader.Token, Status: 200, Contains: []string{`"changeRequests":1`, `"changeRequestsOpen":0`, `"changeRequestsDraft":0`}},
		{Name: "merge again", Method: "POST", Path: f.crBase() + "/merge", Token: reviewer.Token, Status: 409},
		{Name: "edit a merged one", Method: "PATCH", Path: f.crBase(), Token: editor.Token, Body: map[string]any{"status": "open"}, Status: 409},
		{Name: "merged list", Method: "GET", Path: f.base() + "/change-requests?status=merged", Token: reader.Token, Status: 200, Contains: []string{`"count":1`}},
	})

	// GraphQL gives the same change request.
	data, errs := env.GraphQL(reader.Token, `query($s: ID!, $c: ID!) { changeRequest(spaceId: $s, changeRequestId: $c) { id number status revisionMerged } }`,
		map[string]any{"s": f.space, "c": "1"})
	if len(errs) > 0 || data["changeRequest"].(map[string]any)["status"] != "MERGED" {
		t.Fatalf("graphql: %v %v", data, errs)
	}
}

func TestChangeRequestConflicts(t *testing.T) {
	env := apitest.New(t)
	f := newCRFixture(t, env)
	cr := &f.cr
	f.setLine(t, cr, "A", 4, "branch four")
	f.setLine(t, nil, "A", 4, "main four")
	main := env.Must(200, "GET", f.base(), env.Admin.Token, nil).JSON()["revision"]
	before := env.Must(200, "GET", f.crBase(), env.Admin.Token, nil).JSON()

	for _, op := range []string{"update", "merge"} {
		r := env.Must(200, "POST", f.crBase()+"/"+op, env.Admin.Token, nil).JSON()
		if r["result"] != "conflicts" || r["revision"] != before["revision"] {
			t.Fatalf("%s: %v", op, r)
		}
	}
	after := env.Must(200, "GET", f.crBase(), env.Admin.Token, nil).JSON()
	if after["revision"] != before["revision"] || after["status"] != "draft" || after["outdated"] != true {
		t.Fatalf("a conflict changed the change request: %v", after)
	}
	if now := env.Must(200, "GET", f.base(), env.Admin.Token, nil).JSON()["revision"]; now != main {
		t.Fatal("a conflict changed the main content")
	}
	// Deleting on one side what the other changed is a conflict too.
	f.edit(t, env.Admin.Token, nil, `deletePage(target: $t, pageId: "`+f.pages["B"]+`") { revision }`)
	f.setLine(t, cr, "B", 1, "branch one")
	if r := env.Must(200, "POST", f.crBase()+"/merge", env.Admin.Token, nil).JSON(); r["result"] != "conflicts" {
		t.Fatalf("delete/edit: %v", r)
	}
	// A locked space refuses merges (the lock gate), whatever the content.
	env.Must(200, "PATCH", f.base(), env.Admin.Token, map[string]any{"editMode": "locked"})
	env.Must(409, "POST", f.crBase()+"/merge", env.Admin.Token, nil)
	env.Must(409, "POST", f.base()+"/change-requests", env.Admin.Token, map[string]any{})
}

func TestChangeRequestNumbersUnderConcurrency(t *testing.T) {
	env := apitest.New(t)
	space := newSpace(t, env, env.Org)
	const n = 20
	var wg sync.WaitGroup
	numbers := make([]int, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := env.Do("POST", "/v1/spaces/"+space+"/change-requests", env.Admin.Token, map[string]any{"subject": fmt.Sprint(i)})
			if r.Status == 201 {
				numbers[i] = int(r.JSON()["number"].(float64))
			}
		}()
	}
	wg.Wait()
	sort.Ints(numbers)
	for i, got := range numbers {
		if got != i+1 {
			t.Fatalf("numbers %v, want 1..%d", numbers, n)
		}
	}
	if s := env.Must(200, "GET", "/v1/spaces/"+space, env.Admin.Token, nil).JSON(); s["changeRequests"].(float64) != n || s["changeRequestsDraft"].(float64) != n {
		t.Fatalf("counters: %v", s)
	}
}

func TestChangeRequestContentAndImport(t *testing.T) {
	env := apitest.New(t)
	site := contentSite(t)
	f := newCRFixture(t, env)
	r := env.Must(201, "POST", f.crBase()+"/content/import", env.Admin.Token, map[string]any{"url": site.URL + "/guide.md", "source": "markdown"})
	res := r.JSON()
	apitest.Keys(t, res, "revision", "importedResources", "totalResources")
	if v := env.Must(200, "GET", f.crBase(), env.Admin.Token, nil).JSON(); v["revision"] != res["revision"] {
		t.Fatalf("import did not move the head: %v", v)
	}
	if c := env.Must(200, "GET", f.base()+"/content/pages", env.Admin.Token, nil).JSON(); len(c["pages"].([]any)) != 3 {
		t.Fatalf("import into a change request changed main: %v", c)
	}
	env.Must(201, "POST", f.crBase()+"/content/page/"+f.pages["A"]+"/import", env.Admin.Token, map[string]any{"url": site.URL + "/guide.md", "source": "markdown"})
	if got := f.body(t, &f.cr, "A"); !strings.Contains(got, "quantum flux") {
		t.Fatalf("page import: %q", got)
	}
	_, errs := env.GraphQL(env.Admin.Token, `mutation($t: ContentTarget!) { uploadFile(target: $t, input: {name: "a.txt", data: "aGVsbG8="}) { file { id } } }`,
		map[string]any{"t": map[string]any{"space": f.space, "changeRequest": f.cr}})
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	files := env.Must(200, "GET", f.crBase()+"/content/files", env.Admin.Token, nil).JSON()
	if files["count"].(float64) != 1 {
		t.Fatalf("files: %v", files)
	}
	fileID := files["items"].([]any)[0].(map[string]any)["id"].(string)
	env.Must(200, "GET", f.crBase()+"/content/files/"+fileID, env.Admin.Token, nil)
	env.Must(404, "GET", f.base()+"/content/files/"+fileID, env.Admin.Token, nil)
	env.Must(200, "GET", f.crBase()+"/content/files/"+fileID+"/backlinks", env.Admin.Token, nil)
	guide := env.Must(200, "GET", f.crBase()+"/content/path/guide", env.Admin.Token, nil).JSON()
	links := env.Must(200, "GET", f.crBase()+"/content/page/"+guide["id"].(string)+"/links", env.Admin.Token, nil).JSON()
	if links["stats"].(map[string]any)["total"].(float64) < 1 {
		t.Fatalf("links: %v", links)
	}
	env.Must(200, "GET", f.crBase()+"/content/page/"+guide["id"].(string)+"/backlinks", env.Admin.Token, nil)
	env.Must(404, "GET", f.crBase()+"/content/page/nope", env.Admin.Token, nil)
	env.Must(404, "GET", f.base()+"/change-requests/nope/content", env.Admin.Token, nil)
	content := env.Must(200, "GET", f.crBase()+"/content", env.Admin.Token, nil).JSON()
	if content["id"] != res["revision"].(string) && content["type"] != "edits" {
		t.Fatalf("content: %v", content)
	}
}

func TestChangeRequestPDF(t *testing.T) {
	env := apitest.New(t)
	f := newCRFixture(t, env)
	f.edit(t, env.Admin.Token, &f.cr, `createPage(target: $t, input: {title: "Release notes", markdown: "# Highlights\n\n- faster\n- [docs](https://example.com)\n\n`+"```"+`\ncode\n`+"```"+`\n"}) { page { id } }`)
	reader := env.NewUser("reader@acme.test", env.Org, "read")
	r := env.Must(200, "GET", f.crBase()+"/pdf", reader.Token, nil).JSON()
	apitest.Keys(t, r, "url")
	url := r["url"].(string)
	if !strings.HasPrefix(url, env.HTTP.URL+"/pdf/") || !strings.Contains(url, "token=") {
		t.Fatalf("url: %s", url)
	}
	text := fetchPDF(t, url)
	for _, title := range []string{"A", "B", "C", "Release notes", "Highlights", "faster"} {
		if !strings.Contains(text, title) {
			t.Errorf("PDF lacks %q: %s", title, text)
		}
	}
	// One page only.
	r = env.Must(200, "GET", f.crBase()+"/pdf?only=true&page="+f.pages["B"], reader.Token, nil).JSON()
	if text := fetchPDF(t, r["url"].(string)); strings.Contains(text, "Release notes") || !strings.Contains(text, "B") {
		t.Errorf("one-page PDF: %s", text)
	}
	env.Must(400, "GET", f.crBase()+"/pdf?page=nope", reader.Token, nil)
	env.Must(400, "GET", f.crBase()+"/pdf?only=maybe", reader.Token, nil)
	if res, _ := http.Get(strings.Replace(url, "token=", "token=x", 1)); res.StatusCode != 401 {
		t.Fatalf("tampered token: %d", res.StatusCode)
	}
}

// getSpacePDF: the same signed link for the space's main content, which
// holds the template's pages and not the change request's new page.
func TestSpacePDF(t *testing.T) {
	env := apitest.New(t)
	f := newCRFixture(t, env)
	f.edit(t, env.Admin.Token, &f.cr, `createPage(target: $t, input: {title: "Release notes", markdown: "Draft."}) { page { id } }`)
	reader := env.NewUser("reader@acme.test", env.Org, "read")
	r := env.Must(200, "GET", f.base()+"/pdf", reader.Token, nil).JSON()
	apitest.Keys(t, r, "url")
	text := fetchPDF(t, r["url"].(string))
	if !strings.Contains(text, "B") || strings.Contains(text, "Release notes") {
		t.Errorf("space PDF: %s", text)
	}
	r = env.Must(200, "GET", f.base()+"/pdf?only=true&page="+f.pages["B"], reader.Token, nil).JSON()
	if text := fetchPDF(t, r["url"].(string)); !strings.Contains(text, "B") || strings.Contains(text, "C") {
		t.Errorf("one-page space PDF: %s", text)
	}
	env.Must(400, "GET", f.base()+"/pdf?page=nope", reader.Token, nil)
	env.Must(400, "GET", f.base()+"/pdf?only=maybe", reader.Token, nil)
	env.Must(404, "GET", "/v1/spaces/nope/pdf", reader.Token, nil)
	_, other := env.NewOrg("Other", "admin@other.test")
	env.Must(404, "GET", f.base()+"/pdf", other.Token, nil)
	env.Must(401, "GET", f.base()+"/pdf", "", nil)
}

func fetchPDF(t *testing.T, url string) string {
	t.Helper()
	res, err := http.Get(url) // no bearer token: the link is the credential
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	data, _ := io.ReadAll(res.Body)
	if res.StatusCode != 200 || res.Header.Get("Content-Type") != "application/pdf" {
		t.Fatalf("PDF download: %d %s %s", res.StatusCode, res.Header.Get("Content-Type"), data)
	}
	rd, err := lpdf.NewReader(strings.NewReader(string(data)), int64(len(data)))
	if err != nil {
		t.Fatalf("not a PDF: %v", err)
	}
	var b strings.Builder
	for i := 1; i <= rd.NumPage(); i++ {
		s, err := rd.Page(i).GetPlainText(nil)
		if err != nil {
			t.Fatal(err)
		}
		b.WriteString(s)
	}
	return b.String()
}
