package rest_test

import (
	"slices"
	"strings"
	"testing"
	"time"

	"docsapi/apitest"
)

// listNames are the integration names of an integration list answer.
func listNames(t *testing.T, r apitest.Response) []string {
	t.Helper()
	var out []string
	for _, it := range items(t, r) {
		out = append(out, it["name"].(string))
	}
	return out
}

func wantNames(t *testing.T, what string, r apitest.Response, want ...string) {
	t.Helper()
	if got := listNames(t, r); !slices.Equal(got, want) {
		t.Errorf("%s: %v, want %v", what, got, want)
	}
}

// integrationWorld: in env.Org, "chat" (public, target all, scripts with
// cookies, a block) installed for every space and site, and "notes"
// (private, target space, no scripts) installed on one space only; another
// organization owns "theirs" (private) and "hidden" (unlisted).
type integrationWorld struct {
	reader, guest, foreign apitest.User
	otherOrg               string
	spaceA, spaceB, site   string
	chatInstallation       string
	notesInstallation      string
}

func newIntegrationWorld(t *testing.T, env *apitest.Env) integrationWorld {
	w := integrationWorld{}
	w.reader = env.NewUser("read@acme.test", env.Org, "read")
	w.guest = env.NewUser("guest@acme.test", env.Org, "guest")
	w.otherOrg, w.foreign = env.NewOrg("Other", "admin@other.test")
	publish(env, env.Admin, "chat", env.Org, map[string]any{
		"scopes": []string{"space:script:inject", "space:script:cookies", "site:script:inject"},
		"blocks": []map[string]any{{"id": "chat-box", "title": "Chat box"}},
	})
	publish(env, env.Admin, "notes", env.Org, map[string]any{"visibility": "private", "target": "space"})
	publish(env, w.foreign, "theirs", w.otherOrg, map[string]any{"visibility": "private"})
	publish(env, w.foreign, "hidden", w.otherOrg, map[string]any{"visibility": "unlisted"})
	w.spaceA = createSpaceAs(env, env.Admin.Token, env.Org, map[string]any{"title": "A"})
	w.spaceB = createSpaceAs(env, env.Admin.Token, env.Org, map[string]any{"title": "B"})
	w.site = env.Must(201, "POST", "/v1/orgs/"+env.Org+"/sites", env.Admin.Token, map[string]any{"title": "Docs"}).JSON()["id"].(string)
	w.chatInstallation = install(env, env.Admin, "chat", env.Org)
	w.notesInstallation = install(env, env.Admin, "notes", env.Org)
	notes := "/v1/integrations/notes/installations/" + w.notesInstallation
	env.Must(200, "PATCH", notes, env.Admin.Token, map[string]any{"space_selection": "selected"})
	env.Must(201, "POST", notes+"/spaces", env.Admin.Token, map[string]any{"space": w.spaceA})
	return w
}

