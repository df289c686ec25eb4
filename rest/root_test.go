package rest_test

import (
	"encoding/json"
	"strings"
	"testing"

	"docsapi/apitest"
)

// A newcomer opening the server's address, the API's base or the docs
// needs no token and learns where to go next.
func TestRootAndDocs(t *testing.T) {
	env := apitest.New(t)
	root := env.Must(200, "GET", "/", "", nil)
	var answer struct {
		Version, Build string
		Links          map[string]string
	}
	if err := json.Unmarshal(root.Body, &answer); err != nil {
		t.Fatal(err)
	}
	if answer.Version == "" || answer.Build == "" {
		t.Errorf("GET / lacks version or build: %s", root.Body)
	}
	for _, key := range []string{"api", "openapi", "graphql", "playground", "docs"} {
		link := answer.Links[key]
		if link == "" {
			t.Errorf("GET / has no %q link: %s", key, root.Body)
			continue
		}
		// Every link answers without a token (the playground and GraphQL
		// answer a browser; here their GET without Accept html is a
		// GraphQL refusal, not a 404).
		if r := env.Do("GET", link, "", nil); r.Status == 404 {
			t.Errorf("the %q link %s answers 404", key, link)
		}
	}

	info := env.Must(200, "GET", "/v1/", "", nil)
	apitest.Keys(t, body(t, info), "version", "build")

	index := env.Must(200, "GET", "/docs/", "", nil)
	if ct := index.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/markdown") {
		t.Errorf("/docs/ is %s", ct)
	}
	if !strings.Contains(string(index.Body), "(api.md)") {
		t.Errorf("/docs/ does not list api.md:\n%s", index.Body)
	}
	page := env.Must(200, "GET", "/docs/api.md", "", nil)
	if !strings.HasPrefix(string(page.Body), "# ") {
		t.Errorf("/docs/api.md does not start with its title: %.80s", page.Body)
	}
	for _, bad := range []string{"/docs/nothing.md", "/docs/links_test.go", "/docs/..%2Fgo.mod", "/docs/docs.go"} {
		if r := env.Do("GET", bad, "", nil); r.Status != 404 {
			t.Errorf("GET %s: %d, want 404", bad, r.Status)
		}
	}
}
