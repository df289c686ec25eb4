package site_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
)

// shareKey creates a share link of the site and returns its key.
func (f *readerFixture) shareKey(t testing.TB, body map[string]any) string {
	t.Helper()
	link := f.Must(201, "POST", f.site+"/share-links", f.Admin.Token, body).JSON()
	shared := link["urls"].(map[string]any)["published"].(string)
	return shared[strings.Index(shared, "share=")+len("share="):]
}

func TestShareLinkSite(t *testing.T) {
	f := newReaderFixture(t, "share-link")
	key := f.shareKey(t, map[string]any{"name": "Partner"})
	c := f.client(t)
	if r := get(t, c, f.base+"/install"); r.status != 404 {
		t.Errorf("without the key: %d", r.status)
	}
	r := get(t, c, f.base+"/install?share="+url.QueryEscape(key))
	if r.status != 303 || r.header.Get("Location") != f.basePath+"/install" {
		t.Fatalf("with the key: %d %v", r.status, r.header)
	}
	var cookie *http.Cookie
	for _, ck := range (&http.Response{Header: r.header}).Cookies() {
		if ck.Name == "docsapi_share" {
			cookie = ck
		}
	}
	if cookie == nil || !cookie.HttpOnly || cookie.SameSite != http.SameSiteLaxMode || cookie.Path != f.basePath+"/" {
		t.Fatalf("share cookie %+v", cookie)
	}
	r = get(t, c, f.base+"/install")
	if r.status != 200 || !strings.Contains(r.body, "<h1>Install</h1>") || r.header.Get("Cache-Control") != "private, no-cache" ||
		!strings.Contains(r.body, `name="robots" content="noindex"`) {
		t.Errorf("with the cookie: %d %q", r.status, r.header.Get("Cache-Control"))
	}
	if r := get(t, c, f.base+"/robots.txt"); !strings.Contains(r.body, "Disallow: /") {
		t.Errorf("robots of a share-link site: %s", r.body)
	}
	// A revoked link stops opening the site, cached pages included.
	links := f.Must(200, "GET", f.site+"/share-links", f.Admin.Token, nil).JSON()["items"].([]any)
	f.Must(200, "PATCH", f.site+"/share-links/"+links[0].(map[string]any)["id"].(string), f.Admin.Token, map[string]any{"active": false})
	if r := get(t, c, f.base+"/install"); r.status != 404 {
		t.Errorf("revoked link: %d", r.status)
	}
}

func TestPasswordShareLink(t *testing.T) {
	f := newReaderFixture(t, "share-link")
	key := f.shareKey(t, map[string]any{"name": "Partner", "password": "open sesame"})
	c := f.client(t)
	r := get(t, c, f.base+"/install?share="+url.QueryEscape(key))
	if r.status != 401 || !strings.Contains(r.body, `name="password"`) {
		t.Fatalf("protected link: %d %s", r.status, r.body)
	}
	post := func(password string) *http.Response {
		res, err := c.PostForm(f.base+"/install", url.Values{"share": {key}, "password": {password}})
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		return res
	}
	if res := post("wrong password"); res.StatusCode != 401 {
		t.Errorf("wrong password: %d", res.StatusCode)
	}
	if res := post("open sesame"); res.StatusCode != 303 || res.Header.Get("Location") != f.basePath+"/install" {
		t.Fatalf("right password: %d %v", res.StatusCode, res.Header)
	}
	r = get(t, c, f.base+"/install")
	if r.status != 200 || !strings.Contains(r.body, "<h1>Install</h1>") {
		t.Errorf("after the password: %d", r.status)
	}
	if r := get(t, c, f.base+"/install/linux"); r.status != 200 {
		t.Errorf("another page after the password: %d", r.status)
	}
	// Another browser with the key but not the password sees the form.
	if r := get(t, f.client(t), f.base+"/install?share="+url.QueryEscape(key)); r.status != 401 {
		t.Errorf("key without password: %d", r.status)
	}
}

