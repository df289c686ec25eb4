package rest_test

import (
	"strings"
	"testing"

	"docsapi/apitest"
)

// TestSiteBasenamesNeverRunOut: creating sites with the same title (or none)
// keeps finding a free basename: the 101st is no 500 (the fuzzing finding),
// and long titles get suffixes within the length limit.
func TestSiteBasenamesNeverRunOut(t *testing.T) {
	env := apitest.New(t)
	seen := map[string]bool{}
	long := strings.Repeat("a", 100)
	for i := range 130 {
		body := map[string]any{}
		if i%2 == 1 {
			body["title"] = long
		}
		site := env.Must(201, "POST", "/v1/orgs/"+env.Org+"/sites", env.Admin.Token, body).JSON()
		b := site["basename"].(string)
		if seen[b] || len(b) > 100 {
			t.Fatalf("site %d: basename %q (taken before: %v)", i, b, seen[b])
		}
		seen[b] = true
	}
	if !seen["untitled-site-65"] || !seen[strings.Repeat("a", 97)+"-65"] {
		t.Fatalf("suffixes: %d names, without untitled-site-65 or a…-65", len(seen))
	}
}
