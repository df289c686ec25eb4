package rest_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"docsapi/apitest"
	"docsapi/server"
)

const orgFields = `object id title createdAt emailDomains hostname type useCase communityType defaultRole
 defaultContent { type site } sso ai inviteLinks plan urls { location app logo } trial { status } customHostname
 internal_isOnNewTrial permissions { view admin ownTeam createContent createOpenAPISpec ingestConversations viewBilling listMembers listTeams listIntegrations }`

func TestUsers(t *testing.T) {
	env := apitest.New(t)
	reader := env.NewUser("reader@acme.test", env.Org, "read")
	_, foreign := env.NewOrg("Other", "boss@other.test")
	env.Run(t, []apitest.Scenario{
		{Name: "caller", Method: "GET", Path: "/v1/user", Token: reader.Token, Status: 200, Check: func(r apitest.Response) {
			u := body(t, r)
			apitest.Keys(t, u, userKeys...)
			if u["object"] != "user" || u["id"] != reader.ID || u["email"] != "reader@acme.test" || u["displayName"] != "reader" {
				t.Errorf("user %v", u)
			}
			if loc := u["urls"].(map[string]any)["location"]; loc != env.HTTP.URL+"/v1/users/"+reader.ID {
				t.Errorf("urls.location %v", loc)
			}
		}},
		{Name: "no token", Method: "GET", Path: "/v1/user", Status: 401},
		{Name: "bad scheme", Method: "GET", Path: "/v1/user", Token: "", Status: 401},
		{Name: "unknown token", Method: "GET", Path: "/v1/user", Token: "dapi_nope", Status: 401},
		{Name: "self by id", Method: "GET", Path: "/v1/users/" + reader.ID, Token: reader.Token, Status: 200, Contains: []string{`"id":"` + reader.ID}},
		{Name: "colleague", Method: "GET", Path: "/v1/users/" + env.Admin.ID, Token: reader.Token, Status: 200, Check: func(r apitest.Response) {
			apitest.Keys(t, body(t, r), userKeys...)
		}},
		{Name: "user of another organization", Method: "GET", Path: "/v1/users/" + foreign.ID, Token: reader.Token, Status: 404},
		{Name: "unknown user", Method: "GET", Path: "/v1/users/nope", Token: reader.Token, Status: 404},
		{Name: "users without token", Method: "GET", Path: "/v1/users/" + reader.ID, Status: 401},
	})
	// A malformed Authorization header is a 401 too.
	if r := env.Do("GET", "/v1/user", "", nil, "Authorization", "Basic "+reader.Token); r.Status != 401 {
		t.Errorf("basic auth: %d", r.Status)
	}

	t.Run("graphql parity", func(t *testing.T) {
		rest := body(t, env.Must(200, "GET", "/v1/users/"+env.Admin.ID, reader.Token, nil))
		data := gqlData(t, env, reader.Token, `query($id: ID!) { user(id: $id) { object id displayName email photoURL urls { location } } viewer { id } }`, map[string]any{"id": env.Admin.ID})
		u := data["user"].(map[string]any)
		delete(u, "photoURL") // null in GraphQL, omitted in REST
		sameJSON(t, "user", rest, u)
		gqlRefusal(t, env, reader.Token, `query($id: ID!) { user(id: $id) { id } }`, map[string]any{"id": foreign.ID}, "NOT_FOUND", 404)
		gqlRefusal(t, env, "", `{ viewer { id } }`, nil, "UNAUTHENTICATED", 401)
	})
}

