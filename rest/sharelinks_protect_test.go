package rest_test

import (
	"encoding/json"
	"net/url"
	"strings"
	"testing"
	"time"

	"docsapi/apitest"
	"docsapi/graph"
)

// shareKeyOf is the key in a share link's urls.published.
func shareKeyOf(t testing.TB, link map[string]any) string {
	t.Helper()
	u, err := url.Parse(link["urls"].(map[string]any)["published"].(string))
	if err != nil {
		t.Fatal(err)
	}
	return u.Query().Get("share")
}

// sharedReads are the reads that take a share key, for one key.
func sharedReads(site, space, key string) map[string]string {
	k := "?shareKey=" + url.QueryEscape(key)
	return map[string]string{
		"published":   site + "/published" + k,
		"space":       "/v1/spaces/" + space + k,
		"site spaces": site + "/site-spaces" + k,
		"sections":    site + "/sections" + k,
	}
}

func TestShareLinkExpiryAndPassword(t *testing.T) {
	c := newSiteEnv(t)
	admin := c.Admin.Token
	stranger := c.OtherAdm.Token // authenticated, not a member
	a := c.space(admin, map[string]any{"title": "Handbook"})
	site := c.site(map[string]any{"title": "Partners", "visibility": "share-link", "spaces": []string{a}})
	c.Must(200, "POST", site+"/publish", admin, nil)
	links := site + "/share-links"
	now := c.Clock.Now()
	soon := now.Add(time.Hour).Format(time.RFC3339)
	pw := []string{graph.ShareLinkPasswordHeader, "correct horse"}
	wrong := []string{graph.ShareLinkPasswordHeader, "wrong horse"}

	// Bad input is a 400 naming the field, and nothing is stored.
	c.Run(t, []apitest.Scenario{
		{Name: "expiresAt in the past", Method: "POST", Path: links, Token: admin, Body: map[string]any{"name": "x", "expiresAt": now.Add(-time.Minute).Format(time.RFC3339)}, Status: 400, Contains: names("expiresAt")},
		{Name: "expiresAt not a date", Method: "POST", Path: links, Token: admin, Body: map[string]any{"name": "x", "expiresAt": "tomorrow"}, Status: 400, Contains: names("expiresAt")},
		{Name: "expiresAt not a string", Method: "POST", Path: links, Token: admin, Body: map[string]any{"name": "x", "expiresAt": 5}, Status: 400, Contains: []string{"expiresAt"}},
		{Name: "password too short", Method: "POST", Path: links, Token: admin, Body: map[string]any{"name": "x", "password": "short"}, Status: 400, Contains: names("password")},
		{Name: "password too long", Method: "POST", Path: links, Token: admin, Body: map[string]any{"name": "x", "password": strings.Repeat("p", 73)}, Status: 400, Contains: names("password")},
		{Name: "password with a control character", Method: "POST", Path: links, Token: admin, Body: map[string]any{"name": "x", "password": "line\nbreak!"}, Status: 400, Contains: names("password")},
		{Name: "password beyond ASCII", Method: "POST", Path: links, Token: admin, Body: map[string]any{"name": "x", "password": "mot de passé"}, Status: 400, Contains: names("password")},
		{Name: "password ending with a space", Method: "POST", Path: links, Token: admin, Body: map[string]any{"name": "x", "password": "correct horse "}, Status: 400, Contains: names("password")},
		{Name: "nothing was stored", Method: "GET", Path: links, Token: admin, Status: 200, Contains: []string{`"count":0`}},
		{Name: "a creator cannot protect links", Method: "POST", Path: links, Token: c.ByRole["create"].Token, Body: map[string]any{"name": "x", "password": "correct horse"}, Status: 403},
		{Name: "another organization's admin", Method: "POST", Path: links, Token: stranger, Body: map[string]any{"name": "x", "password": "correct horse"}, Status: 404},
	})

	// Without either field a link answers exactly as before.
	plain := c.Must(201, "POST", links, admin, map[string]any{"name": "Plain"}).JSON()
	apitest.Keys(t, plain, "object", "id", "createdAt", "name", "active", "urls")

	created := c.Must(201, "POST", links, admin, map[string]any{"name": "Protected", "expiresAt": soon, "password": "correct horse"})
	link := created.JSON()
	apitest.Keys(t, link, "object", "id", "createdAt", "name", "active", "urls", "expiresAt", "passwordProtected")
	if link["passwordProtected"] != true || link["expiresAt"] != now.Add(time.Hour).UTC().Truncate(time.Second).Format("2006-01-02T15:04:05.000Z") {
		t.Fatalf("created %s", created.Body)
	}
	key := shareKeyOf(t, link)
	linkPath := links + "/" + link["id"].(string)
	if list := c.Must(200, "GET", links, admin, nil); strings.Contains(string(list.Body), "$2a$") || strings.Contains(string(list.Body), "correct horse") {
		t.Fatalf("the password or its hash is shown: %s", list.Body)
	}

	// Every read that takes the key wants the password.
	for what, path := range sharedReads(site, a, key) {
		t.Run(what, func(t *testing.T) {
			r := c.Do("GET", path, stranger, nil)
			if r.Status != 401 || !strings.Contains(string(r.Body), "needs a password") || !strings.Contains(r.Header.Get("WWW-Authenticate"), graph.ShareLinkPasswordHeader) {
				t.Fatalf("without the password: %d %s %v", r.Status, r.Body, r.Header)
			}
			if r := c.Do("GET", path, stranger, nil, wrong...); r.Status != 401 || !strings.Contains(string(r.Body), "wrong password") {
				t.Fatalf("with a wrong password: %d %s", r.Status, r.Body)
			}
			if r := c.Do("GET", path, stranger, nil, pw...); r.Status != 200 {
				t.Fatalf("with the password: %d %s", r.Status, r.Body)
			}
		})
	}
	// A member passing the key needs its password too.
	if r := c.Do("GET", site+"/site-spaces?shareKey="+url.QueryEscape(key), admin, nil); r.Status != 401 {
		t.Fatalf("a member without the password: %d %s", r.Status, r.Body)
	}
	if r := c.Do("GET", site+"/structure?shareKey="+url.QueryEscape(key), admin, nil, pw...); r.Status != 200 {
		t.Fatalf("the structure with key and password: %d %s", r.Status, r.Body)
	}

	// Wrong guesses are limited per link: 4 used above, 1 left, then 429
	// until the budget refills (12 s a guess), for every password this
	// process has not accepted before: a reader who already unlocked the
	// link is not locked out by someone else's guesses.
	published := site + "/published?shareKey=" + url.QueryEscape(key)
	c.Must(401, "GET", published, stranger, nil) // no password: not a guess
	if r := c.Do("GET", published, stranger, nil, wrong...); r.Status != 401 {
		t.Fatalf("fifth wrong guess: %d %s", r.Status, r.Body)
	}
	r := c.Do("GET", published, stranger, nil, wrong...)
	if r.Status != 429 || r.Header.Get("Retry-After") == "" || !strings.Contains(string(r.Body), "too many wrong passwords") {
		t.Fatalf("sixth wrong guess: %d %s %v", r.Status, r.Body, r.Header)
	}
	if r := c.Do("GET", published, stranger, nil, pw...); r.Status != 200 {
		t.Fatalf("the right password, accepted before, while limited: %d %s", r.Status, r.Body)
	}
	if r := c.Do("GET", published, stranger, nil, graph.ShareLinkPasswordHeader, "another guess"); r.Status != 429 {
		t.Fatalf("another wrong guess while limited: %d %s", r.Status, r.Body)
	}
	// Another link is not limited by this one's guesses.
	other := c.Must(201, "POST", links, admin, map[string]any{"name": "Other", "password": "another pass"}).JSON()
	if r := c.Do("GET", site+"/published?shareKey="+url.QueryEscape(shareKeyOf(t, other)), stranger, nil, graph.ShareLinkPasswordHeader, "another pass"); r.Status != 200 {
		t.Fatalf("another link: %d %s", r.Status, r.Body)
	}
	c.Clock.Advance(13 * time.Second)
	if r := c.Do("GET", published, stranger, nil, pw...); r.Status != 200 {
		t.Fatalf("after the budget refilled: %d %s", r.Status, r.Body)
	}

	// GraphQL: the same fields, the header and the same refusals.
	siteID := site[strings.LastIndex(site, "/")+1:]
	q := `query($o: ID!, $s: ID!, $k: String) { publishedContentSite(organizationId: $o, siteId: $s, shareKey: $k) { object } }`
	vars := map[string]any{"o": c.Org, "s": siteID, "k": key}
	gqlRefusal(t, c.Env, stranger, q, vars, "UNAUTHENTICATED", 401)
	if data, errs := gqlWithHeaders(t, c.Env, stranger, q, vars, pw...); len(errs) > 0 || data["publishedContentSite"] == nil {
		t.Fatalf("graphql with the password: %v %v", data, errs)
	}
	gl := gqlData(t, c.Env, admin, `query($o: ID!, $s: ID!) { siteShareLinks(organizationId: $o, siteId: $s) { items { name expiresAt passwordProtected } } }`,
		map[string]any{"o": c.Org, "s": siteID})
	// The links share one createdAt on the test clock: compared by name.
	byName := map[string]any{}
	for _, it := range gl["siteShareLinks"].(map[string]any)["items"].([]any) {
		byName[it.(map[string]any)["name"].(string)] = it
	}
	sameJSON(t, "graphql share links", byName, map[string]any{
		"Plain":     map[string]any{"name": "Plain", "expiresAt": nil, "passwordProtected": false},
		"Protected": map[string]any{"name": "Protected", "expiresAt": link["expiresAt"], "passwordProtected": true},
		"Other":     map[string]any{"name": "Other", "expiresAt": nil, "passwordProtected": true},
	})

	// PATCH removes the password with null, sets and changes expiresAt.
	c.Run(t, []apitest.Scenario{
		{Name: "expiresAt in the past", Method: "PATCH", Path: linkPath, Token: admin, Body: map[string]any{"expiresAt": "2001-01-01"}, Status: 400, Contains: names("expiresAt")},
		{Name: "password too short", Method: "PATCH", Path: linkPath, Token: admin, Body: map[string]any{"password": "x"}, Status: 400, Contains: names("password")},
		{Name: "still protected", Method: "GET", Path: published, Token: stranger, Status: 401},
		{Name: "a creator cannot change it", Method: "PATCH", Path: linkPath, Token: c.ByRole["create"].Token, Body: map[string]any{"password": nil}, Status: 403},
		{Name: "another organization's admin", Method: "PATCH", Path: linkPath, Token: stranger, Body: map[string]any{"password": nil}, Status: 404},
		{Name: "remove the password", Method: "PATCH", Path: linkPath, Token: admin, Body: map[string]any{"password": nil}, Status: 200,
			Check: func(r apitest.Response) {
				apitest.Keys(t, r.JSON(), "object", "id", "createdAt", "name", "active", "urls", "expiresAt")
			}},
		{Name: "open without a password", Method: "GET", Path: published, Token: stranger, Status: 200},
		{Name: "change the password", Method: "PATCH", Path: linkPath, Token: admin, Body: map[string]any{"password": "battery staple"}, Status: 200, Contains: []string{`"passwordProtected":true`}},
		{Name: "the old password", Method: "GET", Path: published, Token: stranger, Headers: pw, Status: 401},
		{Name: "the new password", Method: "GET", Path: published, Token: stranger, Headers: []string{graph.ShareLinkPasswordHeader, "battery staple"}, Status: 200},
		{Name: "never expire", Method: "PATCH", Path: linkPath, Token: admin, Body: map[string]any{"expiresAt": nil, "password": nil}, Status: 200,
			Check: func(r apitest.Response) {
				apitest.Keys(t, r.JSON(), "object", "id", "createdAt", "name", "active", "urls")
			}},
	})
	c.Clock.Advance(2 * time.Hour)
	c.Must(200, "GET", published, stranger, nil)
	c.Must(200, "PATCH", linkPath, admin, map[string]any{"expiresAt": c.Clock.Now().Add(time.Minute).Format(time.RFC3339Nano)})
	c.Must(200, "GET", published, stranger, nil)

	// Expired: the same refusal as an unknown key, on every read.
	c.Clock.Advance(time.Minute)
	unknown := c.Do("GET", site+"/published?shareKey=nope", stranger, nil)
	for what, path := range sharedReads(site, a, key) {
		if r := c.Do("GET", path, stranger, nil, pw...); r.Status != 404 || !strings.Contains(string(r.Body), "unknown, deleted, deactivated or expired") {
			t.Errorf("%s with an expired key: %d %s", what, r.Status, r.Body)
		}
	}
	if r := c.Do("GET", published, stranger, nil); string(r.Body) != string(unknown.Body) {
		t.Errorf("expired %s, unknown %s", r.Body, unknown.Body)
	}
	gqlRefusal(t, c.Env, stranger, q, vars, "NOT_FOUND", 404)
	// A later expiresAt brings the key back.
	c.Must(200, "PATCH", linkPath, admin, map[string]any{"expiresAt": c.Clock.Now().Add(time.Hour).Format(time.RFC3339)})
	c.Must(200, "GET", published, stranger, nil)
}

