package rest_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"docsapi/apitest"
	"docsapi/graph"
)

func TestSpaceAndSiteInstallations(t *testing.T) {
	env := apitest.New(t)
	member := env.NewUser("create@acme.test", env.Org, "create")
	otherOrg, foreign := env.NewOrg("Other", "admin@other.test")
	_, third := env.NewOrg("Third", "admin@third.test")
	publish(env, env.Admin, "chat", env.Org, accountSchema)
	publish(env, env.Admin, "site-only", env.Org, map[string]any{"target": "site"})
	id := install(env, foreign, "chat", otherOrg)
	own := install(env, env.Admin, "chat", env.Org)
	sp1 := createSpaceAs(env, foreign.Token, otherOrg, nil)
	sp2 := createSpaceAs(env, foreign.Token, otherOrg, map[string]any{"title": "Second"})
	acme := createSpaceAs(env, env.Admin.Token, env.Org, nil)
	si1 := env.Must(201, "POST", "/v1/orgs/"+otherOrg+"/sites", foreign.Token, map[string]any{"title": "Help"}).JSON()["id"].(string)
	inst := "/v1/integrations/chat/installations/" + id
	env.Run(t, []apitest.Scenario{
		{Name: "install on a space", Method: "POST", Path: inst + "/spaces", Token: foreign.Token, Body: map[string]any{"space": sp1}, Status: 201,
			Check: func(r apitest.Response) {
				e := r.JSON()
				apitest.Keys(t, e, "integration", "installation", "status", "configuration", "externalIds", "urls", "space")
				apitest.Keys(t, e["urls"].(map[string]any), "location", "publicEndpoint")
				if e["space"] != sp1 || e["status"] != "pending" || e["installation"] != id || e["integration"] != "chat" {
					t.Errorf("space installation: %v", e)
				}
				if !strings.HasSuffix(r.Header.Get("Location"), inst+"/spaces/"+sp1) {
					t.Errorf("Location %q", r.Header.Get("Location"))
				}
			}},
		{Name: "twice", Method: "POST", Path: inst + "/spaces", Token: foreign.Token, Body: map[string]any{"space": sp1}, Status: 409},
		{Name: "without space", Method: "POST", Path: inst + "/spaces", Token: foreign.Token, Body: map[string]any{}, Status: 400, Contains: names("space")},
		{Name: "unknown space", Method: "POST", Path: inst + "/spaces", Token: foreign.Token, Body: map[string]any{"space": "nope"}, Status: 404, Contains: []string{"space not found"}},
		{Name: "space of another organization", Method: "POST", Path: inst + "/spaces", Token: foreign.Token, Body: map[string]any{"space": acme}, Status: 404, Contains: []string{"space not found"}},
		{Name: "without token", Method: "POST", Path: inst + "/spaces", Body: map[string]any{"space": sp2}, Status: 401},
		{Name: "owner admin may not install on others' spaces", Method: "POST", Path: inst + "/spaces", Token: env.Admin.Token, Body: map[string]any{"space": sp2}, Status: 403},
		{Name: "member below admin", Method: "POST", Path: "/v1/integrations/chat/installations/" + own + "/spaces", Token: member.Token, Body: map[string]any{"space": acme}, Status: 403, Contains: []string{"admin role on the space"}},
		{Name: "install on a site", Method: "POST", Path: inst + "/sites", Token: foreign.Token, Body: map[string]any{"site": si1}, Status: 201, Contains: []string{`"site":"` + si1 + `"`, `"status":"active"`}},
		{Name: "update space configuration", Method: "PATCH", Path: inst + "/spaces/" + sp1, Token: foreign.Token,
			Body: map[string]any{"configuration": map[string]any{"path": "/docs"}, "externalIds": []string{"repo-1"}}, Status: 200, Contains: []string{`"status":"active"`, "repo-1"}},
		{Name: "space configuration validated", Method: "PATCH", Path: inst + "/spaces/" + sp1, Token: foreign.Token, Body: map[string]any{"configuration": map[string]any{"token": "x"}}, Status: 400, Contains: names("configuration.token")},
		{Name: "owner admin updates", Method: "PATCH", Path: inst + "/spaces/" + sp1, Token: env.Admin.Token, Body: map[string]any{"externalIds": []string{"repo-1"}}, Status: 200},
		{Name: "get space installation (owner admin)", Method: "GET", Path: inst + "/spaces/" + sp1, Token: env.Admin.Token, Status: 200, Contains: []string{`"space":"` + sp1 + `"`}},
		{Name: "get, a member of the owner only", Method: "GET", Path: inst + "/spaces/" + sp1, Token: member.Token, Status: 403},
		{Name: "get, a stranger", Method: "GET", Path: inst + "/spaces/" + sp1, Token: third.Token, Status: 404},
		{Name: "space not installed", Method: "GET", Path: inst + "/spaces/" + sp2, Token: foreign.Token, Status: 404, Contains: []string{"space installation not found"}},
		{Name: "unknown space id", Method: "GET", Path: inst + "/spaces/nope", Token: foreign.Token, Status: 404, Contains: []string{"space not found"}},
		{Name: "installation's spaces", Method: "GET", Path: inst + "/spaces", Token: foreign.Token, Status: 200, Contains: []string{`"count":1`}},
		{Name: "installation's sites", Method: "GET", Path: inst + "/sites", Token: foreign.Token, Status: 200, Contains: []string{`"count":1`}},
		{Name: "integration spaces", Method: "GET", Path: "/v1/integrations/chat/spaces", Token: env.Admin.Token, Status: 200, Contains: []string{`"count":1`, `"space":"` + sp1 + `"`}},
		{Name: "integration spaces by external id", Method: "GET", Path: "/v1/integrations/chat/spaces?externalId=repo-1", Token: foreign.Token, Status: 200, Contains: []string{`"count":1`}},
		{Name: "integration spaces, other external id", Method: "GET", Path: "/v1/integrations/chat/spaces?externalId=repo-2", Token: foreign.Token, Status: 200, Contains: []string{`"count":0`}},
		{Name: "integration sites", Method: "GET", Path: "/v1/integrations/chat/sites", Token: foreign.Token, Status: 200, Contains: []string{`"count":1`, `"site":"` + si1 + `"`}},
		{Name: "extended=false", Method: "GET", Path: "/v1/integrations/chat/sites?extended=false", Token: foreign.Token, Status: 200},
		{Name: "extended not a boolean", Method: "GET", Path: "/v1/integrations/chat/spaces?extended=maybe", Token: foreign.Token, Status: 400, Contains: names("extended")},
		// space_selection all: the installation covers both spaces of its organization.
		{Name: "spaces count, all", Method: "GET", Path: inst, Token: foreign.Token, Status: 200, Contains: []string{`"spaces":2`}},
		{Name: "spaces count, selected", Method: "PATCH", Path: inst, Token: foreign.Token, Body: map[string]any{"space_selection": "selected"}, Status: 200, Contains: []string{`"spaces":1`}},
		{Name: "uninstall, owner admin", Method: "DELETE", Path: inst + "/spaces/" + sp1, Token: env.Admin.Token, Status: 403},
		{Name: "uninstall, a member of the owner only", Method: "DELETE", Path: inst + "/spaces/" + sp1, Token: member.Token, Status: 403},
		{Name: "uninstall, a stranger", Method: "DELETE", Path: inst + "/spaces/" + sp1, Token: third.Token, Status: 204},
		{Name: "uninstall from space", Method: "DELETE", Path: inst + "/spaces/" + sp1, Token: foreign.Token, Status: 205},
		{Name: "again", Method: "DELETE", Path: inst + "/spaces/" + sp1, Token: foreign.Token, Status: 204},
		{Name: "spaces count after", Method: "GET", Path: inst, Token: foreign.Token, Status: 200, Contains: []string{`"spaces":0`}},
		{Name: "uninstall from site", Method: "DELETE", Path: inst + "/sites/" + si1, Token: foreign.Token, Status: 205},
	})
	siteOnly := install(env, foreign, "site-only", otherOrg)
	env.Run(t, []apitest.Scenario{
		{Name: "target site refuses spaces", Method: "POST", Path: "/v1/integrations/site-only/installations/" + siteOnly + "/spaces", Token: foreign.Token, Body: map[string]any{"space": sp1}, Status: 400, Contains: names("space")},
		{Name: "target site takes sites", Method: "POST", Path: "/v1/integrations/site-only/installations/" + siteOnly + "/sites", Token: foreign.Token, Body: map[string]any{"site": si1}, Status: 201},
	})
	data := gqlData(t, env, foreign.Token, `{ integrationSiteInstallations(integrationName: "site-only") { count items { site status } } }`, nil)
	if data["integrationSiteInstallations"].(map[string]any)["count"] != 1.0 {
		t.Fatalf("graphql: %v", data)
	}
	// GraphQL parity of the refusals.
	q := `mutation($i: ID!, $s: ID!) { installIntegrationOnSpace(integrationName: "chat", installationId: $i, spaceId: $s) { space } }`
	gqlRefusal(t, env, foreign.Token, q, map[string]any{"i": id, "s": acme}, "NOT_FOUND", 404)
	gqlRefusal(t, env, member.Token, q, map[string]any{"i": own, "s": acme}, "FORBIDDEN", 403)
	data = gqlData(t, env, foreign.Token, `mutation($i: ID!, $s: ID!) { installIntegrationOnSpace(integrationName: "chat", installationId: $i, spaceId: $s) { space status } }`,
		map[string]any{"i": id, "s": sp2})
	if data["installIntegrationOnSpace"].(map[string]any)["space"] != sp2 {
		t.Fatalf("graphql: %v", data)
	}
}