func TestOrganizationRead(t *testing.T) {
	env := apitest.New(t)
	reader := env.NewUser("reader@acme.test", env.Org, "read")
	guest := env.NewUser("guest@acme.test", env.Org, "guest")
	otherOrg, foreign := env.NewOrg("Other", "boss@other.test")
	org := "/v1/orgs/" + env.Org

	env.Run(t, []apitest.Scenario{
		{Name: "admin reads", Method: "GET", Path: org, Token: env.Admin.Token, Status: 200, Check: func(r apitest.Response) {
			o := body(t, r)
			apitest.Keys(t, o, orgKeys...)
			apitest.Keys(t, o["permissions"].(map[string]any), orgPermissionKeys...)
			apitest.Keys(t, o["urls"].(map[string]any), "location", "app")
			apitest.Keys(t, o["trial"].(map[string]any), "status")
			if o["object"] != "organization" || o["id"] != env.Org || o["title"] != "Acme" || o["defaultRole"] != nil {
				t.Errorf("organization %v", o)
			}
			if o["urls"].(map[string]any)["location"] != env.HTTP.URL+org {
				t.Errorf("urls %v", o["urls"])
			}
			p := o["permissions"].(map[string]any)
			if p["view"] != true || p["admin"] != true || p["listMembers"] != true {
				t.Errorf("admin permissions %v", p)
			}
			if !strings.HasSuffix(o["createdAt"].(string), "Z") || len(o["createdAt"].(string)) != len("2006-01-02T15:04:05.000Z") {
				t.Errorf("createdAt %v", o["createdAt"])
			}
		}},
		{Name: "reader reads", Method: "GET", Path: org, Token: reader.Token, Status: 200, Check: func(r apitest.Response) {
			p := body(t, r)["permissions"].(map[string]any)
			if p["view"] != true || p["admin"] != false || p["createContent"] != false || p["listMembers"] != true || p["ownTeam"] != false {
				t.Errorf("reader permissions %v", p)
			}
		}},
		{Name: "guest reads", Method: "GET", Path: org, Token: guest.Token, Status: 200, Check: func(r apitest.Response) {
			p := body(t, r)["permissions"].(map[string]any)
			if p["view"] != true || p["listMembers"] != false || p["listTeams"] != false {
				t.Errorf("guest permissions %v", p)
			}
		}},
		{Name: "no token", Method: "GET", Path: org, Status: 401},
		{Name: "another organization", Method: "GET", Path: "/v1/orgs/" + otherOrg, Token: env.Admin.Token, Status: 404},
		{Name: "foreign admin", Method: "GET", Path: org, Token: foreign.Token, Status: 404},
		{Name: "unknown", Method: "GET", Path: "/v1/orgs/nope", Token: env.Admin.Token, Status: 404},
	})

	t.Run("team owner has ownTeam", func(t *testing.T) {
		team := body(t, env.Must(201, "PUT", org+"/teams", env.Admin.Token, map[string]any{"title": "Docs"}))["id"].(string)
		env.Must(204, "PUT", org+"/teams/"+team+"/members/"+reader.ID, env.Admin.Token, map[string]any{"role": "owner"})
		o := body(t, env.Must(200, "GET", org, reader.Token, nil))
		if o["permissions"].(map[string]any)["ownTeam"] != true {
			t.Errorf("team owner: ownTeam %v", o["permissions"])
		}
		l := items(t, env.Must(200, "GET", "/v1/orgs", reader.Token, nil))
		if l[0]["permissions"].(map[string]any)["ownTeam"] != true {
			t.Errorf("team owner in the list: ownTeam %v", l[0]["permissions"])
		}
	})

	t.Run("graphql parity", func(t *testing.T) {
		for _, u := range []apitest.User{env.Admin, reader, guest} {
			rest := body(t, env.Must(200, "GET", org, u.Token, nil))
			data := gqlData(t, env, u.Token, `query($id: ID!) { organization(id: $id) { `+orgFields+` } }`, map[string]any{"id": env.Org})
			sameJSON(t, "organization", rest, dropNulls(data["organization"]))
		}
		gqlRefusal(t, env, env.Admin.Token, `query($id: ID!) { organization(id: $id) { id } }`, map[string]any{"id": otherOrg}, "NOT_FOUND", 404)
	})
}

// dropNulls turns a GraphQL answer into its REST form: optional fields that
// GraphQL answers as null are omitted by REST (defaultRole and role
// excepted, which REST writes as null), and role enums are lower case.
func dropNulls(v any) any {
	switch x := v.(type) {
	case map[string]any:
		out := map[string]any{}
		for k, e := range x {
			if e == nil && k != "defaultRole" && k != "role" {
				continue
			}
			if s, ok := e.(string); ok && (k == "defaultRole" || k == "role") {
				e = strings.ToLower(s)
			}
			out[k] = dropNulls(e)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = dropNulls(e)
		}
		return out
	}
	return v
}

