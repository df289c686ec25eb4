package rest_test

import (
	"slices"
	"strings"
	"testing"

	"docsapi/apitest"
)

// permEnv is an organization with a private space in a private collection
// (no default level: only admins and grants reach them), a reader, an
// editor in a team, and another organization's member.
type permEnv struct {
	*apitest.Env
	org, space, collection, team string
	reader, teamMember, foreign  apitest.User
}

func newPermEnv(t *testing.T) permEnv {
	env := apitest.New(t)
	p := permEnv{Env: env, org: env.Org}
	admin := env.Admin.Token
	p.reader = env.NewUser("reader@acme.test", env.Org, "read")
	p.teamMember = env.NewUser("teamed@acme.test", env.Org, "read")
	_, p.foreign = env.NewOrg("Other", "admin@other.test")
	p.collection = env.Must(201, "POST", "/v1/orgs/"+env.Org+"/collections", admin, map[string]any{"title": "Private"}).JSON()["id"].(string)
	env.Must(200, "PATCH", "/v1/collections/"+p.collection, admin, map[string]any{"defaultLevel": nil})
	p.space = env.Must(201, "POST", "/v1/orgs/"+env.Org+"/spaces", admin, map[string]any{"title": "Secret", "parent": p.collection}).JSON()["id"].(string)
	p.team = env.Must(201, "PUT", "/v1/orgs/"+env.Org+"/teams", admin, map[string]any{"title": "Writers", "members": []string{p.teamMember.ID}}).JSON()["id"].(string)
	return p
}

func TestSpacePermissionsGrantIsSeenAtOnce(t *testing.T) {
	p := newPermEnv(t)
	admin := p.Admin.Token
	space := "/v1/spaces/" + p.space
	spacesCount := func() int {
		return int(p.Must(200, "GET", "/v1/orgs/"+p.org+"/spaces", p.reader.Token, nil).JSON()["count"].(float64))
	}
	memberSpaces := func() int {
		return int(p.Must(200, "GET", "/v1/orgs/"+p.org+"/members/"+p.reader.ID, admin, nil).JSON()["spaces"].(float64))
	}
	graphSpace := func() (map[string]any, []apitest.GraphQLError) {
		return p.GraphQL(p.reader.Token, `query($id: ID!) { space(spaceId: $id) { id permissions { edit } } }`, map[string]any{"id": p.space})
	}
	// Warm every cache the reader's reads go through.
	p.Must(404, "GET", space, p.reader.Token, nil)
	before, beforeSpaces := spacesCount(), memberSpaces()
	if _, errs := graphSpace(); len(errs) != 1 || errs[0].Code() != "NOT_FOUND" {
		t.Fatalf("GraphQL before the grant: %v", errs)
	}

	p.Must(204, "POST", space+"/permissions", admin, map[string]any{"role": "edit", "users": []string{p.reader.ID}})

	got := p.Must(200, "GET", space, p.reader.Token, nil).JSON()
	if !got["permissions"].(map[string]any)["edit"].(bool) {
		t.Errorf("the granted reader cannot edit: %v", got["permissions"])
	}
	if data, errs := graphSpace(); len(errs) > 0 || !data["space"].(map[string]any)["permissions"].(map[string]any)["edit"].(bool) {
		t.Errorf("GraphQL after the grant: %v %v", data, errs)
	}
	if n := spacesCount(); n != before+1 {
		t.Errorf("spaces count %d after the grant, want %d", n, before+1)
	}
	if n := memberSpaces(); n != beforeSpaces+1 {
		t.Errorf("member spaces %d after the grant, want %d", n, beforeSpaces+1)
	}

	users := items(t, p.Must(200, "GET", space+"/permissions/users", p.reader.Token, nil))
	if len(users) != 1 || users[0]["permission"] != "edit" || users[0]["user"].(map[string]any)["id"] != p.reader.ID {
		t.Errorf("user permissions %v", users)
	}
	apitest.Keys(t, users[0]["user"].(map[string]any), "object", "id", "displayName", "email", "urls")

	// A null role removes the grant: the reader loses the space at once.
	p.Must(204, "PATCH", space+"/permissions/users/"+p.reader.ID, admin, map[string]any{"role": nil})
	p.Must(404, "GET", space, p.reader.Token, nil)
	if n := spacesCount(); n != before {
		t.Errorf("spaces count %d after removal, want %d", n, before)
	}
	if _, errs := graphSpace(); len(errs) != 1 || errs[0].Code() != "NOT_FOUND" {
		t.Errorf("GraphQL after removal: %v", errs)
	}

	// Update creates or changes; delete answers 205, then 204.
	p.Must(204, "PATCH", space+"/permissions/users/"+p.reader.ID, admin, map[string]any{"role": "comment"})
	if got := p.Must(200, "GET", space, p.reader.Token, nil).JSON()["permissions"].(map[string]any); !got["comment"].(bool) || got["edit"].(bool) {
		t.Errorf("after update to comment: %v", got)
	}
	p.Must(205, "DELETE", space+"/permissions/users/"+p.reader.ID, admin, nil)
	p.Must(204, "DELETE", space+"/permissions/users/"+p.reader.ID, admin, nil)
	p.Must(404, "GET", space, p.reader.Token, nil)

	// A team grant counts at once in the team's and its member's spaces.
	teamSpaces := func() float64 {
		return p.Must(200, "GET", "/v1/orgs/"+p.org+"/teams/"+p.team, admin, nil).JSON()["spaces"].(float64)
	}
	before = int(teamSpaces())
	p.Must(204, "POST", space+"/permissions", admin, map[string]any{"role": "read", "teams": []string{p.team}})
	if n := int(teamSpaces()); n != before+1 {
		t.Errorf("team spaces %d after the grant, want %d", n, before+1)
	}
	if n := p.Must(200, "GET", "/v1/orgs/"+p.org+"/members/"+p.teamMember.ID, admin, nil).JSON()["spaces"].(float64); n != 1 {
		t.Errorf("team member's spaces %v, want 1", n)
	}
	p.Must(205, "DELETE", space+"/permissions/teams/"+p.team, admin, nil)
	if n := int(teamSpaces()); n != before {
		t.Errorf("team spaces %d after removal, want %d", n, before)
	}

	// The audit log has each change.
	log := string(p.Must(200, "GET", "/v1/orgs/"+p.org+"/audit-log?action=permission.", admin, nil).Body)
	if strings.Count(log, `"permission.granted"`) != 3 || strings.Count(log, `"permission.revoked"`) != 3 {
		t.Errorf("audit log: %s", log)
	}
}