func TestOrganizationIntegrationListings(t *testing.T) {
	env := apitest.New(t)
	w := newIntegrationWorld(t, env)
	org := "/v1/orgs/" + env.Org
	env.Run(t, []apitest.Scenario{
		{Name: "public and the organization's own", Method: "GET", Path: org + "/integrations", Token: w.reader.Token, Status: 200,
			Check: func(r apitest.Response) { wantNames(t, "org integrations", r, "chat", "notes") }},
		{Name: "the other organization sees its private and unlisted ones, not ours", Method: "GET", Path: "/v1/orgs/" + w.otherOrg + "/integrations", Token: w.foreign.Token, Status: 200,
			Check: func(r apitest.Response) { wantNames(t, "other org integrations", r, "chat", "hidden", "theirs") }},
		{Name: "filters", Method: "GET", Path: org + "/integrations?target=space", Token: w.reader.Token, Status: 200,
			Check: func(r apitest.Response) { wantNames(t, "target=space", r, "notes") }},
		{Name: "blocks filter", Method: "GET", Path: org + "/integrations?blocks=true", Token: w.reader.Token, Status: 200,
			Check: func(r apitest.Response) { wantNames(t, "blocks=true", r, "chat") }},
		{Name: "search", Method: "GET", Path: org + "/integrations?search=NOT", Token: w.reader.Token, Status: 200,
			Check: func(r apitest.Response) { wantNames(t, "search", r, "notes") }},
		{Name: "bad category", Method: "GET", Path: org + "/integrations?category=nope", Token: w.reader.Token, Status: 400, Contains: names("category")},
		{Name: "bad limit", Method: "GET", Path: org + "/integrations?limit=-1", Token: w.reader.Token, Status: 400, Contains: names("limit")},
		{Name: "no token", Method: "GET", Path: org + "/integrations", Status: 401},
		{Name: "another organization's", Method: "GET", Path: org + "/integrations", Token: w.foreign.Token, Status: 404},
		{Name: "unknown organization", Method: "GET", Path: "/v1/orgs/nope/integrations", Token: w.reader.Token, Status: 404},

		{Name: "status", Method: "GET", Path: org + "/integrations/chat/installation_status", Token: w.reader.Token, Status: 200,
			Check: func(r apitest.Response) {
				apitest.Keys(t, r.JSON(), "status")
				if r.JSON()["status"] != "active" {
					t.Errorf("status %v", r.JSON())
				}
			}},
		{Name: "status of an integration not installed there", Method: "GET", Path: org + "/integrations/hidden/installation_status", Token: w.reader.Token, Status: 404},
		{Name: "status of another organization's private integration", Method: "GET", Path: org + "/integrations/theirs/installation_status", Token: w.reader.Token, Status: 404},
		{Name: "status of an unknown integration", Method: "GET", Path: org + "/integrations/nope/installation_status", Token: w.reader.Token, Status: 404},
		{Name: "status in another organization", Method: "GET", Path: org + "/integrations/chat/installation_status", Token: w.foreign.Token, Status: 404},
		{Name: "status without token", Method: "GET", Path: org + "/integrations/chat/installation_status", Status: 401},

		{Name: "statuses", Method: "GET", Path: org + "/integrations/installations-status", Token: w.reader.Token, Status: 200,
			Check: func(r apitest.Response) {
				l := items(t, r)
				if len(l) != 2 {
					t.Fatalf("statuses: %v", l)
				}
				for _, e := range l {
					apitest.Keys(t, e, "status", "integration")
				}
			}},
		{Name: "statuses searched", Method: "GET", Path: org + "/integrations/installations-status?search=note", Token: w.reader.Token, Status: 200, Contains: []string{`"count":1`, `"name":"notes"`}},
		{Name: "statuses paged", Method: "GET", Path: org + "/integrations/installations-status?limit=1", Token: w.reader.Token, Status: 200, Contains: []string{`"next":{"page":`}},
		{Name: "statuses bad page", Method: "GET", Path: org + "/integrations/installations-status?page=garbage", Token: w.reader.Token, Status: 400, Contains: names("page")},
		{Name: "statuses of another organization", Method: "GET", Path: org + "/integrations/installations-status", Token: w.foreign.Token, Status: 404},
		{Name: "statuses without token", Method: "GET", Path: org + "/integrations/installations-status", Status: 401},
	})

	// Keyset pages: every integration once, in order.
	var all []string
	path := org + "/integrations?limit=1"
	for i := 0; i < 5 && path != ""; i++ {
		r := env.Must(200, "GET", path, w.reader.Token, nil)
		all = append(all, listNames(t, r)...)
		path = ""
		if next, ok := r.JSON()["next"].(map[string]any); ok {
			path = org + "/integrations?limit=1&page=" + next["page"].(string)
		}
	}
	if !slices.Equal(all, []string{"chat", "notes"}) {
		t.Errorf("paged: %v", all)
	}

	// GraphQL answers what REST answers.
	data := gqlData(t, env, w.reader.Token, `query($o: ID!) { organizationIntegrations(organizationId: $o) { count items { name } }
 organizationIntegrationStatus(organizationId: $o, integrationName: "notes") { status }
 organizationIntegrationsStatus(organizationId: $o) { count items { status integration { name } } } }`, map[string]any{"o": env.Org})
	if data["organizationIntegrationStatus"].(map[string]any)["status"] != "ACTIVE" ||
		data["organizationIntegrations"].(map[string]any)["count"] != float64(2) ||
		data["organizationIntegrationsStatus"].(map[string]any)["count"] != float64(2) {
		t.Errorf("GraphQL: %v", data)
	}
	gqlRefusal(t, env, w.foreign.Token, `query($o: ID!) { organizationIntegrations(organizationId: $o) { count } }`, map[string]any{"o": env.Org}, "NOT_FOUND", 404)
}