func TestOrganizationList(t *testing.T) {
	env := apitest.New(t)
	u := env.NewUser("many@acme.test", env.Org, "read")
	// u joins five more organizations through invites.
	var orgs []string
	for i := range 5 {
		id, boss := env.NewOrg("Org "+string(rune('A'+i)), "boss"+string(rune('a'+i))+"@acme.test")
		env.Must(200, "POST", "/v1/orgs/"+id+"/invites", boss.Token, map[string]any{"emails": []string{u.Email}})
		orgs = append(orgs, id)
		env.Clock.Advance(time.Second)
	}
	env.Run(t, []apitest.Scenario{
		{Name: "all", Method: "GET", Path: "/v1/orgs", Token: u.Token, Status: 200, Check: func(r apitest.Response) {
			b := body(t, r)
			apitest.Keys(t, b, "count", "items")
			if b["count"].(float64) != 6 || len(items(t, r)) != 6 {
				t.Errorf("list %s", r.Body)
			}
			for _, o := range items(t, r) {
				apitest.Keys(t, o, orgKeys...)
			}
		}},
		{Name: "limit over 1000", Method: "GET", Path: "/v1/orgs?limit=1001", Token: u.Token, Status: 400, Contains: names("limit")},
		{Name: "negative limit", Method: "GET", Path: "/v1/orgs?limit=-1", Token: u.Token, Status: 400, Contains: names("limit")},
		{Name: "limit not a number", Method: "GET", Path: "/v1/orgs?limit=ten", Token: u.Token, Status: 400, Contains: names("limit")},
		{Name: "bad cursor", Method: "GET", Path: "/v1/orgs?page=garbage", Token: u.Token, Status: 400, Contains: names("page")},
		{Name: "no token", Method: "GET", Path: "/v1/orgs", Status: 401},
	})

	t.Run("pages", func(t *testing.T) {
		var seen []string
		next := ""
		for pages := 0; ; pages++ {
			r := env.Must(200, "GET", "/v1/orgs?limit=4&page="+next, u.Token, nil)
			b := body(t, r)
			if b["count"].(float64) != 6 {
				t.Fatalf("count %v", b["count"])
			}
			seen = append(seen, ids(items(t, r))...)
			n, ok := b["next"].(map[string]any)
			if !ok {
				break
			}
			apitest.Keys(t, n, "page")
			next = n["page"].(string)
		}
		if len(seen) != 6 || seen[0] != orgs[4] {
			t.Errorf("pages gave %v (newest membership first, want %s first)", seen, orgs[4])
		}
	})

	t.Run("limit 0 counts without items and keeps the position", func(t *testing.T) {
		r := env.Must(200, "GET", "/v1/orgs?limit=0", u.Token, nil)
		b := body(t, r)
		if b["count"].(float64) != 6 || len(items(t, r)) != 0 {
			t.Fatalf("limit 0: %s", r.Body)
		}
		next := b["next"].(map[string]any)["page"].(string)
		r = env.Must(200, "GET", "/v1/orgs?limit=2&page="+next, u.Token, nil)
		if got := ids(items(t, r)); len(got) != 2 || got[0] != orgs[4] {
			t.Errorf("after a limit 0 page: %v", got)
		}
	})

	t.Run("graphql parity", func(t *testing.T) {
		rest := body(t, env.Must(200, "GET", "/v1/orgs?limit=2", u.Token, nil))
		data := gqlData(t, env, u.Token, `{ organizations(limit: 2) { next { page } count items { `+orgFields+` } } }`, nil)
		sameJSON(t, "organizations", rest, dropNulls(data["organizations"]))
		gqlRefusal(t, env, u.Token, `{ organizations(limit: 5000) { count } }`, nil, "BAD_REQUEST", 400)
	})
}

