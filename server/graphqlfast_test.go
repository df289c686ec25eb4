package server_test

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"docsapi/apitest"
)

// fastEnv is an organization with spaces whose answers exercise every
// marshaller of the fast path: null and set optional fields, a parent
// collection, an icon, characters JSON escapes, and a reader whose
// permissions differ from the admin's.
func fastEnv(t testing.TB) (env *apitest.Env, spaces []string, reader string) {
	env = apitest.New(t)
	tok := env.Admin.Token
	col := env.Must(201, "POST", "/v1/orgs/"+env.Org+"/collections", tok, map[string]any{"title": "C"}).JSON()["id"].(string)
	plain := env.Must(201, "POST", "/v1/orgs/"+env.Org+"/spaces", tok, map[string]any{"title": "Plain"}).JSON()["id"].(string)
	nested := env.Must(201, "POST", "/v1/orgs/"+env.Org+"/spaces", tok, map[string]any{"title": "<b>Ünïcode & \"quotes\"\u2028", "parent": col}).JSON()["id"].(string)
	env.Must(200, "PATCH", "/v1/spaces/"+nested, tok, map[string]any{"icon": "https://example.com/i.png?a=1&b=<2>", "visibility": "in-collection", "defaultLevel": nil, "editMode": "locked"})
	emoji := env.Must(201, "POST", "/v1/orgs/"+env.Org+"/spaces", tok, map[string]any{"title": "Emoji", "emoji": "1f389"}).JSON()["id"].(string)
	env.Must(200, "PATCH", "/v1/spaces/"+emoji, tok, map[string]any{"visibility": "public", "defaultLevel": "edit"})
	reader = env.NewUser("reader@acme.test", env.Org, "read").Token
	return env, []string{plain, nested, emoji}, reader
}

// post sends a GraphQL body and returns status, content type and body.
func post(env *apitest.Env, token string, body any, headers ...string) apitest.Response {
	return env.Do("POST", "/graphql", token, body, headers...)
}

// viaGQLGen is an Accept header gqlgen answers with application/json but
// the fast path leaves to gqlgen: the reference answer.
var viaGQLGen = []string{"Accept", "application/json, text/plain"}

