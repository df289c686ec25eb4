package site_test

import (
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
)

// FuzzReaderRequest sends any path under a published site, with any query
// string, through the whole server: the answer is never a server error,
// and never a page of another site.
func FuzzReaderRequest(f *testing.F) {
	fx := newReaderFixture(f, "public")
	for _, s := range []string{"", "/install", "/install/linux.md", "/robots.txt", "/_search", "/%2e%2e/x", "/a//b", "/" + strings.Repeat("x", 3000)} {
		f.Add(s, "q=install")
		f.Add(s, "share=nope&jwt_token=a.b.c")
	}
	f.Fuzz(func(t *testing.T, path, query string) {
		if len(path) > 8<<10 || len(query) > 8<<10 {
			return
		}
		u := fx.base + "/" + strings.TrimPrefix(path, "/")
		parsed, err := url.Parse(u)
		if err != nil {
			return
		}
		parsed.RawQuery = query
		req := httptest.NewRequest("GET", fx.HTTP.URL+"/", nil)
		req.URL = parsed
		req.RequestURI = parsed.RequestURI()
		req.Host = parsed.Host
		w := httptest.NewRecorder()
		fx.Server.ServeHTTP(w, req)
		if w.Code >= 500 {
			t.Fatalf("GET %s: %d %s", parsed, w.Code, w.Body)
		}
	})
}
