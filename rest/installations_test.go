package rest_test

import (
	"strings"
	"testing"

	"docsapi/apitest"
)

// accountSchema is an account configuration with one required property.
var accountSchema = map[string]any{"configurations": map[string]any{
	"account": map[string]any{
		"properties": map[string]any{
			"token":  map[string]any{"type": "string"},
			"limit":  map[string]any{"type": "number"},
			"on":     map[string]any{"type": "boolean"},
			"colour": map[string]any{"type": "string", "enum": []string{"red", "blue"}},
			"go":     map[string]any{"type": "button", "callback_url": "/cb", "button_text": "Go"},
		},
		"required": []string{"token"},
	},
	"space": map[string]any{"properties": map[string]any{"path": map[string]any{"type": "string"}}, "required": []string{"path"}},
}}

func TestInstallations(t *testing.T) {
	env := apitest.New(t)
	member := env.NewUser("create@acme.test", env.Org, "create")
	otherOrg, foreign := env.NewOrg("Other", "admin@other.test")
	thirdOrg, third := env.NewOrg("Third", "admin@third.test")
	publish(env, env.Admin, "chat", env.Org, accountSchema)
	publish(env, env.Admin, "private-one", env.Org, map[string]any{"visibility": "private"})
	base := "/v1/integrations/chat/installations"
	var id string
	env.Run(t, []apitest.Scenario{
		{Name: "install", Method: "POST", Path: base, Token: foreign.Token, Body: map[string]any{"organization": otherOrg}, Status: 201,
			Check: func(r apitest.Response) {
				in := r.JSON()
				id = in["id"].(string)
				apitest.Keys(t, in, "id", "status", "space_selection", "site_selection", "spaces", "configuration", "createdAt", "updatedAt", "urls", "externalIds", "target")
				apitest.Keys(t, in["urls"].(map[string]any), "location", "app", "publicEndpoint")
				if in["status"] != "pending" || in["space_selection"] != "all" || in["target"].(map[string]any)["organization"] != otherOrg {
					t.Errorf("installation: %v", in)
				}
				if loc := r.Header.Get("Location"); !strings.HasSuffix(loc, base+"/"+id) {
					t.Errorf("Location %q", loc)
				}
			}},
		{Name: "twice", Method: "POST", Path: base, Token: foreign.Token, Body: map[string]any{"organization": otherOrg}, Status: 409},
		{Name: "without organization", Method: "POST", Path: base, Token: foreign.Token, Body: map[string]any{}, Status: 400, Contains: []string{"organization"}},
		{Name: "organization of someone else", Method: "POST", Path: base, Token: foreign.Token, Body: map[string]any{"organization": env.Org}, Status: 404},
		{Name: "below admin", Method: "POST", Path: base, Token: member.Token, Body: map[string]any{"organization": env.Org}, Status: 403},
		{Name: "private integration elsewhere", Method: "POST", Path: "/v1/integrations/private-one/installations", Token: foreign.Token, Body: map[string]any{"organization": otherOrg}, Status: 404},
		{Name: "unknown integration", Method: "POST", Path: "/v1/integrations/nope/installations", Token: foreign.Token, Body: map[string]any{"organization": otherOrg}, Status: 404},
	})
	own := install(env, env.Admin, "chat", env.Org)
	inst := base + "/" + id
	env.Run(t, []apitest.Scenario{
		{Name: "get by installer", Method: "GET", Path: inst, Token: foreign.Token, Status: 200},
		{Name: "get by the integration's owner", Method: "GET", Path: inst, Token: env.Admin.Token, Status: 200},
		{Name: "get by a stranger", Method: "GET", Path: inst, Token: third.Token, Status: 404},
		{Name: "get by a member below admin", Method: "GET", Path: base + "/" + own, Token: member.Token, Status: 403},
		{Name: "unknown installation", Method: "GET", Path: base + "/nope", Token: env.Admin.Token, Status: 404},
		{Name: "configuration: unknown property", Method: "PATCH", Path: inst, Token: foreign.Token, Body: map[string]any{"configuration": map[string]any{"nope": 1}}, Status: 400, Contains: []string{"configuration.nope"}},
		{Name: "configuration: wrong type", Method: "PATCH", Path: inst, Token: foreign.Token, Body: map[string]any{"configuration": map[string]any{"limit": "3"}}, Status: 400, Contains: []string{"configuration.limit"}},
		{Name: "configuration: enum", Method: "PATCH", Path: inst, Token: foreign.Token, Body: map[string]any{"configuration": map[string]any{"colour": "green"}}, Status: 400, Contains: []string{"configuration.colour"}},
		{Name: "configuration: button", Method: "PATCH", Path: inst, Token: foreign.Token, Body: map[string]any{"configuration": map[string]any{"go": true}}, Status: 400, Contains: []string{"configuration.go"}},
		{Name: "too many external ids", Method: "PATCH", Path: inst, Token: foreign.Token, Body: map[string]any{"externalIds": []string{"1", "2", "3", "4", "5", "6"}}, Status: 400, Contains: []string{"externalIds"}},
		{Name: "bad selection", Method: "PATCH", Path: inst, Token: foreign.Token, Body: map[string]any{"space_selection": "some"}, Status: 400, Contains: []string{"space_selection"}},
		{Name: "incomplete configuration stays pending", Method: "PATCH", Path: inst, Token: foreign.Token, Body: map[string]any{"configuration": map[string]any{"limit": 3}}, Status: 200, Contains: []string{`"status":"pending"`}},
		{Name: "update", Method: "PATCH", Path: inst, Token: foreign.Token, Status: 200,
			Body: map[string]any{"configuration": map[string]any{"token": "t", "limit": 2.5, "on": true, "colour": "red"}, "externalIds": []string{"ext-1", "ext-2"}, "space_selection": "selected", "site_selection": "selected"},
			Check: func(r apitest.Response) {
				in := r.JSON()
				if in["status"] != "active" || in["space_selection"] != "selected" || in["site_selection"] != "selected" || in["configuration"].(map[string]any)["limit"] != 2.5 {
					t.Errorf("updated: %v", in)
				}
			}},
		{Name: "update by a stranger", Method: "PATCH", Path: inst, Token: third.Token, Body: map[string]any{"externalIds": []string{}}, Status: 404},
		{Name: "update by a member below admin", Method: "PATCH", Path: base + "/" + own, Token: member.Token, Body: map[string]any{"externalIds": []string{}}, Status: 403},
		{Name: "externalId filter", Method: "GET", Path: base + "?externalId=ext-2", Token: env.Admin.Token, Status: 200, Contains: []string{`"count":1`, id}},
		{Name: "externalId filter, no match", Method: "GET", Path: base + "?externalId=ext-3", Token: env.Admin.Token, Status: 200, Contains: []string{`"count":0`}},
		{Name: "owner lists all", Method: "GET", Path: base, Token: env.Admin.Token, Status: 200, Contains: []string{`"count":2`}},
		{Name: "installer lists its own", Method: "GET", Path: base, Token: foreign.Token, Status: 200, Contains: []string{`"count":1`, id}},
		{Name: "stranger lists none", Method: "GET", Path: base, Token: third.Token, Status: 200, Contains: []string{`"count":0`}},
		{Name: "organization installations", Method: "GET", Path: "/v1/orgs/" + otherOrg + "/installations", Token: foreign.Token, Status: 200,
			Check: func(r apitest.Response) {
				var l struct {
					Items []map[string]any `json:"items"`
				}
				r.Decode(t, &l)
				if len(l.Items) != 1 {
					t.Fatalf("items %v", l.Items)
				}
				apitest.Keys(t, l.Items[0], "installation", "integration")
			}},
		{Name: "organization installations search", Method: "GET", Path: "/v1/orgs/" + otherOrg + "/installations?search=zzz", Token: foreign.Token, Status: 200, Contains: []string{`"count":0`}},
		{Name: "organization installations below admin", Method: "GET", Path: "/v1/orgs/" + env.Org + "/installations", Token: member.Token, Status: 403},
		{Name: "organization installations of another org", Method: "GET", Path: "/v1/orgs/" + env.Org + "/installations", Token: foreign.Token, Status: 404},
		{Name: "uninstall by a stranger", Method: "DELETE", Path: inst, Token: third.Token, Status: 204},
		{Name: "uninstall by a member below admin", Method: "DELETE", Path: base + "/" + own, Token: member.Token, Status: 403},
		{Name: "uninstall", Method: "DELETE", Path: inst, Token: foreign.Token, Status: 205},
		{Name: "uninstall again", Method: "DELETE", Path: inst, Token: foreign.Token, Status: 204},
	})
	_ = thirdOrg
	// GraphQL parity: the same refusal and the same data.
	_, errs := env.GraphQL(foreign.Token, `mutation { installIntegration(integrationName: "chat", input: {organization: "`+env.Org+`"}) { id } }`, nil)
	if len(errs) != 1 || errs[0].Code() != "NOT_FOUND" {
		t.Fatalf("graphql: %+v", errs)
	}
	data, errs := env.GraphQL(env.Admin.Token, `{ integrationInstallation(integrationName: "chat", installationId: "`+own+`") { id status space_selection target { organization } } }`, nil)
	if len(errs) > 0 || data["integrationInstallation"].(map[string]any)["status"] != "PENDING" {
		t.Fatalf("graphql: %v %+v", data, errs)
	}
}