// TestGraphQLFastPathSameAnswers sends each query twice: to gqlgen (which
// plans it), then as a client does, answered by the fast path when it
// qualifies; the two answers must be the same bytes, and the fast path must
// have answered exactly the queries it should.
func TestGraphQLFastPathSameAnswers(t *testing.T) {
	env, spaces, reader := fastEnv(t)
	const all = `object id title emoji visibility createdAt updatedAt deletedAt editMode organization parent revision defaultLevel comments changeRequests changeRequestsOpen changeRequestsDraft urls { location app published icon } permissions { view access admin viewInviteLinks edit triggerGitSync comment merge review }`
	cases := []struct {
		name, query, op string
		vars            func(space string) map[string]any
		fast            bool
	}{
		{"every field", `query($id: ID!) { space(spaceId: $id) { ` + all + ` } }`, "", idVar, true},
		{"aliases and typenames", `query Q($s: ID!) { s: space(spaceId: $s) { __typename n: title t: __typename u: urls { __typename a: app } p: permissions { __typename edit } id } }`, "", func(s string) map[string]any { return map[string]any{"s": s} }, true},
		{"fragments", `fragment F on Space { id urls { ...U } } fragment U on SpaceURLs { icon location }
			query($id: ID!) { space(spaceId: $id) { title ...F ... on Space { visibility } ... { defaultLevel } } }`, "", idVar, true},
		{"named operation among others", `query A($id: ID!) { space(spaceId: $id) { id title } } query B { viewer { id } }`, "A", idVar, true},
		{"the other operation", `query A($id: ID!) { space(spaceId: $id) { id title } } query B { viewer { id } }`, "B", nil, false},
		{"a directive", `query($id: ID!, $x: Boolean!) { space(spaceId: $id) { id title @include(if: $x) } }`, "", func(s string) map[string]any { return map[string]any{"id": s, "x": false} }, false},
		{"repeated field", `query($id: ID!) { space(spaceId: $id) { id id urls { app } urls { location } } }`, "", idVar, false},
		{"two root fields", `query($id: ID!) { space(spaceId: $id) { id } viewer { id } }`, "", idVar, false},
		{"unknown space", `query($id: ID!) { space(spaceId: $id) { id } }`, "", func(string) map[string]any { return map[string]any{"id": "nope"} }, false},
		{"a number for the id", `query($id: ID!) { space(spaceId: $id) { id } }`, "", func(string) map[string]any { return map[string]any{"id": 12} }, false},
		{"an extra variable", `query($id: ID!) { space(spaceId: $id) { id } }`, "", func(s string) map[string]any { return map[string]any{"id": s, "other": 1} }, false},
		{"invalid field", `query($id: ID!) { space(spaceId: $id) { nope } }`, "", idVar, false},
	}
	for _, c := range cases {
		for i, sp := range spaces {
			for _, tok := range []string{env.Admin.Token, reader} {
				body := map[string]any{"query": c.query}
				if c.vars != nil {
					body["variables"] = c.vars(sp)
				}
				if c.op != "" {
					body["operationName"] = c.op
				}
				first := post(env, tok, body, viaGQLGen...)
				before := env.Server.GraphQLFastAnswers()
				second := post(env, tok, body)
				fast := env.Server.GraphQLFastAnswers() - before
				if c.fast != (fast == 1) {
					t.Errorf("%s (space %d): answered by the fast path: %v, want %v", c.name, i, fast == 1, c.fast)
				}
				if first.Status != second.Status || first.Header.Get("Content-Type") != second.Header.Get("Content-Type") || !bytes.Equal(first.Body, second.Body) {
					t.Errorf("%s (space %d): answers differ:\n%d %s %s\n%d %s %s", c.name, i,
						first.Status, first.Header.Get("Content-Type"), first.Body, second.Status, second.Header.Get("Content-Type"), second.Body)
				}
				if c.fast && !json.Valid(second.Body) {
					t.Errorf("%s: invalid JSON %s", c.name, second.Body)
				}
			}
		}
	}

	// Organizations: the caller's own, with nulls and a reader's
	// permissions, and one with every optional field set.
	other, otherAdmin := env.NewOrg("Other <&>", "admin@other.test")
	env.Must(200, "PATCH", "/v1/orgs/"+other, otherAdmin.Token, map[string]any{"emailDomains": []string{"other.test", "b.example"},
		"hostname": "other-docs", "defaultRole": "edit", "logo": "https://example.com/logo.png", "ai": true, "sso": false})
	const orgAll = `object id title createdAt emailDomains hostname type useCase communityType defaultRole defaultContent { type site } sso ai inviteLinks plan urls { location app logo } trial { status } customHostname internal_isOnNewTrial permissions { view admin ownTeam createContent createOpenAPISpec ingestConversations viewBilling listMembers listTeams listIntegrations }`
	for _, c := range []struct {
		name, query string
		fast        bool
	}{
		{"organization, every field", `query($id: ID!) { organization(id: $id) { ` + orgAll + ` } }`, true},
		{"organization, aliases and fragments", `fragment P on OrganizationPermissions { admin __typename } query($id: ID!) { o: organization(id: $id) { d: emailDomains p: permissions { ...P } ... on Organization { __typename urls { app } } } }`, true},
		{"organization, a null object's fields", `query($id: ID!) { organization(id: $id) { defaultContent { __typename site } id } }`, true},
		{"organization with another argument shape", `query($id: ID!) { organization(id: $id) { id } viewer { id } }`, false},
	} {
		for _, who := range []struct{ org, tok string }{{env.Org, env.Admin.Token}, {env.Org, reader}, {other, otherAdmin.Token}} {
			body := map[string]any{"query": c.query, "variables": map[string]any{"id": who.org}}
			first := post(env, who.tok, body, viaGQLGen...)
			before := env.Server.GraphQLFastAnswers()
			second := post(env, who.tok, body)
			if fast := env.Server.GraphQLFastAnswers() - before; c.fast != (fast == 1) {
				t.Errorf("%s: answered by the fast path: %v, want %v", c.name, fast == 1, c.fast)
			}
			if first.Status != second.Status || !bytes.Equal(first.Body, second.Body) {
				t.Errorf("%s: answers differ:\n%d %s\n%d %s", c.name, first.Status, first.Body, second.Status, second.Body)
			}
		}
	}

	// A literal id, another Accept and persisted-query extensions.
	lit := `{ space(spaceId: "` + spaces[1] + `") { id title urls { icon } } }`
	first := post(env, reader, map[string]any{"query": lit}, viaGQLGen...)
	before := env.Server.GraphQLFastAnswers()
	second := post(env, reader, map[string]any{"query": lit})
	if env.Server.GraphQLFastAnswers() != before+1 || !bytes.Equal(first.Body, second.Body) {
		t.Errorf("literal id: %s then %s", first.Body, second.Body)
	}
	before = env.Server.GraphQLFastAnswers()
	third := post(env, reader, map[string]any{"query": lit}, "Accept", "application/graphql-response+json")
	if env.Server.GraphQLFastAnswers() != before || third.Header.Get("Content-Type") != "application/graphql-response+json" || !bytes.Equal(first.Body, third.Body) {
		t.Errorf("another Accept: %s %s", third.Header.Get("Content-Type"), third.Body)
	}
	post(env, reader, map[string]any{"query": lit, "extensions": map[string]any{"x": 1}})
	if env.Server.GraphQLFastAnswers() != before {
		t.Error("a request with extensions was answered by the fast path")
	}

	// A space the caller may not see: the same refusal both times.
	hidden := env.Must(201, "POST", "/v1/orgs/"+other+"/spaces", otherAdmin.Token, map[string]any{"title": "Hidden"}).JSON()["id"].(string)
	q := map[string]any{"query": `query($id: ID!) { space(spaceId: $id) { id } }`, "variables": map[string]any{"id": hidden}}
	a, b := post(env, reader, q, viaGQLGen...), post(env, reader, q)
	if !bytes.Equal(a.Body, b.Body) || !strings.Contains(string(b.Body), "NOT_FOUND") {
		t.Errorf("another organization's space: %s then %s", a.Body, b.Body)
	}
}

