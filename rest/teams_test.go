package rest_test

import (
	"slices"
	"strings"
	"testing"
	"time"

	"docsapi/apitest"
)

const teamFields = `object id title members spaces createdAt permissions { admin view }`

// teamMembers lists a team's members as userId → team role.
func teamMembers(t *testing.T, env memberEnv, teamID string) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, e := range items(t, env.Must(200, "GET", env.org+"/teams/"+teamID+"/members?limit=1000", env.Admin.Token, nil)) {
		out[e["organization"].(map[string]any)["id"].(string)] = e["team"].(map[string]any)["role"].(string)
	}
	return out
}

func TestTeamLifecycle(t *testing.T) {
	env := newMemberEnv(t)
	admin := env.Admin.Token
	teams := env.org + "/teams"
	reader, guest := env.byRole["read"], env.byRole["guest"]
	otherOrg, foreign := env.NewOrg("Other", "boss@other.test")
	foreignTeam := body(t, env.Must(201, "PUT", "/v1/orgs/"+otherOrg+"/teams", foreign.Token, map[string]any{"title": "Theirs"}))["id"].(string)
	var team string

	env.Run(t, []apitest.Scenario{
		{Name: "create with members by id and e-mail", Method: "PUT", Path: teams, Token: admin, Status: 201,
			Body: map[string]any{"title": "Writers", "members": []string{reader.ID, "EDIT@acme.test"}},
			Check: func(r apitest.Response) {
				tm := body(t, r)
				apitest.Keys(t, tm, teamKeys...)
				apitest.Keys(t, tm["permissions"].(map[string]any), "admin", "view")
				if tm["object"] != "team" || tm["title"] != "Writers" || tm["members"] != 2.0 || tm["spaces"] != 0.0 || tm["permissions"].(map[string]any)["admin"] != true {
					t.Errorf("team %v", tm)
				}
				team = tm["id"].(string)
			}},
		{Name: "title required", Method: "PUT", Path: teams, Token: admin, Body: map[string]any{"members": []string{}}, Status: 400, Contains: names("title")},
		{Name: "title too long", Method: "PUT", Path: teams, Token: admin, Body: map[string]any{"title": strings.Repeat("t", 65)}, Status: 400, Contains: names("title")},
		{Name: "title of the wrong type", Method: "PUT", Path: teams, Token: admin, Body: map[string]any{"title": true}, Status: 400, Contains: names("title")},
		{Name: "members of the wrong type", Method: "PUT", Path: teams, Token: admin, Body: map[string]any{"title": "X", "members": "all"}, Status: 400, Contains: names("members")},
		{Name: "members must be members", Method: "PUT", Path: teams, Token: admin, Body: map[string]any{"title": "X", "members": []string{foreign.ID}}, Status: 400, Contains: names("members")},
		{Name: "create needs admin", Method: "PUT", Path: teams, Token: env.byRole["create"].Token, Body: map[string]any{"title": "X"}, Status: 403},
		{Name: "create in another organization", Method: "PUT", Path: "/v1/orgs/" + otherOrg + "/teams", Token: admin, Body: map[string]any{"title": "X"}, Status: 404},
		{Name: "create without token", Method: "PUT", Path: teams, Body: map[string]any{"title": "X"}, Status: 401},
	})

	get := func(id string) string { return teams + "/" + id }
	env.Run(t, []apitest.Scenario{
		{Name: "get", Method: "GET", Path: get(team), Token: reader.Token, Status: 200, Check: func(r apitest.Response) {
			tm := body(t, r)
			apitest.Keys(t, tm, teamKeys...)
			if tm["permissions"].(map[string]any)["admin"] != false || tm["permissions"].(map[string]any)["view"] != true {
				t.Errorf("reader's permissions %v", tm["permissions"])
			}
		}},
		{Name: "guest may not read teams", Method: "GET", Path: get(team), Token: guest.Token, Status: 403},
		{Name: "unknown team", Method: "GET", Path: get("nope"), Token: admin, Status: 404},
		{Name: "team of another organization", Method: "GET", Path: get(foreignTeam), Token: admin, Status: 404},
		{Name: "foreign caller", Method: "GET", Path: get(team), Token: foreign.Token, Status: 404},
		{Name: "rename", Method: "PATCH", Path: get(team), Token: admin, Body: map[string]any{"title": "Authors"}, Status: 200, Check: func(r apitest.Response) {
			apitest.Keys(t, body(t, r), teamKeys...)
			if body(t, r)["title"] != "Authors" {
				t.Errorf("%s", r.Body)
			}
		}},
		{Name: "rename to nothing", Method: "PATCH", Path: get(team), Token: admin, Body: map[string]any{"title": ""}, Status: 400, Contains: names("title")},
		{Name: "rename without title", Method: "PATCH", Path: get(team), Token: admin, Body: map[string]any{}, Status: 400, Contains: names("title")},
		{Name: "rename needs admin", Method: "PATCH", Path: get(team), Token: env.byRole["create"].Token, Body: map[string]any{"title": "Mine"}, Status: 403},
		{Name: "rename another organization's team", Method: "PATCH", Path: get(foreignTeam), Token: admin, Body: map[string]any{"title": "Mine"}, Status: 404},
		{Name: "rename unknown", Method: "PATCH", Path: get("nope"), Token: admin, Body: map[string]any{"title": "Mine"}, Status: 404},
		{Name: "delete needs admin", Method: "DELETE", Path: get(team), Token: env.byRole["create"].Token, Status: 403},
		{Name: "delete another organization's team", Method: "DELETE", Path: get(foreignTeam), Token: admin, Status: 204},
		{Name: "foreign caller deletes", Method: "DELETE", Path: get(team), Token: foreign.Token, Status: 404},
		{Name: "delete", Method: "DELETE", Path: get(team), Token: admin, Status: 205},
		{Name: "deleted", Method: "GET", Path: get(team), Token: admin, Status: 404},
		{Name: "delete again", Method: "DELETE", Path: get(team), Token: admin, Status: 204},
	})
	// The other organization's team survived the attempt.
	env.Must(200, "GET", "/v1/orgs/"+otherOrg+"/teams/"+foreignTeam, foreign.Token, nil)

	t.Run("graphql parity", func(t *testing.T) {
		q := `mutation($o: ID!, $in: CreateTeamInput!) { createTeam(organizationId: $o, input: $in) { ` + teamFields + ` } }`
		data := gqlData(t, env.Env, admin, q, map[string]any{"o": env.Env.Org, "in": map[string]any{"title": "GQL", "members": []string{reader.Email}}})
		created := data["createTeam"].(map[string]any)
		rest := body(t, env.Must(200, "GET", get(created["id"].(string)), admin, nil))
		sameJSON(t, "team", rest, created)
		e := gqlRefusal(t, env.Env, admin, q, map[string]any{"o": env.Env.Org, "in": map[string]any{"title": ""}}, "BAD_REQUEST", 400)
		if e.Extensions["field"] != "title" {
			t.Errorf("field %v", e.Extensions)
		}
		gqlRefusal(t, env.Env, env.byRole["create"].Token, q, map[string]any{"o": env.Env.Org, "in": map[string]any{"title": "X"}}, "FORBIDDEN", 403)
		gqlRefusal(t, env.Env, admin, `query($o: ID!, $t: ID!) { team(organizationId: $o, teamId: $t) { id } }`, map[string]any{"o": env.Env.Org, "t": foreignTeam}, "NOT_FOUND", 404)
		del := `mutation($o: ID!, $t: ID!) { deleteTeam(organizationId: $o, teamId: $t) { deleted } }`
		if d := gqlData(t, env.Env, admin, del, map[string]any{"o": env.Env.Org, "t": created["id"]}); d["deleteTeam"].(map[string]any)["deleted"] != true {
			t.Errorf("%v", d)
		}
		if d := gqlData(t, env.Env, admin, del, map[string]any{"o": env.Env.Org, "t": created["id"]}); d["deleteTeam"].(map[string]any)["deleted"] != false {
			t.Errorf("%v", d)
		}
	})
}