func TestSpaceAndSiteIntegrations(t *testing.T) {
	env := apitest.New(t)
	w := newIntegrationWorld(t, env)
	a, b := "/v1/spaces/"+w.spaceA, "/v1/spaces/"+w.spaceB
	site := "/v1/orgs/" + env.Org + "/sites/" + w.site
	env.Run(t, []apitest.Scenario{
		{Name: "space A: chat for every space, notes installed on it", Method: "GET", Path: a + "/integrations", Token: w.reader.Token, Status: 200,
			Check: func(r apitest.Response) {
				wantNames(t, "space A", r, "chat", "notes")
				if r.JSON()["count"] != float64(2) {
					t.Errorf("count %v", r.JSON()["count"])
				}
			}},
		{Name: "space B: chat only", Method: "GET", Path: b + "/integrations", Token: w.reader.Token, Status: 200,
			Check: func(r apitest.Response) { wantNames(t, "space B", r, "chat") }},
		{Name: "space search", Method: "GET", Path: a + "/integrations?search=note", Token: w.reader.Token, Status: 200,
			Check: func(r apitest.Response) { wantNames(t, "search", r, "notes") }},
		{Name: "space search too long", Method: "GET", Path: a + "/integrations?search=" + strings.Repeat("x", 101), Token: w.reader.Token, Status: 400, Contains: names("search")},
		{Name: "space of another organization", Method: "GET", Path: a + "/integrations", Token: w.foreign.Token, Status: 404},
		{Name: "unknown space", Method: "GET", Path: "/v1/spaces/nope/integrations", Token: w.reader.Token, Status: 404},
		{Name: "space without token", Method: "GET", Path: a + "/integrations", Status: 401},

		{Name: "blocks", Method: "GET", Path: a + "/integration-blocks", Token: w.reader.Token, Status: 200,
			Check: func(r apitest.Response) {
				var l []map[string]any
				r.Decode(t, &l)
				if len(l) != 1 || l[0]["name"] != "chat" || len(l[0]["blocks"].([]any)) != 1 {
					t.Errorf("blocks: %v", l)
				}
			}},
		{Name: "blocks of another organization's space", Method: "GET", Path: a + "/integration-blocks", Token: w.foreign.Token, Status: 404},
		{Name: "blocks without token", Method: "GET", Path: a + "/integration-blocks", Status: 401},

		{Name: "space scripts", Method: "GET", Path: a + "/integration-scripts", Token: w.reader.Token, Status: 200,
			Check: func(r apitest.Response) {
				var l []map[string]any
				r.Decode(t, &l)
				if len(l) != 1 || l[0]["cookies"] != true || !strings.HasSuffix(l[0]["script"].(string), "/integrations/chat/installations/"+w.chatInstallation+"/spaces/"+w.spaceA+"/script.js") {
					t.Errorf("scripts: %v", l)
				}
			}},
		{Name: "space scripts of another organization", Method: "GET", Path: a + "/integration-scripts", Token: w.foreign.Token, Status: 404},

		{Name: "site integrations", Method: "GET", Path: site + "/integrations", Token: w.reader.Token, Status: 200,
			Check: func(r apitest.Response) { wantNames(t, "site", r, "chat") }},
		{Name: "site scripts (no cookies scope for sites)", Method: "GET", Path: site + "/integration-scripts", Token: w.reader.Token, Status: 200,
			Check: func(r apitest.Response) {
				var l []map[string]any
				r.Decode(t, &l)
				if len(l) != 1 || l[0]["cookies"] != false || !strings.Contains(l[0]["script"].(string), "/sites/"+w.site+"/script.js") {
					t.Errorf("site scripts: %v", l)
				}
			}},
		{Name: "a guest, like every site read (403 by role)", Method: "GET", Path: site + "/integrations", Token: w.guest.Token, Status: 403, Contains: []string{"read role"}},
		{Name: "site of another organization", Method: "GET", Path: site + "/integrations", Token: w.foreign.Token, Status: 404},
		{Name: "site under another organization's path", Method: "GET", Path: "/v1/orgs/" + w.otherOrg + "/sites/" + w.site + "/integrations", Token: w.foreign.Token, Status: 404},
		{Name: "unknown site", Method: "GET", Path: "/v1/orgs/" + env.Org + "/sites/nope/integration-scripts", Token: w.reader.Token, Status: 404},
		{Name: "site without token", Method: "GET", Path: site + "/integrations", Status: 401},
	})

	// An installation is seen at once by the lists (no stale cache).
	env.Must(201, "POST", "/v1/integrations/notes/installations/"+w.notesInstallation+"/spaces", env.Admin.Token, map[string]any{"space": w.spaceB})
	wantNames(t, "space B after installing notes", env.Must(200, "GET", b+"/integrations", w.reader.Token, nil), "chat", "notes")
	env.Must(205, "DELETE", "/v1/integrations/chat/installations/"+w.chatInstallation, env.Admin.Token, nil)
	wantNames(t, "space B after uninstalling chat", env.Must(200, "GET", b+"/integrations", w.reader.Token, nil), "notes")
	if r := env.Must(200, "GET", site+"/integration-scripts", w.reader.Token, nil); strings.TrimSpace(string(r.Body)) != "[]" {
		t.Errorf("site scripts after uninstalling: %s", r.Body)
	}

	// GraphQL answers what REST answers.
	rest := env.Must(200, "GET", a+"/integrations", w.reader.Token, nil).JSON()
	data := gqlData(t, env, w.reader.Token, `query($s: ID!) { spaceIntegrations(spaceId: $s) { count items { name } } spaceIntegrationBlocks(spaceId: $s) { name } spaceIntegrationScripts(spaceId: $s) { script cookies } }`,
		map[string]any{"s": w.spaceA})
	if got := data["spaceIntegrations"].(map[string]any)["count"]; got != rest["count"] {
		t.Errorf("GraphQL count %v, REST %v", got, rest["count"])
	}
	gqlRefusal(t, env, w.foreign.Token, `query($s: ID!) { spaceIntegrations(spaceId: $s) { count } }`, map[string]any{"s": w.spaceA}, "NOT_FOUND", 404)
}