func TestShareLinkProtectionGraphQL(t *testing.T) {
	c := newSiteEnv(t)
	admin := c.Admin.Token
	a := c.space(admin, map[string]any{"title": "Handbook"})
	site := c.site(map[string]any{"title": "Partners", "visibility": "share-link", "spaces": []string{a}})
	c.Must(200, "POST", site+"/publish", admin, nil)
	siteID := site[strings.LastIndex(site, "/")+1:]
	create := `mutation($o: ID!, $s: ID!, $in: CreateShareLinkInput!) { createSiteShareLink(organizationId: $o, siteId: $s, input: $in) { id expiresAt passwordProtected urls { published } } }`
	update := `mutation($o: ID!, $s: ID!, $l: ID!, $in: UpdateShareLinkInput!) { updateSiteShareLink(organizationId: $o, siteId: $s, shareLinkId: $l, input: $in) { expiresAt passwordProtected } }`
	ids := map[string]any{"o": c.Org, "s": siteID}
	with := func(extra map[string]any) map[string]any {
		out := map[string]any{}
		for k, v := range ids {
			out[k] = v
		}
		for k, v := range extra {
			out[k] = v
		}
		return out
	}
	e := gqlRefusal(t, c.Env, admin, create, with(map[string]any{"in": map[string]any{"name": "x", "password": "short"}}), "BAD_REQUEST", 400)
	if e.Extensions["field"] != "password" {
		t.Errorf("field %v", e.Extensions)
	}
	gqlRefusal(t, c.Env, admin, create, with(map[string]any{"in": map[string]any{"name": "x", "expiresAt": "2001-01-01"}}), "BAD_REQUEST", 400)
	gqlRefusal(t, c.Env, c.ByRole["create"].Token, create, with(map[string]any{"in": map[string]any{"name": "x", "password": "correct horse"}}), "FORBIDDEN", 403)
	gqlRefusal(t, c.Env, c.OtherAdm.Token, create, with(map[string]any{"in": map[string]any{"name": "x", "password": "correct horse"}}), "NOT_FOUND", 404)

	l := gqlData(t, c.Env, admin, create, with(map[string]any{"in": map[string]any{"name": "x", "password": "correct horse"}}))["createSiteShareLink"].(map[string]any)
	if l["passwordProtected"] != true || l["expiresAt"] != nil {
		t.Fatalf("created %v", l)
	}
	key := shareKeyOf(t, l)
	space := `query($id: ID!, $k: String) { space(spaceId: $id, shareKey: $k) { id } }`
	gqlRefusal(t, c.Env, c.OtherAdm.Token, space, map[string]any{"id": a, "k": key}, "UNAUTHENTICATED", 401)
	for range 5 {
		gqlWithHeaders(t, c.Env, c.OtherAdm.Token, space, map[string]any{"id": a, "k": key}, graph.ShareLinkPasswordHeader, "nope nope")
	}
	_, errs := gqlWithHeaders(t, c.Env, c.OtherAdm.Token, space, map[string]any{"id": a, "k": key}, graph.ShareLinkPasswordHeader, "nope nope")
	if len(errs) != 1 || errs[0].Code() != "RATE_LIMITED" || errs[0].Extensions["retryAfter"] == nil {
		t.Fatalf("graphql past the budget: %+v", errs)
	}

	// null removes the password; an expiresAt is set.
	soon := c.Clock.Now().Add(time.Hour).UTC().Truncate(time.Second)
	u := gqlData(t, c.Env, admin, update, with(map[string]any{"l": l["id"], "in": map[string]any{"password": nil, "expiresAt": soon.Format(time.RFC3339)}}))["updateSiteShareLink"].(map[string]any)
	if u["passwordProtected"] != false || u["expiresAt"] != soon.Format("2006-01-02T15:04:05.000Z") {
		t.Fatalf("updated %v", u)
	}
	gqlData(t, c.Env, c.OtherAdm.Token, space, map[string]any{"id": a, "k": key})
	gqlRefusal(t, c.Env, admin, update, with(map[string]any{"l": l["id"], "in": map[string]any{}}), "BAD_REQUEST", 400)
}