func TestTeamList(t *testing.T) {
	env := newMemberEnv(t)
	admin := env.Admin.Token
	teams := env.org + "/teams"
	reader := env.byRole["read"]
	var all []string
	for _, title := range []string{"Alpha docs", "Beta", "Gamma docs", "Delta", "Epsilon"} {
		env.Clock.Advance(time.Second)
		all = append(all, body(t, env.Must(201, "PUT", teams, admin, map[string]any{"title": title}))["id"].(string))
	}
	// reader owns Beta and is a plain member of Delta.
	env.Must(204, "PUT", teams+"/"+all[1]+"/members/"+reader.ID, admin, map[string]any{"role": "owner"})
	env.Must(204, "PUT", teams+"/"+all[3]+"/members/"+reader.ID, admin, nil)

	expect := func(want ...string) func(r apitest.Response) {
		return func(r apitest.Response) {
			if got := ids(items(t, r)); !slices.Equal(got, want) {
				t.Errorf("teams %v, want %v", got, want)
			}
		}
	}
	env.Run(t, []apitest.Scenario{
		{Name: "all, oldest first", Method: "GET", Path: teams, Token: reader.Token, Status: 200, Check: func(r apitest.Response) {
			expect(all...)(r)
			for _, tm := range items(t, r) {
				apitest.Keys(t, tm, teamKeys...)
				if admin := tm["permissions"].(map[string]any)["admin"]; admin != (tm["id"] == all[1]) {
					t.Errorf("reader's admin permission on %v: %v", tm["title"], admin)
				}
			}
		}},
		{Name: "title filter", Method: "GET", Path: teams + "?title=DOCS", Token: reader.Token, Status: 200, Check: expect(all[0], all[2])},
		{Name: "owner filter: an owner manages their teams", Method: "GET", Path: teams + "?owner=" + reader.ID, Token: admin, Status: 200, Check: expect(all[1])},
		{Name: "owner filter: an admin manages every team", Method: "GET", Path: teams + "?owner=" + env.Admin.ID, Token: reader.Token, Status: 200, Check: expect(all...)},
		{Name: "owner filter: a non-member manages none", Method: "GET", Path: teams + "?owner=nope", Token: admin, Status: 200, Check: expect()},
		{Name: "title too long", Method: "GET", Path: teams + "?title=" + strings.Repeat("x", 65), Token: admin, Status: 400, Contains: names("title")},
		{Name: "limit over 1000", Method: "GET", Path: teams + "?limit=5000", Token: admin, Status: 400, Contains: names("limit")},
		{Name: "guest may not list", Method: "GET", Path: teams, Token: env.byRole["guest"].Token, Status: 403},
		{Name: "no token", Method: "GET", Path: teams, Status: 401},
	})

	t.Run("pages", func(t *testing.T) {
		var got []string
		r := env.Must(200, "GET", teams+"?limit=2", admin, nil)
		got = append(got, ids(items(t, r))...)
		next := body(t, r)["next"].(map[string]any)["page"].(string)
		// A team created between pages shows up at the end, once.
		env.Clock.Advance(time.Second)
		late := body(t, env.Must(201, "PUT", teams, admin, map[string]any{"title": "Late"}))["id"].(string)
		for {
			r = env.Must(200, "GET", teams+"?limit=2&page="+next, admin, nil)
			if body(t, r)["count"] != 6.0 {
				t.Fatalf("count %s", r.Body)
			}
			got = append(got, ids(items(t, r))...)
			n, ok := body(t, r)["next"].(map[string]any)
			if !ok {
				break
			}
			next = n["page"].(string)
		}
		if !slices.Equal(got, append(slices.Clone(all), late)) {
			t.Errorf("pages %v", got)
		}
	})

	t.Run("a member's teams", func(t *testing.T) {
		mine := env.org + "/members/" + reader.ID + "/teams"
		env.Run(t, []apitest.Scenario{
			{Name: "own list", Method: "GET", Path: mine, Token: reader.Token, Status: 200, Check: func(r apitest.Response) {
				apitest.Keys(t, body(t, r), "count", "items")
				list := items(t, r)
				if len(list) != 2 {
					t.Errorf("%s", r.Body)
					return
				}
				for _, e := range list {
					apitest.Keys(t, e, "team", "member")
					apitest.Keys(t, e["team"].(map[string]any), teamKeys...)
					apitest.Keys(t, e["member"].(map[string]any), "role")
				}
				if list[0]["member"].(map[string]any)["role"] != "owner" || list[1]["member"].(map[string]any)["role"] != "member" {
					t.Errorf("roles %s", r.Body)
				}
			}},
			{Name: "title filter", Method: "GET", Path: mine + "?title=bet", Token: reader.Token, Status: 200, Check: func(r apitest.Response) {
				if got := ids(items(t, r), "team"); !slices.Equal(got, []string{all[1]}) {
					t.Errorf("%v", got)
				}
			}},
			{Name: "a guest's own (empty) list", Method: "GET", Path: env.org + "/members/" + env.byRole["guest"].ID + "/teams", Token: env.byRole["guest"].Token, Status: 200, Contains: []string{`"count":0`}},
			{Name: "a guest may not list another's", Method: "GET", Path: mine, Token: env.byRole["guest"].Token, Status: 403},
			{Name: "unknown member", Method: "GET", Path: env.org + "/members/nope/teams", Token: admin, Status: 404},
			{Name: "limit over 1000", Method: "GET", Path: mine + "?limit=1001", Token: admin, Status: 400, Contains: names("limit")},
		})
		// The caller's permissions, not the listed member's: reader owns Beta,
		// and sees admin on Beta in the editor's list too.
		editor := env.byRole["edit"]
		env.Must(204, "PUT", teams+"/"+all[1]+"/members/"+editor.ID, admin, nil)
		r := env.Must(200, "GET", env.org+"/members/"+editor.ID+"/teams", reader.Token, nil)
		if e := items(t, r)[0]; e["team"].(map[string]any)["permissions"].(map[string]any)["admin"] != true || e["member"].(map[string]any)["role"] != "member" {
			t.Errorf("owner's view of another member's teams: %s", r.Body)
		}
		rest := body(t, r)
		data := gqlData(t, env.Env, reader.Token, `query($o: ID!, $u: ID!) { memberTeams(organizationId: $o, userId: $u) { next { page } count items { team { `+teamFields+` } member { role } } } }`,
			map[string]any{"o": env.Env.Org, "u": editor.ID})
		sameJSON(t, "member teams", rest, dropNulls(lowerRoles(data["memberTeams"])))
	})

	t.Run("graphql parity", func(t *testing.T) {
		rest := body(t, env.Must(200, "GET", teams+"?limit=3&title=a", reader.Token, nil))
		data := gqlData(t, env.Env, reader.Token, `query($o: ID!) { teams(organizationId: $o, limit: 3, title: "a") { next { page } count items { `+teamFields+` } } }`, map[string]any{"o": env.Env.Org})
		sameJSON(t, "teams", rest, data["teams"])
		gqlRefusal(t, env.Env, env.byRole["guest"].Token, `query($o: ID!) { teams(organizationId: $o) { count } }`, map[string]any{"o": env.Env.Org}, "FORBIDDEN", 403)
	})
}