func TestInstallationEvents(t *testing.T) {
	env := apitest.New(t)
	member := env.NewUser("create@acme.test", env.Org, "create")
	otherOrg, foreign := env.NewOrg("Other", "admin@other.test")
	publish(env, env.Admin, "chat", env.Org, accountSchema)
	id := install(env, foreign, "chat", otherOrg)
	inst := "/v1/integrations/chat/installations/" + id
	env.Must(200, "PATCH", inst, foreign.Token, map[string]any{"configuration": map[string]any{"token": "t"}})
	space1 := createSpaceAs(env, foreign.Token, otherOrg, nil)
	env.Must(201, "POST", inst+"/spaces", foreign.Token, map[string]any{"space": space1})
	env.Must(205, "DELETE", inst, foreign.Token, nil)

	evs := events(env, env.Admin, "chat")
	var types []string
	for _, e := range evs {
		types = append(types, e["payload"].(map[string]any)["type"].(string))
	}
	// Newest first; uninstalling removed the space installation too.
	if got := strings.Join(types, ","); got != "installation_deleted,space_installation_deleted,space_installation_setup,installation_setup,installation_setup" {
		t.Fatalf("event types: %s", got)
	}
	setup := evs[3]
	apitest.Keys(t, setup, "id", "integrationId", "installationId", "createdAt", "payload", "status")
	p := setup["payload"].(map[string]any)
	apitest.Keys(t, p, "eventId", "type", "installationId", "status", "previous")
	if p["eventId"] != setup["id"] || p["status"] != "active" || setup["status"] != "success" || setup["installationId"] != id {
		t.Errorf("setup event: %v", setup)
	}
	prev := p["previous"].(map[string]any)
	if prev["status"] != "pending" || len(prev["configuration"].(map[string]any)) != 0 {
		t.Errorf("previous: %v", prev)
	}
	if first := evs[4]["payload"].(map[string]any); first["previous"] != nil || first["status"] != "pending" {
		t.Errorf("first setup: %v", first)
	}
	if sp := evs[2]["payload"].(map[string]any); sp["spaceId"] != space1 || sp["status"] != "pending" {
		t.Errorf("space setup: %v", sp)
	}
	del := evs[0]["payload"].(map[string]any)
	if del["previous"].(map[string]any)["configuration"].(map[string]any)["token"] != "t" {
		t.Errorf("deleted: %v", del)
	}
	event, logs := eventDetail(env, env.Admin, "chat", setup["id"].(string))
	if event["id"] != setup["id"] || len(logs) == 0 {
		t.Fatalf("detail: %v %v", event, logs)
	}
	apitest.Keys(t, logs[0], "message", "timestamp", "level")
	env.Run(t, []apitest.Scenario{
		{Name: "events below admin", Method: "GET", Path: "/v1/integrations/chat/events", Token: member.Token, Status: 403},
		{Name: "events of another organization's integration", Method: "GET", Path: "/v1/integrations/chat/events", Token: foreign.Token, Status: 403},
		{Name: "unknown event", Method: "GET", Path: "/v1/integrations/chat/events/nope", Token: env.Admin.Token, Status: 404},
		{Name: "events page", Method: "GET", Path: "/v1/integrations/chat/events?limit=2", Token: env.Admin.Token, Status: 200, Contains: []string{`"count":5`, `"next"`}},
	})
	data, errs := env.GraphQL(env.Admin.Token, `query($id: ID!) { integrationEvent(integrationName: "chat", eventId: $id) { event { status payload } trace { logs { level message } } } }`,
		map[string]any{"id": setup["id"]})
	if len(errs) > 0 || data["integrationEvent"].(map[string]any)["event"].(map[string]any)["status"] != "SUCCESS" {
		t.Fatalf("graphql: %v %+v", data, errs)
	}
}

