package rest_test

import (
	"encoding/json"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"testing"

	"docsapi/apitest"
	"docsapi/gitsync/gittest"
)

// reflinksRepo is a GitBook-layout repository whose first page and whose
// reusable content link to a page (with an anchor), a page's folder
// README, a file and an outside URL.
var reflinksRepo = map[string]string{
	"README.md":                "# Welcome\n\nStart with the [guide](guide/setup.md#install), see [tuning](guide/advanced.md) and [the logo](.gitbook/assets/logo.png); [elsewhere](https://example.com/x.md).\n\n{% include \".gitbook/includes/note.md\" %}\n",
	"SUMMARY.md":               "# Table of contents\n\n* [Welcome](README.md)\n* [Setup](guide/setup.md)\n  * [Advanced](guide/advanced.md)\n",
	"guide/setup.md":           "# Setup\n\nBack [home](../README.md).\n",
	"guide/advanced.md":        "# Advanced\n\nTune it.\n",
	".gitbook/assets/logo.png": "\x89PNG fake",
	".gitbook/includes/note.md": "---\ntitle: Note\n---\n\nRead [the setup](../../guide/setup.md#install), [tuning](../../guide/advanced.md), " +
		"[the logo](../assets/logo.png) and [elsewhere](https://example.com/y.md); [nowhere](../../missing.md).\n",
}

// reflinksSpace imports reflinksRepo into a new space: the space, the
// repository's URL on srv, page ids by title and the logo's file id.
func reflinksSpace(t *testing.T, env *apitest.Env, srv *gittest.Server) (space, repoURL string, ids map[string]string, logo string) {
	t.Helper()
	repoURL = srv.Bare("docs")
	srv.Commit("docs", "Docs", reflinksRepo)
	space = newSpace(t, env, env.Org)
	env.Must(204, "POST", "/v1/spaces/"+space+"/git/import", env.Admin.Token, gitBody(repoURL))
	runGitSync(t, env)
	if op := gitOperation(t, env, space); op["status"] != "completed" {
		t.Fatalf("import %v", op)
	}
	content := env.Must(200, "GET", "/v1/spaces/"+space+"/content", env.Admin.Token, nil).JSON()
	ids = idsByTitle(content["pages"].([]any), map[string]string{})
	files := content["files"].([]any)
	if len(files) != 1 {
		t.Fatalf("files %v", files)
	}
	return space, repoURL, ids, files[0].(map[string]any)["id"].(string)
}

// refsJSON is the refs of a document, each as JSON, sorted.
func refsJSON(doc any) []string {
	var out []string
	for _, r := range refsOf(doc, nil) {
		b, _ := json.Marshal(r)
		out = append(out, string(b))
	}
	slices.Sort(out)
	return out
}

// The refs every read of the first page must give.
func welcomeRefs(ids map[string]string, logo string) []string {
	want := []string{
		`{"anchor":"install","kind":"anchor","page":"` + ids["Setup"] + `"}`,
		`{"kind":"page","page":"` + ids["Advanced"] + `"}`,
		`{"file":"` + logo + `","kind":"file"}`,
		`{"kind":"url","url":"https://example.com/x.md"}`,
	}
	slices.Sort(want)
	return want
}

func hasAll(got, want []string) bool {
	for _, w := range want {
		if !slices.Contains(got, w) {
			return false
		}
	}
	return true
}