// Space admins who are not organization admins manage installations on
// their spaces; members who see a space with a lower role get 403, those
// who cannot see it 404.
func TestSpaceInstallationByRoleOnTheSpace(t *testing.T) {
	env := apitest.New(t)
	editor := env.NewUser("edit@acme.test", env.Org, "edit")
	publish(env, env.Admin, "chat", env.Org, nil)
	id := install(env, env.Admin, "chat", env.Org)
	inst := "/v1/integrations/chat/installations/" + id
	shared := createSpaceAs(env, env.Admin.Token, env.Org, map[string]any{"title": "Shared"})
	granted := createSpaceAs(env, env.Admin.Token, env.Org, map[string]any{"title": "Granted"})
	hidden := createSpaceAs(env, env.Admin.Token, env.Org, map[string]any{"title": "Hidden"})
	env.Must(200, "PATCH", "/v1/spaces/"+hidden, env.Admin.Token, map[string]any{"defaultLevel": nil})
	gqlData(t, env, env.Admin.Token, `mutation($in: ContentGrantInput!) { grantContentRole(input: $in) { role } }`,
		map[string]any{"in": map[string]any{"space": granted, "user": editor.ID, "role": "ADMIN"}})
	env.Run(t, []apitest.Scenario{
		{Name: "editor of the space", Method: "POST", Path: inst + "/spaces", Token: editor.Token, Body: map[string]any{"space": shared}, Status: 403, Contains: []string{"admin role on the space"}},
		{Name: "space the editor cannot see", Method: "POST", Path: inst + "/spaces", Token: editor.Token, Body: map[string]any{"space": hidden}, Status: 404, Contains: []string{"space not found"}},
		{Name: "admin of the space installs", Method: "POST", Path: inst + "/spaces", Token: editor.Token, Body: map[string]any{"space": granted}, Status: 201},
		{Name: "reads it", Method: "GET", Path: inst + "/spaces/" + granted, Token: editor.Token, Status: 200},
		{Name: "updates it", Method: "PATCH", Path: inst + "/spaces/" + granted, Token: editor.Token, Body: map[string]any{"externalIds": []string{"e"}}, Status: 200},
		{Name: "but not the installation itself", Method: "GET", Path: inst, Token: editor.Token, Status: 403},
		{Name: "organization admin installs anywhere", Method: "POST", Path: inst + "/spaces", Token: env.Admin.Token, Body: map[string]any{"space": hidden}, Status: 201},
		{Name: "editor cannot read that one", Method: "GET", Path: inst + "/spaces/" + hidden, Token: editor.Token, Status: 404},
		{Name: "editor cannot uninstall it", Method: "DELETE", Path: inst + "/spaces/" + hidden, Token: editor.Token, Status: 204},
		{Name: "admin of the space uninstalls", Method: "DELETE", Path: inst + "/spaces/" + granted, Token: editor.Token, Status: 205},
	})
}