// gqlWithHeaders runs a GraphQL operation with extra request headers.
func gqlWithHeaders(t *testing.T, env *apitest.Env, token, query string, vars map[string]any, headers ...string) (map[string]any, []apitest.GraphQLError) {
	t.Helper()
	r := env.Do("POST", "/graphql", token, map[string]any{"query": query, "variables": vars}, headers...)
	var out struct {
		Data   map[string]any         `json:"data"`
		Errors []apitest.GraphQLError `json:"errors"`
	}
	if err := json.Unmarshal(r.Body, &out); err != nil {
		t.Fatalf("graphql: status %d body %s", r.Status, r.Body)
	}
	return out.Data, out.Errors
}

// FuzzShareLinkBody: any body to create a share link or to change the
// protected one is a 201/200 or a 400 with the error body, never a 500;
// and a password or its hash never comes back.
func FuzzShareLinkBody(f *testing.F) {
	env := apitest.New(f)
	admin, v1 := env.Admin.Token, "/v1/orgs/"+env.Org
	space := env.Must(201, "POST", v1+"/spaces", admin, map[string]any{"title": "Guide"}).JSON()["id"].(string)
	site := v1 + "/sites/" + env.Must(201, "POST", v1+"/sites", admin, map[string]any{"title": "Docs", "visibility": "share-link", "spaces": []string{space}}).JSON()["id"].(string)
	link := site + "/share-links/" + env.Must(201, "POST", site+"/share-links", admin, map[string]any{"name": "L"}).JSON()["id"].(string)
	fx := &fuzzFixture{env: env}
	for _, seed := range []string{`{"name":"x"}`, `{"name":"x","expiresAt":"2999-01-01","password":"correct horse"}`, `{"expiresAt":null,"password":null}`,
		`{"password":"short"}`, `{"password":"\u0000\u0001control!"}`, `{"expiresAt":"2001-01-01T00:00:00Z"}`, `{"expiresAt":"2999-13-45T99:00:00Z"}`,
		`{"expiresAt":5,"password":true}`, `{"name":"x","password":"` + strings.Repeat("é", 40) + `"}`, `[]`, `{`} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		for _, req := range [][2]string{{"POST", site + "/share-links"}, {"PATCH", link}} {
			status, answer := fx.send(t, req[0], req[1], body)
			checkAnswer(t, req[0]+" share link", status, answer)
			if status != 200 && status != 201 && status != 400 {
				t.Fatalf("%s %q: %d %s", req[0], body, status, answer)
			}
			if strings.Contains(string(answer), "$2a$") || strings.Contains(string(answer), `"password"`) {
				t.Fatalf("%s %q shows the password: %s", req[0], body, answer)
			}
		}
	})
}

