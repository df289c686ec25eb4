package rest_test

import (
	"net/url"
	"strings"
	"testing"

	"docsapi/apitest"
)

func TestShareLinks(t *testing.T) {
	c := newSiteEnv(t)
	admin := c.Admin.Token
	a := c.space(admin, map[string]any{"title": "Handbook"})
	outside := c.space(admin, map[string]any{"title": "Elsewhere"})
	site := c.site(map[string]any{"title": "Partners", "visibility": "share-link", "spaces": []string{a}})
	stranger := c.OtherAdm.Token // authenticated, not a member
	var link, key string
	c.Run(t, []apitest.Scenario{
		{Name: "create", Method: "POST", Path: site + "/share-links", Token: admin, Body: map[string]any{"name": "Acme partners"}, Status: 201,
			Check: func(r apitest.Response) {
				obj := r.JSON()
				apitest.Keys(t, obj, "object", "id", "createdAt", "name", "active", "urls")
				link = obj["id"].(string)
				published := obj["urls"].(map[string]any)["published"].(string)
				u, err := url.Parse(published)
				if err != nil || obj["object"] != "share-link" || obj["active"] != true || !strings.HasPrefix(published, c.HTTP.URL+"/sites/"+c.Org+"/partners?share=") {
					t.Fatalf("created %v", obj)
				}
				key = u.Query().Get("share")
				if len(key) < 22 { // 128 bits in base64url; docsapi uses 256
					t.Errorf("key %q is too short", key)
				}
			}},
		{Name: "name required", Method: "POST", Path: site + "/share-links", Token: admin, Body: map[string]any{}, Status: 400, Contains: names("name")},
		{Name: "name too long", Method: "POST", Path: site + "/share-links", Token: admin, Body: map[string]any{"name": strings.Repeat("n", 51)}, Status: 400, Contains: names("name")},
		{Name: "creator cannot manage share links", Method: "POST", Path: site + "/share-links", Token: c.ByRole["create"].Token, Body: map[string]any{"name": "x"}, Status: 403},
		{Name: "list", Method: "GET", Path: site + "/share-links", Token: admin, Status: 200, Contains: []string{`"count":1`}},
		{Name: "creator cannot list keys", Method: "GET", Path: site + "/share-links", Token: c.ByRole["create"].Token, Status: 403},
		{Name: "unknown site", Method: "GET", Path: c.sites() + "/nope/share-links", Token: admin, Status: 404},
	})
	published := site + "/published"
	withKey := func(k string) string { return "?shareKey=" + url.QueryEscape(k) }
	c.Run(t, []apitest.Scenario{
		{Name: "an unpublished site is not served", Method: "GET", Path: published + withKey(key), Token: stranger, Status: 404},
		{Name: "publish", Method: "POST", Path: site + "/publish", Token: admin, Status: 200},
		{Name: "no key", Method: "GET", Path: published, Token: stranger, Status: 404},
		{Name: "no key, even for a member", Method: "GET", Path: published, Token: admin, Status: 404},
		{Name: "wrong key", Method: "GET", Path: published + withKey("nope"), Token: stranger, Status: 404},
		{Name: "with the key", Method: "GET", Path: published + withKey(key), Token: stranger, Status: 200,
			Check: func(r apitest.Response) {
				obj := r.JSON()
				apitest.Keys(t, obj, "object", "site", "structure", "customizations", "scripts")
				st := obj["structure"].(map[string]any)
				list := st["structure"].([]any)
				if obj["object"] != "published-content-site" || st["type"] != "siteSpaces" || len(list) != 1 {
					t.Fatalf("published %s", r.Body)
				}
				ss := list[0].(map[string]any)
				if ss["urls"].(map[string]any)["published"] != c.HTTP.URL+"/sites/"+c.Org+"/partners?share="+key {
					t.Errorf("site space URL %v", ss["urls"])
				}
				if perms := ss["space"].(map[string]any)["permissions"].(map[string]any); perms["view"] != true || perms["edit"] != false {
					t.Errorf("a visitor's space permissions %v", perms)
				}
			}},
		{Name: "the space through the key", Method: "GET", Path: "/v1/spaces/" + a + withKey(key), Token: stranger, Status: 200,
			Contains: []string{`"published":"` + c.HTTP.URL + "/sites/" + c.Org + "/partners?share=" + key + `"`, `"admin":false`}},
		{Name: "a member reads the space with their role", Method: "GET", Path: "/v1/spaces/" + a + withKey(key), Token: admin, Status: 200, Contains: []string{`"admin":true`}},
		{Name: "a space outside the site", Method: "GET", Path: "/v1/spaces/" + outside + withKey(key), Token: stranger, Status: 404},
		{Name: "the space without the key", Method: "GET", Path: "/v1/spaces/" + a, Token: stranger, Status: 404},
		{Name: "site spaces through the key", Method: "GET", Path: site + "/site-spaces" + withKey(key), Token: stranger, Status: 200, Contains: []string{`"count":1`, "share=" + key}},
		{Name: "sections through the key", Method: "GET", Path: site + "/sections" + withKey(key), Token: stranger, Status: 200, Contains: []string{`"count":0`}},
		{Name: "site spaces without the key", Method: "GET", Path: site + "/site-spaces", Token: stranger, Status: 404},
		{Name: "a member with a wrong key", Method: "GET", Path: site + "/site-spaces" + withKey("nope"), Token: admin, Status: 404},
		{Name: "deactivate", Method: "PATCH", Path: site + "/share-links/" + link, Token: admin, Body: map[string]any{"active": false}, Status: 200, Contains: []string{`"active":false`}},
		{Name: "a deactivated key", Method: "GET", Path: published + withKey(key), Token: stranger, Status: 404},
		{Name: "a deactivated key on the space", Method: "GET", Path: "/v1/spaces/" + a + withKey(key), Token: stranger, Status: 404},
		{Name: "a deactivated key on site spaces", Method: "GET", Path: site + "/site-spaces" + withKey(key), Token: stranger, Status: 404},
		{Name: "rename and reactivate", Method: "PATCH", Path: site + "/share-links/" + link, Token: admin, Body: map[string]any{"active": true, "name": "Renamed"}, Status: 200,
			Contains: []string{`"active":true`, `"name":"Renamed"`}},
		{Name: "empty patch", Method: "PATCH", Path: site + "/share-links/" + link, Token: admin, Body: map[string]any{}, Status: 400, Contains: names("body")},
		{Name: "name too long", Method: "PATCH", Path: site + "/share-links/" + link, Token: admin, Body: map[string]any{"name": strings.Repeat("n", 51)}, Status: 400, Contains: names("name")},
		{Name: "unknown link", Method: "PATCH", Path: site + "/share-links/nope", Token: admin, Body: map[string]any{"active": true}, Status: 404},
		{Name: "reactivated", Method: "GET", Path: published + withKey(key), Token: stranger, Status: 200},
		{Name: "delete", Method: "DELETE", Path: site + "/share-links/" + link, Token: admin, Status: 205},
		{Name: "delete again", Method: "DELETE", Path: site + "/share-links/" + link, Token: admin, Status: 204},
		{Name: "a deleted key", Method: "GET", Path: published + withKey(key), Token: stranger, Status: 404},
		{Name: "no token", Method: "GET", Path: published + withKey(key), Status: 401},
	})

	// Public sites answer any authenticated caller; a given key must still be valid.
	pub := c.site(map[string]any{"title": "Public", "spaces": []string{a}})
	c.Must(200, "POST", pub+"/publish", admin, nil)
	c.Run(t, []apitest.Scenario{
		{Name: "public", Method: "GET", Path: pub + "/published", Token: stranger, Status: 200, Contains: []string{`"object":"published-content-site"`}},
		{Name: "public with a bad key", Method: "GET", Path: pub + "/published" + withKey("nope"), Token: stranger, Status: 404},
		{Name: "unknown site", Method: "GET", Path: c.sites() + "/nope/published", Token: stranger, Status: 404},
	})
	c.Must(200, "PATCH", pub, admin, map[string]any{"visibility": "unlisted"})
	c.Must(200, "GET", pub+"/published", stranger, nil)
	c.Must(200, "POST", pub+"/unpublish", admin, nil)
	c.Must(404, "GET", pub+"/published", admin, nil)

	// GraphQL reads the published site with the same rule.
	siteID := site[strings.LastIndex(site, "/")+1:]
	l := c.Must(201, "POST", site+"/share-links", admin, map[string]any{"name": "Again"}).JSON()
	key2, _ := url.Parse(l["urls"].(map[string]any)["published"].(string))
	q := `query($o: ID!, $s: ID!, $k: String) { publishedContentSite(organizationId: $o, siteId: $s, shareKey: $k) { object site { id } structure { type } } }`
	g := gqlData(t, c.Env, stranger, q, map[string]any{"o": c.Org, "s": siteID, "k": key2.Query().Get("share")})
	if g["publishedContentSite"].(map[string]any)["structure"].(map[string]any)["type"] != "SITE_SPACES" {
		t.Errorf("graphql %v", g)
	}
	gqlRefusal(t, c.Env, stranger, q, map[string]any{"o": c.Org, "s": siteID}, "NOT_FOUND", 404)
}