// Space installations follow their space: hidden while it is in the trash,
// back with a restore, gone (with an event) when it is purged or leaves the
// organization.
func TestSpaceInstallationsFollowTheirSpace(t *testing.T) {
	env := apitest.New(t)
	otherOrg, foreign := env.NewOrg("Other", "admin@other.test")
	env.Must(200, "POST", "/v1/orgs/"+otherOrg+"/invites", foreign.Token, map[string]any{"emails": []any{map[string]any{"email": env.Admin.Email, "role": "admin"}}})
	publish(env, env.Admin, "chat", env.Org, nil)
	id := install(env, env.Admin, "chat", env.Org)
	inst := "/v1/integrations/chat/installations/" + id
	installOn := func(space string) {
		env.Must(201, "POST", inst+"/spaces", env.Admin.Token, map[string]any{"space": space})
	}
	env.Must(200, "PATCH", inst, env.Admin.Token, map[string]any{"space_selection": "selected"})
	trashed, moved := createSpaceAs(env, env.Admin.Token, env.Org, nil), createSpaceAs(env, env.Admin.Token, env.Org, nil)
	col := env.Must(201, "POST", "/v1/orgs/"+env.Org+"/collections", env.Admin.Token, map[string]any{"title": "Guides"}).JSON()["id"].(string)
	inCol := createSpaceAs(env, env.Admin.Token, env.Org, map[string]any{"title": "In a collection", "parent": col})
	for _, s := range []string{trashed, moved, inCol} {
		installOn(s)
	}
	count := func(want string) {
		t.Helper()
		if r := env.Must(200, "GET", inst, env.Admin.Token, nil); !strings.Contains(string(r.Body), `"spaces":`+want) {
			t.Fatalf("installation: %s, want spaces %s", r.Body, want)
		}
		if r := env.Must(200, "GET", "/v1/integrations/chat/spaces", env.Admin.Token, nil); !strings.Contains(string(r.Body), `"count":`+want) {
			t.Fatalf("integration spaces: %s, want count %s", r.Body, want)
		}
	}
	count("3")

	env.Must(205, "DELETE", "/v1/spaces/"+trashed, env.Admin.Token, nil)
	count("2")
	env.Must(404, "GET", inst+"/spaces/"+trashed, env.Admin.Token, nil)
	env.Must(404, "PATCH", inst+"/spaces/"+trashed, env.Admin.Token, map[string]any{"externalIds": []string{}})
	env.Must(404, "POST", inst+"/spaces", env.Admin.Token, map[string]any{"space": trashed})
	env.Must(200, "POST", "/v1/spaces/"+trashed+"/restore", env.Admin.Token, nil)
	count("3")

	env.Must(205, "DELETE", "/v1/spaces/"+trashed, env.Admin.Token, nil)
	env.Clock.Advance(graph.TrashRetention + 1)
	if n, err := env.Server.Resolver.PurgeTrash(context.Background()); err != nil || n != 1 {
		t.Fatalf("purge: %d %v", n, err)
	}
	count("2")
	if n := countRows(t, env, "integration_target_installations"); n != 2 {
		t.Fatalf("%d space installations, want 2: one outlived its space", n)
	}

	env.Must(200, "POST", "/v1/spaces/"+moved+"/transfer", env.Admin.Token, map[string]any{"organization": otherOrg})
	count("1")
	env.Must(200, "POST", "/v1/collections/"+col+"/transfer", env.Admin.Token, map[string]any{"organization": otherOrg})
	count("0")
	if n := countRows(t, env, "integration_target_installations"); n != 0 {
		t.Fatalf("%d space installations outlived the transfers", n)
	}

	var deleted []string
	for _, e := range events(env, env.Admin, "chat") {
		if p := e["payload"].(map[string]any); p["type"] == "space_installation_deleted" {
			deleted = append(deleted, p["spaceId"].(string))
			if p["installationId"] != id || p["previous"] == nil {
				t.Errorf("event: %v", p)
			}
		}
	}
	if got := strings.Join(deleted, ","); got != strings.Join([]string{inCol, moved, trashed}, ",") {
		t.Fatalf("space_installation_deleted for %s, want %s", got, strings.Join([]string{inCol, moved, trashed}, ","))
	}
	// The spaces now in the other organization are free to install there.
	other := install(env, foreign, "chat", otherOrg)
	env.Must(201, "POST", "/v1/integrations/chat/installations/"+other+"/spaces", foreign.Token, map[string]any{"space": moved})
}