func TestCollectionTeamPermissionsReachMembers(t *testing.T) {
	p := newPermEnv(t)
	admin := p.Admin.Token
	col := "/v1/collections/" + p.collection
	p.Must(404, "GET", "/v1/spaces/"+p.space, p.teamMember.Token, nil)
	p.Must(404, "GET", col, p.teamMember.Token, nil)

	p.Must(204, "POST", col+"/permissions", admin, map[string]any{"role": "review", "teams": []string{p.team}})
	// The collection grant reaches the space inside, through the team.
	got := p.Must(200, "GET", "/v1/spaces/"+p.space, p.teamMember.Token, nil).JSON()["permissions"].(map[string]any)
	if !got["review"].(bool) || got["admin"].(bool) {
		t.Errorf("team member on the space: %v", got)
	}
	teams := items(t, p.Must(200, "GET", col+"/permissions/teams", p.teamMember.Token, nil))
	if len(teams) != 1 || teams[0]["permission"] != "review" {
		t.Fatalf("team permissions %v", teams)
	}
	apitest.Keys(t, teams[0]["team"].(map[string]any), "object", "id", "title", "members", "spaces", "createdAt", "permissions")

	// The aggregate: the admin and the team member, each with their role.
	agg := func(path string) map[string]string {
		out := map[string]string{}
		for _, it := range items(t, p.Must(200, "GET", path, admin, nil)) {
			out[it["user"].(map[string]any)["id"].(string)] = it["permission"].(string)
		}
		return out
	}
	want := map[string]string{p.Admin.ID: "admin", p.teamMember.ID: "review"}
	for _, path := range []string{col + "/permissions/aggregate", "/v1/spaces/" + p.space + "/permissions/aggregate"} {
		if got := agg(path); !mapsEqual(got, want) {
			t.Errorf("%s: %v, want %v", path, got, want)
		}
	}
	if got := agg(col + "/permissions/aggregate?role=review"); !mapsEqual(got, map[string]string{p.teamMember.ID: "review"}) {
		t.Errorf("role=review: %v", got)
	}
	r := p.Must(200, "GET", col+"/permissions/aggregate?limit=1", admin, nil).JSON()
	if r["count"].(float64) != 2 || r["next"] == nil {
		t.Errorf("first page of one: %v", r)
	}

	// The team grant changed, then removed: 205, then 204.
	p.Must(204, "PATCH", col+"/permissions/teams/"+p.team, admin, map[string]any{"role": "read"})
	if got := p.Must(200, "GET", "/v1/spaces/"+p.space, p.teamMember.Token, nil).JSON()["permissions"].(map[string]any); got["review"].(bool) {
		t.Errorf("after the team's role became read: %v", got)
	}
	p.Must(205, "DELETE", col+"/permissions/teams/"+p.team, admin, nil)
	p.Must(204, "DELETE", col+"/permissions/teams/"+p.team, admin, nil)
	p.Must(404, "GET", "/v1/spaces/"+p.space, p.teamMember.Token, nil)
}

