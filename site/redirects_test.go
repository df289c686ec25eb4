package site_test

import (
	"strings"
	"testing"
)

// A site redirect (the API's /redirects) answers readers of the old path
// with a 301 to the page's current address; a path no redirect names is
// the friendly 404.
func TestSiteRedirectIsAPermanentRedirect(t *testing.T) {
	f := newReaderFixture(t, "public")
	admin := f.Admin.Token
	install := f.Must(200, "GET", "/v1/spaces/"+f.guide+"/content/path/install", admin, nil).JSON()["id"].(string)
	var guideSS string
	for _, item := range f.Must(200, "GET", f.site+"/site-spaces", admin, nil).JSON()["items"].([]any) {
		ss := item.(map[string]any)
		if ss["space"].(map[string]any)["id"] == f.guide {
			guideSS = ss["id"].(string)
		}
	}
	f.Must(201, "POST", f.site+"/redirects", admin, map[string]any{"source": "/old/setup",
		"destination": map[string]any{"kind": "site-page", "siteSpaceId": guideSS, "pageId": install}})

	c := f.client(t)
	moved := get(t, c, f.base+"/old/setup")
	if moved.status != 301 || !strings.HasSuffix(moved.header.Get("Location"), f.basePath+"/install") {
		t.Fatalf("redirect: %d Location %q", moved.status, moved.header.Get("Location"))
	}
	if page := get(t, c, moved.header.Get("Location")); page.status != 200 || !strings.Contains(page.body, "<h1>Install</h1>") {
		t.Errorf("its target: %d", page.status)
	}
	if missing := get(t, c, f.base+"/old/nothing", "Accept", "text/html"); missing.status != 404 {
		t.Errorf("an unknown old path: %d", missing.status)
	}
}
