package rest_test

import (
	"strings"
	"testing"

	"docsapi/apitest"
	"docsapi/storage"
)

// Site installations name real sites of the installation's organization;
// members act by their organization role (ADMIN administrates sites), the
// owner's admins and the installation's tokens read and update.
func TestSiteInstallations(t *testing.T) {
	env := apitest.New(t)
	creator := env.NewUser("create@acme.test", env.Org, "create")
	reader := env.NewUser("read@acme.test", env.Org, "read")
	guest := env.NewUser("guest@acme.test", env.Org, "guest")
	otherOrg, foreign := env.NewOrg("Other", "admin@other.test")
	_, third := env.NewOrg("Third", "admin@third.test")
	publish(env, env.Admin, "chat", env.Org, map[string]any{"configurations": map[string]any{
		"site": map[string]any{"properties": map[string]any{"theme": map[string]any{"type": "string", "enum": []string{"dark", "light"}}}, "required": []string{"theme"}}}})
	own := install(env, env.Admin, "chat", env.Org)
	elsewhere := install(env, foreign, "chat", otherOrg)
	site := env.Must(201, "POST", "/v1/orgs/"+env.Org+"/sites", env.Admin.Token, map[string]any{"title": "Docs"}).JSON()["id"].(string)
	spare := env.Must(201, "POST", "/v1/orgs/"+env.Org+"/sites", env.Admin.Token, map[string]any{"title": "Spare"}).JSON()["id"].(string)
	theirs := env.Must(201, "POST", "/v1/orgs/"+otherOrg+"/sites", foreign.Token, map[string]any{"title": "Theirs"}).JSON()["id"].(string)
	inst := "/v1/integrations/chat/installations/" + own
	other := "/v1/integrations/chat/installations/" + elsewhere
	token := env.Must(200, "POST", inst+"/tokens", env.Admin.Token, nil).JSON()["token"].(string)
	env.Run(t, []apitest.Scenario{
		{Name: "install on a site", Method: "POST", Path: inst + "/sites", Token: env.Admin.Token, Body: map[string]any{"siteId": site}, Status: 201,
			Check: func(r apitest.Response) {
				e := r.JSON()
				apitest.Keys(t, e, "integration", "installation", "status", "configuration", "externalIds", "urls", "site")
				if e["site"] != site || e["status"] != "pending" || e["installation"] != own {
					t.Errorf("site installation: %v", e)
				}
				if !strings.HasSuffix(r.Header.Get("Location"), inst+"/sites/"+site) {
					t.Errorf("Location %q", r.Header.Get("Location"))
				}
			}},
		{Name: "twice", Method: "POST", Path: inst + "/sites", Token: env.Admin.Token, Body: map[string]any{"site": site}, Status: 409},
		{Name: "without siteId", Method: "POST", Path: inst + "/sites", Token: env.Admin.Token, Body: map[string]any{}, Status: 400, Contains: names("siteId")},
		{Name: "without token", Method: "POST", Path: inst + "/sites", Body: map[string]any{"site": spare}, Status: 401},
		{Name: "unknown site", Method: "POST", Path: inst + "/sites", Token: env.Admin.Token, Body: map[string]any{"site": "nope"}, Status: 404, Contains: []string{"site not found"}},
		{Name: "site of another organization", Method: "POST", Path: inst + "/sites", Token: env.Admin.Token, Body: map[string]any{"site": theirs}, Status: 404, Contains: []string{"site not found"}},
		{Name: "member below admin", Method: "POST", Path: inst + "/sites", Token: creator.Token, Body: map[string]any{"site": spare}, Status: 403, Contains: []string{"admin role in the organization"}},
		{Name: "guests do not see sites", Method: "POST", Path: inst + "/sites", Token: guest.Token, Body: map[string]any{"site": spare}, Status: 404, Contains: []string{"site not found"}},
		{Name: "a stranger", Method: "POST", Path: inst + "/sites", Token: third.Token, Body: map[string]any{"site": spare}, Status: 404},
		{Name: "reader cannot read it", Method: "GET", Path: inst + "/sites/" + site, Token: reader.Token, Status: 403},
		{Name: "creator cannot update it", Method: "PATCH", Path: inst + "/sites/" + site, Token: creator.Token, Body: map[string]any{"externalIds": []string{"x"}}, Status: 403},
		{Name: "unknown site on read", Method: "GET", Path: inst + "/sites/nope", Token: env.Admin.Token, Status: 404, Contains: []string{"site not found"}},
		{Name: "site not installed", Method: "GET", Path: inst + "/sites/" + spare, Token: env.Admin.Token, Status: 404, Contains: []string{"site installation not found"}},
		{Name: "configuration validated against the site schema", Method: "PATCH", Path: inst + "/sites/" + site, Token: env.Admin.Token,
			Body: map[string]any{"configuration": map[string]any{"theme": "pink"}}, Status: 400, Contains: names("configuration.theme")},
		{Name: "update", Method: "PATCH", Path: inst + "/sites/" + site, Token: env.Admin.Token,
			Body: map[string]any{"configuration": map[string]any{"theme": "dark"}, "externalIds": []string{"web-1"}}, Status: 200, Contains: []string{`"status":"active"`, "web-1"}},
		{Name: "the installation's token reads", Method: "GET", Path: inst + "/sites/" + site, Token: token, Status: 200, Contains: []string{`"theme":"dark"`}},
		{Name: "the installation's token updates", Method: "PATCH", Path: inst + "/sites/" + site, Token: token, Body: map[string]any{"externalIds": []string{"web-2"}}, Status: 200},
		{Name: "the installation's token cannot uninstall", Method: "DELETE", Path: inst + "/sites/" + site, Token: token, Status: 204},
		{Name: "the installer elsewhere", Method: "POST", Path: other + "/sites", Token: foreign.Token, Body: map[string]any{"site": theirs}, Status: 201},
		{Name: "owner admin reads another organization's", Method: "GET", Path: other + "/sites/" + theirs, Token: env.Admin.Token, Status: 200},
		{Name: "owner admin updates it", Method: "PATCH", Path: other + "/sites/" + theirs, Token: env.Admin.Token, Body: map[string]any{"externalIds": []string{"o"}}, Status: 200},
		{Name: "owner admin may not install there", Method: "POST", Path: other + "/sites", Token: env.Admin.Token, Body: map[string]any{"site": theirs}, Status: 403},
		{Name: "owner admin may not uninstall there", Method: "DELETE", Path: other + "/sites/" + theirs, Token: env.Admin.Token, Status: 403},
		{Name: "integration sites by external id", Method: "GET", Path: "/v1/integrations/chat/sites?externalId=web-2", Token: env.Admin.Token, Status: 200, Contains: []string{`"count":1`, `"site":"` + site + `"`}},
	})
	// GraphQL gives the same refusals.
	q := `mutation($i: ID!, $s: ID!) { installIntegrationOnSite(integrationName: "chat", installationId: $i, siteId: $s) { site } }`
	gqlRefusal(t, env, creator.Token, q, map[string]any{"i": own, "s": spare}, "FORBIDDEN", 403)
	gqlRefusal(t, env, env.Admin.Token, q, map[string]any{"i": own, "s": theirs}, "NOT_FOUND", 404)

	// Deleting a site uninstalls from it, with an event, in the same transaction.
	env.Must(201, "POST", inst+"/sites", env.Admin.Token, map[string]any{"site": spare})
	env.Must(205, "DELETE", "/v1/orgs/"+env.Org+"/sites/"+spare, env.Admin.Token, nil)
	env.Must(404, "GET", inst+"/sites/"+spare, env.Admin.Token, nil)
	if n := countRows(t, env, "integration_target_installations"); n != 2 {
		t.Fatalf("%d site installations, want 2: one outlived its site", n)
	}
	var deleted []map[string]any
	for _, e := range events(env, env.Admin, "chat") {
		if p := e["payload"].(map[string]any); p["type"] == "site_installation_deleted" {
			deleted = append(deleted, p)
		}
	}
	if len(deleted) != 1 || deleted[0]["siteId"] != spare || deleted[0]["installationId"] != own || deleted[0]["previous"] == nil {
		t.Fatalf("site_installation_deleted events: %v", deleted)
	}
	env.Run(t, []apitest.Scenario{
		{Name: "uninstall", Method: "DELETE", Path: inst + "/sites/" + site, Token: env.Admin.Token, Status: 205},
		{Name: "again", Method: "DELETE", Path: inst + "/sites/" + site, Token: env.Admin.Token, Status: 204},
	})
}