// FuzzShareLinkPasswordHeader: any X-Share-Link-Password on every read of
// a protected key is a 401 or 429 with the error body (a 200 only for the
// password itself), never a 500.
func FuzzShareLinkPasswordHeader(f *testing.F) {
	env := apitest.New(f)
	admin, v1 := env.Admin.Token, "/v1/orgs/"+env.Org
	space := env.Must(201, "POST", v1+"/spaces", admin, map[string]any{"title": "Guide"}).JSON()["id"].(string)
	site := v1 + "/sites/" + env.Must(201, "POST", v1+"/sites", admin, map[string]any{"title": "Docs", "visibility": "share-link", "spaces": []string{space}}).JSON()["id"].(string)
	env.Must(200, "POST", site+"/publish", admin, nil)
	l := env.Must(201, "POST", site+"/share-links", admin, map[string]any{"name": "L", "password": "correct horse"}).JSON()
	key := shareKeyOf(f, l)
	fx := &fuzzFixture{env: env}
	for _, seed := range []string{"", "correct horse", "correct horse ", "wrong", strings.Repeat("x", 100), "\xff\xfe", "correct\thorse"} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, password string) {
		for what, path := range sharedReads(site, space, key) {
			status, answer := fx.send(t, "GET", path, nil, graph.ShareLinkPasswordHeader, password)
			checkAnswer(t, what, status, answer)
			switch {
			case status == 200 && strings.Trim(password, " \t") == "correct horse":
			case status == 401 || status == 429:
			default:
				t.Fatalf("%s with password %q: %d %s", what, password, status, answer)
			}
		}
	})
}

