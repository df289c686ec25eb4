package playground_test

import (
	"io/fs"
	"os"
	"regexp"
	"strings"
	"testing"

	"docsapi/apitest"
	"docsapi/playground"
	"docsapi/server"
)

func TestPlaygroundPageAndAssets(t *testing.T) {
	env := apitest.New(t)
	page := env.Do("GET", "/graphql", "", nil, "Accept", "text/html")
	if page.Status != 200 || !strings.Contains(page.Header.Get("Content-Type"), "text/html") {
		t.Fatalf("page: %d %s", page.Status, page.Header)
	}
	csp := page.Header.Get("Content-Security-Policy")
	for _, want := range []string{"default-src 'self'", "script-src 'self'", "connect-src 'self'", "frame-ancestors 'none'"} {
		if !strings.Contains(csp, want) {
			t.Errorf("CSP %q lacks %s", csp, want)
		}
	}
	if strings.Contains(csp, "http") || strings.Contains(csp, "*") {
		t.Errorf("CSP %q allows another origin", csp)
	}
	// Every file the page loads is served here, with the same policy.
	srcs := regexp.MustCompile(`(?:src|href)="(/[^"]+)"`).FindAllStringSubmatch(string(page.Body), -1)
	if len(srcs) < 5 {
		t.Fatalf("page loads %d files: %s", len(srcs), page.Body)
	}
	for _, m := range srcs {
		r := env.Do("GET", m[1], "", nil, "Accept-Encoding", "gzip")
		if r.Status != 200 || r.Header.Get("Content-Security-Policy") != csp || r.Header.Get("ETag") == "" {
			t.Errorf("%s: %d %v", m[1], r.Status, r.Header)
		}
		if r := env.Do("GET", m[1], "", nil, "If-None-Match", r.Header.Get("ETag")); r.Status != 304 {
			t.Errorf("%s revalidated: %d", m[1], r.Status)
		}
	}
	env.Must(404, "GET", playground.AssetsPath+"nope.js", "", nil)
	env.Must(404, "GET", playground.AssetsPath+"../playground.go", "", nil)
	// A GraphQL client asking for JSON still reaches the API.
	env.Must(401, "GET", "/graphql?query={viewer{id}}", "", nil)
}

// No embedded file may make the browser reach another host: no absolute
// URL in the page, its script or its stylesheet other than in comments of
// the third-party bundles (checked in the browser test, which watches
// every request).
func TestPlaygroundFilesNameNoOtherHost(t *testing.T) {
	for _, name := range []string{"assets/index.html", "assets/playground.js", "assets/playground.css", "assets/vendor/graphiql.min.css"} {
		b, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		if m := regexp.MustCompile(`(?i)(src|href|url)\s*[=(]\s*["']?(https?:)?//`).Find(b); m != nil {
			t.Errorf("%s references another host: %s", name, m)
		}
	}
	// The licences ship with the files.
	if _, err := fs.Stat(os.DirFS("assets/vendor"), "LICENSES.txt"); err != nil {
		t.Error(err)
	}
}

func TestPlaygroundSwitchedOff(t *testing.T) {
	env := apitest.New(t, apitest.Options{Config: func(c *server.Config) { c.NoPlayground = true }})
	if r := env.Do("GET", "/graphql", "", nil, "Accept", "text/html"); r.Status != 401 || strings.Contains(string(r.Body), "<html") {
		t.Fatalf("playground off: %d %s", r.Status, r.Body)
	}
	env.Must(404, "GET", playground.AssetsPath+"vendor/graphiql.min.js", "", nil)
}