func TestExtendedSpaceInstallations(t *testing.T) {
	env := apitest.New(t)
	editor := env.NewUser("edit@acme.test", env.Org, "edit")
	otherOrg, foreign := env.NewOrg("Other", "admin@other.test")
	publish(env, env.Admin, "chat", env.Org, nil)
	own := install(env, env.Admin, "chat", env.Org)
	elsewhere := install(env, foreign, "chat", otherOrg)
	mine := createSpaceAs(env, env.Admin.Token, env.Org, map[string]any{"title": "Mine"})
	theirs := createSpaceAs(env, foreign.Token, otherOrg, map[string]any{"title": "Theirs"})
	env.Must(201, "POST", "/v1/integrations/chat/installations/"+own+"/spaces", env.Admin.Token, map[string]any{"space": mine})
	env.Must(201, "POST", "/v1/integrations/chat/installations/"+elsewhere+"/spaces", foreign.Token, map[string]any{"space": theirs})
	bySpace := func(r apitest.Response) map[string]map[string]any {
		out := map[string]map[string]any{}
		for _, e := range items(t, r) {
			switch s := e["space"].(type) {
			case string:
				out[s] = e
			case map[string]any:
				out[s["id"].(string)] = e
			}
		}
		return out
	}
	env.Run(t, []apitest.Scenario{
		{Name: "owner admin: own organization's space expanded, the other's an id", Method: "GET", Path: "/v1/integrations/chat/spaces?extended=true", Token: env.Admin.Token, Status: 200,
			Check: func(r apitest.Response) {
				got := bySpace(r)
				apitest.Keys(t, got[mine], "integration", "installation", "status", "configuration", "externalIds", "urls", "space")
				want := env.Must(200, "GET", "/v1/spaces/"+mine, env.Admin.Token, nil).JSON()
				sameJSON(t, "expanded space", got[mine]["space"], want)
				if got[theirs]["space"] != theirs {
					t.Errorf("another organization's space: %v", got[theirs]["space"])
				}
			}},
		{Name: "installer: their space with their permissions", Method: "GET", Path: "/v1/integrations/chat/spaces?extended=true", Token: foreign.Token, Status: 200,
			Check: func(r apitest.Response) {
				got := bySpace(r)
				want := env.Must(200, "GET", "/v1/spaces/"+theirs, foreign.Token, nil).JSON()
				if len(got) != 1 {
					t.Fatalf("items: %v", got)
				}
				sameJSON(t, "expanded space", got[theirs]["space"], want)
			}},
		{Name: "not extended: ids", Method: "GET", Path: "/v1/integrations/chat/spaces", Token: env.Admin.Token, Status: 200, Contains: []string{`"space":"` + mine + `"`, `"space":"` + theirs + `"`}},
		{Name: "extended with externalId", Method: "GET", Path: "/v1/integrations/chat/spaces?extended=true&externalId=none", Token: env.Admin.Token, Status: 200, Contains: []string{`"count":0`}},
		{Name: "a member below admin sees none", Method: "GET", Path: "/v1/integrations/chat/spaces?extended=true", Token: editor.Token, Status: 200, Contains: []string{`"count":0`}},
		{Name: "without token", Method: "GET", Path: "/v1/integrations/chat/spaces?extended=true", Status: 401},
		{Name: "unknown integration", Method: "GET", Path: "/v1/integrations/nope/spaces?extended=true", Token: env.Admin.Token, Status: 404},
	})
	// Paging keeps the expansion per page.
	r := env.Must(200, "GET", "/v1/integrations/chat/spaces?extended=true&limit=1", env.Admin.Token, nil)
	if len(items(t, r)) != 1 || !strings.Contains(string(r.Body), `"next"`) {
		t.Fatalf("page: %s", r.Body)
	}
	data := gqlData(t, env, env.Admin.Token, `{ integrationSpaceInstallations(integrationName: "chat", extended: true) { count items { space spaceObject { id title permissions { admin } } } } }`, nil)
	objects := map[string]any{}
	for _, it := range data["integrationSpaceInstallations"].(map[string]any)["items"].([]any) {
		e := it.(map[string]any)
		objects[e["space"].(string)] = e["spaceObject"]
	}
	if o, _ := objects[mine].(map[string]any); o == nil || o["id"] != mine || o["permissions"].(map[string]any)["admin"] != true {
		t.Errorf("graphql spaceObject of %s: %v", mine, objects[mine])
	}
	if objects[theirs] != nil {
		t.Errorf("graphql spaceObject of another organization's space: %v", objects[theirs])
	}
	data = gqlData(t, env, env.Admin.Token, `{ integrationSpaceInstallations(integrationName: "chat") { items { spaceObject { id } } } }`, nil)
	for _, it := range data["integrationSpaceInstallations"].(map[string]any)["items"].([]any) {
		if it.(map[string]any)["spaceObject"] != nil {
			t.Errorf("spaceObject without extended: %v", it)
		}
	}
}

