package site_test

import (
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"docsapi/internal/samltest"
)

// ssoBrowser is one browser of the SAML sign-in tests: its own cookies,
// redirects shown rather than followed.
type ssoBrowser struct {
	t    *testing.T
	f    *readerFixture
	http *http.Client
}

func newSSOBrowser(t *testing.T, f *readerFixture) *ssoBrowser {
	jar, _ := cookiejar.New(nil)
	return &ssoBrowser{t: t, f: f, http: &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}}
}

func (b *ssoBrowser) do(method, u string, form url.Values) page {
	b.t.Helper()
	if strings.HasPrefix(u, "/") {
		u = b.f.HTTP.URL + u
	}
	var body io.Reader
	if form != nil {
		body = strings.NewReader(form.Encode())
	}
	req, _ := http.NewRequest(method, u, body)
	if form != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	req.Header.Set("Accept", "text/html")
	res, err := b.http.Do(req)
	if err != nil {
		b.t.Fatal(err)
	}
	defer res.Body.Close()
	raw, _ := io.ReadAll(res.Body)
	return page{res.StatusCode, res.Header, string(raw)}
}

// member is the browser's app-view session token, "" when signed out.
func (b *ssoBrowser) member() string {
	u, _ := url.Parse(b.f.HTTP.URL + "/app/spaces/x")
	for _, c := range b.http.Jar.Cookies(u) {
		if c.Name == "docsapi_member" {
			return c.Value
		}
	}
	return ""
}

// waitingSession is the token of the session cookie the ACS set for the
// finish, "" when none.
func (b *ssoBrowser) waitingSession() string {
	u, _ := url.Parse(b.f.HTTP.URL + "/app/signin/sso")
	for _, c := range b.http.Jar.Cookies(u) {
		if c.Name == "docsapi_sso_session" {
			if parts := strings.Split(c.Value, "."); len(parts) == 3 {
				return parts[1]
			}
		}
	}
	return ""
}

// start follows the sign-in page's SSO link for next to the identity
// provider's URL.
func (b *ssoBrowser) start(providerID, next string) *url.URL {
	b.t.Helper()
	r := b.do("GET", "/app/signin/sso/"+providerID+"?next="+url.QueryEscape(next), nil)
	if r.status != http.StatusFound || !strings.HasPrefix(r.header.Get("Location"), "https://idp.test/saml/sso?") {
		b.t.Fatalf("start: %d %v %s", r.status, r.header, r.body)
	}
	to, _ := url.Parse(r.header.Get("Location"))
	return to
}