func mapsEqual(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

func TestPermissionsRefusals(t *testing.T) {
	p := newPermEnv(t)
	admin := p.Admin.Token
	space := "/v1/spaces/" + p.space
	p.Run(t, []apitest.Scenario{
		{Name: "invite without role", Method: "POST", Path: space + "/permissions", Token: admin,
			Body: map[string]any{"users": []string{p.reader.ID}}, Status: 400, Contains: []string{"role"}},
		{Name: "invite with a null role", Method: "POST", Path: space + "/permissions", Token: admin,
			Body: map[string]any{"role": nil, "users": []string{p.reader.ID}}, Status: 400, Contains: []string{"role"}},
		{Name: "invite with an unknown role", Method: "POST", Path: space + "/permissions", Token: admin,
			Body: map[string]any{"role": "owner", "users": []string{p.reader.ID}}, Status: 400, Contains: []string{"role"}},
		{Name: "invite nobody", Method: "POST", Path: space + "/permissions", Token: admin,
			Body: map[string]any{"role": "read"}, Status: 400, Contains: []string{"users"}},
		{Name: "invite too many", Method: "POST", Path: space + "/permissions", Token: admin,
			Body: map[string]any{"role": "read", "users": slices.Repeat([]string{"x"}, 101)}, Status: 400, Contains: []string{"users"}},
		{Name: "invite users as a string", Method: "POST", Path: space + "/permissions", Token: admin,
			Body: map[string]any{"role": "read", "users": "x"}, Status: 400, Contains: []string{"users"}},
		{Name: "invite an unknown user", Method: "POST", Path: space + "/permissions", Token: admin,
			Body: map[string]any{"role": "read", "users": []string{"nobody"}}, Status: 404, Contains: []string{"user"}},
		{Name: "invite another organization's member", Method: "POST", Path: space + "/permissions", Token: admin,
			Body: map[string]any{"role": "read", "users": []string{p.foreign.ID}}, Status: 404, Contains: []string{"user"}},
		{Name: "invite an unknown team", Method: "POST", Path: space + "/permissions", Token: admin,
			Body: map[string]any{"role": "read", "teams": []string{"nope"}}, Status: 404, Contains: []string{"team"}},
		{Name: "update without role", Method: "PATCH", Path: space + "/permissions/users/" + p.reader.ID, Token: admin,
			Body: map[string]any{}, Status: 400, Contains: []string{"role"}},
		{Name: "update an unknown user", Method: "PATCH", Path: space + "/permissions/users/nobody", Token: admin,
			Body: map[string]any{"role": "read"}, Status: 404},
		{Name: "update an unknown team", Method: "PATCH", Path: space + "/permissions/teams/nope", Token: admin,
			Body: map[string]any{"role": "read"}, Status: 404},
		{Name: "unknown space", Method: "GET", Path: "/v1/spaces/nope/permissions/users", Token: admin, Status: 404},
		{Name: "unknown collection", Method: "GET", Path: "/v1/collections/nope/permissions/aggregate", Token: admin, Status: 404},
		{Name: "bad aggregate role", Method: "GET", Path: space + "/permissions/aggregate?role=owner", Token: admin, Status: 400, Contains: []string{"role"}},
		{Name: "bad limit", Method: "GET", Path: space + "/permissions/users?limit=5000", Token: admin, Status: 400, Contains: []string{"limit"}},
		{Name: "another organization's admin", Method: "GET", Path: space + "/permissions/users", Token: p.foreign.Token, Status: 404},
		{Name: "unknown site", Method: "GET", Path: "/v1/orgs/" + p.org + "/sites/nope/permissions/aggregate", Token: admin, Status: 404},
	})
	// A failed invitation grants nothing: the known user of the same
	// request is not granted either.
	p.Must(404, "POST", space+"/permissions", admin, map[string]any{"role": "read", "users": []string{p.reader.ID, "nobody"}})
	if n := len(items(t, p.Must(200, "GET", space+"/permissions/users", admin, nil))); n != 0 {
		t.Errorf("%d grants after a refused invitation", n)
	}
	// GraphQL refuses the same way, naming the field.
	_, errs := p.GraphQL(admin, `mutation($s: ID) { inviteToContent(space: $s, input: {users: ["x"]}) }`, map[string]any{"s": p.space})
	if len(errs) != 1 || errs[0].Code() != "BAD_REQUEST" || !strings.Contains(errs[0].Message, "role") {
		t.Errorf("GraphQL invite without role: %v", errs)
	}
	_, errs = p.GraphQL(p.reader.Token, `mutation($s: ID) { inviteToContent(space: $s, input: {role: READ, users: ["x"]}) }`, map[string]any{"s": p.space})
	if len(errs) != 1 || errs[0].Code() != "NOT_FOUND" {
		t.Errorf("GraphQL invite on an invisible space: %v", errs)
	}
	data, errs := p.GraphQL(admin, `mutation($s: ID, $u: ID!) { inviteToContent(space: $s, input: {role: EDIT, users: [$u]})
		updateContentPermission(space: $s, user: $u, input: {role: COMMENT}) }`, map[string]any{"s": p.space, "u": p.reader.ID})
	if len(errs) > 0 || data["updateContentPermission"] != true {
		t.Fatalf("GraphQL invite and update: %v %v", data, errs)
	}
	data, errs = p.GraphQL(p.reader.Token, `query($s: ID) { contentUserPermissions(space: $s) { count items { permission user { id } } }
		contentPermissionsAggregate(space: $s) { count items { permission user { id } } } }`, map[string]any{"s": p.space})
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	if got := data["contentUserPermissions"].(map[string]any)["items"].([]any); len(got) != 1 || got[0].(map[string]any)["permission"] != "COMMENT" {
		t.Errorf("GraphQL user permissions: %v", got)
	}
	if c := data["contentPermissionsAggregate"].(map[string]any)["count"]; c != float64(2) {
		t.Errorf("GraphQL aggregate count %v, want 2 (admin, reader)", c)
	}
}

func TestSitePermissionsAggregate(t *testing.T) {
	p := newPermEnv(t)
	admin := p.Admin.Token
	guest := p.NewUser("guest@acme.test", p.org, "guest")
	site := p.Must(201, "POST", "/v1/orgs/"+p.org+"/sites", admin, map[string]any{"title": "Docs"}).JSON()["id"].(string)
	path := "/v1/orgs/" + p.org + "/sites/" + site + "/permissions/aggregate"
	got := items(t, p.Must(200, "GET", path, p.reader.Token, nil))
	roles := map[string]string{}
	for _, it := range got {
		roles[it["user"].(map[string]any)["id"].(string)] = it["permission"].(string)
		if o := it["origin"].(map[string]any); o["type"] != "organization" || o["organization"] != p.org {
			t.Errorf("origin %v", o)
		}
	}
	want := map[string]string{p.Admin.ID: "admin", p.reader.ID: "read", p.teamMember.ID: "read"}
	if !mapsEqual(roles, want) {
		t.Errorf("site aggregate %v, want %v (no guest %s)", roles, want, guest.ID)
	}
	p.Must(403, "GET", path, guest.Token, nil)
}
