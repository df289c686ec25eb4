package rest_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"docsapi/apitest"
)

// TestMarkdownBounds: bodies over markdown's bounds are refused with a 400
// naming the field and the bound, through GraphQL and imports, before
// anything parses them; a link page may not name another organization's
// space; links?limit=0 counts like every list.
func TestMarkdownBounds(t *testing.T) {
	env := apitest.New(t)
	space := newSpace(t, env, env.Org)
	otherOrg, other := env.NewOrg("Other", "admin@other.test")
	otherSpace := newSpaceAs(t, env, otherOrg, other.Token)
	hostile := map[string]string{
		"/deep.md":       strings.Repeat(">", 40_000) + " x\n",
		"/links.md":      strings.Repeat("[a](", 200_000),
		"/brackets.html": "<html><body><p>" + strings.Repeat("[", 100_000) + "</p></body></html>",
		"/too-big.md":    strings.Repeat("a", 2<<20),
		"/ok.md":         "# Fine\n\n[x](https://example.com)\n",
	}
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, ok := hostile[r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		w.Write([]byte(body))
	}))
	t.Cleanup(site.Close)
	const create = `mutation($t: ContentTarget!, $i: CreatePageInput!) { createPage(target: $t, input: $i) { page { id } } }`
	target := map[string]any{"space": space}

	for name, c := range map[string]struct{ md, says string }{
		"nesting":   {strings.Repeat("- ", 40_000) + "x", "64"},
		"links":     {strings.Repeat("[a](b) ", 10_001), "at most 10000"},
		"link scan": {strings.Repeat("[a](", 5_000), "](\""},
		"nodes":     {strings.Repeat("[", 200_000), "at most 50000"},
	} {
		e := gqlRefusal(t, env, env.Admin.Token, create, map[string]any{"t": target, "i": map[string]any{"title": "H", "markdown": c.md}}, "BAD_REQUEST", 400)
		if e.Extensions["field"] != "markdown" || !strings.Contains(e.Message, c.says) {
			t.Errorf("%s: %+v", name, e)
		}
	}
	for path, says := range map[string]string{"/deep.md": "levels deep", "/links.md": "links", "/brackets.html": "[ characters", "/too-big.md": "bytes"} {
		source := "markdown"
		if strings.HasSuffix(path, ".html") {
			source = "html"
		}
		r := env.Do("POST", "/v1/spaces/"+space+"/content/import", env.Admin.Token, map[string]any{"url": site.URL + path, "source": source})
		if r.Status != 400 || !strings.Contains(string(r.Body), says) {
			t.Errorf("import %s: %d %s", path, r.Status, r.Body)
		}
	}
	importInto(t, env, space, "markdown", site.URL+"/ok.md")

	t.Run("link page targets", func(t *testing.T) {
		link := func(ref map[string]any) map[string]any {
			return map[string]any{"t": target, "i": map[string]any{"title": "L", "type": "LINK", "target": ref}}
		}
		for field, ref := range map[string]map[string]any{
			"target.space":      {"kind": "space", "space": otherSpace},
			"target.page":       {"kind": "page", "page": "no-such-page"},
			"target.collection": {"kind": "collection", "collection": "no-such-collection"},
		} {
			e := gqlRefusal(t, env, env.Admin.Token, create, link(ref), "BAD_REQUEST", 400)
			if e.Extensions["field"] != field || strings.Contains(e.Message, "Other") {
				t.Errorf("%s: %+v", field, e)
			}
		}
		gqlData(t, env, env.Admin.Token, create, link(map[string]any{"kind": "space", "space": space}))
		gqlData(t, env, env.Admin.Token, create, link(map[string]any{"kind": "url", "url": "https://example.com"}))
	})

	t.Run("links?limit=0", func(t *testing.T) {
		v := env.Must(200, "GET", "/v1/spaces/"+space+"/links?limit=0", env.Admin.Token, nil).JSON()
		if v["count"].(float64) != 1 || len(v["items"].([]any)) != 0 || v["next"] == nil {
			t.Fatalf("limit 0: %v", v)
		}
		next := v["next"].(map[string]any)["page"].(string)
		v = env.Must(200, "GET", "/v1/spaces/"+space+"/links?limit=1&page="+next, env.Admin.Token, nil).JSON()
		if len(v["items"].([]any)) != 1 {
			t.Fatalf("after a limit 0 page: %v", v)
		}
		env.Must(400, "GET", "/v1/spaces/"+space+"/links?limit=-1", env.Admin.Token, nil)
	})
}