func TestOrganizationUpdate(t *testing.T) {
	env := apitest.New(t)
	creator := env.NewUser("creator@acme.test", env.Org, "create")
	otherOrg, foreign := env.NewOrg("Other", "boss@other.test")
	org := "/v1/orgs/" + env.Org
	admin := env.Admin.Token
	env.Run(t, []apitest.Scenario{
		{Name: "every field", Method: "PATCH", Path: org, Token: admin, Status: 200, Body: map[string]any{
			"title": "Acme Inc", "emailDomains": []string{"Acme.test", "acme.example", "acme.test"}, "hostname": "acme-docs",
			"defaultRole": "comment", "defaultContent": map[string]any{"type": "site", "site": "site1"},
			"logo": "https://cdn.acme.test/logo.png", "sso": true, "ai": true, "inviteLinks": false,
		}, Check: func(r apitest.Response) {
			o := body(t, r)
			apitest.Keys(t, o, append(orgKeys, "hostname", "defaultContent")...)
			if o["title"] != "Acme Inc" || o["hostname"] != "acme-docs" || o["defaultRole"] != "comment" || o["sso"] != true ||
				o["ai"] != true || o["inviteLinks"] != false || o["urls"].(map[string]any)["logo"] != "https://cdn.acme.test/logo.png" {
				t.Errorf("updated %s", r.Body)
			}
			sameJSON(t, "emailDomains", o["emailDomains"], []string{"acme.test", "acme.example"})
			sameJSON(t, "defaultContent", o["defaultContent"], map[string]any{"type": "site", "site": "site1"})
		}},
		{Name: "reads back", Method: "GET", Path: org, Token: admin, Status: 200, Contains: []string{`"title":"Acme Inc"`, `"hostname":"acme-docs"`}},
		{Name: "null clears nullable fields", Method: "PATCH", Path: org, Token: admin, Status: 200,
			Body: map[string]any{"defaultRole": nil, "hostname": nil, "logo": nil, "defaultContent": nil},
			Check: func(r apitest.Response) {
				o := body(t, r)
				apitest.Keys(t, o, orgKeys...)
				if o["defaultRole"] != nil || o["title"] != "Acme Inc" {
					t.Errorf("cleared %s", r.Body)
				}
			}},
		{Name: "title too short", Method: "PATCH", Path: org, Token: admin, Body: map[string]any{"title": "A"}, Status: 400, Contains: names("title")},
		{Name: "title too long", Method: "PATCH", Path: org, Token: admin, Body: map[string]any{"title": strings.Repeat("x", 256)}, Status: 400, Contains: names("title")},
		{Name: "title of the wrong type", Method: "PATCH", Path: org, Token: admin, Body: map[string]any{"title": 12}, Status: 400, Contains: names("title")},
		{Name: "sso of the wrong type", Method: "PATCH", Path: org, Token: admin, Body: map[string]any{"sso": "yes"}, Status: 400, Contains: names("sso")},
		{Name: "emailDomains of the wrong type", Method: "PATCH", Path: org, Token: admin, Body: map[string]any{"emailDomains": "acme.test"}, Status: 400, Contains: names("emailDomains")},
		{Name: "unknown role", Method: "PATCH", Path: org, Token: admin, Body: map[string]any{"defaultRole": "owner"}, Status: 400, Contains: names("defaultRole")},
		{Name: "bad hostname", Method: "PATCH", Path: org, Token: admin, Body: map[string]any{"hostname": "Not_A_Host"}, Status: 400, Contains: names("hostname")},
		{Name: "hostname too long", Method: "PATCH", Path: org, Token: admin, Body: map[string]any{"hostname": strings.Repeat("a", 33)}, Status: 400, Contains: names("hostname")},
		{Name: "bad logo", Method: "PATCH", Path: org, Token: admin, Body: map[string]any{"logo": "ftp://x"}, Status: 400, Contains: names("logo")},
		{Name: "bad e-mail domain", Method: "PATCH", Path: org, Token: admin, Body: map[string]any{"emailDomains": []string{"not a domain"}}, Status: 400, Contains: names("emailDomains")},
		{Name: "bad default content", Method: "PATCH", Path: org, Token: admin, Body: map[string]any{"defaultContent": map[string]any{"type": "space", "site": "x"}}, Status: 400, Contains: names("defaultContent.type")},
		{Name: "malformed JSON", Method: "PATCH", Path: org, Token: admin, Body: `{"title": `, Status: 400, Contains: []string{"malformed JSON"}},
		{Name: "not an object", Method: "PATCH", Path: org, Token: admin, Body: `[1]`, Status: 400},
		{Name: "missing body", Method: "PATCH", Path: org, Token: admin, Status: 400, Contains: names("body")},
		{Name: "creator may not", Method: "PATCH", Path: org, Token: creator.Token, Body: map[string]any{"title": "Mine"}, Status: 403},
		{Name: "no token", Method: "PATCH", Path: org, Body: map[string]any{"title": "Mine"}, Status: 401},
		{Name: "foreign admin", Method: "PATCH", Path: org, Token: foreign.Token, Body: map[string]any{"title": "Mine"}, Status: 404},
		{Name: "unknown", Method: "PATCH", Path: "/v1/orgs/nope", Token: admin, Body: map[string]any{"title": "Mine"}, Status: 404},
	})

	t.Run("missing Content-Type", func(t *testing.T) {
		req, _ := http.NewRequest("PATCH", env.HTTP.URL+org, strings.NewReader(`{"title":"Acme"}`))
		req.Header.Set("Authorization", "Bearer "+admin)
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if res.StatusCode != 400 {
			t.Errorf("no Content-Type: %d", res.StatusCode)
		}
		if r := env.Do("PATCH", org, admin, `{"title":"Acme"}`, "Content-Type", "text/plain"); r.Status != 400 {
			t.Errorf("text/plain: %d %s", r.Status, r.Body)
		}
	})

	t.Run("hostname taken is a conflict", func(t *testing.T) {
		env.Must(200, "PATCH", "/v1/orgs/"+otherOrg, foreign.Token, map[string]any{"hostname": "taken"})
		r := env.Do("PATCH", org, admin, map[string]any{"hostname": "taken"})
		if r.Status != 409 {
			t.Fatalf("taken hostname: %d %s", r.Status, r.Body)
		}
		apitest.ErrorShape(t, r)
	})

	t.Run("graphql parity", func(t *testing.T) {
		q := `mutation($id: ID!, $in: UpdateOrganizationInput!) { updateOrganization(id: $id, input: $in) { ` + orgFields + ` } }`
		data := gqlData(t, env, admin, q, map[string]any{"id": env.Org, "in": map[string]any{"title": "Acme GQL", "defaultRole": "EDIT"}})
		rest := body(t, env.Must(200, "GET", org, admin, nil))
		sameJSON(t, "organization", rest, dropNulls(data["updateOrganization"]))
		e := gqlRefusal(t, env, admin, q, map[string]any{"id": env.Org, "in": map[string]any{"title": "A"}}, "BAD_REQUEST", 400)
		if e.Extensions["field"] != "title" {
			t.Errorf("field %v", e.Extensions)
		}
		gqlRefusal(t, env, creator.Token, q, map[string]any{"id": env.Org, "in": map[string]any{"title": "Mine"}}, "FORBIDDEN", 403)
		gqlRefusal(t, env, foreign.Token, q, map[string]any{"id": env.Org, "in": map[string]any{"title": "Mine"}}, "NOT_FOUND", 404)
		gqlRefusal(t, env, admin, q, map[string]any{"id": env.Org, "in": map[string]any{"hostname": "taken"}}, "CONFLICT", 409)
	})
}

