package rest_test

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/http/httptest"
	"net/url"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"docsapi/apitest"
)

// Published content for readers: URL resolution and the apiToken.

func init() {
	rules := map[string]authzRule{
		// Not scoped to one organization: any caller resolves any URL (the
		// site's audience decides, see TestResolvePublishedURL).
		"POST /v1/urls/published": {Path: func(*fixture) string { return "/v1/urls/published" }, Body: map[string]any{"url": "https://docs.example.com/"}},
		"GET /v1/urls/published":  {Path: func(*fixture) string { return "/v1/urls/published?url=https%3A%2F%2Fdocs.example.com%2F" }},
		"GET /v1/spaces/{spaceId}/revisions/{revisionId}/page/{pageId}/document": {Min: "member", Path: func(f *fixture) string {
			return "/v1/spaces/" + f.IDs["contentSpace"] + "/revisions/" + f.IDs["revision"] + "/page/" + f.IDs["page"] + "/document"
		}},
	}
	fixtureSetups = append(fixtureSetups, func(f *fixture) {
		r := f.Env.Must(201, "POST", f.IDs["site"]+"/redirects", f.ByRole["admin"].Token,
			map[string]any{"source": "/old", "destination": map[string]any{"kind": "site-space", "siteSpaceId": f.IDs["siteSpace"]}})
		f.IDs["redirect"] = r.JSON()["id"].(string)
	})
	redirect := func(f *fixture) string { return f.IDs["site"] + "/redirects/" + f.IDs["redirect"] }
	body := map[string]any{"source": "/older", "destination": map[string]any{"kind": "site-space", "siteSpaceId": "x"}}
	rules["GET /v1/orgs/{organizationId}/sites/{siteId}/redirects"] = authzRule{Min: "read", Path: func(f *fixture) string { return f.IDs["site"] + "/redirects" }}
	rules["POST /v1/orgs/{organizationId}/sites/{siteId}/redirects"] = authzRule{Min: "create", Path: func(f *fixture) string { return f.IDs["site"] + "/redirects" }, Body: body}
	rules["PATCH /v1/orgs/{organizationId}/sites/{siteId}/redirects/{siteRedirectId}"] = authzRule{Min: "create", Path: redirect, Body: map[string]any{"source": "/older"}}
	rules["DELETE /v1/orgs/{organizationId}/sites/{siteId}/redirects/{siteRedirectId}"] = authzRule{Min: "create", Path: redirect}
	rules["GET /v1/orgs/{organizationId}/sites/{siteId}/redirect"] = authzRule{Min: "read", Path: func(f *fixture) string { return f.IDs["site"] + "/redirect?source=%2Fold" }}
	siteAt := func(suffix string) func(f *fixture) string {
		return func(f *fixture) string { return f.IDs["site"] + suffix }
	}
	// The fixture site is a share-link site: without its key, another
	// organization's admin gets 404, like for every site route.
	rules["POST /v1/orgs/{organizationId}/sites/{siteId}/search"] = authzRule{Min: "", Path: siteAt("/search"), Body: map[string]any{"query": "install"}}
	rules["POST /v1/orgs/{organizationId}/sites/{siteId}/insights/events"] = authzRule{Min: "", Path: siteAt("/insights/events"), Body: map[string]any{"events": []any{}}}
	rules["POST /v1/orgs/{organizationId}/sites/{siteId}/insights/events/aggregate"] = authzRule{Min: "read", Path: siteAt("/insights/events/aggregate"), Body: map[string]any{"range": "last7Days"}}
	rules["GET /v1/orgs/{organizationId}/sites/{siteId}/insights/visitor-segments"] = authzRule{Min: "read", Path: siteAt("/insights/visitor-segments")}
	rules["POST /v1/integrations/{integrationName}/render"] = authzRule{Min: "member", Path: func(*fixture) string { return "/v1/integrations/fixture-int/render" },
		Body: map[string]any{"componentId": "c", "props": map[string]any{}, "context": map[string]any{"type": "document", "theme": "light", "spaceId": "s", "editable": false}}}
	rules["GET /v1/urls/embed"] = authzRule{Path: func(*fixture) string { return "/v1/urls/embed?url=https%3A%2F%2Fexample.invalid%2F" }}
	rules["GET /v1/urls/content"] = authzRule{Path: func(f *fixture) string { return "/v1/urls/content?url=https%3A%2F%2Fexample.invalid%2F" }}
	rules["GET /v1/spaces/{spaceId}/embed"] = authzRule{Min: "member", Path: func(f *fixture) string {
		return "/v1/spaces/" + f.IDs["contentSpace"] + "/embed?url=https%3A%2F%2Fexample.invalid%2F"
	}}
	rules["GET /v1/orgs/{organizationId}/sites/{siteId}/publishing/auth"] = authzRule{Min: "admin", Path: siteAt("/publishing/auth")}
	rules["PATCH /v1/orgs/{organizationId}/sites/{siteId}/publishing/auth"] = authzRule{Min: "admin", Path: siteAt("/publishing/auth"), Body: map[string]any{"backend": "custom"}}
	rules["POST /v1/orgs/{organizationId}/sites/{siteId}/publishing/auth/regenerate"] = authzRule{Min: "admin", Path: siteAt("/publishing/auth/regenerate")}
	rules["GET /v1/orgs/{organizationId}/sites/{siteId}/publishing/preview"] = authzRule{Min: "create", Path: siteAt("/publishing/preview")}
	ss := func(f *fixture) string {
		return f.IDs["site"] + "/site-spaces/" + f.IDs["siteSpace"] + "/customization"
	}
	rules["GET /v1/orgs/{organizationId}/sites/{siteId}/customization"] = authzRule{Min: "read", Path: siteAt("/customization")}
	rules["PUT /v1/orgs/{organizationId}/sites/{siteId}/customization"] = authzRule{Min: "create", Path: siteAt("/customization"), Body: map[string]any{"title": "x"}}
	rules["GET /v1/orgs/{organizationId}/sites/{siteId}/site-spaces/{siteSpaceId}/customization"] = authzRule{Min: "read", Path: ss}
	rules["PATCH /v1/orgs/{organizationId}/sites/{siteId}/site-spaces/{siteSpaceId}/customization"] = authzRule{Min: "create", Path: ss, Body: map[string]any{"title": "x"}}
	rules["DELETE /v1/orgs/{organizationId}/sites/{siteId}/site-spaces/{siteSpaceId}/customization"] = authzRule{Min: "create", Path: ss}
	computed := map[string]any{"seed": "s", "source": map[string]any{"type": "builtin:openapi",
		"dependencies": map[string]any{"spec": map[string]any{"ref": map[string]any{"kind": "openapi", "spec": "pets"}}}, "props": map[string]any{"models": true}}}
	rules["POST /v1/spaces/{spaceId}/content/computed/document"] = authzRule{Min: "member", Path: func(f *fixture) string { return "/v1/spaces/" + f.IDs["contentSpace"] + "/content/computed/document" },
		Body: map[string]any{"seed": "s", "source": map[string]any{"type": "builtin:openapi",
			"dependencies": map[string]any{"spec": map[string]any{"ref": map[string]any{"kind": "openapi", "spec": "pets"}}}, "props": map[string]any{"doc": "models"}}}}
	rules["POST /v1/spaces/{spaceId}/content/computed/revision"] = authzRule{Min: "member", Path: func(f *fixture) string { return "/v1/spaces/" + f.IDs["contentSpace"] + "/content/computed/revision" }, Body: computed}
	rules["GET /v1/spaces/{spaceId}/revisions/{revisionId}/changes"] = authzRule{Min: "member", Path: func(f *fixture) string {
		return "/v1/spaces/" + f.IDs["contentSpace"] + "/revisions/" + f.IDs["revision"] + "/changes"
	}}
	rules["GET /v1/spaces/{spaceId}/change-requests/{changeRequestId}/changes"] = authzRule{Min: "member", Path: func(f *fixture) string {
		return "/v1/spaces/" + f.IDs["crSpace"] + "/change-requests/" + f.IDs["cr"] + "/changes"
	}}
	for k, v := range rules {
		authzRules[k] = v
	}
}

