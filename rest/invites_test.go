package rest_test

import (
	"strings"
	"testing"

	"docsapi/apitest"
)

func TestJoinOrganizationWithInvite(t *testing.T) {
	env := apitest.New(t)
	admin := env.Admin.Token
	org := "/v1/orgs/" + env.Org
	id := env.Must(201, "POST", org+"/link-invites", admin, map[string]any{"role": "read"}).JSON()["id"].(string)
	link := org + "/link-invites/" + id

	got := env.Must(200, "GET", link, admin, nil).JSON()
	if got["object"] != "invite" || got["role"] != "read" || got["redundant"] != false {
		t.Errorf("invite %v", got)
	}
	got = env.Must(200, "PATCH", link, admin, map[string]any{"role": "edit"}).JSON()
	if got["role"] != "edit" {
		t.Errorf("updated invite %v", got)
	}

	// Someone of another organization joins with the link's role, and
	// reads the organization at once.
	_, outsider := env.NewOrg("Elsewhere", "outsider@elsewhere.test")
	env.Must(404, "GET", org, outsider.Token, nil)
	r := env.Must(200, "POST", org+"/invites/"+id, outsider.Token, nil)
	if strings.TrimSpace(string(r.Body)) != "{}" {
		t.Errorf("join answered %s", r.Body)
	}
	m := env.Must(200, "GET", org+"/members/"+outsider.ID, admin, nil).JSON()
	if m["role"] != "edit" {
		t.Errorf("joined as %v", m["role"])
	}
	env.Must(200, "GET", org, outsider.Token, nil)
	// Joining again changes nothing; a member keeps their role.
	env.Must(200, "PATCH", link, admin, map[string]any{"role": "admin"})
	env.Must(200, "POST", org+"/invites/"+id, outsider.Token, nil)
	if m := env.Must(200, "GET", org+"/members/"+outsider.ID, admin, nil).JSON(); m["role"] != "edit" {
		t.Errorf("joining again changed the role to %v", m["role"])
	}
	log := string(env.Must(200, "GET", org+"/audit-log", admin, nil).Body)
	for _, a := range []string{`"invite.updated"`, `"member.added"`} {
		if !strings.Contains(log, a) {
			t.Errorf("audit log lacks %s", a)
		}
	}

	reader := env.NewUser("reader@acme.test", env.Org, "read")
	env.Run(t, []apitest.Scenario{
		{Name: "unknown link", Method: "POST", Path: org + "/invites/nope", Token: outsider.Token, Status: 404},
		{Name: "unknown link read", Method: "GET", Path: org + "/link-invites/nope", Token: admin, Status: 404},
		{Name: "update without role", Method: "PATCH", Path: link, Token: admin, Body: map[string]any{}, Status: 400, Contains: []string{"role"}},
		{Name: "update with a level", Method: "PATCH", Path: link, Token: admin, Body: map[string]any{"level": "read"}, Status: 400, Contains: []string{"level"}},
		{Name: "update with a bad role", Method: "PATCH", Path: link, Token: admin, Body: map[string]any{"role": "owner"}, Status: 400, Contains: []string{"role"}},
		{Name: "a reader reads a link", Method: "GET", Path: link, Token: reader.Token, Status: 403},
		{Name: "the joined editor reads a link", Method: "GET", Path: link, Token: outsider.Token, Status: 403},
	})
	// A null role: whoever joins later is a guest.
	got = env.Must(200, "PATCH", link, admin, map[string]any{"role": nil}).JSON()
	if got["role"] != nil {
		t.Errorf("role %v, want null", got["role"])
	}
}

func TestUpdateOwnProfile(t *testing.T) {
	env := apitest.New(t)
	reader := env.NewUser("reader@acme.test", env.Org, "read")
	_, foreign := env.NewOrg("Other", "admin@other.test")
	u := env.Must(200, "PATCH", "/v1/users/"+reader.ID, reader.Token, map[string]any{"displayName": "Rea Der", "photoURL": "https://example.com/r.png"}).JSON()
	if u["displayName"] != "Rea Der" || u["photoURL"] != "https://example.com/r.png" || u["object"] != "user" {
		t.Errorf("updated user %v", u)
	}
	if got := env.Must(200, "GET", "/v1/user", reader.Token, nil).JSON(); got["displayName"] != "Rea Der" {
		t.Errorf("viewer %v", got)
	}
	data, errs := env.GraphQL(reader.Token, `mutation($u: ID!) { updateUser(userId: $u, input: {displayName: "R"}) { displayName } }`, map[string]any{"u": reader.ID})
	if len(errs) > 0 || data["updateUser"].(map[string]any)["displayName"] != "R" {
		t.Errorf("GraphQL %v %v", data, errs)
	}
	env.Run(t, []apitest.Scenario{
		{Name: "empty", Method: "PATCH", Path: "/v1/users/" + reader.ID, Token: reader.Token, Body: map[string]any{}, Status: 400, Contains: []string{"displayName"}},
		{Name: "long name", Method: "PATCH", Path: "/v1/users/" + reader.ID, Token: reader.Token, Body: map[string]any{"displayName": strings.Repeat("x", 65)}, Status: 400, Contains: []string{"displayName"}},
		{Name: "empty name", Method: "PATCH", Path: "/v1/users/" + reader.ID, Token: reader.Token, Body: map[string]any{"displayName": ""}, Status: 400, Contains: []string{"displayName"}},
		{Name: "bad photo", Method: "PATCH", Path: "/v1/users/" + reader.ID, Token: reader.Token, Body: map[string]any{"photoURL": "ftp://x"}, Status: 400, Contains: []string{"photoURL"}},
		{Name: "another member", Method: "PATCH", Path: "/v1/users/" + env.Admin.ID, Token: reader.Token, Body: map[string]any{"displayName": "X"}, Status: 403},
		{Name: "someone unseen", Method: "PATCH", Path: "/v1/users/" + foreign.ID, Token: reader.Token, Body: map[string]any{"displayName": "X"}, Status: 404},
		{Name: "unknown", Method: "PATCH", Path: "/v1/users/nobody", Token: reader.Token, Body: map[string]any{"displayName": "X"}, Status: 404},
		{Name: "no token", Method: "PATCH", Path: "/v1/users/" + reader.ID, Body: map[string]any{"displayName": "X"}, Status: 401},
	})
}
