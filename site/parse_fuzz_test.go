package site

import (
	"net/url"
	"strings"
	"testing"
)

// FuzzParseTarget: any path parses without panicking, within the size
// bound; a target's path stays under the request's and never climbs out.
func FuzzParseTarget(f *testing.F) {
	for _, s := range []string{"/", "/sites/o/s/", "/sites/o/s/a/b.md", "/robots.txt", "/x/_assets/site.abc.css", "/a/../b", "/a/./b", "//", "/.md", "/_search", "/a\x00b"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, p string) {
		tg, ok := parseTarget(p)
		if !ok {
			return
		}
		if len(p) > maxPath {
			t.Fatalf("accepted a path of %d bytes", len(p))
		}
		if !strings.HasPrefix(tg.path, "/") || len(tg.path) > len(p) {
			t.Fatalf("%q: target path %q", p, tg.path)
		}
		for _, s := range strings.Split(tg.path, "/") {
			if s == ".." {
				t.Fatalf("%q: dot segment in %q", p, tg.path)
			}
		}
	})
}

// FuzzVisitorQuery: any query string parses without panicking; what it
// keeps is bounded, and the clean URL never carries the key or token.
func FuzzVisitorQuery(f *testing.F) {
	for _, s := range []string{"share=k", "jwt_token=a.b.c", "share=a&share=b&x=1", "%zz", "share=" + strings.Repeat("k", 5000), "q=x;share=y"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		if len(raw) > 1<<16 {
			return
		}
		q, _ := url.ParseQuery(raw)
		v, err := parseVisitorQuery(q)
		if err == nil && (len(v.share) > maxParam || len(v.jwt) > maxParam) {
			t.Fatalf("kept %d and %d bytes", len(v.share), len(v.jwt))
		}
		u := &url.URL{Path: "/p", RawQuery: raw}
		clean, err := url.Parse(cleanURL(u))
		if err != nil {
			t.Fatalf("clean URL of %q: %v", raw, err)
		}
		if cq := clean.Query(); cq.Has("share") || cq.Has("jwt_token") {
			t.Fatalf("clean URL of %q keeps %q", raw, clean.RawQuery)
		}
	})
}