// readerSite is a published site of three spaces: Guide and its variant
// Guide Beta in the default section, API in a second section.
type readerSite struct {
	*siteEnv
	path, base                  string // API path, published base URL
	id                          string
	guide, beta, api            string // space ids
	guideSS, betaSS, apiSS      string // site space ids
	guideSection, apiSection    string
	betaPath, apiPath, basename string
}

func newReaderSite(t *testing.T, site map[string]any) *readerSite {
	c := &readerSite{siteEnv: newSiteEnv(t)}
	admin := c.Admin.Token
	newSpace := func(title, template string) string {
		id := c.space(admin, map[string]any{"title": title})
		c.Must(201, "POST", "/v1/spaces/"+id+"/content/template", admin, map[string]any{"id": template})
		return id
	}
	c.guide, c.beta, c.api = newSpace("Guide", "getting-started"), newSpace("Guide Beta", "knowledge-base"), newSpace("API", "getting-started")
	site["spaces"] = []string{c.guide, c.beta}
	c.path = c.site(site)
	c.id = c.path[strings.LastIndex(c.path, "/")+1:]
	c.Must(201, "POST", c.path+"/sections", admin, map[string]any{"spaceId": c.api, "title": "API"})
	c.Must(200, "POST", c.path+"/publish", admin, nil)
	var st struct {
		Structure []struct {
			ID, Path   string
			SiteSpaces []struct {
				ID, Path string
				Space    struct{ ID string }
			}
		}
	}
	json.Unmarshal(c.Must(200, "GET", c.path+"/structure", admin, nil).Body, &st)
	for _, sec := range st.Structure {
		for _, ss := range sec.SiteSpaces {
			switch ss.Space.ID {
			case c.guide:
				c.guideSS, c.guideSection = ss.ID, sec.ID
			case c.beta:
				c.betaSS, c.betaPath = ss.ID, ss.Path
			case c.api:
				c.apiSS, c.apiSection, c.apiPath = ss.ID, sec.ID, sec.Path
			}
		}
	}
	c.basename = c.Must(200, "GET", c.path, admin, nil).JSON()["basename"].(string)
	c.base = c.HTTP.URL + "/sites/" + c.Org + "/" + c.basename
	if c.betaSS == "" || c.apiSection == "" || c.guideSection == c.apiSection {
		t.Fatalf("structure %s", c.Must(200, "GET", c.path+"/structure", admin, nil).Body)
	}
	return c
}

func (c *readerSite) resolve(token string, body map[string]any) apitest.Response {
	return c.Do("POST", "/v1/urls/published", token, body)
}

// lookup resolves u as the admin and returns the lookup.
func (c *readerSite) lookup(t *testing.T, u string) map[string]any {
	t.Helper()
	r := c.resolve(c.Admin.Token, map[string]any{"url": u})
	if r.Status != 200 {
		t.Fatalf("resolve %s: %d %s", u, r.Status, r.Body)
	}
	return r.JSON()
}

// tokenPayload decodes a JWT's payload without verifying it (as a renderer does).
func tokenPayload(t *testing.T, tok string) map[string]any {
	t.Helper()
	parts := strings.Split(tok, ".")
	if len(parts) != 3 {
		t.Fatalf("not a JWT: %q", tok)
	}
	b, err := base64.RawURLEncoding.DecodeString(parts[1])
	if err != nil {
		t.Fatal(err)
	}
	var out map[string]any
	json.Unmarshal(b, &out)
	return out
}

var lookupKeys = []string{"site", "siteSection", "siteSpace", "space", "pathname", "basePath", "siteBasePath", "apiToken", "organization", "complete", "canonicalUrl"}

func TestResolvePublishedURL(t *testing.T) {
	c := newReaderSite(t, map[string]any{"title": "Docs"})
	sitePrefix := "/sites/" + c.Org + "/" + c.basename + "/"
	for _, tc := range []struct {
		name, url                                     string
		section, siteSpace, space, pathname, basePath string
		complete                                      bool
	}{
		{"root", c.base, c.guideSection, c.guideSS, c.guide, "", sitePrefix, true},
		{"root with slash", c.base + "/", c.guideSection, c.guideSS, c.guide, "", sitePrefix, true},
		{"page", c.base + "/quick-start", c.guideSection, c.guideSS, c.guide, "quick-start", sitePrefix, true},
		{"variant, nested page", c.base + "/" + c.betaPath + "/knowledge-base/onboarding", c.guideSection, c.betaSS, c.beta, "knowledge-base/onboarding", sitePrefix + c.betaPath + "/", true},
		{"section", c.base + "/" + c.apiPath + "/faq", c.apiSection, c.apiSS, c.api, "faq", sitePrefix + c.apiPath + "/", true},
		{"unknown path", c.base + "/no/such/page", c.guideSection, c.guideSS, c.guide, "no/such/page", sitePrefix, false},
	} {
		got := c.lookup(t, tc.url)
		apitest.Keys(t, got, lookupKeys...)
		want := map[string]any{"site": c.id, "siteSection": tc.section, "siteSpace": tc.siteSpace, "space": tc.space, "pathname": tc.pathname,
			"basePath": tc.basePath, "siteBasePath": sitePrefix, "organization": c.Org, "complete": tc.complete}
		for k, v := range want {
			if got[k] != v {
				t.Errorf("%s: %s = %v, want %v", tc.name, k, got[k], v)
			}
		}
		if !strings.HasPrefix(got["canonicalUrl"].(string), c.base) {
			t.Errorf("%s: canonicalUrl %v", tc.name, got["canonicalUrl"])
		}
	}
	// The GET twin answers the same.
	r := c.Must(200, "GET", "/v1/urls/published?url="+url.QueryEscape(c.base+"/quick-start"), c.Admin.Token, nil)
	if r.JSON()["pathname"] != "quick-start" {
		t.Errorf("GET: %s", r.Body)
	}

	c.Run(t, []apitest.Scenario{
		{Name: "no token", Method: "POST", Path: "/v1/urls/published", Body: map[string]any{"url": c.base}, Status: 401},
		{Name: "no url", Method: "POST", Path: "/v1/urls/published", Token: c.Admin.Token, Body: map[string]any{}, Status: 400, Contains: names("url")},
		{Name: "not a URL", Method: "POST", Path: "/v1/urls/published", Token: c.Admin.Token, Body: map[string]any{"url": "docs"}, Status: 400, Contains: names("url")},
		{Name: "url not a string", Method: "POST", Path: "/v1/urls/published", Token: c.Admin.Token, Body: map[string]any{"url": 1}, Status: 400, Contains: names("url")},
		{Name: "unknown host", Method: "POST", Path: "/v1/urls/published", Token: c.Admin.Token, Body: map[string]any{"url": "https://nowhere.example.com/"}, Status: 404},
		{Name: "unknown basename", Method: "POST", Path: "/v1/urls/published", Token: c.Admin.Token, Body: map[string]any{"url": c.HTTP.URL + "/sites/" + c.Org + "/nope"}, Status: 404},
		{Name: "another organization's token", Method: "POST", Path: "/v1/urls/published", Token: c.OtherAdm.Token, Body: map[string]any{"url": c.base}, Status: 200},
		{Name: "GET without url", Method: "GET", Path: "/v1/urls/published", Token: c.Admin.Token, Status: 400, Contains: names("url")},
	})
	// redirectOnError: a redirect instead of the 404.
	r = c.resolve(c.Admin.Token, map[string]any{"url": "https://nowhere.example.com/", "redirectOnError": true})
	if r.Status != 200 || r.JSON()["target"] != "application" || r.JSON()["redirect"] == nil {
		t.Errorf("redirectOnError: %d %s", r.Status, r.Body)
	}
	// By hostname: the site's root is the host's.
	c.Must(200, "PATCH", c.path, c.Admin.Token, map[string]any{"hostname": "docs.example.com"})
	got := c.lookup(t, "https://docs.example.com/"+c.apiPath+"/quick-start")
	if got["siteBasePath"] != "/" || got["basePath"] != "/"+c.apiPath+"/" || got["pathname"] != "quick-start" || got["space"] != c.api {
		t.Errorf("by hostname: %v", got)
	}
	if got["canonicalUrl"] != "https://docs.example.com/"+c.apiPath+"/quick-start" {
		t.Errorf("canonicalUrl %v", got["canonicalUrl"])
	}
	// Unpublished: nothing at the URL.
	c.Must(200, "POST", c.path+"/unpublish", c.Admin.Token, nil)
	if r := c.resolve(c.Admin.Token, map[string]any{"url": "https://docs.example.com/"}); r.Status != 404 {
		t.Errorf("unpublished: %d %s", r.Status, r.Body)
	}
}