func TestEmailDomainLookup(t *testing.T) {
	env := apitest.New(t)
	org := "/v1/orgs/" + env.Org
	env.Must(200, "PATCH", org, env.Admin.Token, map[string]any{"emailDomains": []string{"acme.test"}})
	otherOrg, boss := env.NewOrg("Other", "boss@other.test")
	env.Must(200, "PATCH", "/v1/orgs/"+otherOrg, boss.Token, map[string]any{"emailDomains": []string{"acme.test"}})
	outsider := env.NewUser("someone@elsewhere.test", "", "")
	colleague := env.NewUser("colleague@acme.test", "", "") // not a member of anything

	env.Run(t, []apitest.Scenario{
		{Name: "member of one, same domain sees both", Method: "GET", Path: "/v1/email-domains/acme.test/orgs", Token: env.Admin.Token, Status: 200, Check: func(r apitest.Response) {
			b := body(t, r)
			apitest.Keys(t, b, "organizations")
			list := b["organizations"].([]any)
			if len(list) != 2 {
				t.Errorf("%s", r.Body)
				return
			}
			for _, o := range list {
				apitest.Keys(t, o.(map[string]any), orgKeys...)
			}
		}},
		{Name: "a non-member with that domain may discover", Method: "GET", Path: "/v1/email-domains/acme.test/orgs", Token: colleague.Token, Status: 200, Check: func(r apitest.Response) {
			list := body(t, r)["organizations"].([]any)
			if len(list) != 2 || list[0].(map[string]any)["permissions"].(map[string]any)["view"] != false {
				t.Errorf("%s", r.Body)
			}
		}},
		{Name: "other domains stay hidden", Method: "GET", Path: "/v1/email-domains/acme.test/orgs", Token: outsider.Token, Status: 200, Contains: []string{`{"organizations":[]}`}},
		{Name: "case-insensitive", Method: "GET", Path: "/v1/email-domains/ACME.test/orgs", Token: colleague.Token, Status: 200, Contains: []string{otherOrg}},
		{Name: "not a domain", Method: "GET", Path: "/v1/email-domains/not_a_domain/orgs", Token: colleague.Token, Status: 400, Contains: names("emailDomain")},
		{Name: "no token", Method: "GET", Path: "/v1/email-domains/acme.test/orgs", Status: 401},
	})
	t.Run("graphql parity", func(t *testing.T) {
		rest := body(t, env.Must(200, "GET", "/v1/email-domains/acme.test/orgs", colleague.Token, nil))
		data := gqlData(t, env, colleague.Token, `{ organizationsForEmailDomain(emailDomain: "acme.test") { organizations { `+orgFields+` } } }`, nil)
		sameJSON(t, "organizations", rest, dropNulls(data["organizationsForEmailDomain"]))
	})
}