func TestInstallationTokens(t *testing.T) {
	env := apitest.New(t)
	otherOrg, foreign := env.NewOrg("Other", "admin@other.test")
	publish(env, env.Admin, "chat", env.Org, nil)
	publish(env, env.Admin, "other-integration", env.Org, nil)
	id := install(env, foreign, "chat", otherOrg)
	other := install(env, env.Admin, "chat", env.Org)
	tokens := "/v1/integrations/chat/installations/" + id + "/tokens"
	env.Run(t, []apitest.Scenario{
		{Name: "installer may not mint", Method: "POST", Path: tokens, Token: foreign.Token, Status: 403},
		{Name: "unknown installation", Method: "POST", Path: "/v1/integrations/chat/installations/nope/tokens", Token: env.Admin.Token, Status: 404},
	})
	r := env.Must(200, "POST", tokens, env.Admin.Token, nil)
	apitest.Keys(t, r.JSON(), "token")
	tok := r.JSON()["token"].(string)
	inst := "/v1/integrations/chat/installations/" + id
	env.Run(t, []apitest.Scenario{
		{Name: "reads its organization", Method: "GET", Path: "/v1/orgs/" + otherOrg, Token: tok, Status: 200},
		{Name: "reads members as READ", Method: "GET", Path: "/v1/orgs/" + otherOrg + "/members", Token: tok, Status: 200},
		{Name: "changes nothing there", Method: "PATCH", Path: "/v1/orgs/" + otherOrg, Token: tok, Body: map[string]any{"title": "X"}, Status: 403},
		{Name: "other organizations do not exist", Method: "GET", Path: "/v1/orgs/" + env.Org, Token: tok, Status: 404},
		{Name: "reads its installation", Method: "GET", Path: inst, Token: tok, Status: 200},
		{Name: "updates its installation", Method: "PATCH", Path: inst, Token: tok, Body: map[string]any{"externalIds": []string{"team-7"}}, Status: 200, Contains: []string{"team-7"}},
		{Name: "lists only its installation", Method: "GET", Path: "/v1/integrations/chat/installations", Token: tok, Status: 200, Contains: []string{`"count":1`, id}},
		{Name: "not other installations", Method: "GET", Path: "/v1/integrations/chat/installations/" + other, Token: tok, Status: 404},
		{Name: "cannot uninstall", Method: "DELETE", Path: inst, Token: tok, Status: 204},
		{Name: "cannot publish", Method: "POST", Path: "/v1/integrations/chat", Token: tok, Body: publishBody(env.Org, nil), Status: 403},
		{Name: "cannot mint", Method: "POST", Path: tokens, Token: tok, Status: 403},
		{Name: "cannot read events", Method: "GET", Path: "/v1/integrations/chat/events", Token: tok, Status: 403},
		{Name: "cannot install", Method: "POST", Path: "/v1/integrations/other-integration/installations", Token: tok, Body: map[string]any{"organization": otherOrg}, Status: 403},
	})
	// Uninstalling revokes the token at once.
	env.Must(205, "DELETE", inst, foreign.Token, nil)
	env.Must(401, "GET", "/v1/orgs/"+otherOrg, tok, nil)
	// Tokens expire after an hour.
	id = install(env, foreign, "chat", otherOrg)
	tok = env.Must(200, "POST", "/v1/integrations/chat/installations/"+id+"/tokens", env.Admin.Token, nil).JSON()["token"].(string)
	env.Must(200, "GET", "/v1/orgs/"+otherOrg, tok, nil)
	env.Clock.Advance(61 * 60e9)
	env.Must(401, "GET", "/v1/orgs/"+otherOrg, tok, nil)
}

