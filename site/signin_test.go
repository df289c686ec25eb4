package site_test

import (
	"io"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
)

func TestMemberAppView(t *testing.T) {
	f := newReaderFixture(t, "public")
	c := f.client(t)
	app := f.HTTP.URL + "/app/spaces/" + f.guide + "/install"
	r := get(t, c, app)
	if r.status != 303 || !strings.HasPrefix(r.header.Get("Location"), "/app/signin?next=") {
		t.Fatalf("signed out: %d %v", r.status, r.header)
	}
	form := get(t, c, f.HTTP.URL+r.header.Get("Location"))
	m := regexp.MustCompile(`name="csrf" value="([0-9a-f]+)"`).FindStringSubmatch(form.body)
	if form.status != 200 || m == nil {
		t.Fatalf("sign-in form: %d %s", form.status, form.body)
	}
	post := func(v url.Values) *http.Response {
		res, err := c.PostForm(f.HTTP.URL+"/app/signin", v)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, res.Body)
		res.Body.Close()
		return res
	}
	csrf := func() string {
		form := get(t, c, f.HTTP.URL+"/app/signin")
		return regexp.MustCompile(`name="csrf" value="([0-9a-f]+)"`).FindStringSubmatch(form.body)[1]
	}
	next := "/app/spaces/" + f.guide + "/install"
	if res := post(url.Values{"csrf": {"forged"}, "token": {f.Admin.Token}, "next": {next}}); res.StatusCode != 403 {
		t.Errorf("forged CSRF value: %d", res.StatusCode)
	}
	if res := post(url.Values{"csrf": {csrf()}, "token": {"dapi_wrong"}, "next": {next}}); res.StatusCode != 401 {
		t.Errorf("wrong token: %d", res.StatusCode)
	}
	// A token of its own, to revoke below.
	tok := f.Must(201, "POST", "/v1/user/tokens", f.Admin.Token, map[string]any{"label": "browser"}).JSON()
	secret, _ := tok["token"].(string)
	res := post(url.Values{"csrf": {csrf()}, "token": {secret}, "next": {next}})
	if res.StatusCode != 303 || res.Header.Get("Location") != next || strings.Contains(res.Header.Get("Location"), "dapi_") {
		t.Fatalf("sign in: %d %v", res.StatusCode, res.Header)
	}
	var session *http.Cookie
	for _, ck := range res.Cookies() {
		if ck.Name == "docsapi_member" {
			session = ck
		}
	}
	if session == nil || !session.HttpOnly || session.SameSite != http.SameSiteLaxMode || session.Path != "/app/" {
		t.Fatalf("session cookie %+v", session)
	}
	r = get(t, c, app)
	if r.status != 200 || !strings.Contains(r.body, "<h1>Install</h1>") || r.header.Get("Cache-Control") != "private, no-store" {
		t.Errorf("app view: %d %s", r.status, r.body)
	}
	// A space of another organization is not the member's.
	otherOrg, otherAdmin := f.NewOrg("Other", "admin@other.test")
	otherSpace := f.Must(201, "POST", "/v1/orgs/"+otherOrg+"/spaces", otherAdmin.Token, map[string]any{"title": "Secret"}).JSON()["id"].(string)
	if r := get(t, c, f.HTTP.URL+"/app/spaces/"+otherSpace); r.status != 404 {
		t.Errorf("another organization's space: %d", r.status)
	}
	// Revoking the token ends the session.
	f.Must(205, "DELETE", "/v1/user/tokens/"+tok["id"].(string), f.Admin.Token, nil)
	if r := get(t, c, app); r.status != 303 {
		t.Errorf("revoked token: %d", r.status)
	}
	// An open redirect is refused.
	if res := post(url.Values{"csrf": {csrf()}, "token": {f.Admin.Token}, "next": {"https://evil.example/"}}); res.Header.Get("Location") != "/app/signin" {
		t.Errorf("open redirect: %v", res.Header.Get("Location"))
	}
}