// extended=true answers each site as GET /orgs/{org}/sites/{id} gives it to
// the caller; sites the caller may not read stay ids.
func TestExtendedSiteInstallations(t *testing.T) {
	env := apitest.New(t)
	otherOrg, foreign := env.NewOrg("Other", "admin@other.test")
	editor := env.NewUser("edit@acme.test", env.Org, "edit")
	publish(env, env.Admin, "chat", env.Org, nil)
	own := install(env, env.Admin, "chat", env.Org)
	elsewhere := install(env, foreign, "chat", otherOrg)
	mine := env.Must(201, "POST", "/v1/orgs/"+env.Org+"/sites", env.Admin.Token, map[string]any{"title": "Mine"}).JSON()["id"].(string)
	env.Must(200, "POST", "/v1/orgs/"+env.Org+"/sites/"+mine+"/publish", env.Admin.Token, nil)
	theirs := env.Must(201, "POST", "/v1/orgs/"+otherOrg+"/sites", foreign.Token, map[string]any{"title": "Theirs"}).JSON()["id"].(string)
	env.Must(201, "POST", "/v1/integrations/chat/installations/"+own+"/sites", env.Admin.Token, map[string]any{"site": mine})
	env.Must(201, "POST", "/v1/integrations/chat/installations/"+elsewhere+"/sites", foreign.Token, map[string]any{"site": theirs})
	token := env.Must(200, "POST", "/v1/integrations/chat/installations/"+own+"/tokens", env.Admin.Token, nil).JSON()["token"].(string)
	bySite := func(r apitest.Response) map[string]map[string]any {
		out := map[string]map[string]any{}
		for _, e := range items(t, r) {
			switch s := e["site"].(type) {
			case string:
				out[s] = e
			case map[string]any:
				out[s["id"].(string)] = e
			}
		}
		return out
	}
	path := "/v1/integrations/chat/sites?extended=true"
	env.Run(t, []apitest.Scenario{
		{Name: "owner admin: own organization's site expanded, the other's an id", Method: "GET", Path: path, Token: env.Admin.Token, Status: 200,
			Check: func(r apitest.Response) {
				got := bySite(r)
				apitest.Keys(t, got[mine], "integration", "installation", "status", "configuration", "externalIds", "urls", "site")
				sameJSON(t, "expanded site", got[mine]["site"], env.Must(200, "GET", "/v1/orgs/"+env.Org+"/sites/"+mine, env.Admin.Token, nil).JSON())
				if got[theirs]["site"] != theirs {
					t.Errorf("another organization's site: %v", got[theirs]["site"])
				}
			}},
		{Name: "installer: their site", Method: "GET", Path: path, Token: foreign.Token, Status: 200,
			Check: func(r apitest.Response) {
				got := bySite(r)
				if len(got) != 1 {
					t.Fatalf("items: %v", got)
				}
				sameJSON(t, "expanded site", got[theirs]["site"], env.Must(200, "GET", "/v1/orgs/"+otherOrg+"/sites/"+theirs, foreign.Token, nil).JSON())
			}},
		{Name: "the installation's token reads its organization's sites", Method: "GET", Path: path, Token: token, Status: 200,
			Check: func(r apitest.Response) {
				got := bySite(r)
				if s, _ := got[mine]["site"].(map[string]any); len(got) != 1 || s == nil || s["title"] != "Mine" {
					t.Errorf("token's view: %v", got)
				}
			}},
		{Name: "not extended: ids", Method: "GET", Path: "/v1/integrations/chat/sites", Token: env.Admin.Token, Status: 200, Contains: []string{`"site":"` + mine + `"`, `"site":"` + theirs + `"`}},
		{Name: "extended=false: ids", Method: "GET", Path: "/v1/integrations/chat/sites?extended=false", Token: env.Admin.Token, Status: 200, Contains: []string{`"site":"` + mine + `"`}},
		{Name: "extended not a boolean", Method: "GET", Path: "/v1/integrations/chat/sites?extended=maybe", Token: env.Admin.Token, Status: 400, Contains: names("extended")},
		{Name: "extended with externalId", Method: "GET", Path: path + "&externalId=none", Token: env.Admin.Token, Status: 200, Contains: []string{`"count":0`}},
		{Name: "a member below admin sees none", Method: "GET", Path: path, Token: editor.Token, Status: 200, Contains: []string{`"count":0`}},
		{Name: "without token", Method: "GET", Path: path, Status: 401},
		{Name: "unknown integration", Method: "GET", Path: "/v1/integrations/nope/sites?extended=true", Token: env.Admin.Token, Status: 404},
	})
	// Paging keeps the expansion per page.
	r := env.Must(200, "GET", path+"&limit=1", env.Admin.Token, nil)
	if len(items(t, r)) != 1 || !strings.Contains(string(r.Body), `"next"`) {
		t.Fatalf("page: %s", r.Body)
	}
	data := gqlData(t, env, env.Admin.Token, `{ integrationSiteInstallations(integrationName: "chat", extended: true) { count items { site siteObject { id title published urls { location published } } } } }`, nil)
	objects := map[string]any{}
	for _, it := range data["integrationSiteInstallations"].(map[string]any)["items"].([]any) {
		e := it.(map[string]any)
		objects[e["site"].(string)] = e["siteObject"]
	}
	if o, _ := objects[mine].(map[string]any); o == nil || o["id"] != mine || o["published"] != true || o["urls"].(map[string]any)["published"] == nil {
		t.Errorf("graphql siteObject of %s: %v", mine, objects[mine])
	}
	if objects[theirs] != nil {
		t.Errorf("graphql siteObject of another organization's site: %v", objects[theirs])
	}
	data = gqlData(t, env, env.Admin.Token, `{ integrationSiteInstallations(integrationName: "chat") { items { siteObject { id } } } }`, nil)
	for _, it := range data["integrationSiteInstallations"].(map[string]any)["items"].([]any) {
		if it.(map[string]any)["siteObject"] != nil {
			t.Errorf("siteObject without extended: %v", it)
		}
	}
}