// BenchmarkShareLinkRead: a published read through a key, without and with
// a password (one bcrypt comparison per request).
func BenchmarkShareLinkRead(b *testing.B) {
	env := apitest.New(b)
	admin, v1 := env.Admin.Token, "/v1/orgs/"+env.Org
	space := env.Must(201, "POST", v1+"/spaces", admin, map[string]any{"title": "Guide"}).JSON()["id"].(string)
	site := v1 + "/sites/" + env.Must(201, "POST", v1+"/sites", admin, map[string]any{"title": "Docs", "visibility": "share-link", "spaces": []string{space}}).JSON()["id"].(string)
	env.Must(200, "POST", site+"/publish", admin, nil)
	for _, bc := range []struct{ name, password string }{{"open", ""}, {"password", "correct horse"}} {
		body := map[string]any{"name": bc.name}
		if bc.password != "" {
			body["password"] = bc.password
		}
		path := site + "/published?shareKey=" + url.QueryEscape(shareKeyOf(b, env.Must(201, "POST", site+"/share-links", admin, body).JSON()))
		b.Run(bc.name, func(b *testing.B) {
			for b.Loop() {
				if r := env.Do("GET", path, admin, nil, graph.ShareLinkPasswordHeader, bc.password); r.Status != 200 {
					b.Fatalf("%d %s", r.Status, r.Body)
				}
			}
		})
	}
}

