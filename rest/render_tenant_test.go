package rest_test

import (
	"strings"
	"testing"

	"docsapi/apitest"
)

// TestRenderContextTenant: a render goes to the runtime only for a context
// the caller may act in and where the integration is installed. Development
// mode forwards every organization's renders (all=true), so the context
// check is the only thing between a caller and another organization.
func TestRenderContextTenant(t *testing.T) {
	env := apitest.New(t)
	otherOrg, foreign := env.NewOrg("Other", "admin@other.test")
	publish(env, env.Admin, "chat", env.Org, nil)
	rc := newReceiver(t, env)
	rc.answer = `{"type":"complete","returnValue":{}}`
	rc.devMode(env.Admin, "chat", true)
	inst := "/v1/integrations/chat/installations/" + install(env, env.Admin, "chat", env.Org)
	// Selected spaces and sites only: the integration covers only those it is installed on.
	env.Must(200, "PATCH", inst, env.Admin.Token, map[string]any{"space_selection": "selected", "site_selection": "selected"})
	drain(t, env)
	space := createSpaceAs(env, env.Admin.Token, env.Org, nil)
	site := env.Must(201, "POST", "/v1/orgs/"+env.Org+"/sites", env.Admin.Token, map[string]any{"title": "Docs"}).JSON()["id"].(string)
	foreignSpace := createSpaceAs(env, foreign.Token, otherOrg, nil)
	reader := env.NewUser("reader@example.com", env.Org, "read")

	// A ContentKit context of the type that fits the ids it names (each type
	// requires its own id, and a theme).
	contextOf := func(ctxt map[string]any) map[string]any {
		switch {
		case ctxt["spaceId"] != nil:
			ctxt["type"] = "configuration_space"
		case ctxt["siteId"] != nil:
			ctxt["type"] = "configuration_site"
		default:
			ctxt["type"] = "configuration_account"
		}
		ctxt["theme"] = "light"
		return ctxt
	}
	render := func(ctxt map[string]any) string {
		contextOf(ctxt)
		return "/v1/integrations/chat/render?request=" + compress(t, map[string]any{"componentId": "c", "props": map[string]any{}, "context": ctxt})
	}
	gql := func(token string, ctxt map[string]any) string {
		contextOf(ctxt)
		_, errs := env.GraphQL(token, `query($r: String!) { renderIntegrationUI(integrationName: "chat", request: $r) { output } }`,
			map[string]any{"r": compress(t, map[string]any{"componentId": "c", "props": map[string]any{}, "context": ctxt})})
		if len(errs) == 0 {
			return ""
		}
		return errs[0].Code()
	}
	before := rc.count()
	refused := []struct {
		name   string
		token  string
		ctxt   map[string]any
		status int
	}{
		{"another organization's id", foreign.Token, map[string]any{"organizationId": env.Org}, 404},
		{"another organization's space", foreign.Token, map[string]any{"spaceId": space}, 404},
		{"another organization's site", foreign.Token, map[string]any{"siteId": site}, 404},
		{"own organization with another's space", foreign.Token, map[string]any{"organizationId": otherOrg, "spaceId": space}, 404},
		{"another organization with own space", env.Admin.Token, map[string]any{"organizationId": otherOrg, "spaceId": space}, 404},
		{"unknown organization", env.Admin.Token, map[string]any{"organizationId": "nope"}, 404},
		{"unknown space", env.Admin.Token, map[string]any{"spaceId": "nope"}, 404},
		{"unknown site", env.Admin.Token, map[string]any{"siteId": "nope"}, 404},
		{"not installed in the caller's organization", foreign.Token, map[string]any{"organizationId": otherOrg}, 404},
		{"not installed on the space", env.Admin.Token, map[string]any{"spaceId": space}, 404},
		{"not installed on the site", env.Admin.Token, map[string]any{"siteId": site}, 404},
		{"an id that is not a string", env.Admin.Token, map[string]any{"organizationId": 42}, 400},
	}
	for _, c := range refused {
		t.Run(c.name, func(t *testing.T) {
			r := env.Do("GET", render(c.ctxt), c.token, nil)
			if r.Status != c.status {
				t.Fatalf("REST: %d %s, want %d", r.Status, r.Body, c.status)
			}
			want := map[int]string{404: "NOT_FOUND", 400: "BAD_REQUEST"}[c.status]
			if code := gql(c.token, c.ctxt); code != want {
				t.Fatalf("GraphQL: %q, want %q", code, want)
			}
		})
	}
	// An oversized request is refused before it is decompressed.
	if r := env.Do("GET", "/v1/integrations/chat/render?request="+strings.Repeat("A", 4097), env.Admin.Token, nil); r.Status != 400 || !strings.Contains(string(r.Body), "request: is longer than 4096") {
		t.Fatalf("oversized request: %d %s", r.Status, r.Body)
	}
	if rc.count() != before {
		t.Fatalf("a refused render reached the runtime: %v", rc.got[before:])
	}

	// Allowed: the caller's own organization, a space and site it sees where
	// the integration is installed.
	env.Must(200, "GET", render(map[string]any{"organizationId": env.Org}), env.Admin.Token, nil)
	env.Must(200, "GET", render(map[string]any{"organizationId": env.Org}), reader.Token, nil)
	env.Must(201, "POST", inst+"/spaces", env.Admin.Token, map[string]any{"space": space})
	env.Must(201, "POST", inst+"/sites", env.Admin.Token, map[string]any{"site": site})
	drain(t, env)
	env.Must(200, "GET", render(map[string]any{"spaceId": space}), env.Admin.Token, nil)
	env.Must(200, "GET", render(map[string]any{"organizationId": env.Org, "siteId": site}), env.Admin.Token, nil)
	if code := gql(env.Admin.Token, map[string]any{"spaceId": space}); code != "" {
		t.Fatalf("GraphQL render for an installed space: %s", code)
	}
	// Still nothing for the other organization's admin, and once installed
	// there, only for the other organization's own resources.
	install(env, foreign, "chat", otherOrg)
	drain(t, env)
	env.Must(404, "GET", render(map[string]any{"spaceId": space}), foreign.Token, nil)
	env.Must(200, "GET", render(map[string]any{"spaceId": foreignSpace}), foreign.Token, nil) // space_selection "all" by default covers it
	sent := rc.count()
	env.Must(200, "GET", render(map[string]any{"organizationId": otherOrg}), foreign.Token, nil)
	if got := rc.got[sent]; got["context"].(map[string]any)["organizationId"] != otherOrg || got["auth"].(map[string]any)["userId"] != foreign.ID {
		t.Fatalf("render sent: %v", got)
	}
}
