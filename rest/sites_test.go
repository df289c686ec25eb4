package rest_test

import (
	"strings"
	"testing"

	"docsapi/apitest"
)

var siteKeys = []string{"object", "id", "type", "title", "icon", "basename", "visibility", "published", "siteSpaces", "defaultSpace", "createdAt",
	"adaptiveContent", "ads", "agentsContext", "features", "urls"}

var siteSpaceKeys = []string{"object", "id", "path", "space", "title", "default", "hasAdvancedCustomizationFeature", "urls"}

var sectionKeys = []string{"object", "id", "title", "default", "path", "siteSpaces", "urls"}

// siteEnv is a content environment with helpers for sites.
type siteEnv struct {
	*contentEnv
}

func newSiteEnv(t *testing.T) *siteEnv { return &siteEnv{newContentEnv(t)} }

func (c *siteEnv) sites() string { return "/v1/orgs/" + c.Org + "/sites" }

// site creates a site as the admin and returns its path.
func (c *siteEnv) site(body map[string]any) string {
	c.T.Helper()
	return c.sites() + "/" + c.id(c.sites(), c.Admin.Token, body)
}

func TestSiteCreateAndRead(t *testing.T) {
	c := newSiteEnv(t)
	admin := c.Admin.Token
	a := c.space(admin, map[string]any{"title": "Getting Started"})
	b := c.space(admin, map[string]any{"title": "API Reference"})
	var id string
	c.Run(t, []apitest.Scenario{
		{Name: "create with spaces", Method: "POST", Path: c.sites(), Token: c.ByRole["create"].Token,
			Body: map[string]any{"title": "Developer Docs", "visibility": "unlisted", "spaces": []string{a, b}}, Status: 201,
			Check: func(r apitest.Response) {
				obj := r.JSON()
				apitest.Keys(t, obj, siteKeys...)
				id = obj["id"].(string)
				if obj["object"] != "site" || obj["type"] != "basic" || obj["visibility"] != "unlisted" || obj["published"] != false ||
					obj["siteSpaces"] != float64(2) || obj["basename"] != "developer-docs" || obj["agentsContext"] != "included" || obj["icon"] != nil {
					t.Errorf("created %v", obj)
				}
				apitest.Keys(t, obj["urls"].(map[string]any), "location", "app") // published only once published
				if r.Header.Get("Location") != c.HTTP.URL+"/v1/orgs/"+c.Org+"/sites/"+id {
					t.Errorf("Location %q", r.Header.Get("Location"))
				}
				ads := obj["ads"].(map[string]any)
				if ads["status"] != "pending" || ads["submittable"] != false {
					t.Errorf("ads %v", ads)
				}
				for _, f := range obj["features"].([]any) {
					f := f.(map[string]any)
					apitest.Keys(t, f, "id", "plan", "frozen")
					if f["plan"] != "basic" || f["frozen"] != false {
						t.Errorf("basic feature %v", f)
					}
				}
			}},
		{Name: "same title gets another basename", Method: "POST", Path: c.sites(), Token: admin, Body: map[string]any{"title": "Developer Docs"}, Status: 201,
			Contains: []string{`"basename":"developer-docs-2"`, `"siteSpaces":0`, `"visibility":"public"`}},
		{Name: "body optional", Method: "POST", Path: c.sites(), Token: admin, Status: 201, Contains: []string{`"title":"Untitled site"`}},
		{Name: "ultimate features", Method: "POST", Path: c.sites(), Token: admin, Body: map[string]any{"title": "Ultimate", "type": "ultimate"}, Status: 201,
			Contains: []string{`{"id":"sites-visitor-authentication","plan":"ultimate","frozen":false}`, `{"id":"sites-share-links","plan":"premium","frozen":false}`,
				`{"id":"sites-advanced-customization","plan":"premium","frozen":false}`}},
		{Name: "legacy features are frozen", Method: "POST", Path: c.sites(), Token: admin, Body: map[string]any{"title": "Old", "type": "legacy-premium"}, Status: 201,
			Contains: []string{`"plan":"premium","frozen":true`}},
		{Name: "sponsored sites may submit ads", Method: "POST", Path: c.sites(), Token: admin, Body: map[string]any{"title": "Ads", "type": "sponsored"}, Status: 201,
			Contains: []string{`"ads":{"status":"pending","submittable":true}`, `{"id":"sites-ads","plan":"sponsored","frozen":false}`}},
		{Name: "a new empty space", Method: "POST", Path: c.sites(), Token: admin, Body: map[string]any{"title": "Fresh", "spaces": "empty"}, Status: 201,
			Contains: []string{`"siteSpaces":1`}},
		{Name: "a new sample space", Method: "POST", Path: c.sites(), Token: admin, Body: map[string]any{"title": "Sample", "spaces": "sample"}, Status: 201,
			Contains: []string{`"siteSpaces":1`}, Check: func(r apitest.Response) {
				// The new space holds the sample (getting-started) pages.
				list := c.Must(200, "GET", c.sites()+"/"+r.JSON()["id"].(string)+"/site-spaces", admin, nil).JSON()
				space := list["items"].([]any)[0].(map[string]any)["space"].(map[string]any)["id"].(string)
				pages := c.Must(200, "GET", "/v1/spaces/"+space+"/content/pages", admin, nil).JSON()["pages"].([]any)
				if len(pages) == 0 {
					t.Error("the sample space has no pages")
				}
			}},
		{Name: "unknown new-space value", Method: "POST", Path: c.sites(), Token: admin, Body: map[string]any{"spaces": "full"}, Status: 400, Contains: names("spaces")},
		{Name: "spaces of a wrong type", Method: "POST", Path: c.sites(), Token: admin, Body: map[string]any{"spaces": 3}, Status: 400, Contains: names("spaces")},
		{Name: "unknown space", Method: "POST", Path: c.sites(), Token: admin, Body: map[string]any{"spaces": []string{a, "nope"}}, Status: 400, Contains: names("spaces[1]")},
		{Name: "title too short", Method: "POST", Path: c.sites(), Token: admin, Body: map[string]any{"title": "D"}, Status: 400, Contains: names("title")},
		{Name: "title too long", Method: "POST", Path: c.sites(), Token: admin, Body: map[string]any{"title": strings.Repeat("t", 129)}, Status: 400, Contains: []string{"title: must be at most 128"}},
		{Name: "bad type", Method: "POST", Path: c.sites(), Token: admin, Body: map[string]any{"type": "gold"}, Status: 400, Contains: names("type")},
		{Name: "bad visibility", Method: "POST", Path: c.sites(), Token: admin, Body: map[string]any{"visibility": "private"}, Status: 400, Contains: names("visibility")},
		{Name: "reviewer cannot create", Method: "POST", Path: c.sites(), Token: c.ByRole["review"].Token, Status: 403},
		{Name: "no token", Method: "POST", Path: c.sites(), Status: 401},
		{Name: "other organization", Method: "POST", Path: "/v1/orgs/" + c.Other + "/sites", Token: admin, Status: 404},
	})
	site := c.sites() + "/" + id
	c.Run(t, []apitest.Scenario{
		{Name: "get", Method: "GET", Path: site, Token: c.ByRole["read"].Token, Status: 200, Contains: []string{`"title":"Developer Docs"`},
			Check: func(r apitest.Response) {
				if r.Header.Get("ETag") == "" {
					t.Error("no ETag")
				}
			}},
		{Name: "guest cannot read sites", Method: "GET", Path: site, Token: c.ByRole["guest"].Token, Status: 403},
		{Name: "unknown", Method: "GET", Path: c.sites() + "/nope", Token: admin, Status: 404},
		{Name: "other organization's site", Method: "GET", Path: site, Token: c.OtherAdm.Token, Status: 404},
		{Name: "site through the other organization's path", Method: "GET", Path: "/v1/orgs/" + c.Other + "/sites/" + id, Token: c.OtherAdm.Token, Status: 404},
		{Name: "list", Method: "GET", Path: c.sites(), Token: c.ByRole["read"].Token, Status: 200, Contains: []string{`"count":8`}},
		{Name: "list by space", Method: "GET", Path: c.sites() + "?space=" + b, Token: admin, Status: 200, Check: func(r apitest.Response) { wantIDs(t, r, id) }},
		{Name: "list by title", Method: "GET", Path: c.sites() + "?title=DEVELOPER", Token: admin, Status: 200, Contains: []string{`"count":2`}},
		{Name: "list by type", Method: "GET", Path: c.sites() + "?type=ultimate&type=sponsored", Token: admin, Status: 200, Contains: []string{`"count":2`}},
		{Name: "list by bad type", Method: "GET", Path: c.sites() + "?type=gold", Token: admin, Status: 400, Contains: names("type")},
		{Name: "list unpublished", Method: "GET", Path: c.sites() + "?published=false&limit=1", Token: admin, Status: 200, Contains: []string{`"count":8`, `"next":{"page":`}},
		{Name: "list published", Method: "GET", Path: c.sites() + "?published=true", Token: admin, Status: 200, Contains: []string{`"count":0`}},
		{Name: "list bad boolean", Method: "GET", Path: c.sites() + "?published=maybe", Token: admin, Status: 400, Contains: names("published")},
		{Name: "list other organization", Method: "GET", Path: "/v1/orgs/" + c.Other + "/sites", Token: admin, Status: 404},
	})
	// The site's site spaces are the given spaces, in order, at the root.
	r := c.Must(200, "GET", site+"/site-spaces", admin, nil)
	list := items(t, r)
	if len(list) != 2 || list[0]["space"].(map[string]any)["id"] != a || list[0]["default"] != true || list[1]["default"] != false ||
		list[0]["path"] != "getting-started" || list[1]["title"] != "API Reference" {
		t.Fatalf("site spaces %s", r.Body)
	}
	apitest.Keys(t, list[0], siteSpaceKeys...)

	// GraphQL answers with the same site.
	g := gqlData(t, c.Env, admin, `query($o: ID!, $s: ID!) { site(organizationId: $o, siteId: $s) { id title basename type visibility siteSpaces published features { id plan } } }`,
		map[string]any{"o": c.Org, "s": id})["site"].(map[string]any)
	if g["basename"] != "developer-docs" || g["visibility"] != "UNLISTED" || g["type"] != "BASIC" || g["siteSpaces"] != float64(2) {
		t.Errorf("graphql %v", g)
	}
	gqlRefusal(t, c.Env, c.ByRole["guest"].Token, `query($o: ID!, $s: ID!) { site(organizationId: $o, siteId: $s) { id } }`, map[string]any{"o": c.Org, "s": id}, "FORBIDDEN", 403)
}