func TestHTTPSurface(t *testing.T) {
	env := apitest.New(t, apitest.Options{Config: func(c *server.Config) { c.MaxBodyBytes = 1024 }})
	admin := env.Admin.Token
	env.Run(t, []apitest.Scenario{
		{Name: "unknown route", Method: "GET", Path: "/v1/nothing/here", Token: admin, Status: 404},
		{Name: "unknown route outside v1", Method: "GET", Path: "/nothing", Status: 404},
		{Name: "wrong method", Method: "POST", Path: "/v1/orgs/" + env.Org, Token: admin, Body: map[string]any{}, Status: 405},
		{Name: "body too large", Method: "PATCH", Path: "/v1/orgs/" + env.Org, Token: admin,
			Body: map[string]any{"title": strings.Repeat("x", 2000)}, Status: 413},
		{Name: "healthz", Method: "GET", Path: "/healthz", Status: 200, Contains: []string{`"ok"`}},
		{Name: "readyz", Method: "GET", Path: "/readyz", Status: 200, Contains: []string{`"ready"`}},
		{Name: "api information", Method: "GET", Path: "/v1/", Token: admin, Status: 200, Check: func(r apitest.Response) {
			apitest.Keys(t, body(t, r), "version", "build")
		}},
	})
	t.Run("a panic is a logged 500 with the request id", func(t *testing.T) {
		env.Server.Router.Get("/test-panic", func(http.ResponseWriter, *http.Request) { panic("boom") })
		r := env.Do("GET", "/test-panic", "", nil, "X-Request-Id", "panic-7")
		if r.Status != 500 || !strings.Contains(string(r.Body), "panic-7") {
			t.Errorf("panic: %d %s", r.Status, r.Body)
		}
		apitest.ErrorShape(t, r)
	})
	t.Run("chunked body too large", func(t *testing.T) {
		pr := strings.NewReader(`{"title":"` + strings.Repeat("x", 4000) + `"}`)
		req, _ := http.NewRequest("PATCH", env.HTTP.URL+"/v1/orgs/"+env.Org, struct{ *strings.Reader }{pr})
		req.ContentLength = -1
		req.Header.Set("Authorization", "Bearer "+admin)
		req.Header.Set("Content-Type", "application/json")
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if res.StatusCode != 413 {
			t.Errorf("chunked: %d", res.StatusCode)
		}
	})
	t.Run("request ids", func(t *testing.T) {
		r := env.Do("GET", "/v1/user", admin, nil)
		if len(r.Header.Get("X-Request-Id")) < 8 {
			t.Errorf("no generated X-Request-Id: %v", r.Header)
		}
		r = env.Do("GET", "/v1/user", "", nil, "X-Request-Id", "trace-42")
		if r.Header.Get("X-Request-Id") != "trace-42" || r.Status != 401 {
			t.Errorf("echo: %v %d", r.Header, r.Status)
		}
		if r := env.Do("GET", "/nothing", "", nil); r.Header.Get("X-Request-Id") == "" {
			t.Errorf("404 without request id")
		}
	})
	t.Run("readyz fails when the database is closed", func(t *testing.T) {
		env2 := apitest.New(t)
		env2.DB.Close()
		if r := env2.Do("GET", "/readyz", "", nil); r.Status != 503 {
			t.Errorf("closed database: %d %s", r.Status, r.Body)
		}
	})
	t.Run("graphql needs a token", func(t *testing.T) {
		r := env.Do("POST", "/graphql", "", map[string]any{"query": "{ viewer { id } }"})
		if r.Status != 401 || !strings.Contains(string(r.Body), `"code":"UNAUTHENTICATED"`) {
			t.Errorf("graphql without token: %d %s", r.Status, r.Body)
		}
	})
}