func idVar(s string) map[string]any { return map[string]any{"id": s} }

// FuzzGraphQLFastPath sends any query text (with the variable id set to a
// space) to gqlgen, then as a client does: the answers must be the same
// bytes, whichever path gave the second one.
func FuzzGraphQLFastPath(f *testing.F) {
	env, spaces, reader := fastEnv(f)
	for _, q := range []string{
		`query($id: ID!) { space(spaceId: $id) { id title urls { app } } }`,
		`query($id: ID!) { x: space(spaceId: $id) { __typename ... on Space { permissions { edit } } } }`,
		`fragment F on Space { parent deletedAt } query($id: ID!) { space(spaceId: $id) { ...F defaultLevel } }`,
		`{ space(spaceId: "` + spaces[1] + `") { emoji icon: urls { icon } } }`,
		`{ organization(id: "` + env.Org + `") { id emailDomains defaultContent { site } permissions { admin } } }`,
	} {
		f.Add(q, uint8(0))
	}
	f.Fuzz(func(t *testing.T, query string, which uint8) {
		env := *env // requests report to this run's t
		env.T = t
		sp := spaces[int(which)%len(spaces)]
		tok := env.Admin.Token
		if which%2 == 1 {
			tok = reader
		}
		body := map[string]any{"query": query, "variables": map[string]any{"id": sp}}
		a, b := post(&env, tok, body, viaGQLGen...), post(&env, tok, body)
		if a.Status != b.Status || a.Header.Get("Content-Type") != b.Header.Get("Content-Type") || !bytes.Equal(a.Body, b.Body) {
			t.Fatalf("answers differ for %q:\n%d %s\n%d %s", query, a.Status, a.Body, b.Status, b.Body)
		}
	})
}