// Migration 0007b drops the site installations that earlier versions
// accepted on ids that are no site of the installation's organization.
func TestSiteInstallationsMigration(t *testing.T) {
	env := apitest.New(t)
	otherOrg, foreign := env.NewOrg("Other", "admin@other.test")
	publish(env, env.Admin, "chat", env.Org, nil)
	own := install(env, env.Admin, "chat", env.Org)
	site := env.Must(201, "POST", "/v1/orgs/"+env.Org+"/sites", env.Admin.Token, map[string]any{"title": "Docs"}).JSON()["id"].(string)
	theirs := env.Must(201, "POST", "/v1/orgs/"+otherOrg+"/sites", foreign.Token, map[string]any{"title": "Theirs"}).JSON()["id"].(string)
	env.Must(201, "POST", "/v1/integrations/chat/installations/"+own+"/sites", env.Admin.Token, map[string]any{"site": site})
	env.Must(200, "PATCH", "/v1/integrations/chat/installations/"+own+"/sites/"+site, env.Admin.Token, map[string]any{"externalIds": []string{"keep"}})
	raw, err := storage.OpenRaw(env.DBPath)
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	// What earlier versions stored: an unknown id and another organization's site.
	for _, target := range []string{"ghost", theirs} {
		if _, err := raw.Exec(`INSERT INTO integration_target_installations (installation_id, integration_id, kind, target_id, status, created_at, updated_at)
 SELECT installation_id, integration_id, kind, ?, status, created_at, updated_at FROM integration_target_installations WHERE target_id = ?`, target, site); err != nil {
			t.Fatal(err)
		}
		if _, err := raw.Exec(`INSERT INTO integration_external_ids (installation_id, kind, target_id, external_id) VALUES (?, 'site', ?, 'x')`, own, target); err != nil {
			t.Fatal(err)
		}
	}
	if n := countRows(t, env, "integration_target_installations"); n != 3 {
		t.Fatalf("%d site installations before the migration, want 3", n)
	}
	if _, err := raw.Exec(`DELETE FROM schema_migrations WHERE name LIKE '%0007b_site_installation_targets.sql'`); err != nil {
		t.Fatal(err)
	}
	again, err := storage.Open(env.DBPath, storage.Options{})
	if err != nil {
		t.Fatal(err)
	}
	again.Close()
	var targets, externalIDs int
	raw.QueryRow(`SELECT COUNT(*) FROM integration_target_installations WHERE kind = 'site'`).Scan(&targets)
	raw.QueryRow(`SELECT COUNT(*) FROM integration_external_ids WHERE kind = 'site'`).Scan(&externalIDs)
	if targets != 1 || externalIDs != 1 {
		t.Fatalf("%d site installations and %d external ids left, want the real one of each", targets, externalIDs)
	}
}