// The wrong-guess budget of a protected link is one across replicas: five
// wrong guesses spread over two processes spend it, the sixth is a 429 on
// either, and it refills on the shared clock.
func TestShareLinkGuessBudgetAcrossReplicas(t *testing.T) {
	c := newSiteEnv(t)
	b := c.Env.Replica()
	admin, stranger := c.Admin.Token, c.OtherAdm.Token
	a := c.space(admin, map[string]any{"title": "Handbook"})
	site := c.site(map[string]any{"title": "Partners", "visibility": "share-link", "spaces": []string{a}})
	c.Must(200, "POST", site+"/publish", admin, nil)
	link := c.Must(201, "POST", site+"/share-links", admin, map[string]any{"name": "Protected", "password": "correct horse"}).JSON()
	published := site + "/published?shareKey=" + url.QueryEscape(shareKeyOf(t, link))
	wrong := []string{graph.ShareLinkPasswordHeader, "wrong horse"}
	for i := range 5 {
		env := c.Env
		if i%2 == 1 {
			env = b
		}
		if r := env.Do("GET", published, stranger, nil, wrong...); r.Status != 401 {
			t.Fatalf("wrong guess %d: %d %s", i+1, r.Status, r.Body)
		}
	}
	for _, env := range []*apitest.Env{b, c.Env} {
		if r := env.Do("GET", published, stranger, nil, wrong...); r.Status != 429 || r.Header.Get("Retry-After") == "" {
			t.Fatalf("a guess past the shared budget: %d %s", r.Status, r.Body)
		}
	}
	c.Clock.Advance(12 * time.Second)
	if r := b.Do("GET", published, stranger, nil, graph.ShareLinkPasswordHeader, "correct horse"); r.Status != 200 {
		t.Fatalf("the right password once the budget refilled: %d %s", r.Status, r.Body)
	}
}