// A reusable content's relative links read as page references (anchor
// kept) and file references in its document, resolved against the
// revision's pages and files as a page's are; a link to nothing stays a
// URL link. The Markdown keeps links (page paths and file names), and the
// export writes the include back byte for byte.
func TestGitSyncReusableContentLinksArePageAndFileRefs(t *testing.T) {
	srv := gittest.Start(t, "", "")
	env := apitest.New(t)
	space, repoURL, ids, logo := reflinksSpace(t, env, srv)

	content := env.Must(200, "GET", "/v1/spaces/"+space+"/content", env.Admin.Token, nil).JSON()
	rcs := content["reusableContents"].([]any)
	if len(rcs) != 1 {
		t.Fatalf("reusable contents %v", rcs)
	}
	rc := rcs[0].(map[string]any)
	docID, _ := rc["document"].(string)
	if docID == "" {
		t.Fatalf("reusable content without a document: %v", rc)
	}
	doc := env.Must(200, "GET", "/v1/spaces/"+space+"/documents/"+docID, env.Admin.Token, nil).JSON()
	got := refsJSON(doc)
	want := []string{
		`{"anchor":"install","kind":"anchor","page":"` + ids["Setup"] + `"}`,
		`{"kind":"page","page":"` + ids["Advanced"] + `"}`,
		`{"file":"` + logo + `","kind":"file"}`,
		`{"kind":"url","url":"https://example.com/y.md"}`,
	}
	if !hasAll(got, want) {
		t.Errorf("reusable content refs\n got %v\nwant %v", got, want)
	}
	for _, r := range got {
		if strings.Contains(r, `"kind":"page"`) && strings.Contains(r, "missing") {
			t.Errorf("a link to no page became a page ref: %s", r)
		}
	}
	if n := len(got); n != 5 {
		t.Errorf("%d refs, want 5 (the link to nothing a URL link): %v", n, got)
	}
	// GraphQL's spaceDocument is the same document.
	data := gqlData(t, env, env.Admin.Token, `query($s: ID!, $d: ID!) { spaceDocument(spaceId: $s, documentId: $d) }`, map[string]any{"s": space, "d": docID})
	if g := refsJSON(data["spaceDocument"]); !slices.Equal(g, got) {
		t.Errorf("GraphQL spaceDocument refs %v, REST %v", g, got)
	}

	// Export: the include is written back as it was read.
	env.Must(204, "POST", "/v1/spaces/"+space+"/git/export", env.Admin.Token, gitBody(repoURL, "commitMessage", "again", "force", true))
	runGitSync(t, env)
	// (Show trims the output: the last newline is compared by TestReadThenWrite.)
	if got, want := srv.Show("docs", "main", ".gitbook/includes/note.md"), strings.TrimSpace(reflinksRepo[".gitbook/includes/note.md"]); got != want {
		t.Errorf("exported note.md:\n%q\nwant\n%q", got, want)
	}
}