// Installation tokens are judged by their integration's scopes on spaces
// and OpenAPI specs, never by the role of the user who minted them.
func TestInstallationTokenScopes(t *testing.T) {
	env := apitest.New(t)
	publish(env, env.Admin, "none", env.Org, map[string]any{"scopes": []string{"space:content:read"}})
	publish(env, env.Admin, "reader", env.Org, map[string]any{"scopes": []string{"space:metadata:read", "openapi:read", "site:metadata:read"}})
	publish(env, env.Admin, "writer", env.Org, map[string]any{"scopes": []string{"space:metadata:write", "openapi:write"}})
	otherOrg, foreign := env.NewOrg("Other", "admin@other.test")
	s1 := createSpaceAs(env, env.Admin.Token, env.Org, map[string]any{"title": "One"})
	s2 := createSpaceAs(env, env.Admin.Token, env.Org, map[string]any{"title": "Two"})
	elsewhere := createSpaceAs(env, foreign.Token, otherOrg, nil)
	env.Must(201, "POST", "/v1/orgs/"+env.Org+"/openapi", env.Admin.Token, map[string]any{"slug": "pets", "source": map[string]any{"text": "openapi: 3.1.0"}})
	site := env.Must(201, "POST", "/v1/orgs/"+env.Org+"/sites", env.Admin.Token, map[string]any{"title": "Docs", "spaces": []string{s1}}).JSON()["id"].(string)
	// env.Admin administrates the organization and mints the tokens: the
	// tokens still get only what their scopes say.
	token := func(name string) (string, string) {
		id := install(env, env.Admin, name, env.Org)
		return id, env.Must(200, "POST", "/v1/integrations/"+name+"/installations/"+id+"/tokens", env.Admin.Token, nil).JSON()["token"].(string)
	}
	_, none := token("none")
	readerID, reader := token("reader")
	_, writer := token("writer")
	org := "/v1/orgs/" + env.Org
	env.Run(t, []apitest.Scenario{
		{Name: "no scope: space", Method: "GET", Path: "/v1/spaces/" + s1, Token: none, Status: 403, Contains: []string{"space:metadata:read"}},
		{Name: "no scope: spaces", Method: "GET", Path: org + "/spaces", Token: none, Status: 403},
		{Name: "no scope: change a space", Method: "PATCH", Path: "/v1/spaces/" + s1, Token: none, Body: map[string]any{"title": "X"}, Status: 403},
		{Name: "no scope: delete a space (whatever the minter's role)", Method: "DELETE", Path: "/v1/spaces/" + s1, Token: none, Status: 403},
		{Name: "no scope: specs", Method: "GET", Path: org + "/openapi", Token: none, Status: 403, Contains: []string{"openapi:read"}},
		{Name: "no scope: a spec", Method: "GET", Path: org + "/openapi/pets", Token: none, Status: 403},
		{Name: "no scope: extended list", Method: "GET", Path: "/v1/integrations/none/spaces?extended=true", Token: none, Status: 403},
		{Name: "no scope: sites", Method: "GET", Path: org + "/sites", Token: none, Status: 403, Contains: []string{"site:metadata:read"}},
		{Name: "no scope: a site", Method: "GET", Path: org + "/sites/" + site, Token: none, Status: 403},
		{Name: "no scope: a site's structure", Method: "GET", Path: org + "/sites/" + site + "/site-spaces", Token: none, Status: 403},
		{Name: "no scope: plain list of its space installations", Method: "GET", Path: "/v1/integrations/none/spaces", Token: none, Status: 200, Contains: []string{`"count":0`}},

		{Name: "read: a space", Method: "GET", Path: "/v1/spaces/" + s1, Token: reader, Status: 200, Contains: []string{`"id":"` + s1 + `"`, `"admin":false`}},
		{Name: "read: every space (selection all)", Method: "GET", Path: org + "/spaces", Token: reader, Status: 200, Contains: []string{`"count":2`}},
		{Name: "read: no collections", Method: "GET", Path: org + "/collections", Token: reader, Status: 200, Contains: []string{`"count":0`}},
		{Name: "read: other organizations do not exist", Method: "GET", Path: "/v1/spaces/" + elsewhere, Token: reader, Status: 404},
		{Name: "read: cannot change", Method: "PATCH", Path: "/v1/spaces/" + s1, Token: reader, Body: map[string]any{"title": "X"}, Status: 403, Contains: []string{"space:metadata:write"}},
		{Name: "read: cannot delete", Method: "DELETE", Path: "/v1/spaces/" + s1, Token: reader, Status: 403},
		{Name: "read: cannot create", Method: "POST", Path: org + "/spaces", Token: reader, Body: map[string]any{"title": "X"}, Status: 403},
		{Name: "read: specs", Method: "GET", Path: org + "/openapi", Token: reader, Status: 200, Contains: []string{`"count":1`}},
		{Name: "read: a spec", Method: "GET", Path: org + "/openapi/pets", Token: reader, Status: 200, Contains: []string{`"edit":false`}},
		{Name: "read: cannot write specs", Method: "POST", Path: org + "/openapi", Token: reader, Body: map[string]any{"slug": "x", "source": map[string]any{"text": "openapi: 3.1.0"}}, Status: 403, Contains: []string{"openapi:write"}},
		{Name: "read: sites", Method: "GET", Path: org + "/sites", Token: reader, Status: 200, Contains: []string{`"count":1`}},
		{Name: "read: a site", Method: "GET", Path: org + "/sites/" + site, Token: reader, Status: 200, Contains: []string{`"id":"` + site + `"`}},
		{Name: "read: a site's spaces", Method: "GET", Path: org + "/sites/" + site + "/site-spaces", Token: reader, Status: 200},
		{Name: "read: cannot change a site", Method: "PATCH", Path: org + "/sites/" + site, Token: reader, Body: map[string]any{"title": "Other"}, Status: 403},
		{Name: "read: cannot publish", Method: "POST", Path: org + "/sites/" + site + "/publish", Token: reader, Status: 403},
		{Name: "read: cannot delete specs", Method: "DELETE", Path: org + "/openapi/pets", Token: reader, Status: 403},

		{Name: "write: changes a space", Method: "PATCH", Path: "/v1/spaces/" + s1, Token: writer, Body: map[string]any{"title": "Renamed"}, Status: 200, Contains: []string{`"title":"Renamed"`}},
		{Name: "write: reads too", Method: "GET", Path: "/v1/spaces/" + s2, Token: writer, Status: 200},
		{Name: "write: validation still applies", Method: "PATCH", Path: "/v1/spaces/" + s1, Token: writer, Body: map[string]any{"title": ""}, Status: 400, Contains: names("title")},
		{Name: "write: cannot delete", Method: "DELETE", Path: "/v1/spaces/" + s1, Token: writer, Status: 403},
		{Name: "write: cannot move", Method: "POST", Path: "/v1/spaces/" + s1 + "/move", Token: writer, Body: map[string]any{"parent": nil}, Status: 403},
		{Name: "write: creates a spec", Method: "POST", Path: org + "/openapi", Token: writer, Body: map[string]any{"slug": "store", "source": map[string]any{"text": "openapi: 3.1.0"}}, Status: 201, Contains: []string{`"edit":true`}},
		{Name: "write: reads specs", Method: "GET", Path: org + "/openapi/store", Token: writer, Status: 200},
		{Name: "write: deletes a spec", Method: "DELETE", Path: org + "/openapi/store", Token: writer, Status: 205},
	})
	// With space_selection selected the token reaches only the spaces its
	// installation is installed on.
	inst := "/v1/integrations/reader/installations/" + readerID
	env.Must(200, "PATCH", inst, env.Admin.Token, map[string]any{"space_selection": "selected"})
	env.Must(201, "POST", inst+"/spaces", env.Admin.Token, map[string]any{"space": s2})
	env.Run(t, []apitest.Scenario{
		{Name: "selected: not installed there", Method: "GET", Path: "/v1/spaces/" + s1, Token: reader, Status: 404},
		{Name: "selected: installed there", Method: "GET", Path: "/v1/spaces/" + s2, Token: reader, Status: 200},
		{Name: "selected: list", Method: "GET", Path: org + "/spaces", Token: reader, Status: 200, Contains: []string{`"count":1`, s2}},
		{Name: "selected: extended list of its own", Method: "GET", Path: "/v1/integrations/reader/spaces?extended=true", Token: reader, Status: 200, Contains: []string{`"title":"Two"`}},
	})
	// GraphQL gives the same refusals.
	gqlRefusal(t, env, none, `query($id: ID!) { space(spaceId: $id) { id } }`, map[string]any{"id": s1}, "FORBIDDEN", 403)
	gqlRefusal(t, env, reader, `mutation($id: ID!) { updateSpace(spaceId: $id, input: {title: "X"}) { id } }`, map[string]any{"id": s2}, "FORBIDDEN", 403)
	data := gqlData(t, env, writer, `mutation($id: ID!) { updateSpace(spaceId: $id, input: {title: "Again"}) { title } }`, map[string]any{"id": s1})
	if data["updateSpace"].(map[string]any)["title"] != "Again" {
		t.Fatalf("graphql: %v", data)
	}
	gqlRefusal(t, env, none, `query($o: ID!) { openAPISpecs(organizationId: $o) { count } }`, map[string]any{"o": env.Org}, "FORBIDDEN", 403)
}