// The listing of one installation's spaces takes extended (0.130.0's name
// listIntegrationInstallationSpaces).
func TestInstallationSpacesExtended(t *testing.T) {
	env := apitest.New(t)
	w := newIntegrationWorld(t, env)
	notes := "/v1/integrations/notes/installations/" + w.notesInstallation
	r := env.Must(200, "GET", notes+"/spaces?extended=true", env.Admin.Token, nil)
	l := items(t, r)
	if len(l) != 1 {
		t.Fatalf("spaces: %v", l)
	}
	if sp, ok := l[0]["space"].(map[string]any); !ok || sp["id"] != w.spaceA {
		t.Errorf("extended space: %v", l[0]["space"])
	}
	if l := items(t, env.Must(200, "GET", notes+"/spaces", env.Admin.Token, nil)); l[0]["space"] != w.spaceA {
		t.Errorf("space id: %v", l[0]["space"])
	}
	env.Must(400, "GET", notes+"/spaces?extended=maybe", env.Admin.Token, nil)
	chat := "/v1/integrations/chat/installations/" + w.chatInstallation
	env.Must(201, "POST", chat+"/sites", env.Admin.Token, map[string]any{"siteId": w.site})
	if l := items(t, env.Must(200, "GET", chat+"/sites?extended=true", env.Admin.Token, nil)); len(l) != 1 || l[0]["site"].(map[string]any)["id"] != w.site {
		t.Errorf("extended sites: %v", l)
	}
}