// TestMemberAppViewSAML: a member signs in to the app view through the
// organization's identity provider and gets the token form's session; the
// answer reaches only the browser that started, only with the RelayState
// this service signed, only in time, and only to an /app/ path.
func TestMemberAppViewSAML(t *testing.T) {
	f := newReaderFixture(t, "public")
	ip := samltest.New(t, "https://idp.test/saml")
	provider := f.Must(201, "POST", "/v1/orgs/"+f.Org+"/saml", f.Admin.Token, map[string]any{"label": "Okta",
		"entityID": ip.EntityID(), "ssoURL": ip.SSOURL(), "certificate": ip.CertPEM, "defaultRole": "read"}).JSON()
	pid := provider["id"].(string)
	acsURL := provider["service"].(map[string]any)["acsURL"].(string)
	next := "/app/spaces/" + f.guide + "/install"

	t.Run("the sign-in page offers the organization's provider", func(t *testing.T) {
		b := newSSOBrowser(t, f)
		r := b.do("GET", "/app/signin?next="+url.QueryEscape(next), nil)
		want := `href="/app/signin/sso/` + pid + `?next=` + url.QueryEscape(next) + `"`
		if r.status != 200 || !strings.Contains(r.body, "Sign in with SSO (Okta)") || !strings.Contains(strings.ReplaceAll(r.body, "&#43;", "+"), want) ||
			!strings.Contains(r.body, `name="token"`) {
			t.Fatalf("%d: want %s in %s", r.status, want, r.body)
		}
		// Another organization's space, a space of this one published in
		// no site (its id says nothing public about the organization), or
		// none: no provider offered.
		otherOrg, otherAdmin := f.NewOrg("Other", "admin@other.test")
		other := f.Must(201, "POST", "/v1/orgs/"+otherOrg+"/spaces", otherAdmin.Token, map[string]any{"title": "Theirs"}).JSON()["id"].(string)
		internal := newSpace(t, f.Env, "Internal")
		for _, n := range []string{"/app/spaces/" + other + "/x", "/app/spaces/nope/x", "", "/app/spaces/" + internal + "/x"} {
			if r := b.do("GET", "/app/signin?next="+url.QueryEscape(n), nil); r.status != 200 || strings.Contains(r.body, "Sign in with SSO") {
				t.Errorf("next %q: %d offers SSO", n, r.status)
			}
		}
	})

	t.Run("signing in through the identity provider opens the app view, until the session is revoked", func(t *testing.T) {
		b := newSSOBrowser(t, f)
		acs, resp, relay := ip.Answer(b.start(pid, next), "jane@example.com", nil)
		if acs != acsURL || !strings.HasPrefix(relay, "app.") || len(relay) > 80 {
			t.Fatalf("posted to %s with RelayState %q", acs, relay)
		}
		r := b.do("POST", acs, url.Values{"SAMLResponse": {resp}, "RelayState": {relay}})
		if r.status != http.StatusSeeOther || r.header.Get("Location") != "/app/signin/sso" || strings.Contains(r.header.Get("Location"), "dapi_") || strings.Contains(r.body, "dapi_") {
			t.Fatalf("ACS: %d %v %s", r.status, r.header, r.body)
		}
		r = b.do("GET", "/app/signin/sso", nil)
		if r.status != http.StatusSeeOther || r.header.Get("Location") != next {
			t.Fatalf("finish: %d %v %s", r.status, r.header, r.body)
		}
		var session *http.Cookie
		for _, c := range (&http.Response{Header: r.header}).Cookies() {
			if c.Name == "docsapi_member" {
				session = c
			}
		}
		if session == nil || !session.HttpOnly || session.SameSite != http.SameSiteLaxMode || session.Path != "/app/" ||
			session.Expires.After(time.Now().Add(13*time.Hour)) || session.Expires.Before(time.Now().Add(11*time.Hour)) {
			t.Fatalf("session cookie %+v", session)
		}
		if r := b.do("GET", next, nil); r.status != 200 || !strings.Contains(r.body, "<h1>Install</h1>") {
			t.Fatalf("app view: %d %s", r.status, r.body)
		}
		// The session is the SAML login's token: revoking it signs out.
		token := b.member()
		list := f.Must(200, "GET", "/v1/user/tokens", token, nil).JSON()["items"].([]any)
		if len(list) != 1 || list[0].(map[string]any)["label"] != "SAML sign-in" {
			t.Fatalf("tokens %v", list)
		}
		f.Must(205, "DELETE", "/v1/user/tokens/"+list[0].(map[string]any)["id"].(string), token, nil)
		if r := b.do("GET", next, nil); r.status != http.StatusSeeOther || !strings.HasPrefix(r.header.Get("Location"), "/app/signin?next=") {
			t.Errorf("after revoking: %d %v", r.status, r.header)
		}
	})

	t.Run("an answer posted from another browser signs nobody in (login CSRF)", func(t *testing.T) {
		attacker, victim := newSSOBrowser(t, f), newSSOBrowser(t, f)
		acs, resp, relay := ip.Answer(attacker.start(pid, next), "mallory@example.com", nil)
		if r := victim.do("POST", acs, url.Values{"SAMLResponse": {resp}, "RelayState": {relay}}); r.status != http.StatusSeeOther {
			t.Fatalf("ACS: %d %s", r.status, r.body)
		}
		issued := victim.waitingSession()
		if issued == "" {
			t.Fatal("no session waits for the finish")
		}
		f.Must(200, "GET", "/v1/user", issued, nil) // valid until the finish is refused
		if r := victim.do("GET", "/app/signin/sso", nil); r.status != http.StatusForbidden || !strings.Contains(r.body, "did not start in this browser") {
			t.Errorf("finish in the victim's browser: %d %s", r.status, r.body)
		}
		if victim.member() != "" {
			t.Error("the victim's browser holds the attacker's session")
		}
		// The session issued for the refused attempt is revoked with it.
		f.Must(401, "GET", "/v1/user", issued, nil)
		// Nor does a RelayState of the attacker's start verify with the
		// victim's own binding: the victim's start gives a new binding.
		acs, resp, relay = ip.Answer(attacker.start(pid, next), "mallory@example.com", nil)
		victim.start(pid, next)
		if r := victim.do("POST", acs, url.Values{"SAMLResponse": {resp}, "RelayState": {relay}}); r.status != http.StatusSeeOther {
			t.Fatalf("ACS: %d %s", r.status, r.body)
		}
		issued = victim.waitingSession()
		if r := victim.do("GET", "/app/signin/sso", nil); r.status != http.StatusForbidden || victim.member() != "" {
			t.Errorf("with a start of its own: %d, member %q", r.status, victim.member())
		}
		f.Must(401, "GET", "/v1/user", issued, nil)
	})

	t.Run("a forged RelayState is refused before the assertion is used", func(t *testing.T) {
		b := newSSOBrowser(t, f)
		acs, resp, relay := ip.Answer(b.start(pid, next), "forged-relay@example.com", nil)
		mac := relay[strings.LastIndex(relay, ".")+1:]
		flip := "A"
		if mac[0] == 'A' {
			flip = "B"
		}
		for _, bad := range []string{relay[:strings.LastIndex(relay, ".")+1] + flip + mac[1:], "app.x.y", "app." + strings.Repeat("A", 100)} {
			if r := b.do("POST", acs, url.Values{"SAMLResponse": {resp}, "RelayState": {bad}}); r.status != http.StatusUnauthorized || !strings.Contains(r.body, "RelayState refused") ||
				!strings.Contains(r.header.Get("Content-Security-Policy"), "style-src 'self'") {
				t.Errorf("RelayState %q: %d %s", bad, r.status, r.body)
			}
		}
		if r := b.do("POST", acs, url.Values{"SAMLResponse": {resp}, "RelayState": {relay}}); r.status != http.StatusSeeOther {
			t.Errorf("the genuine answer after the refusals: %d %s", r.status, r.body)
		}
	})

	t.Run("a forged assertion is refused", func(t *testing.T) {
		b := newSSOBrowser(t, f)
		impostor := samltest.New(t, "https://idp.test/saml") // same name, another key
		acs, resp, relay := impostor.Answer(b.start(pid, next), "admin@acme.test", nil)
		r := b.do("POST", acs, url.Values{"SAMLResponse": {resp}, "RelayState": {relay}})
		if r.status != http.StatusUnauthorized || b.member() != "" {
			t.Errorf("%d %s", r.status, r.body)
		}
		if r := b.do("GET", "/app/signin/sso", nil); r.status != http.StatusForbidden || b.member() != "" {
			t.Errorf("finish after a refusal: %d", r.status)
		}
	})

	t.Run("an expired sign-in is refused", func(t *testing.T) {
		b := newSSOBrowser(t, f)
		acs, resp, relay := ip.Answer(b.start(pid, next), "late@example.com", nil)
		f.Clock.Advance(11 * time.Minute)
		defer f.Clock.Advance(-11 * time.Minute)
		if r := b.do("POST", acs, url.Values{"SAMLResponse": {resp}, "RelayState": {relay}}); r.status != http.StatusUnauthorized || !strings.Contains(r.body, "expired") {
			t.Errorf("%d %s", r.status, r.body)
		}
	})

	t.Run("the return is to an /app/ path only (no open redirect)", func(t *testing.T) {
		for _, n := range []string{"https://evil.example/", "//evil.example/app/", "/app//evil.example", "/app/\\evil.example", "/elsewhere"} {
			b := newSSOBrowser(t, f)
			acs, resp, relay := ip.Answer(b.start(pid, n), "jane@example.com", nil)
			b.do("POST", acs, url.Values{"SAMLResponse": {resp}, "RelayState": {relay}})
			if r := b.do("GET", "/app/signin/sso", nil); r.status != http.StatusSeeOther || r.header.Get("Location") != "/app/signin" {
				t.Errorf("next %q: %d to %q", n, r.status, r.header.Get("Location"))
			}
		}
	})

	t.Run("an unknown provider", func(t *testing.T) {
		b := newSSOBrowser(t, f)
		if r := b.do("GET", "/app/signin/sso/nope?next="+url.QueryEscape(next), nil); r.status != http.StatusNotFound || !regexp.MustCompile(`SAML provider`).MatchString(r.body) {
			t.Errorf("%d %s", r.status, r.body)
		}
	})
}