func TestSiteAPIToken(t *testing.T) {
	c := newReaderSite(t, map[string]any{"title": "Docs"})
	admin := c.Admin.Token
	look := c.lookup(t, c.base+"/quick-start")
	tok := look["apiToken"].(string)
	claims := tokenPayload(t, tok)
	if claims["kind"] != "site" || claims["site"] != c.id {
		t.Fatalf("apiToken payload %v", claims)
	}
	if exp := int64(claims["exp"].(float64)); exp < c.Clock.Now().Add(59*time.Minute).Unix() || exp > c.Clock.Now().Add(61*time.Minute).Unix() {
		t.Errorf("exp %d, now %d", exp, c.Clock.Now().Unix())
	}
	page := c.Must(200, "GET", "/v1/spaces/"+c.guide+"/content/path/quick-start", admin, nil).JSON()
	rev := c.Must(200, "GET", "/v1/spaces/"+c.guide+"/content", admin, nil).JSON()["id"].(string)
	other := c.space(admin, map[string]any{"title": "Internal"})
	doc := "/v1/spaces/" + c.guide + "/revisions/" + rev + "/page/" + page["id"].(string) + "/document"
	c.Run(t, []apitest.Scenario{
		{Name: "space", Method: "GET", Path: "/v1/spaces/" + c.guide, Token: tok, Status: 200},
		{Name: "revision", Method: "GET", Path: "/v1/spaces/" + c.guide + "/revisions/" + rev + "?metadata=true", Token: tok, Status: 200},
		{Name: "page by encoded path", Method: "GET", Path: "/v1/spaces/" + c.beta + "/content/path/knowledge-base%2Fonboarding", Token: tok, Status: 200,
			Contains: []string{`"title":"Onboarding"`}},
		{Name: "page document", Method: "GET", Path: doc + "?evaluated=true", Token: tok, Status: 200, Contains: []string{`"object":"document"`, `"nodes":[`}},
		{Name: "document as a member", Method: "GET", Path: doc, Token: admin, Status: 200, Contains: []string{`"object":"document"`}},
		{Name: "document, unknown page", Method: "GET", Path: "/v1/spaces/" + c.guide + "/revisions/" + rev + "/page/nope/document", Token: admin, Status: 404},
		{Name: "document, bad evaluated", Method: "GET", Path: doc + "?evaluated=maybe", Token: admin, Status: 400, Contains: names("evaluated")},
		{Name: "document, another organization", Method: "GET", Path: doc, Token: c.OtherAdm.Token, Status: 404},
		{Name: "published site", Method: "GET", Path: c.path + "/published", Token: tok, Status: 200},
		{Name: "space outside the site", Method: "GET", Path: "/v1/spaces/" + other, Token: tok, Status: 403},
		{Name: "organization", Method: "GET", Path: "/v1/orgs/" + c.Org, Token: tok, Status: 403},
		{Name: "site settings", Method: "GET", Path: c.path, Token: tok, Status: 403},
		{Name: "write", Method: "POST", Path: "/v1/orgs/" + c.Org + "/spaces", Token: tok, Body: map[string]any{"title": "x"}, Status: 403},
		{Name: "content change", Method: "POST", Path: "/v1/spaces/" + c.guide + "/content/template", Token: tok, Body: map[string]any{"id": "getting-started"}, Status: 403},
		{Name: "user", Method: "GET", Path: "/v1/user", Token: tok, Status: 403},
		{Name: "a member, without email", Method: "GET", Path: "/v1/users/" + c.Admin.ID, Token: tok, Status: 200, Check: func(r apitest.Response) {
			if obj := r.JSON(); obj["id"] != c.Admin.ID || obj["email"] != nil {
				t.Errorf("member as the site's reader sees them: %v", obj)
			}
		}},
		{Name: "a stranger", Method: "GET", Path: "/v1/users/" + c.OtherAdm.ID, Token: tok, Status: 404},
		{Name: "tampered", Method: "GET", Path: "/v1/spaces/" + c.guide, Token: tok[:len(tok)-4] + "AAAA", Status: 401},
	})
	gqlRefusal(t, c.Env, tok, `{ organizations { items { id } } }`, nil, "FORBIDDEN", 403)
	if d := gqlData(t, c.Env, tok, `query($s: ID!) { space(spaceId: $s) { id } }`, map[string]any{"s": c.guide}); d["space"].(map[string]any)["id"] != c.guide {
		t.Errorf("graphql space %v", d)
	}
	// Another site's token does not read this site.
	other2 := c.site(map[string]any{"title": "Other", "spaces": []string{other}})
	c.Must(200, "POST", other2+"/publish", admin, nil)
	if r := c.Do("GET", other2+"/published", tok, nil); r.Status != 403 {
		t.Errorf("another site's published content: %d %s", r.Status, r.Body)
	}
	// After exp: 401.
	c.Clock.Advance(61 * time.Minute)
	if r := c.Do("GET", "/v1/spaces/"+c.guide, tok, nil); r.Status != 401 || !strings.Contains(string(r.Body), "expired") {
		t.Errorf("after exp: %d %s", r.Status, r.Body)
	}
}

