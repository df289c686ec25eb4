package rest_test

import (
	"encoding/json"
	"strings"
	"testing"

	"docsapi/apitest"
	"docsapi/gitsync/gittest"
)

// refsOf collects the refs of a document's link inlines and image blocks.
func refsOf(v any, out []map[string]any) []map[string]any {
	switch x := v.(type) {
	case map[string]any:
		if ref, ok := x["ref"].(map[string]any); ok {
			out = append(out, ref)
		}
		for _, c := range x {
			out = refsOf(c, out)
		}
	case []any:
		for _, c := range x {
			out = refsOf(c, out)
		}
	}
	return out
}

// idsByTitle maps the titles of a content's pages (at any depth) to ids.
func idsByTitle(pages []any, out map[string]string) map[string]string {
	for _, p := range pages {
		m := p.(map[string]any)
		out[m["title"].(string)] = m["id"].(string)
		if kids, ok := m["pages"].([]any); ok {
			idsByTitle(kids, out)
		}
	}
	return out
}

// An imported page's relative links to imported pages read as 0.130.0
// page references (anchor references for a place in a page) in its document, links to imported files
// as file references; the Markdown keeps the relative links, so an export
// writes them back as they were.
func TestGitSyncImportedLinksArePageAndFileRefs(t *testing.T) {
	srv := gittest.Start(t, "", "")
	url := srv.Bare("docs")
	repo := map[string]string{
		"README.md":                "# Welcome\n\nStart with the [guide](guide/setup.md#install), see [tuning](guide/advanced.md) and [the logo](.gitbook/assets/logo.png); [elsewhere](https://example.com/x.md).\n",
		"SUMMARY.md":               "# Table of contents\n\n* [Welcome](README.md)\n* [Setup](guide/setup.md)\n  * [Advanced](guide/advanced.md)\n",
		"guide/setup.md":           "# Setup\n\nBack [home](../README.md).\n",
		"guide/advanced.md":        "# Advanced\n\nTune it.\n",
		".gitbook/assets/logo.png": "\x89PNG fake",
	}
	srv.Commit("docs", "Docs", repo)
	env := apitest.New(t)
	space := newSpace(t, env, env.Org)
	env.Must(204, "POST", "/v1/spaces/"+space+"/git/import", env.Admin.Token, gitBody(url))
	runGitSync(t, env)
	if op := gitOperation(t, env, space); op["status"] != "completed" {
		t.Fatalf("import %v", op)
	}
	content := env.Must(200, "GET", "/v1/spaces/"+space+"/content", env.Admin.Token, nil).JSON()
	ids := idsByTitle(content["pages"].([]any), map[string]string{})
	files := content["files"].([]any)
	if len(files) != 1 {
		t.Fatalf("files %v", files)
	}
	logo := files[0].(map[string]any)["id"].(string)

	doc := env.Must(200, "GET", "/v1/spaces/"+space+"/content/page/"+ids["Welcome"]+"?format=document", env.Admin.Token, nil).JSON()["document"]
	refs, _ := json.Marshal(refsOf(doc, nil))
	for _, want := range []string{
		`{"anchor":"install","kind":"anchor","page":"` + ids["Setup"] + `"}`,
		`{"kind":"page","page":"` + ids["Advanced"] + `"}`,
		`{"file":"` + logo + `","kind":"file"}`,
		`{"kind":"url","url":"https://example.com/x.md"}`,
	} {
		if !strings.Contains(string(refs), want) {
			t.Errorf("refs %s lack %s", refs, want)
		}
	}
	back := env.Must(200, "GET", "/v1/spaces/"+space+"/content/page/"+ids["Setup"]+"?format=document", env.Admin.Token, nil).JSON()["document"]
	if refs, _ := json.Marshal(refsOf(back, nil)); !strings.Contains(string(refs), `{"kind":"page","page":"`+ids["Welcome"]+`"}`) {
		t.Errorf("link up to the first page: %s", refs)
	}

	// Export: the relative links are written back as they were read.
	env.Must(204, "POST", "/v1/spaces/"+space+"/git/export", env.Admin.Token, gitBody(url, "commitMessage", "again", "force", true))
	runGitSync(t, env)
	if got := srv.Show("docs", "main", "README.md"); !strings.Contains(got, "](guide/setup.md#install)") || !strings.Contains(got, "](.gitbook/assets/logo.png)") {
		t.Errorf("exported README.md:\n%s", got)
	}
}