// configuration is always an object: {} when nothing is configured, in REST
// and GraphQL, for organization and space installations alike.
func TestInstallationConfigurationIsAnObject(t *testing.T) {
	env := apitest.New(t)
	publish(env, env.Admin, "plain", env.Org, map[string]any{"target": "all"})
	id := install(env, env.Admin, "plain", env.Org)
	inst := "/v1/integrations/plain/installations/" + id
	space := createSpaceAs(env, env.Admin.Token, env.Org, nil)
	env.Must(201, "POST", inst+"/spaces", env.Admin.Token, map[string]any{"space": space})
	empty := func(what string, v any) {
		t.Helper()
		if c, ok := v.(map[string]any); !ok || len(c) != 0 {
			t.Errorf("%s configuration %#v, want {}", what, v)
		}
	}
	empty("REST installation", env.Must(200, "GET", inst, env.Admin.Token, nil).JSON()["configuration"])
	empty("REST space installation", env.Must(200, "GET", inst+"/spaces/"+space, env.Admin.Token, nil).JSON()["configuration"])
	data := gqlData(t, env, env.Admin.Token, `query($i: ID!, $s: ID!) {
		integrationInstallation(integrationName: "plain", installationId: $i) { configuration }
		installationSpace(integrationName: "plain", installationId: $i, spaceId: $s) { configuration } }`,
		map[string]any{"i": id, "s": space})
	empty("GraphQL installation", data["integrationInstallation"].(map[string]any)["configuration"])
	empty("GraphQL space installation", data["installationSpace"].(map[string]any)["configuration"])
	// Clearing a configuration with null keeps the object.
	empty("PATCH null", env.Must(200, "PATCH", inst, env.Admin.Token, map[string]any{"configuration": nil}).JSON()["configuration"])
	empty("PATCH {}", env.Must(200, "PATCH", inst, env.Admin.Token, map[string]any{"configuration": map[string]any{}}).JSON()["configuration"])
	empty("listed", env.Must(200, "GET", "/v1/integrations/plain/installations", env.Admin.Token, nil).JSON()["items"].([]any)[0].(map[string]any)["configuration"])
}