func TestResolveAudience(t *testing.T) {
	// A share-link site: the key comes in the URL's share parameter.
	c := newReaderSite(t, map[string]any{"title": "Partners", "visibility": "share-link"})
	admin := c.Admin.Token
	link := c.Must(201, "POST", c.path+"/share-links", admin, map[string]any{"name": "Acme"}).JSON()
	shared := link["urls"].(map[string]any)["published"].(string)
	key := shared[strings.Index(shared, "share=")+len("share="):]
	if r := c.resolve(admin, map[string]any{"url": c.base}); r.Status != 404 {
		t.Errorf("share-link site without key: %d %s", r.Status, r.Body)
	}
	got := c.lookup(t, c.base+"/quick-start?share="+key)
	if got["shareKey"] != key || got["pathname"] != "quick-start" {
		t.Errorf("with key: %v", got)
	}
	// GitBook's form, which its renderer resolves (it drops query strings):
	// the key as the path segment after the site's root.
	inPath := c.lookup(t, c.base+"/"+key+"/quick-start")
	if inPath["shareKey"] != key || inPath["pathname"] != "quick-start" || !strings.HasSuffix(inPath["basePath"].(string), "/"+key+"/") {
		t.Errorf("key in the path: %v", inPath)
	}
	if r := c.resolve(admin, map[string]any{"url": c.base + "/not-a-key/quick-start"}); r.Status != 404 {
		t.Errorf("a segment that is no key: %d %s", r.Status, r.Body)
	}
	tok := got["apiToken"].(string)
	if tokenPayload(t, tok)["shareKey"] != key {
		t.Errorf("apiToken without its share key: %v", tokenPayload(t, tok))
	}
	c.Must(200, "GET", "/v1/spaces/"+c.guide, tok, nil)
	// An expired link: 404, and its tokens stop reading.
	soon := c.Clock.Now().Add(time.Minute).UTC().Format(time.RFC3339)
	c.Must(200, "PATCH", c.path+"/share-links/"+link["id"].(string), admin, map[string]any{"expiresAt": soon})
	c.Clock.Advance(2 * time.Minute)
	if r := c.resolve(admin, map[string]any{"url": c.base + "?share=" + key}); r.Status != 404 {
		t.Errorf("expired share link: %d %s", r.Status, r.Body)
	}
	if r := c.Do("GET", "/v1/spaces/"+c.guide, tok, nil); r.Status != 404 {
		t.Errorf("token of an expired share link: %d %s", r.Status, r.Body)
	}

	// A visitor-auth site with adaptive content: the visitor token decides.
	v := newReaderSite(t, map[string]any{"title": "Members", "type": "ultimate", "visibility": "visitor-auth"})
	admin = v.Admin.Token
	v.Must(200, "PUT", v.path+"/adaptive-schema", admin, map[string]any{"jsonSchema": adaptiveSchema})
	v.Must(200, "PATCH", v.path, admin, map[string]any{"adaptiveContent": map[string]any{"enabled": true}})
	v.Must(200, "PATCH", v.path+"/site-spaces/"+v.betaSS, admin, map[string]any{"condition": "visitor.claims.unsigned.isBetaUser === true"})
	secret := visitorSecret(t, v.siteEnv, v.id)
	if r := v.resolve(admin, map[string]any{"url": v.base}); r.Status != 403 {
		t.Errorf("visitor-auth without a token: %d %s", r.Status, r.Body)
	}
	if r := v.resolve(admin, map[string]any{"url": v.base, "redirectOnError": true}); r.Status != 200 || r.JSON()["target"] == nil {
		t.Errorf("visitor-auth redirectOnError: %d %s", r.Status, r.Body)
	}
	jwtToken := visitorToken(t, secret, jwt.MapClaims{"exp": v.Clock.Now().Add(time.Hour).Unix(), "plans": []string{"pro"}})
	betaURL := v.base + "/" + v.betaPath + "/knowledge-base"
	r := v.resolve(admin, map[string]any{"url": betaURL, "visitor": map[string]any{"jwtToken": jwtToken}})
	if r.Status != 200 || r.JSON()["siteSpace"] != v.guideSS || r.JSON()["complete"] != false {
		// The variant is hidden: its path is a page path of the default space.
		t.Errorf("hidden variant: %d %s", r.Status, r.Body)
	}
	hiddenTok := r.JSON()["apiToken"].(string)
	r = v.resolve(admin, map[string]any{"url": betaURL, "visitor": map[string]any{"jwtToken": jwtToken, "unsignedClaims": map[string]any{"isBetaUser": true}}})
	if r.Status != 200 || r.JSON()["siteSpace"] != v.betaSS || r.JSON()["contextId"] == nil {
		t.Fatalf("shown variant: %d %s", r.Status, r.Body)
	}
	betaTok := r.JSON()["apiToken"].(string)
	if c := tokenPayload(t, betaTok)["claims"].(map[string]any); c["plans"] == nil || c["unsigned"] == nil {
		t.Errorf("apiToken claims %v", c)
	}
	v.Must(200, "GET", "/v1/spaces/"+v.beta, betaTok, nil)
	if r := v.Do("GET", "/v1/spaces/"+v.beta, hiddenTok, nil); r.Status != 404 {
		t.Errorf("a variant hidden from the token's visitor: %d %s", r.Status, r.Body)
	}
	bad := visitorToken(t, "wrong-key", jwt.MapClaims{"exp": v.Clock.Now().Add(time.Hour).Unix()})
	if r := v.resolve(admin, map[string]any{"url": v.base, "visitor": map[string]any{"jwtToken": bad}}); r.Status != 403 {
		t.Errorf("wrong visitor key: %d %s", r.Status, r.Body)
	}
}

func TestSiteRedirects(t *testing.T) {
	c := newReaderSite(t, map[string]any{"title": "Docs"})
	admin, creator, reviewer, reader := c.Admin.Token, c.ByRole["create"].Token, c.ByRole["review"].Token, c.ByRole["read"].Token
	redirects := c.path + "/redirects"
	faq := c.Must(200, "GET", "/v1/spaces/"+c.api+"/content/path/faq", admin, nil).JSON()["id"].(string)
	toPage := map[string]any{"source": "/old/faq", "destination": map[string]any{"kind": "site-page", "siteSpaceId": c.apiSS, "pageId": faq}}
	var id string
	c.Run(t, []apitest.Scenario{
		{Name: "create", Method: "POST", Path: redirects, Token: creator, Body: toPage, Status: 201, Check: func(r apitest.Response) {
			obj := r.JSON()
			apitest.Keys(t, obj, "object", "id", "source", "destination")
			id = obj["id"].(string)
			if obj["object"] != "site-redirect" || obj["source"] != "/old/faq" {
				t.Errorf("created %v", obj)
			}
		}},
		{Name: "source taken", Method: "POST", Path: redirects, Token: creator, Body: toPage, Status: 409},
		{Name: "reviewer cannot create", Method: "POST", Path: redirects, Token: reviewer, Body: toPage, Status: 403},
		{Name: "no source", Method: "POST", Path: redirects, Token: creator, Body: map[string]any{"destination": toPage["destination"]}, Status: 400, Contains: names("source")},
		{Name: "bad source", Method: "POST", Path: redirects, Token: creator, Body: map[string]any{"source": "no-slash", "destination": toPage["destination"]}, Status: 400, Contains: names("source")},
		{Name: "no destination", Method: "POST", Path: redirects, Token: creator, Body: map[string]any{"source": "/a"}, Status: 400, Contains: names("destination")},
		{Name: "bad kind", Method: "POST", Path: redirects, Token: creator, Body: map[string]any{"source": "/a", "destination": map[string]any{"kind": "page"}}, Status: 400, Contains: names("destination.kind")},
		{Name: "unknown site space", Method: "POST", Path: redirects, Token: creator, Body: map[string]any{"source": "/a", "destination": map[string]any{"kind": "site-space", "siteSpaceId": "nope"}}, Status: 400, Contains: names("destination.siteSpaceId")},
		{Name: "unknown page", Method: "POST", Path: redirects, Token: creator, Body: map[string]any{"source": "/a", "destination": map[string]any{"kind": "site-page", "siteSpaceId": c.apiSS, "pageId": "nope"}}, Status: 400, Contains: names("destination.pageId")},
		{Name: "unknown section", Method: "POST", Path: redirects, Token: creator, Body: map[string]any{"source": "/a", "destination": map[string]any{"kind": "site-section", "siteSectionId": "nope"}}, Status: 400, Contains: names("destination.siteSectionId")},
		{Name: "another organization", Method: "POST", Path: redirects, Token: c.OtherAdm.Token, Body: toPage, Status: 404},
		{Name: "no token", Method: "GET", Path: redirects, Status: 401},
		{Name: "list", Method: "GET", Path: redirects, Token: reader, Status: 200, Contains: []string{`"count":1`, `"kind":"site-page"`}},
		{Name: "by source", Method: "GET", Path: c.path + "/redirect?source=%2Fold%2Ffaq", Token: reader, Status: 200,
			Contains: []string{`"target":"` + c.base + "/" + c.apiPath + `/faq"`}},
		{Name: "unknown source", Method: "GET", Path: c.path + "/redirect?source=%2Fnope", Token: reader, Status: 404},
		{Name: "no source", Method: "GET", Path: c.path + "/redirect", Token: reader, Status: 400, Contains: names("source")},
		{Name: "by source, another organization", Method: "GET", Path: c.path + "/redirect?source=%2Fold%2Ffaq", Token: c.OtherAdm.Token, Status: 404},
	})
	// A URL naming no page follows the redirect.
	r := c.resolve(admin, map[string]any{"url": c.base + "/old/faq"})
	if r.Status != 200 || r.JSON()["target"] != "content" || r.JSON()["redirect"] != c.base+"/"+c.apiPath+"/faq" {
		t.Errorf("resolve a redirected path: %d %s", r.Status, r.Body)
	}
	// The site's apiToken reads a redirect of its site.
	tok := c.lookup(t, c.base)["apiToken"].(string)
	c.Must(200, "GET", c.path+"/redirect?source=%2Fold%2Ffaq", tok, nil)
	c.Run(t, []apitest.Scenario{
		{Name: "token cannot list", Method: "GET", Path: redirects, Token: tok, Status: 403},
		{Name: "update to a section", Method: "PATCH", Path: redirects + "/" + id, Token: creator, Body: map[string]any{"destination": map[string]any{"kind": "site-section", "siteSectionId": c.apiSection}}, Status: 200,
			Contains: []string{`"kind":"site-section"`, `"source":"/old/faq"`}},
		{Name: "section target", Method: "GET", Path: c.path + "/redirect?source=%2Fold%2Ffaq", Token: reader, Status: 200, Contains: []string{`"target":"` + c.base + "/" + c.apiPath + `"`}},
		{Name: "update nothing", Method: "PATCH", Path: redirects + "/" + id, Token: creator, Body: map[string]any{}, Status: 400},
		{Name: "update unknown", Method: "PATCH", Path: redirects + "/nope", Token: creator, Body: map[string]any{"source": "/x"}, Status: 404},
		{Name: "delete", Method: "DELETE", Path: redirects + "/" + id, Token: creator, Status: 205},
		{Name: "delete again", Method: "DELETE", Path: redirects + "/" + id, Token: creator, Status: 204},
	})
}

