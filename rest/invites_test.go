package rest_test

import (
	"fmt"
	"slices"
	"testing"

	"docsapi/apitest"
)

func TestInviteUsers(t *testing.T) {
	env := newMemberEnv(t)
	admin := env.Admin.Token
	invites := env.org + "/invites"
	outsider := env.NewUser("outsider@elsewhere.test", "", "")
	_, foreign := env.NewOrg("Other", "boss@other.test")
	role := func(userID string) any {
		return body(t, env.Must(200, "GET", env.org+"/members/"+userID, admin, nil))["role"]
	}
	var newcomer string

	env.Run(t, []apitest.Scenario{
		{Name: "existing user, unknown e-mail, current member", Method: "POST", Path: invites, Token: admin, Status: 200,
			Body: map[string]any{"emails": []any{outsider.Email, map[string]any{"email": "New.Person@acme.test", "role": "edit"}, env.byRole["read"].Email}, "role": "comment"},
			Check: func(r apitest.Response) {
				b := body(t, r)
				apitest.Keys(t, b, "users", "invited")
				users := b["users"].([]any)
				if b["invited"] != 2.0 || len(users) != 2 || users[0] != outsider.ID {
					t.Errorf("%s", r.Body)
					return
				}
				newcomer = users[1].(string)
				if role(outsider.ID) != "comment" || role(newcomer) != "edit" || role(env.byRole["read"].ID) != "read" {
					t.Errorf("roles after invite: %v %v %v", role(outsider.ID), role(newcomer), role(env.byRole["read"].ID))
				}
			}},
		{Name: "the newcomer exists with a lower-case e-mail", Method: "GET", Path: "/v1/orgs/" + env.Env.Org + "/members?search=new.person", Token: admin, Status: 200, Contains: []string{`"email":"new.person@acme.test"`}},
		{Name: "the outsider now sees the organization", Method: "GET", Path: env.org, Token: outsider.Token, Status: 200},
		{Name: "a null role invites guests", Method: "POST", Path: invites, Token: admin, Status: 200,
			Body: map[string]any{"emails": []string{"guest2@acme.test"}, "role": nil}, Check: func(r apitest.Response) {
				if id := body(t, r)["users"].([]any)[0].(string); role(id) != nil {
					t.Errorf("guest invite gave role %v", role(id))
				}
			}},
		{Name: "sso members", Method: "POST", Path: invites, Token: admin, Status: 200,
			Body: map[string]any{"emails": []string{"sso@acme.test"}, "sso": true}, Check: func(r apitest.Response) {
				id := body(t, r)["users"].([]any)[0].(string)
				if m := body(t, env.Must(200, "GET", env.org+"/members/"+id, admin, nil)); m["sso"] != true || m["role"] != nil {
					// The organization's defaultRole is null (guests) until set.
					t.Errorf("sso invitee %v", m)
				}
			}},
		{Name: "no e-mails", Method: "POST", Path: invites, Token: admin, Body: map[string]any{"emails": []string{}}, Status: 400, Contains: names("emails")},
		{Name: "emails missing", Method: "POST", Path: invites, Token: admin, Body: map[string]any{}, Status: 400, Contains: names("emails")},
		{Name: "not an e-mail", Method: "POST", Path: invites, Token: admin, Body: map[string]any{"emails": []string{"nope"}}, Status: 400, Contains: names("emails")},
		{Name: "display-name form refused", Method: "POST", Path: invites, Token: admin, Body: map[string]any{"emails": []string{"Bob <bob@acme.test>"}}, Status: 400, Contains: names("emails")},
		{Name: "emails of the wrong type", Method: "POST", Path: invites, Token: admin, Body: map[string]any{"emails": "a@acme.test"}, Status: 400, Contains: names("emails")},
		{Name: "unknown role", Method: "POST", Path: invites, Token: admin, Body: map[string]any{"emails": []string{"x@acme.test"}, "role": "boss"}, Status: 400, Contains: names("role")},
		{Name: "unknown invitee role", Method: "POST", Path: invites, Token: admin, Body: map[string]any{"emails": []any{map[string]any{"email": "x@acme.test", "role": "boss"}}}, Status: 400, Contains: names("emails.role")},
		{Name: "needs admin", Method: "POST", Path: invites, Token: env.byRole["create"].Token, Body: map[string]any{"emails": []string{"x@acme.test"}}, Status: 403},
		{Name: "foreign", Method: "POST", Path: invites, Token: foreign.Token, Body: map[string]any{"emails": []string{"x@acme.test"}}, Status: 404},
		{Name: "no token", Method: "POST", Path: invites, Body: map[string]any{"emails": []string{"x@acme.test"}}, Status: 401},
	})

	t.Run("defaultRole applies to invitees without a role", func(t *testing.T) {
		env.Must(200, "PATCH", env.org, admin, map[string]any{"defaultRole": "review"})
		r := env.Must(200, "POST", invites, admin, map[string]any{"emails": []string{"later@acme.test"}})
		if id := body(t, r)["users"].([]any)[0].(string); role(id) != "review" {
			t.Errorf("defaultRole not applied: %v", role(id))
		}
	})

	t.Run("graphql parity", func(t *testing.T) {
		q := `mutation($o: ID!, $in: InviteUsersInput!) { inviteUsers(organizationId: $o, input: $in) { users invited } }`
		data := gqlData(t, env.Env, admin, q, map[string]any{"o": env.Env.Org, "in": map[string]any{"emails": []any{map[string]any{"email": "gql@acme.test", "role": "READ"}}}})
		res := data["inviteUsers"].(map[string]any)
		if res["invited"] != 1.0 || role(res["users"].([]any)[0].(string)) != "read" {
			t.Errorf("graphql invite %v", res)
		}
		gqlRefusal(t, env.Env, env.byRole["create"].Token, q, map[string]any{"o": env.Env.Org, "in": map[string]any{"emails": []any{map[string]any{"email": "x@acme.test"}}}}, "FORBIDDEN", 403)
		e := gqlRefusal(t, env.Env, admin, q, map[string]any{"o": env.Env.Org, "in": map[string]any{"emails": []any{map[string]any{"email": "nope"}}}}, "BAD_REQUEST", 400)
		if e.Extensions["field"] != "emails" {
			t.Errorf("field %v", e.Extensions)
		}
	})
}