// lowerRoles maps GraphQL team roles (OWNER) to their REST values (owner).
func lowerRoles(v any) any {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			if s, ok := e.(string); ok && k == "role" {
				x[k] = strings.ToLower(s)
			} else {
				x[k] = lowerRoles(e)
			}
		}
	case []any:
		for i, e := range x {
			x[i] = lowerRoles(e)
		}
	}
	return v
}

func TestTeamMembers(t *testing.T) {
	env := newMemberEnv(t)
	admin := env.Admin.Token
	u := env.byRole
	team := body(t, env.Must(201, "PUT", env.org+"/teams", admin, map[string]any{"title": "Docs", "members": []string{u["read"].ID}}))["id"].(string)
	other := body(t, env.Must(201, "PUT", env.org+"/teams", admin, map[string]any{"title": "Other"}))["id"].(string)
	members := env.org + "/teams/" + team + "/members"
	one := func(user apitest.User) string { return members + "/" + user.ID }
	_, foreign := env.NewOrg("Other", "boss@other.test")

	env.Run(t, []apitest.Scenario{
		{Name: "list shape", Method: "GET", Path: members, Token: u["read"].Token, Status: 200, Check: func(r apitest.Response) {
			apitest.Keys(t, body(t, r), "count", "items")
			e := items(t, r)[0]
			apitest.Keys(t, e, "organization", "team", "permissions")
			apitest.Keys(t, e["organization"].(map[string]any), memberKeys...)
			apitest.Keys(t, e["team"].(map[string]any), "role")
			apitest.Keys(t, e["permissions"].(map[string]any), "view")
			if e["team"].(map[string]any)["role"] != "member" || e["organization"].(map[string]any)["teams"] != 1.0 {
				t.Errorf("entry %v", e)
			}
		}},
		{Name: "add by id and e-mail, remove wins, memberships set roles", Method: "PUT", Path: members, Token: admin, Status: 204,
			Body: map[string]any{
				"add":         []string{u["edit"].ID, "comment@acme.test", u["review"].ID},
				"remove":      []string{u["review"].Email, u["read"].ID},
				"memberships": map[string]any{u["edit"].ID: map[string]any{"role": "owner"}, u["create"].Email: map[string]any{"role": "member"}},
			},
			Check: func(r apitest.Response) {
				if len(r.Body) != 0 {
					t.Errorf("204 with a body %s", r.Body)
				}
				got := teamMembers(t, env, team)
				want := map[string]string{u["edit"].ID: "owner", u["comment"].ID: "member", u["create"].ID: "member"}
				sameJSON(t, "team members", got, want)
			}},
		{Name: "add keeps an owner's role", Method: "PUT", Path: members, Token: admin, Body: map[string]any{"add": []string{u["edit"].ID}}, Status: 204, Check: func(r apitest.Response) {
			if teamMembers(t, env, team)[u["edit"].ID] != "owner" {
				t.Errorf("owner demoted by add")
			}
		}},
		{Name: "unknown reference", Method: "PUT", Path: members, Token: admin, Body: map[string]any{"add": []string{"nobody@acme.test"}}, Status: 400, Contains: names("add")},
		{Name: "a foreign user", Method: "PUT", Path: members, Token: admin, Body: map[string]any{"remove": []string{foreign.ID}}, Status: 400, Contains: names("remove")},
		{Name: "bad membership role", Method: "PUT", Path: members, Token: admin, Body: map[string]any{"memberships": map[string]any{u["edit"].ID: map[string]any{"role": "boss"}}}, Status: 400, Contains: names("memberships")},
		{Name: "membership not an object", Method: "PUT", Path: members, Token: admin, Body: map[string]any{"memberships": map[string]any{u["edit"].ID: "owner"}}, Status: 400, Contains: names("memberships")},
		{Name: "add of the wrong type", Method: "PUT", Path: members, Token: admin, Body: map[string]any{"add": u["edit"].ID}, Status: 400, Contains: []string{`"add: must be an array, not string"`}},
		{Name: "memberships of the wrong type", Method: "PUT", Path: members, Token: admin, Body: map[string]any{"memberships": []string{}}, Status: 400, Contains: []string{`"memberships: must be an object, not array"`}},
		{Name: "missing body", Method: "PUT", Path: members, Token: admin, Status: 400},
		{Name: "a plain member may not manage", Method: "PUT", Path: members, Token: u["comment"].Token, Body: map[string]any{"add": []string{u["read"].ID}}, Status: 403},
		{Name: "the team's owner may manage", Method: "PUT", Path: members, Token: u["edit"].Token, Body: map[string]any{"add": []string{u["read"].ID}}, Status: 204},
		{Name: "an owner of this team may not manage another", Method: "PUT", Path: env.org + "/teams/" + other + "/members", Token: u["edit"].Token, Body: map[string]any{"add": []string{u["read"].ID}}, Status: 403},
		{Name: "foreign", Method: "PUT", Path: members, Token: foreign.Token, Body: map[string]any{"add": []string{u["read"].ID}}, Status: 404},
		{Name: "unknown team", Method: "PUT", Path: env.org + "/teams/nope/members", Token: admin, Body: map[string]any{"add": []string{u["read"].ID}}, Status: 404},
		{Name: "no token", Method: "PUT", Path: members, Body: map[string]any{"add": []string{u["read"].ID}}, Status: 401},

		{Name: "put one, no body: member", Method: "PUT", Path: one(u["guest"]), Token: admin, Status: 204, Check: func(r apitest.Response) {
			if teamMembers(t, env, team)[u["guest"].ID] != "member" {
				t.Errorf("guest not added")
			}
		}},
		{Name: "put one as owner", Method: "PUT", Path: one(u["guest"]), Token: admin, Body: map[string]any{"role": "owner"}, Status: 204, Check: func(r apitest.Response) {
			if teamMembers(t, env, team)[u["guest"].ID] != "owner" {
				t.Errorf("guest not owner")
			}
		}},
		{Name: "put one with a bad role", Method: "PUT", Path: one(u["guest"]), Token: admin, Body: map[string]any{"role": "boss"}, Status: 400, Contains: names("role")},
		{Name: "put one who is not a member", Method: "PUT", Path: members + "/" + foreign.ID, Token: admin, Body: map[string]any{"role": "member"}, Status: 404},
		{Name: "put one by a plain member", Method: "PUT", Path: one(u["guest"]), Token: u["comment"].Token, Body: map[string]any{"role": "member"}, Status: 403},
		{Name: "delete one by its owner", Method: "DELETE", Path: one(u["comment"]), Token: u["edit"].Token, Status: 205},
		{Name: "delete one again", Method: "DELETE", Path: one(u["comment"]), Token: admin, Status: 204},
		{Name: "delete one by a plain member", Method: "DELETE", Path: one(u["read"]), Token: u["create"].Token, Status: 403},
		{Name: "delete one, foreign", Method: "DELETE", Path: one(u["read"]), Token: foreign.Token, Status: 404},
		{Name: "guest may not list", Method: "GET", Path: members, Token: u["guest"].Token, Status: 403},
		{Name: "list unknown team", Method: "GET", Path: env.org + "/teams/nope/members", Token: admin, Status: 404},
		{Name: "list limit over 1000", Method: "GET", Path: members + "?limit=1001", Token: admin, Status: 400, Contains: names("limit")},
	})

	t.Run("pages", func(t *testing.T) {
		r := env.Must(200, "GET", members+"?limit=2", admin, nil)
		b := body(t, r)
		first := ids(items(t, r), "organization")
		r = env.Must(200, "GET", members+"?limit=2&page="+b["next"].(map[string]any)["page"].(string), admin, nil)
		rest := ids(items(t, r), "organization")
		if len(first)+len(rest) != int(b["count"].(float64)) || len(dedupe(append(first, rest...))) != len(first)+len(rest) {
			t.Errorf("pages %v %v of %v", first, rest, b["count"])
		}
	})

	t.Run("graphql parity", func(t *testing.T) {
		rest := body(t, env.Must(200, "GET", members, admin, nil))
		data := gqlData(t, env.Env, admin, `query($o: ID!, $t: ID!) { teamMembers(organizationId: $o, teamId: $t) { next { page } count items { organization { `+memberFields+` } team { role } permissions { view } } } }`,
			map[string]any{"o": env.Env.Org, "t": team})
		sameJSON(t, "team members", rest, dropNulls(lowerRoles(data["teamMembers"])))
		q := `mutation($o: ID!, $t: ID!, $in: UpdateTeamMembersInput!) { updateTeamMembers(organizationId: $o, teamId: $t, input: $in) }`
		gqlData(t, env.Env, admin, q, map[string]any{"o": env.Env.Org, "t": team, "in": map[string]any{"add": []string{u["review"].Email}, "memberships": map[string]any{u["review"].ID: map[string]any{"role": "owner"}}}})
		if teamMembers(t, env, team)[u["review"].ID] != "owner" {
			t.Errorf("graphql add with role")
		}
		gqlRefusal(t, env.Env, u["comment"].Token, q, map[string]any{"o": env.Env.Org, "t": team, "in": map[string]any{"add": []string{u["read"].ID}}}, "FORBIDDEN", 403)
		gqlRefusal(t, env.Env, admin, q, map[string]any{"o": env.Env.Org, "t": team, "in": map[string]any{"add": []string{"nobody"}}}, "BAD_REQUEST", 400)
		set := `mutation($o: ID!, $t: ID!, $u: ID!) { setTeamMember(organizationId: $o, teamId: $t, userId: $u, role: OWNER) }`
		gqlData(t, env.Env, admin, set, map[string]any{"o": env.Env.Org, "t": team, "u": u["create"].ID})
		if teamMembers(t, env, team)[u["create"].ID] != "owner" {
			t.Errorf("graphql setTeamMember")
		}
		gqlRefusal(t, env.Env, admin, set, map[string]any{"o": env.Env.Org, "t": team, "u": foreign.ID}, "NOT_FOUND", 404)
		rm := `mutation($o: ID!, $t: ID!, $u: ID!) { removeTeamMember(organizationId: $o, teamId: $t, userId: $u) { deleted } }`
		if d := gqlData(t, env.Env, admin, rm, map[string]any{"o": env.Env.Org, "t": team, "u": u["create"].ID}); d["removeTeamMember"].(map[string]any)["deleted"] != true {
			t.Errorf("%v", d)
		}
	})
}