// FuzzAppSSOFinish sends any pair of sign-in cookies and any next to the
// SSO endpoints of the app view: never a server error, never a session.
func FuzzAppSSOFinish(f *testing.F) {
	fx := newReaderFixture(f, "public")
	f.Add(strings.Repeat("ab", 16)+".L2FwcC9zcGFjZXMveA", strings.Repeat("ab", 16)+".dapi_x.20260101T000000Z", "/app/spaces/x")
	f.Add("", "", "https://evil.example/")
	f.Add(".", "..", "//x")
	f.Fuzz(func(t *testing.T, state, session, next string) {
		if len(state)+len(session)+len(next) > 16<<10 {
			return
		}
		for _, u := range []string{"/app/signin/sso", "/app/signin/sso/nope?next=" + url.QueryEscape(next)} {
			req, _ := http.NewRequest("GET", fx.HTTP.URL+u, nil)
			req.AddCookie(&http.Cookie{Name: "docsapi_sso_state", Value: state})
			req.AddCookie(&http.Cookie{Name: "docsapi_sso_session", Value: session})
			res, err := http.DefaultTransport.RoundTrip(req)
			if err != nil {
				continue // a cookie value the client refuses to send
			}
			io.Copy(io.Discard, res.Body)
			res.Body.Close()
			if res.StatusCode >= 500 {
				t.Fatalf("GET %s: %d", u, res.StatusCode)
			}
			for _, c := range res.Cookies() {
				if c.Name == "docsapi_member" && c.Value != "" {
					t.Fatalf("GET %s with forged cookies signed in", u)
				}
			}
		}
	})
}