func TestQueueIntegrationTask(t *testing.T) {
	env := apitest.New(t)
	w := newIntegrationWorld(t, env)
	rc := newReceiver(t, env)
	rc.devMode(env.Admin, "chat", false)
	drain(t, env) // the installation events of the setup
	before := rc.count()
	chatToken := env.Must(200, "POST", "/v1/integrations/chat/installations/"+w.chatInstallation+"/tokens", env.Admin.Token, nil).JSON()["token"].(string)
	notesToken := env.Must(200, "POST", "/v1/integrations/notes/installations/"+w.notesInstallation+"/tokens", env.Admin.Token, nil).JSON()["token"].(string)
	tasks := "/v1/integrations/chat/tasks"
	task := map[string]any{"task": map[string]any{"kind": "sync", "page": 3}}
	deep := map[string]any{}
	for i, cur := 0, deep; i < 40; i++ {
		next := map[string]any{}
		cur["x"] = next
		cur = next
	}
	env.Run(t, []apitest.Scenario{
		{Name: "the integration's installation token", Method: "POST", Path: tasks, Token: chatToken, Body: task, Status: 204},
		{Name: "an admin of the owner, scheduled", Method: "POST", Path: tasks, Token: env.Admin.Token, Body: map[string]any{"task": map[string]any{"later": true}, "schedule": 60}, Status: 204},
		{Name: "without task", Method: "POST", Path: tasks, Token: chatToken, Body: map[string]any{}, Status: 400, Contains: names("task")},
		{Name: "task not an object", Method: "POST", Path: tasks, Token: chatToken, Body: map[string]any{"task": []int{1}}, Status: 400},
		{Name: "schedule out of range", Method: "POST", Path: tasks, Token: chatToken, Body: map[string]any{"task": map[string]any{}, "schedule": 86401}, Status: 400, Contains: names("schedule")},
		{Name: "schedule negative", Method: "POST", Path: tasks, Token: chatToken, Body: map[string]any{"task": map[string]any{}, "schedule": -1}, Status: 400, Contains: names("schedule")},
		{Name: "schedule not whole", Method: "POST", Path: tasks, Token: chatToken, Body: map[string]any{"task": map[string]any{}, "schedule": 1.5}, Status: 400, Contains: names("schedule")},
		{Name: "task too large", Method: "POST", Path: tasks, Token: chatToken, Body: map[string]any{"task": map[string]any{"s": strings.Repeat("x", 70<<10)}}, Status: 400, Contains: names("task")},
		{Name: "task too deep", Method: "POST", Path: tasks, Token: chatToken, Body: map[string]any{"task": deep}, Status: 400, Contains: names("task")},
		{Name: "no token", Method: "POST", Path: tasks, Body: task, Status: 401},
		{Name: "another integration's token", Method: "POST", Path: tasks, Token: notesToken, Body: task, Status: 404},
		{Name: "a member of the owner below admin", Method: "POST", Path: tasks, Token: w.reader.Token, Body: task, Status: 403},
		{Name: "a stranger", Method: "POST", Path: tasks, Token: w.foreign.Token, Body: task, Status: 403},
		{Name: "another organization's private integration", Method: "POST", Path: "/v1/integrations/theirs/tasks", Token: env.Admin.Token, Body: task, Status: 404},
		{Name: "unknown integration", Method: "POST", Path: "/v1/integrations/nope/tasks", Token: env.Admin.Token, Body: task, Status: 404},
	})
	// Refusals wrote nothing: two task events.
	var taskEvents []map[string]any
	for _, e := range events(env, env.Admin, "chat") {
		if e["payload"].(map[string]any)["type"] == "task" {
			taskEvents = append(taskEvents, e)
		}
	}
	if len(taskEvents) != 2 {
		t.Fatalf("%d task events, want 2", len(taskEvents))
	}
	// The unscheduled one goes now, from its installation; the scheduled one a minute later.
	if n := drain(t, env); n != 1 || rc.count() != before+1 {
		t.Fatalf("delivered %d, received %d", n, rc.count()-before)
	}
	got := rc.got[before]
	if got["type"] != "task" || got["installationId"] != w.chatInstallation || got["task"].(map[string]any)["kind"] != "sync" {
		t.Errorf("delivered: %v", got)
	}
	env.Clock.Advance(61 * time.Second)
	if n := drain(t, env); n != 1 || rc.got[before+1]["task"].(map[string]any)["later"] != true {
		t.Errorf("scheduled task: delivered %d: %v", n, rc.got[len(rc.got)-1])
	}
	// GraphQL queues the same way and refuses the same way.
	data := gqlData(t, env, chatToken, `mutation { queueIntegrationTask(integrationName: "chat", input: {task: {a: 1}}) }`, nil)
	if data["queueIntegrationTask"] != true {
		t.Errorf("GraphQL: %v", data)
	}
	gqlRefusal(t, env, w.reader.Token, `mutation { queueIntegrationTask(integrationName: "chat", input: {task: {a: 1}}) }`, nil, "FORBIDDEN", 403)
}