func TestSearchSite(t *testing.T) {
	c := newReaderSite(t, map[string]any{"title": "Docs"})
	reader := c.ByRole["read"].Token
	search := c.path + "/search"
	spaces := func(r apitest.Response) []string {
		t.Helper()
		var out []string
		for _, it := range items(t, r) {
			out = append(out, it["id"].(string))
		}
		sort.Strings(out)
		return out
	}
	sorted := func(ids ...string) []string { sort.Strings(ids); return ids }
	tok := c.lookup(t, c.base)["apiToken"].(string)
	for _, tc := range []struct {
		name, token string
		body        map[string]any
		want        []string
	}{
		{"default scope: each section's default", reader, map[string]any{"query": "install"}, sorted(c.guide, c.api)},
		{"scope default", reader, map[string]any{"query": "install", "scope": map[string]any{"mode": "default"}}, sorted(c.guide, c.api)},
		{"scope all", reader, map[string]any{"query": "week", "scope": map[string]any{"mode": "all"}}, []string{c.beta}},
		{"default misses a variant", reader, map[string]any{"query": "week"}, nil},
		{"default with an included variant", reader, map[string]any{"query": "week", "scope": map[string]any{"mode": "default", "includedSiteSpaces": []string{c.betaSS}}}, []string{c.beta}},
		{"specific", reader, map[string]any{"query": "install", "scope": map[string]any{"mode": "specific", "siteSpaceIds": []string{c.apiSS}}}, []string{c.api}},
		{"deprecated current", reader, map[string]any{"query": "week", "mode": "current", "siteSpaceId": c.betaSS}, []string{c.beta}},
		{"the apiToken", tok, map[string]any{"query": "install", "mode": "all"}, sorted(c.guide, c.api)},
	} {
		r := c.Do("POST", search, tc.token, tc.body)
		if r.Status != 200 {
			t.Errorf("%s: %d %s", tc.name, r.Status, r.Body)
			continue
		}
		if got := spaces(r); strings.Join(got, ",") != strings.Join(tc.want, ",") {
			t.Errorf("%s: spaces %v, want %v", tc.name, got, tc.want)
		}
	}
	c.Run(t, []apitest.Scenario{
		{Name: "no token", Method: "POST", Path: search, Body: map[string]any{"query": "x"}, Status: 401},
		{Name: "no query", Method: "POST", Path: search, Token: reader, Body: map[string]any{}, Status: 400, Contains: names("query")},
		{Name: "bad mode", Method: "POST", Path: search, Token: reader, Body: map[string]any{"query": "x", "scope": map[string]any{"mode": "some"}}, Status: 400, Contains: names("scope.mode")},
		{Name: "unknown site space", Method: "POST", Path: search, Token: reader, Body: map[string]any{"query": "x", "scope": map[string]any{"mode": "specific", "siteSpaceIds": []string{"nope"}}}, Status: 400, Contains: names("scope.siteSpaceIds")},
		{Name: "unknown site", Method: "POST", Path: c.sites() + "/nope/search", Token: reader, Body: map[string]any{"query": "x"}, Status: 404},
	})
	// Unpublished, the site is searched by members only.
	c.Must(200, "POST", c.path+"/unpublish", c.Admin.Token, nil)
	c.Must(200, "POST", search, reader, map[string]any{"query": "install"})
	if r := c.Do("POST", search, c.OtherAdm.Token, map[string]any{"query": "install"}); r.Status != 404 {
		t.Errorf("another organization, unpublished site: %d %s", r.Status, r.Body)
	}
}

func TestSiteInsights(t *testing.T) {
	c := newReaderSite(t, map[string]any{"title": "Docs"})
	reader := c.ByRole["read"].Token
	look := c.lookup(t, c.base+"/quick-start")
	tok := look["apiToken"].(string)
	event := func(typ, visitor, page string, claims map[string]any) map[string]any {
		session := map[string]any{"visitorId": visitor, "sessionId": visitor + "-s", "cookies": map[string]any{}, "userAgent": "test", "language": nil, "referrer": nil}
		if claims != nil {
			session["visitorAuthClaims"] = claims
		}
		return map[string]any{"type": typ, "session": session,
			"location": map[string]any{"url": c.base + "/quick-start", "siteSection": nil, "siteSpace": c.guideSS, "siteShareKey": nil, "page": page, "space": c.guide, "revision": nil}}
	}
	track := c.path + "/insights/events"
	c.Run(t, []apitest.Scenario{
		{Name: "track with the apiToken", Method: "POST", Path: track, Token: tok, Body: map[string]any{"events": []any{event("page_view", "v1", "p1", nil), event("page_view", "v1", "p2", nil)}}, Status: 204},
		{Name: "track as a member", Method: "POST", Path: track, Token: reader, Body: map[string]any{"events": []any{event("search_open", "v2", "p1", map[string]any{"plan": "pro"})}}, Status: 204},
		{Name: "no events", Method: "POST", Path: track, Token: tok, Body: map[string]any{"events": []any{}}, Status: 400, Contains: names("events")},
		{Name: "bad type", Method: "POST", Path: track, Token: tok, Body: map[string]any{"events": []any{event("visit", "v1", "p1", nil)}}, Status: 400, Contains: names("events[0].type")},
		{Name: "no visitor", Method: "POST", Path: track, Token: tok, Body: map[string]any{"events": []any{map[string]any{"type": "page_view", "session": map[string]any{}, "location": map[string]any{}}}}, Status: 400, Contains: names("events[0].session.visitorId")},
		{Name: "no token", Method: "POST", Path: track, Body: map[string]any{"events": []any{event("page_view", "v1", "p1", nil)}}, Status: 401},
	})
	agg := c.path + "/insights/events/aggregate"
	r := c.Must(200, "POST", agg, reader, map[string]any{"range": "last7Days", "groupBy": []any{map[string]any{"column": "eventType"}},
		"select": []any{map[string]any{"column": "eventType"}, map[string]any{"column": "eventsCount"}, map[string]any{"column": "visitorsCount"}}})
	if got := string(r.Body); !strings.Contains(got, `{"column":"eventType","values":["page_view","search_open"]}`) ||
		!strings.Contains(got, `{"column":"eventsCount","values":[2,1]}`) || !strings.Contains(got, `{"column":"visitorsCount","values":[1,1]}`) {
		t.Errorf("aggregate: %s", got)
	}
	r = c.Must(200, "POST", agg, reader, map[string]any{"range": "last24Hours", "groupBy": []any{map[string]any{"column": "page"}},
		"where": []any{map[string]any{"column": "eventType", "values": []string{"page_view"}}}, "order": map[string]any{"by": map[string]any{"column": "page"}, "direction": "desc"}})
	if got := string(r.Body); !strings.Contains(got, `{"column":"page","values":["p2","p1"]}`) || !strings.Contains(got, `{"column":"eventsCount","values":[1,1]}`) {
		t.Errorf("aggregate by page: %s", got)
	}
	c.Run(t, []apitest.Scenario{
		{Name: "no range", Method: "POST", Path: agg, Token: reader, Body: map[string]any{}, Status: 400, Contains: names("range")},
		{Name: "unknown column", Method: "POST", Path: agg, Token: reader, Body: map[string]any{"range": "last7Days", "groupBy": []any{map[string]any{"column": "visitorOS"}}}, Status: 400, Contains: names("groupBy[0].column")},
		{Name: "apiToken cannot aggregate", Method: "POST", Path: agg, Token: tok, Body: map[string]any{"range": "last7Days"}, Status: 403},
		{Name: "guest", Method: "POST", Path: agg, Token: c.ByRole["guest"].Token, Body: map[string]any{"range": "last7Days"}, Status: 403},
		{Name: "another organization", Method: "POST", Path: agg, Token: c.OtherAdm.Token, Body: map[string]any{"range": "last7Days"}, Status: 404},
		{Name: "segments", Method: "GET", Path: c.path + "/insights/visitor-segments", Token: reader, Status: 200, Check: func(r apitest.Response) {
			list := items(t, r)
			if len(list) != 2 || list[0]["events"] != float64(2) || list[0]["visitors"] != float64(1) || list[1]["claims"].(map[string]any)["plan"] != "pro" {
				t.Errorf("segments %s", r.Body)
			}
			apitest.Keys(t, list[0], "title", "claims", "events", "visitors", "sessions")
		}},
		{Name: "segments, apiToken", Method: "GET", Path: c.path + "/insights/visitor-segments", Token: tok, Status: 403},
	})
}