// Every read that gives a page's document (by id and by path, in the
// space's content, a revision, a change request; a revision's page
// document; GraphQL's spacePage, Revision.page and pageDocumentInRevision;
// the reader site reads through spacePage) gives the same page and file
// references.
func TestPageDocumentRefsOnEveryRead(t *testing.T) {
	srv := gittest.Start(t, "", "")
	env := apitest.New(t)
	space, _, ids, logo := reflinksSpace(t, env, srv)
	want := welcomeRefs(ids, logo)
	content := env.Must(200, "GET", "/v1/spaces/"+space+"/content", env.Admin.Token, nil).JSON()
	rev := content["id"].(string)
	var welcomePath string
	for _, p := range content["pages"].([]any) {
		if m := p.(map[string]any); m["id"] == ids["Welcome"] {
			welcomePath, _ = m["path"].(string)
		}
	}
	if welcomePath == "" {
		t.Fatalf("no path for the first page in %v", content["pages"])
	}
	cr := env.Must(201, "POST", "/v1/spaces/"+space+"/change-requests", env.Admin.Token, map[string]any{"subject": "Refs"}).JSON()["id"].(string)
	sp, id, pth := "/v1/spaces/"+space, ids["Welcome"], url.PathEscape(welcomePath)
	for _, read := range []string{
		sp + "/content/page/" + id,
		sp + "/content/path/" + pth,
		sp + "/revisions/" + rev + "/page/" + id,
		sp + "/revisions/" + rev + "/path/" + pth,
		sp + "/change-requests/" + cr + "/content/page/" + id,
		sp + "/change-requests/" + cr + "/content/path/" + pth,
	} {
		doc := env.Must(200, "GET", read+"?format=document", env.Admin.Token, nil).JSON()["document"]
		if got := refsJSON(doc); !hasAll(got, want) {
			t.Errorf("GET %s: refs\n got %v\nwant %v", read, got, want)
		}
	}
	// The change request edits the page: its own version's links (the
	// overlay's) give the same references.
	md := env.Must(200, "GET", sp+"/content/page/"+id, env.Admin.Token, nil).JSON()["markdown"].(string)
	_, errs := env.GraphQL(env.Admin.Token, `mutation($t: ContentTarget!, $p: ID!, $md: String!) { updatePage(target: $t, pageId: $p, input: {markdown: $md}) { revision } }`,
		map[string]any{"t": map[string]any{"space": space, "changeRequest": cr}, "p": id, "md": md + "\nEdited in the change request.\n"})
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	for _, read := range []string{sp + "/change-requests/" + cr + "/content/page/" + id, sp + "/change-requests/" + cr + "/content/path/" + pth} {
		res := env.Must(200, "GET", read+"?format=document", env.Admin.Token, nil).JSON()
		if got := refsJSON(res["document"]); !hasAll(got, want) || !strings.Contains(fmt.Sprint(res["document"]), "Edited in the change") {
			t.Errorf("GET %s after the edit: refs\n got %v\nwant %v", read, got, want)
		}
	}
	// The page's document alone (getPageDocumentInRevision).
	read := sp + "/revisions/" + rev + "/page/" + id + "/document"
	if got := refsJSON(env.Must(200, "GET", read, env.Admin.Token, nil).JSON()); !hasAll(got, want) {
		t.Errorf("GET %s: refs\n got %v\nwant %v", read, got, want)
	}
	gql := map[string]string{
		"spacePage":              `query($s: ID!, $p: ID!) { spacePage(spaceId: $s, pageId: $p, format: DOCUMENT) { document } }`,
		"spacePage in a CR":      `query($s: ID!, $p: ID!, $c: ID!) { spacePage(spaceId: $s, pageId: $p, changeRequestId: $c, format: DOCUMENT) { document } }`,
		"Revision.page":          `query($s: ID!, $p: ID!) { spaceContent(spaceId: $s) { page(pageId: $p, format: DOCUMENT) { document } } }`,
		"pageDocumentInRevision": `query($s: ID!, $p: ID!, $r: ID!) { pageDocumentInRevision(spaceId: $s, revisionId: $r, pageId: $p) }`,
		"Revision.page of a CR":  `query($s: ID!, $p: ID!, $c: ID!) { spaceContent(spaceId: $s, changeRequestId: $c) { page(pageId: $p, format: DOCUMENT) { document } } }`,
	}
	for name, q := range gql {
		data := gqlData(t, env, env.Admin.Token, q, map[string]any{"s": space, "p": id, "c": cr, "r": rev})
		if got := refsJSON(data); !hasAll(got, want) {
			t.Errorf("%s: refs\n got %v\nwant %v", name, got, want)
		}
	}
}

// A computed page's rendered body gives the same references as a document
// page's: a relative link in the spec's description to a page of the
// revision (read from the computed page's path) is a page reference,
// anchor kept; a link to no page stays a URL link.
func TestComputedPageDocumentRefs(t *testing.T) {
	env := apitest.New(t)
	spec := strings.Replace(petstore, `"description":"Pets for everyone."`,
		`"description":"Pets for everyone: read [the guide](guide.md#intro), not [this](nowhere.md)."`, 1)
	createSpec(t, env, "petstore", map[string]any{"text": spec})
	processAll(t, env)
	space := newSpace(t, env, env.Org)
	guide := addPage(t, env, space, map[string]any{"title": "Guide"})
	page := addPage(t, env, space, map[string]any{"title": "API reference", "type": "COMPUTED", "computed": computedSource("petstore", false)})
	for _, read := range []string{
		"/v1/spaces/" + space + "/content/page/" + page,
		"/v1/spaces/" + space + "/content/path/api-reference",
	} {
		got := refsJSON(env.Must(200, "GET", read+"?format=document", env.Admin.Token, nil).JSON()["document"])
		want := []string{`{"anchor":"intro","kind":"anchor","page":"` + guide + `"}`, `{"kind":"url","url":"nowhere.md"}`}
		if !slices.Equal(got, want) {
			t.Errorf("GET %s: refs\n got %v\nwant %v", read, got, want)
		}
	}
}