var adaptiveSchema = map[string]any{
	"$schema": "http://json-schema.org/draft-07/schema#",
	"type":    "object",
	"properties": map[string]any{
		"unsigned": map[string]any{"type": "object", "description": "Unsigned claims of the site visitor.", "additionalProperties": false,
			"properties": map[string]any{"isBetaUser": map[string]any{"type": "boolean", "description": "Opted into the beta"}}},
		"beta": map[string]any{"type": "boolean", "description": "Beta tester"},
	},
	"additionalProperties": false,
}

func (f *readerFixture) visitorSecret(t testing.TB) string {
	d := gql(t, f.Env, `query($o: ID!, $s: ID!) { siteVisitorAuth(organizationId: $o, siteId: $s) { secret } }`, map[string]any{"o": f.Org, "s": f.siteID})
	return d["siteVisitorAuth"].(map[string]any)["secret"].(string)
}

// adaptive makes the site visitor-auth with the Beta variant shown only to
// visitors whose token says beta.
func (f *readerFixture) adaptive(t testing.TB) {
	f.Must(200, "PUT", f.site+"/adaptive-schema", f.Admin.Token, map[string]any{"jsonSchema": adaptiveSchema})
	f.Must(200, "PATCH", f.site, f.Admin.Token, map[string]any{"adaptiveContent": map[string]any{"enabled": true}})
	f.Must(200, "PATCH", f.site+"/site-spaces/"+f.betaSS, f.Admin.Token, map[string]any{"condition": "visitor.claims.beta === true"})
}

func TestVisitorTokenAndAdaptiveContent(t *testing.T) {
	f := newReaderFixture(t, "visitor-auth")
	f.adaptive(t)
	secret := f.visitorSecret(t)
	if r := get(t, f.client(t), f.base+"/install"); r.status != 403 || !strings.Contains(r.body, "Sign-in needed") {
		t.Errorf("without a token: %d", r.status)
	}
	exp := f.Clock.Now().Add(time.Hour).Unix()
	open := func(claims jwt.MapClaims) *http.Client {
		c := f.client(t)
		claims["exp"] = exp
		r := get(t, c, f.base+"/?jwt_token="+visitorToken(t, secret, claims))
		if r.status != 303 || strings.Contains(r.header.Get("Location"), "jwt_token") {
			t.Fatalf("token in the URL: %d %v", r.status, r.header)
		}
		return c
	}
	plain := open(jwt.MapClaims{})
	if r := get(t, plain, f.base+"/install"); r.status != 200 {
		t.Errorf("visitor: %d", r.status)
	}
	// The Beta variant is hidden from them: its path is no page of theirs.
	if r := get(t, plain, f.base+"/"+f.betaPath); r.status != 404 {
		t.Errorf("hidden variant: %d", r.status)
	}
	if r := get(t, plain, f.base+"/install"); strings.Contains(r.body, "Guide Beta") {
		t.Errorf("hidden variant in the switcher")
	}
	beta := open(jwt.MapClaims{"beta": true})
	if r := get(t, beta, f.base+"/"+f.betaPath); r.status != 200 || !strings.Contains(r.body, "Beta overview") {
		t.Errorf("shown variant: %d", r.status)
	}
	if r := get(t, f.client(t), f.base+"/?jwt_token="+visitorToken(t, "wrong key", jwt.MapClaims{"exp": exp})); r.status != 403 {
		t.Errorf("a token of the wrong key: %d", r.status)
	}
}

// Another organization's site, at its own published URL, never shows
// through this one's: each organization's URLs resolve to its own content.
func TestOtherOrganization(t *testing.T) {
	f := newReaderFixture(t, "public")
	other, _ := f.NewOrg("Other", "admin@other.test")
	c := f.client(t)
	if r := get(t, c, strings.Replace(f.base, f.Org, other, 1)+"/install"); r.status != 404 {
		t.Errorf("the site under another organization's path: %d", r.status)
	}
	if r := get(t, c, f.base+"/install"); r.status != 200 {
		t.Errorf("own path: %d", r.status)
	}
}