func TestSitePatchAndPublish(t *testing.T) {
	c := newSiteEnv(t)
	admin, creator := c.Admin.Token, c.ByRole["create"].Token
	a := c.space(admin, map[string]any{"title": "Guide"})
	site := c.site(map[string]any{"title": "Docs", "spaces": []string{a}})
	other := c.site(map[string]any{"title": "Other"})
	etag := c.Must(200, "GET", site, admin, nil).Header.Get("ETag")
	c.Run(t, []apitest.Scenario{
		{Name: "title, basename, agents, adaptive content", Method: "PATCH", Path: site, Token: creator,
			Body: map[string]any{"title": "Handbook", "basename": "handbook", "agentsContext": "excluded", "adaptiveContent": map[string]any{"enabled": true}}, Status: 200,
			Contains: []string{`"title":"Handbook"`, `"basename":"handbook"`, `"agentsContext":"excluded"`, `"adaptiveContent":{"enabled":true}`}},
		{Name: "without If-Match a write just runs", Method: "PATCH", Path: site, Token: admin, Body: map[string]any{"title": "Handbook"}, Status: 200},
		{Name: "basename taken", Method: "PATCH", Path: other, Token: admin, Body: map[string]any{"basename": "handbook"}, Status: 409, Contains: []string{"basename:"}},
		{Name: "basename too long", Method: "PATCH", Path: site, Token: admin, Body: map[string]any{"basename": strings.Repeat("b", 101)}, Status: 400, Contains: names("basename")},
		{Name: "basename empty", Method: "PATCH", Path: site, Token: admin, Body: map[string]any{"basename": ""}, Status: 400, Contains: names("basename")},
		{Name: "title too short", Method: "PATCH", Path: site, Token: admin, Body: map[string]any{"title": "x"}, Status: 400, Contains: names("title")},
		{Name: "bad agents context", Method: "PATCH", Path: site, Token: admin, Body: map[string]any{"agentsContext": "some"}, Status: 400, Contains: names("agentsContext")},
		{Name: "creator cannot change visibility", Method: "PATCH", Path: site, Token: creator, Body: map[string]any{"visibility": "share-link"}, Status: 403},
		{Name: "reviewer cannot change the title", Method: "PATCH", Path: site, Token: c.ByRole["review"].Token, Body: map[string]any{"title": "Nope"}, Status: 403},
		{Name: "visibility", Method: "PATCH", Path: site, Token: admin, Body: map[string]any{"visibility": "visitor-auth"}, Status: 200, Contains: []string{`"visibility":"visitor-auth"`}},
		{Name: "proxy", Method: "PATCH", Path: site, Token: admin, Body: map[string]any{"proxy": "example.com/docs"}, Status: 200,
			Contains: []string{`"proxy":{"origin":"example.com/docs","target":"` + c.HTTP.URL + `/sites/` + c.Org + `/handbook"}`}},
		{Name: "proxy without a path", Method: "PATCH", Path: site, Token: admin, Body: map[string]any{"proxy": "example.com"}, Status: 400, Contains: names("proxy")},
		{Name: "proxy too long", Method: "PATCH", Path: site, Token: admin, Body: map[string]any{"proxy": "example.com/" + strings.Repeat("d", 510)}, Status: 400, Contains: names("proxy")},
		{Name: "proxy removed", Method: "PATCH", Path: site, Token: admin, Body: map[string]any{"proxy": nil}, Status: 200,
			Check: func(r apitest.Response) {
				if _, ok := r.JSON()["proxy"]; ok {
					t.Errorf("proxy kept: %s", r.Body)
				}
			}},
		{Name: "hostname", Method: "PATCH", Path: site, Token: admin, Body: map[string]any{"hostname": "docs.example.com"}, Status: 200, Contains: []string{`"hostname":"docs.example.com"`}},
		{Name: "hostname taken across the service", Method: "PATCH", Path: other, Token: admin, Body: map[string]any{"hostname": "docs.example.com"}, Status: 409, Contains: []string{"hostname:"}},
		{Name: "hostname with two labels", Method: "PATCH", Path: other, Token: admin, Body: map[string]any{"hostname": "example.com"}, Status: 400, Contains: names("hostname")},
		{Name: "hostname upper case", Method: "PATCH", Path: other, Token: admin, Body: map[string]any{"hostname": "Docs.Example.com"}, Status: 400, Contains: names("hostname")},
		{Name: "hostname too long", Method: "PATCH", Path: other, Token: admin, Body: map[string]any{"hostname": strings.Repeat("a.", 256) + "com"}, Status: 400, Contains: names("hostname")},
		{Name: "icon emoji", Method: "PATCH", Path: site, Token: admin, Body: map[string]any{"icon": map[string]any{"emoji": "📘"}}, Status: 200, Contains: []string{`"icon":{"emoji":"📘"}`}},
		{Name: "icon URLs", Method: "PATCH", Path: site, Token: admin, Body: map[string]any{"icon": map[string]any{"icon": map[string]any{"light": "https://a.test/l.png", "dark": "https://a.test/d.png"}}}, Status: 200,
			Contains: []string{`"icon":{"icon":{"light":"https://a.test/l.png","dark":"https://a.test/d.png"}}`}},
		{Name: "icon empty object", Method: "PATCH", Path: site, Token: admin, Body: map[string]any{"icon": map[string]any{}}, Status: 200, Contains: []string{`"icon":{}`}},
		{Name: "icon removed", Method: "PATCH", Path: site, Token: admin, Body: map[string]any{"icon": nil}, Status: 200, Contains: []string{`"icon":null`}},
		{Name: "published is not a PATCH field", Method: "PATCH", Path: site, Token: admin, Body: map[string]any{"published": true}, Status: 200, Contains: []string{`"published":false`}},
		{Name: "publish needs admin", Method: "POST", Path: site + "/publish", Token: creator, Status: 403},
		{Name: "publish", Method: "POST", Path: site + "/publish", Token: admin, Status: 200,
			Contains: []string{`"published":true`, `"published":"https://docs.example.com"`}},
		{Name: "unpublish", Method: "POST", Path: site + "/unpublish", Token: admin, Status: 200, Contains: []string{`"published":false`}},
		{Name: "publish unknown", Method: "POST", Path: c.sites() + "/nope/publish", Token: admin, Status: 404},
	})
	// A stale ETag is refused.
	if r := c.Do("PATCH", site, admin, map[string]any{"title": "Again"}, "If-Match", etag); r.Status != 412 {
		t.Errorf("stale If-Match: %d %s", r.Status, r.Body)
	}
	// URLs without a custom hostname: the organization's hostname, else the public URL.
	c.Must(200, "PATCH", site, admin, map[string]any{"hostname": nil})
	r := c.Must(200, "POST", site+"/publish", admin, nil).JSON()
	if got := r["urls"].(map[string]any)["published"]; got != c.HTTP.URL+"/sites/"+c.Org+"/handbook" {
		t.Errorf("published URL %v", got)
	}
	c.Must(200, "PATCH", "/v1/orgs/"+c.Org, admin, map[string]any{"hostname": "acme"})
	r = c.Must(200, "GET", site, admin, nil).JSON()
	if got := r["urls"].(map[string]any)["published"]; got != strings.Replace(c.HTTP.URL, "://", "://acme.", 1)+"/handbook" {
		t.Errorf("published URL with the organization's hostname %v", got)
	}
	ss := items(t, c.Must(200, "GET", site+"/site-spaces", admin, nil))
	if got := ss[0]["urls"].(map[string]any)["published"]; got != strings.Replace(c.HTTP.URL, "://", "://acme.", 1)+"/handbook" {
		t.Errorf("default site space URL %v", got)
	}

	// Delete: 205, then 204; an admin only.
	c.Run(t, []apitest.Scenario{
		{Name: "delete needs admin", Method: "DELETE", Path: site, Token: creator, Status: 403},
		{Name: "delete", Method: "DELETE", Path: site, Token: admin, Status: 205},
		{Name: "deleted", Method: "GET", Path: site, Token: admin, Status: 404},
		{Name: "delete again", Method: "DELETE", Path: site, Token: admin, Status: 204},
		{Name: "the space stays", Method: "GET", Path: "/v1/spaces/" + a, Token: admin, Status: 200},
	})
}