func TestLinkInvites(t *testing.T) {
	env := newMemberEnv(t)
	admin := env.Admin.Token
	links := env.org + "/link-invites"
	otherOrg, foreign := env.NewOrg("Other", "boss@other.test")
	foreignInvite := body(t, env.Must(201, "POST", "/v1/orgs/"+otherOrg+"/link-invites", foreign.Token, map[string]any{"role": "read"}))["id"].(string)
	var first string
	var created []string
	env.Run(t, []apitest.Scenario{
		{Name: "create", Method: "POST", Path: links, Token: admin, Body: map[string]any{"role": "edit"}, Status: 201, Check: func(r apitest.Response) {
			b := body(t, r)
			apitest.Keys(t, b, "object", "id", "role", "redundant")
			if b["object"] != "invite" || b["role"] != "edit" || b["redundant"] != false {
				t.Errorf("%s", r.Body)
			}
			first = b["id"].(string)
		}},
		{Name: "the same again is redundant", Method: "POST", Path: links, Token: admin, Body: map[string]any{"role": "edit"}, Status: 201, Contains: []string{`"redundant":true`}},
		{Name: "guest link", Method: "POST", Path: links, Token: admin, Body: map[string]any{"role": nil}, Status: 201, Contains: []string{`"role":null`}},
		{Name: "unknown role", Method: "POST", Path: links, Token: admin, Body: map[string]any{"role": "boss"}, Status: 400, Contains: names("role")},
		{Name: "role required", Method: "POST", Path: links, Token: admin, Body: map[string]any{}, Status: 400, Contains: names("role")},
		{Name: "role of the wrong type", Method: "POST", Path: links, Token: admin, Body: map[string]any{"role": []string{"read"}}, Status: 400, Contains: names("role")},
		{Name: "create needs admin", Method: "POST", Path: links, Token: env.byRole["create"].Token, Body: map[string]any{"role": "read"}, Status: 403},
		{Name: "create foreign", Method: "POST", Path: links, Token: foreign.Token, Body: map[string]any{"role": "read"}, Status: 404},
		{Name: "list", Method: "GET", Path: links, Token: admin, Status: 200, Check: func(r apitest.Response) {
			apitest.Keys(t, body(t, r), "count", "items")
			list := items(t, r)
			if len(list) != 3 || !slices.Contains(ids(list), first) {
				t.Errorf("%s", r.Body)
			}
			for _, inv := range list {
				apitest.Keys(t, inv, "object", "id", "role", "redundant")
				created = append(created, inv["id"].(string))
			}
		}},
		{Name: "list needs admin", Method: "GET", Path: links, Token: env.byRole["create"].Token, Status: 403},
		{Name: "list foreign", Method: "GET", Path: links, Token: foreign.Token, Status: 404},
		{Name: "list limit over 1000", Method: "GET", Path: links + "?limit=1001", Token: admin, Status: 400, Contains: names("limit")},
		{Name: "list no token", Method: "GET", Path: links, Status: 401},
	})
	t.Run("pages", func(t *testing.T) {
		r := env.Must(200, "GET", links+"?limit=2", admin, nil)
		got := ids(items(t, r))
		r = env.Must(200, "GET", links+"?limit=2&page="+body(t, r)["next"].(map[string]any)["page"].(string), admin, nil)
		got = append(got, ids(items(t, r))...)
		if !slices.Equal(got, created) || body(t, r)["next"] != nil {
			t.Errorf("pages %v, want %v", got, created)
		}
	})
	env.Run(t, []apitest.Scenario{
		{Name: "delete needs admin", Method: "DELETE", Path: links + "/" + first, Token: env.byRole["create"].Token, Status: 403},
		{Name: "delete foreign", Method: "DELETE", Path: links + "/" + first, Token: foreign.Token, Status: 404},
		{Name: "delete", Method: "DELETE", Path: links + "/" + first, Token: admin, Status: 205},
		{Name: "delete again", Method: "DELETE", Path: links + "/" + first, Token: admin, Status: 204},
		{Name: "another organization's invite does not exist here", Method: "DELETE", Path: links + "/" + foreignInvite, Token: admin, Status: 204},
		{Name: "delete no token", Method: "DELETE", Path: links + "/" + first, Status: 401},
	})
	// The other organization's invite survived.
	if r := env.Must(200, "GET", "/v1/orgs/"+otherOrg+"/link-invites", foreign.Token, nil); body(t, r)["count"] != 1.0 {
		t.Errorf("foreign invite deleted: %s", r.Body)
	}

	t.Run("graphql parity", func(t *testing.T) {
		rest := body(t, env.Must(200, "GET", links, admin, nil))
		data := gqlData(t, env.Env, admin, `query($o: ID!) { linkInvites(organizationId: $o) { next { page } count items { object id role redundant } } }`, map[string]any{"o": env.Env.Org})
		sameJSON(t, "link invites", rest, dropNulls(data["linkInvites"]))
		q := `mutation($o: ID!) { createLinkInvite(organizationId: $o, input: {role: READ}) { object id role redundant } }`
		data = gqlData(t, env.Env, admin, q, map[string]any{"o": env.Env.Org})
		if inv := data["createLinkInvite"].(map[string]any); inv["role"] != "READ" || inv["object"] != "invite" {
			t.Errorf("%v", inv)
		}
		gqlRefusal(t, env.Env, env.byRole["create"].Token, q, map[string]any{"o": env.Env.Org}, "FORBIDDEN", 403)
		del := `mutation($o: ID!, $i: ID!) { deleteLinkInvite(organizationId: $o, inviteId: $i) { deleted } }`
		id := data["createLinkInvite"].(map[string]any)["id"]
		for _, want := range []bool{true, false} {
			d := gqlData(t, env.Env, admin, del, map[string]any{"o": env.Env.Org, "i": id})
			if d["deleteLinkInvite"].(map[string]any)["deleted"] != want {
				t.Errorf("delete: %v, want %v", d, want)
			}
		}
		gqlRefusal(t, env.Env, foreign.Token, del, map[string]any{"o": env.Env.Org, "i": fmt.Sprint(id)}, "NOT_FOUND", 404)
	})
}