// The served description gives space (site) as an id or a Space (Site),
// and says what extended does for spaces and sites.
func TestSpaceInstallationDescription(t *testing.T) {
	env := apitest.New(t)
	var doc struct {
		Paths      map[string]map[string]struct{ Parameters []map[string]any } `json:"paths"`
		Components struct {
			Schemas map[string]struct {
				Properties map[string]map[string]any `json:"properties"`
				Required   []string                  `json:"required"`
			} `json:"schemas"`
		} `json:"components"`
	}
	env.Must(200, "GET", "/v1/openapi.json", env.Admin.Token, nil).Decode(t, &doc)
	s := doc.Components.Schemas["IntegrationSpaceInstallation"]
	if _, ok := s.Properties["spaceObject"]; ok {
		t.Errorf("spaceObject is GraphQL's: %v", s.Properties)
	}
	space, _ := json.Marshal(s.Properties["space"])
	if !strings.Contains(string(space), `"$ref":"#/components/schemas/Space"`) || !strings.Contains(string(space), `"type":"string"`) {
		t.Errorf("space: %s", space)
	}
	s = doc.Components.Schemas["IntegrationSiteInstallation"]
	if _, ok := s.Properties["siteObject"]; ok {
		t.Errorf("siteObject is GraphQL's: %v", s.Properties)
	}
	site, _ := json.Marshal(s.Properties["site"])
	if !strings.Contains(string(site), `"$ref":"#/components/schemas/Site"`) || !strings.Contains(string(site), `"type":"string"`) {
		t.Errorf("site: %s", site)
	}
	for path, want := range map[string]string{"/integrations/{integrationName}/spaces": "whole space", "/integrations/{integrationName}/sites": "whole site"} {
		found := false
		for _, p := range doc.Paths[path]["get"].Parameters {
			if p["name"] == "extended" {
				found = strings.Contains(p["description"].(string), want)
			}
		}
		if !found {
			t.Errorf("%s: extended parameter should say %q", path, want)
		}
	}
}