func TestRenderWithPost(t *testing.T) {
	env := apitest.New(t)
	publish(env, env.Admin, "chat", env.Org, nil)
	install(env, env.Admin, "chat", env.Org)
	request := map[string]any{"componentId": "chat-block", "props": map[string]any{"q": 1}, "state": map[string]any{},
		"context": map[string]any{"type": "configuration_account", "organizationId": env.Org, "theme": "light"}}
	render := "/v1/integrations/chat/render"
	env.Run(t, []apitest.Scenario{
		{Name: "no runtime", Method: "POST", Path: render, Token: env.Admin.Token, Body: request, Status: 409},
		{Name: "without componentId", Method: "POST", Path: render, Token: env.Admin.Token, Body: map[string]any{"props": map[string]any{}, "context": map[string]any{"type": "document"}}, Status: 400, Contains: []string{"request.componentId"}},
		{Name: "unknown integration", Method: "POST", Path: "/v1/integrations/nope/render", Token: env.Admin.Token, Body: request, Status: 404},
		{Name: "no token", Method: "POST", Path: render, Body: request, Status: 401},
	})
	rc := newReceiver(t, env)
	rc.answer = `{"type":"element","element":{"type":"block","children":[]},"state":{},"props":{}}`
	rc.devMode(env.Admin, "chat", false)
	drain(t, env)
	r := env.Must(200, "POST", render, env.Admin.Token, request)
	if !strings.Contains(string(r.Body), `"type":"element"`) {
		t.Fatalf("render: %s", r.Body)
	}
	if sent := rc.got[len(rc.got)-1]; sent["type"] != "ui_render" || sent["componentId"] != "chat-block" {
		t.Errorf("ui_render event: %v", sent)
	}
}

func TestEmbedsAndContentURLs(t *testing.T) {
	c := newReaderSite(t, map[string]any{"title": "Docs"})
	reader := c.ByRole["read"].Token
	// A page with OpenGraph and oEmbed, served locally (the test server allows private fetches).
	mux := http.NewServeMux()
	var origin string
	mux.HandleFunc("/video", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprintf(w, `<html><head><title>Plain</title><meta property="og:title" content="A video"><meta property="og:site_name" content="Tube">
<link rel="icon" href="/favicon.ico"><link rel="alternate" type="application/json+oembed" href="%s/oembed"></head></html>`, origin)
	})
	mux.HandleFunc("/oembed", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"type":"video","title":"The video","provider_name":"Tube","html":"<iframe src=\"https://tube.example/1\"></iframe>"}`)
	})
	mux.HandleFunc("/article", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		io.WriteString(w, `<html><head><title>An article</title></head><body>Hi</body></html>`)
	})
	srv := httptest.NewServer(mux)
	defer srv.Close()
	origin = srv.URL
	embed := func(token, u string) apitest.Response {
		return c.Do("GET", "/v1/spaces/"+c.guide+"/embed?url="+url.QueryEscape(u), token, nil)
	}
	r := embed(reader, origin+"/video")
	if got := r.JSON(); r.Status != 200 || got["type"] != "rich" || got["title"] != "The video" || got["site"] != "Tube" || !strings.Contains(got["html"].(string), "iframe") || got["icon"] != origin+"/favicon.ico" {
		t.Errorf("oEmbed: %d %s", r.Status, r.Body)
	}
	r = embed(reader, origin+"/article")
	if got := r.JSON(); r.Status != 200 || got["type"] != "link" || got["title"] != "An article" {
		t.Errorf("HTML title: %d %s", r.Status, r.Body)
	}
	r = c.Must(200, "GET", "/v1/urls/embed?url="+url.QueryEscape(origin+"/missing"), reader, nil)
	if got := r.JSON(); got["type"] != "link" || got["title"] != origin+"/missing" || got["site"] != "127.0.0.1" {
		t.Errorf("nothing found: %s", r.Body)
	}
	tok := c.lookup(t, c.base)["apiToken"].(string)
	c.Run(t, []apitest.Scenario{
		{Name: "apiToken in its site", Method: "GET", Path: "/v1/spaces/" + c.guide + "/embed?url=" + url.QueryEscape(origin+"/article"), Token: tok, Status: 200},
		{Name: "no url", Method: "GET", Path: "/v1/spaces/" + c.guide + "/embed", Token: reader, Status: 400, Contains: names("url")},
		{Name: "not http", Method: "GET", Path: "/v1/urls/embed?url=ftp%3A%2F%2Fx", Token: reader, Status: 400, Contains: names("url")},
		{Name: "another organization's space", Method: "GET", Path: "/v1/spaces/" + c.guide + "/embed?url=" + url.QueryEscape(origin+"/article"), Token: c.OtherAdm.Token, Status: 404},
		{Name: "no token", Method: "GET", Path: "/v1/urls/embed?url=" + url.QueryEscape(origin+"/article"), Status: 401},
		{Name: "apiToken outside", Method: "GET", Path: "/v1/urls/embed?url=" + url.QueryEscape(origin+"/article"), Token: tok, Status: 403},
	})

	// Content URLs: app URLs and published URLs.
	app := c.HTTP.URL
	col := c.collection(c.Admin.Token, map[string]any{"title": "Guides"})
	for _, tc := range []struct{ name, url, space, page, collection string }{
		{"space app URL", app + "/s/" + c.guide, c.guide, "", ""},
		{"page app URL", app + "/app/spaces/" + c.beta + "/knowledge-base/onboarding", c.beta, "Onboarding", ""},
		{"collection app URL", app + "/c/" + col, "", "", col},
		{"published URL", c.base + "/" + c.apiPath + "/faq", c.api, "FAQ", ""},
	} {
		r := c.Do("GET", "/v1/urls/content?url="+url.QueryEscape(tc.url), reader, nil)
		if r.Status != 200 {
			t.Errorf("%s: %d %s", tc.name, r.Status, r.Body)
			continue
		}
		got := r.JSON()
		sp, _ := got["space"].(map[string]any)
		pg, _ := got["page"].(map[string]any)
		cl, _ := got["collection"].(map[string]any)
		if (tc.space != "" && sp["id"] != tc.space) || (tc.page != "" && pg["title"] != tc.page) || (tc.collection != "" && cl["id"] != tc.collection) {
			t.Errorf("%s: %s", tc.name, r.Body)
		}
	}
	c.Run(t, []apitest.Scenario{
		{Name: "unknown URL", Method: "GET", Path: "/v1/urls/content?url=" + url.QueryEscape("https://nowhere.example.com/"), Token: reader, Status: 404},
		{Name: "another organization's space", Method: "GET", Path: "/v1/urls/content?url=" + url.QueryEscape(app+"/s/"+c.guide), Token: c.OtherAdm.Token, Status: 404},
		{Name: "no url", Method: "GET", Path: "/v1/urls/content", Token: reader, Status: 400, Contains: names("url")},
	})
}

func TestPublishingAuthAndPreview(t *testing.T) {
	c := newReaderSite(t, map[string]any{"title": "Members", "type": "ultimate", "visibility": "visitor-auth"})
	admin := c.Admin.Token
	auth := c.path + "/publishing/auth"
	var key string
	c.Run(t, []apitest.Scenario{
		{Name: "get", Method: "GET", Path: auth, Token: admin, Status: 200, Check: func(r apitest.Response) {
			obj := r.JSON()
			apitest.Keys(t, obj, "object", "backend", "privateKey")
			key = obj["privateKey"].(string)
			if obj["object"] != "publishing-auth" || obj["backend"] != "custom" || key != visitorSecret(t, c.siteEnv, c.id) {
				t.Errorf("publishing auth %v", obj)
			}
		}},
		{Name: "creator cannot read the key", Method: "GET", Path: auth, Token: c.ByRole["create"].Token, Status: 403},
		{Name: "another organization", Method: "GET", Path: auth, Token: c.OtherAdm.Token, Status: 404},
		{Name: "set the fallback", Method: "PATCH", Path: auth, Token: admin, Body: map[string]any{"backend": "custom", "fallbackURL": "https://login.example.com/"}, Status: 200,
			Contains: []string{`"fallbackURL":"https://login.example.com/"`}},
		{Name: "integration backend", Method: "PATCH", Path: auth, Token: admin, Body: map[string]any{"backend": "integration"}, Status: 400, Contains: names("backend")},
		{Name: "bad fallback", Method: "PATCH", Path: auth, Token: admin, Body: map[string]any{"fallbackURL": "login"}, Status: 400, Contains: names("fallbackURL")},
		{Name: "empty", Method: "PATCH", Path: auth, Token: admin, Body: map[string]any{}, Status: 400},
	})
	// A refused visitor is sent to the fallback URL.
	r := c.resolve(admin, map[string]any{"url": c.base, "redirectOnError": true})
	if r.Status != 200 || r.JSON()["target"] != "external" || r.JSON()["redirect"] != "https://login.example.com/" {
		t.Errorf("fallback: %d %s", r.Status, r.Body)
	}
	regen := c.Must(200, "POST", auth+"/regenerate", admin, nil).JSON()
	if regen["privateKey"] == key || regen["fallbackURL"] != "https://login.example.com/" {
		t.Errorf("regenerated %v", regen)
	}
	c.Must(200, "PATCH", auth, admin, map[string]any{"fallbackURL": nil})
	if obj := c.Must(200, "GET", auth, admin, nil).JSON(); obj["fallbackURL"] != nil {
		t.Errorf("fallback removed: %v", obj)
	}

	// The preview URL opens the site space as a visitor with the claims.
	preview := c.Must(200, "GET", c.path+"/publishing/preview?siteSpace="+c.betaSS+"&claims="+url.QueryEscape(`{"plans":["pro"]}`), c.ByRole["create"].Token, nil).JSON()["url"].(string)
	u, _ := url.Parse(preview)
	jwtToken := u.Query().Get("jwt_token")
	u.RawQuery = ""
	if u.String() != c.base+"/"+c.betaPath || jwtToken == "" {
		t.Fatalf("preview %s", preview)
	}
	look := c.resolve(admin, map[string]any{"url": u.String(), "visitor": map[string]any{"jwtToken": jwtToken}})
	if look.Status != 200 || look.JSON()["siteSpace"] != c.betaSS {
		t.Errorf("preview resolves: %d %s", look.Status, look.Body)
	}
	c.Run(t, []apitest.Scenario{
		{Name: "preview, unknown site space", Method: "GET", Path: c.path + "/publishing/preview?siteSpace=nope", Token: admin, Status: 400, Contains: names("siteSpace")},
		{Name: "preview, bad claims", Method: "GET", Path: c.path + "/publishing/preview?claims=(a:1)", Token: admin, Status: 400, Contains: names("claims")},
		{Name: "preview, reviewer", Method: "GET", Path: c.path + "/publishing/preview", Token: c.ByRole["review"].Token, Status: 403},
	})
}

func TestSiteTokenReadsPublicSpecs(t *testing.T) {
	c := newReaderSite(t, map[string]any{"title": "Docs"})
	createSpec(t, c.Env, "pets", map[string]any{"text": petsYAML})
	createSpec(t, c.Env, "internal", map[string]any{"text": petsYAML})
	processAll(t, c.Env)
	c.Must(200, "PATCH", specPath(c.Env, "pets"), c.Admin.Token, map[string]any{"visibility": "public"})
	tok := c.lookup(t, c.base)["apiToken"].(string)
	c.Run(t, []apitest.Scenario{
		{Name: "public spec content", Method: "GET", Path: specPath(c.Env, "pets") + "/versions/latest/content", Token: tok, Status: 200, Contains: []string{`"filesystem"`}},
		{Name: "public spec", Method: "GET", Path: specPath(c.Env, "pets"), Token: tok, Status: 200},
		{Name: "private spec", Method: "GET", Path: specPath(c.Env, "internal") + "/versions/latest/content", Token: tok, Status: 404},
		{Name: "list", Method: "GET", Path: "/v1/orgs/" + c.Org + "/openapi", Token: tok, Status: 403},
		{Name: "write", Method: "PATCH", Path: specPath(c.Env, "pets"), Token: tok, Body: map[string]any{"visibility": "private"}, Status: 403},
	})
}

func TestSiteCustomization(t *testing.T) {
	c := newReaderSite(t, map[string]any{"title": "Docs"})
	creator, reviewer, reader := c.ByRole["create"].Token, c.ByRole["review"].Token, c.ByRole["read"].Token
	custom := c.path + "/customization"
	defaults := c.Must(200, "GET", custom, reader, nil).JSON()
	if defaults["title"] != "Docs" || defaults["styling"] == nil {
		t.Fatalf("defaults %v", defaults)
	}
	settings := maps.Clone(defaults)
	settings["title"] = "Handbook"
	settings["styling"] = mergeMaps(defaults["styling"].(map[string]any), map[string]any{"theme": "muted"})
	beta := c.path + "/site-spaces/" + c.betaSS + "/customization"
	c.Run(t, []apitest.Scenario{
		{Name: "put", Method: "PUT", Path: custom, Token: creator, Body: settings, Status: 200, Contains: []string{`"title":"Handbook"`, `"theme":"muted"`}},
		{Name: "reviewer cannot put", Method: "PUT", Path: custom, Token: reviewer, Body: settings, Status: 403},
		{Name: "missing a required setting", Method: "PUT", Path: custom, Token: creator, Body: map[string]any{"title": "x"}, Status: 400, Contains: names("advancedCustomization")},
		{Name: "unknown setting", Method: "PUT", Path: custom, Token: creator, Body: mergeMaps(settings, map[string]any{"colour": "red"}), Status: 400, Contains: names("colour")},
		{Name: "not an object", Method: "PUT", Path: custom, Token: creator, Body: mergeMaps(settings, map[string]any{"styling": "red"}), Status: 400, Contains: names("styling")},
		{Name: "color against 0.130.0's pattern", Method: "PUT", Path: custom, Token: creator, Body: mergeMaps(settings, map[string]any{"styling": mergeMaps(settings["styling"].(map[string]any),
			map[string]any{"primaryColor": map[string]any{"light": "red", "dark": "#000"}})}), Status: 400, Contains: names("styling.primaryColor.light")},
		{Name: "nested unknown key", Method: "PUT", Path: custom, Token: creator, Body: mergeMaps(settings, map[string]any{"pdf": map[string]any{"enabled": true, "pages": 3}}), Status: 400, Contains: names("pdf.pages")},
		{Name: "get", Method: "GET", Path: custom, Token: reader, Status: 200, Contains: []string{`"title":"Handbook"`}},
		{Name: "another organization", Method: "GET", Path: custom, Token: c.OtherAdm.Token, Status: 404},
		{Name: "override", Method: "PATCH", Path: beta, Token: creator, Body: map[string]any{"title": "Beta", "styling": map[string]any{"primaryColor": map[string]any{"light": "#ff0000", "dark": "#ff0000"}}}, Status: 200,
			Contains: []string{`"title":"Beta"`, `"theme":"muted"`, `"light":"#ff0000"`}},
		{Name: "override, theme outside its enum", Method: "PATCH", Path: beta, Token: creator, Body: map[string]any{"styling": map[string]any{"theme": "neon"}}, Status: 400, Contains: names("styling.theme")},
		{Name: "override, unknown setting", Method: "PATCH", Path: beta, Token: creator, Body: map[string]any{"ai": map[string]any{}}, Status: 400, Contains: names("ai")},
		{Name: "override, unknown site space", Method: "PATCH", Path: c.path + "/site-spaces/nope/customization", Token: creator, Body: map[string]any{"title": "x"}, Status: 404},
		{Name: "site space", Method: "GET", Path: beta, Token: reader, Status: 200, Contains: []string{`"title":"Beta"`}},
		{Name: "other site space", Method: "GET", Path: c.path + "/site-spaces/" + c.guideSS + "/customization", Token: reader, Status: 200, Contains: []string{`"title":"Handbook"`}},
	})
	// Published reads answer the settings and the overrides.
	var pub struct {
		Customizations struct {
			Site       map[string]any            `json:"site"`
			SiteSpaces map[string]map[string]any `json:"siteSpaces"`
		} `json:"customizations"`
	}
	c.Must(200, "GET", c.path+"/published", reader, nil).Decode(t, &pub)
	if pub.Customizations.Site["title"] != "Handbook" || len(pub.Customizations.SiteSpaces) != 1 || pub.Customizations.SiteSpaces[c.betaSS]["title"] != "Beta" {
		t.Errorf("published customizations %+v", pub.Customizations)
	}
	c.Must(200, "PATCH", beta, creator, map[string]any{"title": nil})
	if got := c.Must(200, "GET", beta, reader, nil).JSON(); got["title"] != "Handbook" {
		t.Errorf("override removed: %v", got["title"])
	}
	// A null inside a group resets that override: the read answers the
	// site's value, never the null.
	got := c.Must(200, "PATCH", beta, creator, map[string]any{"styling": map[string]any{"primaryColor": nil}}).JSON()
	if pc, _ := got["styling"].(map[string]any)["primaryColor"].(map[string]any); pc == nil || pc["light"] != "#346DDB" {
		t.Errorf("primaryColor override reset: %v", got["styling"])
	}
	c.Must(205, "DELETE", beta, creator, nil)
	c.Must(204, "DELETE", beta, creator, nil)
}

func mergeMaps(a, b map[string]any) map[string]any {
	out := maps.Clone(a)
	maps.Copy(out, b)
	return out
}

func TestComputedContent(t *testing.T) {
	c := newReaderSite(t, map[string]any{"title": "Docs"})
	reader := c.ByRole["read"].Token
	createSpec(t, c.Env, "pets", map[string]any{"text": petsYAML})
	processAll(t, c.Env)
	source := func(props map[string]any) map[string]any {
		return map[string]any{"type": "builtin:openapi", "dependencies": map[string]any{"spec": map[string]any{"ref": map[string]any{"kind": "openapi", "spec": "pets"}}}, "props": props}
	}
	doc := "/v1/spaces/" + c.guide + "/content/computed/document"
	rev := "/v1/spaces/" + c.guide + "/content/computed/revision"
	c.Run(t, []apitest.Scenario{
		{Name: "document", Method: "POST", Path: doc, Token: reader, Body: map[string]any{"seed": "a", "source": source(map[string]any{"doc": "models"})}, Status: 200,
			Contains: []string{`"object":"document"`, `"nodes":[{`}},
		{Name: "revision", Method: "POST", Path: rev, Token: reader, Body: map[string]any{"seed": "a", "source": source(map[string]any{"models": false})}, Status: 200,
			Contains: []string{`"pages":[{`, `"title":"pets"`, `"markdown":"`, `"files":[]`}},
		{Name: "no seed", Method: "POST", Path: rev, Token: reader, Body: map[string]any{"source": source(map[string]any{"models": false})}, Status: 400, Contains: names("seed")},
		{Name: "bad doc", Method: "POST", Path: doc, Token: reader, Body: map[string]any{"seed": "a", "source": source(map[string]any{"doc": "all"})}, Status: 400, Contains: names("source.props.doc")},
		{Name: "bad type", Method: "POST", Path: rev, Token: reader, Body: map[string]any{"seed": "a", "source": map[string]any{"type": "integration"}}, Status: 400, Contains: names("source.type")},
		{Name: "another organization", Method: "POST", Path: rev, Token: c.OtherAdm.Token, Body: map[string]any{"seed": "a", "source": source(map[string]any{"models": false})}, Status: 404},
		{Name: "no token", Method: "POST", Path: rev, Body: map[string]any{"seed": "a", "source": source(map[string]any{"models": false})}, Status: 401},
	})
}

func TestSemanticChanges(t *testing.T) {
	c := newReaderSite(t, map[string]any{"title": "Docs"})
	admin, reader := c.Admin.Token, c.ByRole["read"].Token
	faq := c.Must(200, "GET", "/v1/spaces/"+c.guide+"/content/path/faq", admin, nil).JSON()["id"].(string)
	gqlData(t, c.Env, admin, `mutation($t: ContentTarget!, $p: ID!) { updatePage(target: $t, pageId: $p, input: {title: "Questions"}) { revision } }`,
		map[string]any{"t": map[string]any{"space": c.guide}, "p": faq})
	rev := c.Must(200, "GET", "/v1/spaces/"+c.guide+"/content", admin, nil).JSON()["id"].(string)
	r := c.Must(200, "GET", "/v1/spaces/"+c.guide+"/revisions/"+rev+"/changes", reader, nil)
	if got := string(r.Body); !strings.Contains(got, `"type":"page_edited"`) || !strings.Contains(got, `"title":{"after":"Questions","before":"FAQ"}`) {
		t.Errorf("revision changes: %s", got)
	}
	cr := c.Must(201, "POST", "/v1/spaces/"+c.guide+"/change-requests", admin, map[string]any{"subject": "Logo"}).JSON()["id"].(string)
	gqlData(t, c.Env, admin, `mutation($t: ContentTarget!) { uploadFile(target: $t, input: {name: "a.txt", data: "aGVsbG8="}) { revision } }`,
		map[string]any{"t": map[string]any{"space": c.guide, "changeRequest": cr}})
	c.Run(t, []apitest.Scenario{
		{Name: "change request", Method: "GET", Path: "/v1/spaces/" + c.guide + "/change-requests/" + cr + "/changes", Token: reader, Status: 200,
			Contains: []string{`"type":"file_created"`, `"name":"a.txt"`, `"downloadURL":"`}},
		{Name: "limit", Method: "GET", Path: "/v1/spaces/" + c.guide + "/revisions/" + rev + "/changes?limit=0", Token: reader, Status: 400, Contains: names("limit")},
		{Name: "unknown revision", Method: "GET", Path: "/v1/spaces/" + c.guide + "/revisions/nope/changes", Token: reader, Status: 404},
		{Name: "unknown change request", Method: "GET", Path: "/v1/spaces/" + c.guide + "/change-requests/nope/changes", Token: reader, Status: 404},
		{Name: "another organization", Method: "GET", Path: "/v1/spaces/" + c.guide + "/revisions/" + rev + "/changes", Token: c.OtherAdm.Token, Status: 404},
		{Name: "no token", Method: "GET", Path: "/v1/spaces/" + c.guide + "/revisions/" + rev + "/changes", Status: 401},
	})
}
