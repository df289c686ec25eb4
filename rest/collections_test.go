package rest_test

import (
	"net/http"
	"strings"
	"testing"

	"docsapi/apitest"
)

// contentEnv is a test server with one member per organization role and a
// second organization.
type contentEnv struct {
	*apitest.Env
	ByRole   map[string]apitest.User
	Other    string       // another organization
	OtherAdm apitest.User // its admin
}

func newContentEnv(t *testing.T) *contentEnv {
	env := apitest.New(t)
	c := &contentEnv{Env: env, ByRole: map[string]apitest.User{"admin": env.Admin}}
	for _, role := range []string{"create", "review", "edit", "comment", "read", "guest"} {
		c.ByRole[role] = env.NewUser(role+"@acme.test", env.Org, role)
	}
	c.Other, c.OtherAdm = env.NewOrg("Other", "admin@other.test")
	return c
}

// id creates something with POST and returns its id.
func (c *contentEnv) id(path, token string, body any) string {
	c.T.Helper()
	return c.Must(http.StatusCreated, "POST", path, token, body).JSON()["id"].(string)
}

func (c *contentEnv) collection(token string, body map[string]any) string {
	return c.id("/v1/orgs/"+c.Org+"/collections", token, body)
}

func (c *contentEnv) space(token string, body map[string]any) string {
	return c.id("/v1/orgs/"+c.Org+"/spaces", token, body)
}

// ids lists the ids of a list answer's items, in order.
func itemIDs(t *testing.T, r apitest.Response) []string {
	t.Helper()
	var out []string
	items, _ := r.JSON()["items"].([]any)
	for _, it := range items {
		obj := it.(map[string]any)
		if sp, ok := obj["space"].(map[string]any); ok {
			obj = sp
		}
		out = append(out, obj["id"].(string))
	}
	return out
}

func wantIDs(t *testing.T, r apitest.Response, want ...string) {
	t.Helper()
	if got := itemIDs(t, r); strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("items %v, want %v", got, want)
	}
}

func TestCollectionCRUD(t *testing.T) {
	c := newContentEnv(t)
	admin, org := c.Admin.Token, "/v1/orgs/"+c.Org
	var top string
	c.Run(t, []apitest.Scenario{
		{Name: "create", Method: "POST", Path: org + "/collections", Token: admin, Body: map[string]any{"title": "Guides"}, Status: 201,
			Check: func(r apitest.Response) {
				obj := r.JSON()
				apitest.Keys(t, obj, "object", "id", "title", "organization", "defaultLevel", "urls", "permissions")
				apitest.Keys(t, obj["permissions"].(map[string]any), "view", "admin", "viewInviteLinks", "create")
				apitest.Keys(t, obj["urls"].(map[string]any), "location", "app")
				top = obj["id"].(string)
				if obj["object"] != "collection" || obj["defaultLevel"] != "inherit" || obj["organization"] != c.Org {
					t.Errorf("created %v", obj)
				}
				if r.Header.Get("Location") != obj["urls"].(map[string]any)["location"] {
					t.Errorf("Location %q", r.Header.Get("Location"))
				}
			}},
		{Name: "create without body", Method: "POST", Path: org + "/collections", Token: admin, Status: 201, Contains: []string{`"title":"Untitled"`}},
		{Name: "title too long", Method: "POST", Path: org + "/collections", Token: admin, Body: map[string]any{"title": strings.Repeat("x", 51)}, Status: 400, Contains: []string{"title: must be at most 50"}},
		{Name: "unknown parent", Method: "POST", Path: org + "/collections", Token: admin, Body: map[string]any{"parent": "nope"}, Status: 400, Contains: []string{"parent:"}},
		{Name: "no token", Method: "POST", Path: org + "/collections", Body: map[string]any{"title": "x"}, Status: 401},
		{Name: "reviewer cannot create", Method: "POST", Path: org + "/collections", Token: c.ByRole["review"].Token, Body: map[string]any{"title": "x"}, Status: 403},
		{Name: "other organization", Method: "POST", Path: "/v1/orgs/" + c.Other + "/collections", Token: admin, Body: map[string]any{"title": "x"}, Status: 404},
	})
	col := "/v1/collections/" + top
	c.Run(t, []apitest.Scenario{
		{Name: "get", Method: "GET", Path: col, Token: c.ByRole["read"].Token, Status: 200,
			Contains: []string{`"permissions":{"view":true,"admin":false,"viewInviteLinks":false,"create":false}`}},
		{Name: "get as admin", Method: "GET", Path: col, Token: admin, Status: 200,
			Contains: []string{`"permissions":{"view":true,"admin":true,"viewInviteLinks":true,"create":true}`}},
		{Name: "get unknown", Method: "GET", Path: "/v1/collections/nope", Token: admin, Status: 404},
		{Name: "get from another organization", Method: "GET", Path: col, Token: c.OtherAdm.Token, Status: 404},
		{Name: "guest cannot see", Method: "GET", Path: col, Token: c.ByRole["guest"].Token, Status: 404},
		{Name: "patch", Method: "PATCH", Path: col, Token: admin, Body: map[string]any{"title": "Manuals", "description": "How-tos", "defaultLevel": "read"}, Status: 200,
			Contains: []string{`"title":"Manuals"`, `"description":"How-tos"`, `"defaultLevel":"read"`}},
		{Name: "patch description too long", Method: "PATCH", Path: col, Token: admin, Body: map[string]any{"description": strings.Repeat("d", 101)}, Status: 400, Contains: []string{"description: must be at most 100"}},
		{Name: "patch bad default level", Method: "PATCH", Path: col, Token: admin, Body: map[string]any{"defaultLevel": "owner"}, Status: 400, Contains: []string{"defaultLevel:"}},
		{Name: "patch null default level", Method: "PATCH", Path: col, Token: admin, Body: map[string]any{"defaultLevel": nil, "description": nil}, Status: 200,
			Check: func(r apitest.Response) {
				obj := r.JSON()
				if v, ok := obj["defaultLevel"]; !ok || v != nil {
					t.Errorf("defaultLevel %v", obj)
				}
				if _, ok := obj["description"]; ok {
					t.Errorf("description kept: %v", obj)
				}
			}},
		{Name: "null default level closes it to members", Method: "GET", Path: col, Token: c.ByRole["create"].Token, Status: 404},
		{Name: "inherit again", Method: "PATCH", Path: col, Token: admin, Body: map[string]any{"defaultLevel": "inherit"}, Status: 200},
		{Name: "creator cannot patch", Method: "PATCH", Path: col, Token: c.ByRole["create"].Token, Body: map[string]any{"title": "x"}, Status: 403},
		{Name: "patch unknown", Method: "PATCH", Path: "/v1/collections/nope", Token: admin, Body: map[string]any{"title": "x"}, Status: 404},
		{Name: "delete by creator", Method: "DELETE", Path: col, Token: c.ByRole["create"].Token, Status: 403},
		{Name: "delete from another organization", Method: "DELETE", Path: col, Token: c.OtherAdm.Token, Status: 204},
		{Name: "delete unknown", Method: "DELETE", Path: "/v1/collections/nope", Token: admin, Status: 204},
	})

	// GraphQL gives the same collection.
	data, errs := c.GraphQL(admin, `query($id: ID!) { collection(collectionId: $id) { object id title defaultLevel permissions { admin create } } }`, map[string]any{"id": top})
	if len(errs) > 0 || data["collection"].(map[string]any)["defaultLevel"] != "INHERIT" || data["collection"].(map[string]any)["title"] != "Manuals" {
		t.Errorf("graphql collection %v %v", data, errs)
	}
	_, errs = c.GraphQL(c.ByRole["create"].Token, `mutation($id: ID!) { updateCollection(collectionId: $id, input: {title: "x"}) { id } }`, map[string]any{"id": top})
	if len(errs) != 1 || errs[0].Code() != "FORBIDDEN" {
		t.Errorf("graphql refusal %v", errs)
	}
}

func TestCollectionTreeOrderAndMove(t *testing.T) {
	c := newContentEnv(t)
	admin, org := c.Admin.Token, "/v1/orgs/"+c.Org
	a := c.collection(admin, map[string]any{"title": "A"})
	b := c.collection(admin, map[string]any{"title": "B"})
	a1 := c.collection(admin, map[string]any{"title": "A1", "parent": a})
	s1 := c.space(admin, map[string]any{"title": "in A", "parent": a})
	top := c.space(admin, map[string]any{"title": "top"})

	wantIDs(t, c.Must(200, "GET", org+"/collections", admin, nil), a, a1, b)
	wantIDs(t, c.Must(200, "GET", org+"/collections?nested=false", admin, nil), a, b)
	wantIDs(t, c.Must(200, "GET", org+"/spaces", admin, nil), s1, top)
	wantIDs(t, c.Must(200, "GET", "/v1/collections/"+a+"/spaces", admin, nil), s1)

	move := func(id string, body any) apitest.Response {
		return c.Do("POST", "/v1/collections/"+id+"/move", admin, body)
	}
	// B before A at the top level.
	r := move(b, map[string]any{"position": map[string]any{"before": map[string]any{"type": "collection", "collection": a}}})
	if r.Status != 200 {
		t.Fatalf("move: %d %s", r.Status, r.Body)
	}
	wantIDs(t, c.Must(200, "GET", org+"/collections", admin, nil), b, a, a1)
	// The top-level space between B and A, with a space pointer on the other side.
	if r := c.Do("POST", "/v1/spaces/"+top+"/move", admin, map[string]any{"position": map[string]any{"after": map[string]any{"type": "collection", "collection": b}}}); r.Status != 200 {
		t.Fatalf("space move: %d %s", r.Status, r.Body)
	}
	wantIDs(t, c.Must(200, "GET", org+"/spaces", admin, nil), top, s1)
	// B into A, after A1: the tree order follows.
	if r := move(b, map[string]any{"parent": a, "position": map[string]any{"after": map[string]any{"type": "collection", "collection": a1}}}); r.Status != 200 {
		t.Fatalf("move into A: %d %s", r.Status, r.Body)
	}
	wantIDs(t, c.Must(200, "GET", org+"/collections", admin, nil), a, a1, b)
	wantIDs(t, c.Must(200, "GET", org+"/collections?nested=false", admin, nil), a)
	if got := c.Must(200, "GET", "/v1/collections/"+b, admin, nil).JSON()["parent"]; got != a {
		t.Errorf("parent %v", got)
	}
	// Many inserts at the same place force renumbering; the order holds.
	var order []string
	for i := 0; i < 20; i++ {
		id := c.space(admin, map[string]any{"title": "n", "parent": a1})
		if len(order) > 0 {
			if r := c.Do("POST", "/v1/spaces/"+id+"/move", admin, map[string]any{"position": map[string]any{"before": map[string]any{"type": "space", "space": order[0]}}}); r.Status != 200 {
				t.Fatalf("move %d: %d %s", i, r.Status, r.Body)
			}
		}
		order = append([]string{id}, order...)
	}
	wantIDs(t, c.Must(200, "GET", "/v1/collections/"+a1+"/spaces?limit=100", admin, nil), order...)

	c.Run(t, []apitest.Scenario{
		{Name: "into itself", Method: "POST", Path: "/v1/collections/" + a + "/move", Token: admin, Body: map[string]any{"parent": a}, Status: 400, Contains: []string{"parent:"}},
		{Name: "under itself", Method: "POST", Path: "/v1/collections/" + a + "/move", Token: admin, Body: map[string]any{"parent": a1}, Status: 400},
		{Name: "empty body", Method: "POST", Path: "/v1/collections/" + a + "/move", Token: admin, Body: map[string]any{}, Status: 400, Contains: []string{"body:"}},
		{Name: "no change", Method: "POST", Path: "/v1/collections/" + b + "/move", Token: admin,
			Body: map[string]any{"position": map[string]any{"after": map[string]any{"type": "collection", "collection": a1}}}, Status: 409},
		{Name: "to the end of its parent", Method: "POST", Path: "/v1/collections/" + b + "/move", Token: admin, Body: map[string]any{"parent": a}, Status: 200},
		{Name: "already at the end", Method: "POST", Path: "/v1/collections/" + b + "/move", Token: admin, Body: map[string]any{"parent": a}, Status: 409},
		{Name: "pointer elsewhere", Method: "POST", Path: "/v1/collections/" + b + "/move", Token: admin,
			Body: map[string]any{"parent": nil, "position": map[string]any{"before": map[string]any{"type": "space", "space": s1}}}, Status: 400, Contains: []string{"position"}},
		{Name: "unknown pointer", Method: "POST", Path: "/v1/collections/" + b + "/move", Token: admin,
			Body: map[string]any{"position": map[string]any{"before": map[string]any{"type": "space", "space": "nope"}}}, Status: 400, Contains: []string{"position.before.space"}},
		{Name: "bad pointer type", Method: "POST", Path: "/v1/collections/" + b + "/move", Token: admin,
			Body: map[string]any{"position": map[string]any{"before": map[string]any{"type": "page", "space": s1}}}, Status: 400, Contains: []string{"position.before.type"}},
		{Name: "unknown destination", Method: "POST", Path: "/v1/collections/" + b + "/move", Token: admin, Body: map[string]any{"parent": "nope"}, Status: 400},
		{Name: "creator cannot move", Method: "POST", Path: "/v1/collections/" + b + "/move", Token: c.ByRole["create"].Token, Body: map[string]any{"parent": nil}, Status: 403},
		{Name: "unknown collection", Method: "POST", Path: "/v1/collections/nope/move", Token: admin, Body: map[string]any{"parent": nil}, Status: 404},
		{Name: "other organization", Method: "POST", Path: "/v1/collections/" + b + "/move", Token: c.OtherAdm.Token, Body: map[string]any{"parent": nil}, Status: 404},
	})
}

func TestCollectionDeleteTrashesItsSpaces(t *testing.T) {
	c := newContentEnv(t)
	admin, org := c.Admin.Token, "/v1/orgs/"+c.Org
	a := c.collection(admin, map[string]any{"title": "A"})
	a1 := c.collection(admin, map[string]any{"title": "A1", "parent": a})
	s1 := c.space(admin, map[string]any{"title": "one", "parent": a})
	s2 := c.space(admin, map[string]any{"title": "two", "parent": a1})
	c.Must(200, "PATCH", "/v1/spaces/"+s1, admin, map[string]any{"visibility": "in-collection"})
	keep := c.space(admin, map[string]any{"title": "kept"})

	c.Must(205, "DELETE", "/v1/collections/"+a, admin, nil)
	c.Must(204, "DELETE", "/v1/collections/"+a, admin, nil)
	c.Must(404, "GET", "/v1/collections/"+a1, admin, nil)
	c.Must(404, "GET", "/v1/spaces/"+s2, admin, nil)
	wantIDs(t, c.Must(200, "GET", org+"/collections", admin, nil))
	wantIDs(t, c.Must(200, "GET", org+"/spaces", admin, nil), keep)

	// Nothing is lost: the spaces come back from the trash at the top level.
	r := c.Must(200, "POST", "/v1/spaces/"+s1+"/restore", admin, nil).JSON()
	if _, ok := r["parent"]; ok || r["visibility"] != "private" {
		t.Errorf("restored %v", r)
	}
	c.Must(200, "POST", "/v1/spaces/"+s2+"/restore", admin, nil)
	wantIDs(t, c.Must(200, "GET", org+"/spaces", admin, nil), keep, s1, s2)
}

func TestCollectionTransfer(t *testing.T) {
	c := newContentEnv(t)
	admin := c.Admin.Token
	// The admin also administrates a second organization.
	sister, _ := c.NewOrg("Sister", "owner@sister.test")
	c.addMember(sister, c.Admin.ID, "admin")
	c.addMember(c.Other, c.Admin.ID, "read")

	a := c.collection(admin, map[string]any{"title": "A"})
	a1 := c.collection(admin, map[string]any{"title": "A1", "parent": a})
	s1 := c.space(admin, map[string]any{"title": "one", "parent": a1})
	trashed := c.space(admin, map[string]any{"title": "gone", "parent": a})
	c.Must(205, "DELETE", "/v1/spaces/"+trashed, admin, nil)

	c.Run(t, []apitest.Scenario{
		{Name: "missing organization", Method: "POST", Path: "/v1/collections/" + a + "/transfer", Token: admin, Body: map[string]any{}, Status: 400, Contains: []string{"organization:"}},
		{Name: "same organization", Method: "POST", Path: "/v1/collections/" + a + "/transfer", Token: admin, Body: map[string]any{"organization": c.Org}, Status: 409},
		{Name: "not admin of the target", Method: "POST", Path: "/v1/collections/" + a + "/transfer", Token: admin, Body: map[string]any{"organization": c.Other}, Status: 403},
		{Name: "target unknown", Method: "POST", Path: "/v1/collections/" + a + "/transfer", Token: admin, Body: map[string]any{"organization": "nope"}, Status: 404},
		{Name: "creator cannot transfer", Method: "POST", Path: "/v1/collections/" + a + "/transfer", Token: c.ByRole["create"].Token, Body: map[string]any{"organization": sister}, Status: 403},
		{Name: "sub-collection goes to the top level of the target", Method: "POST", Path: "/v1/collections/" + a1 + "/transfer", Token: admin, Body: map[string]any{"organization": sister}, Status: 200,
			Check: func(r apitest.Response) {
				obj := r.JSON()
				if obj["organization"] != sister || obj["parent"] != nil {
					t.Errorf("transferred %v", obj)
				}
			}},
		{Name: "the rest", Method: "POST", Path: "/v1/collections/" + a + "/transfer", Token: admin, Body: map[string]any{"organization": sister}, Status: 200},
	})
	if got := c.Must(200, "GET", "/v1/spaces/"+s1, admin, nil).JSON()["organization"]; got != sister {
		t.Errorf("space organization %v", got)
	}
	wantIDs(t, c.Must(200, "GET", "/v1/orgs/"+sister+"/collections", admin, nil), a1, a)
	wantIDs(t, c.Must(200, "GET", "/v1/orgs/"+c.Org+"/collections", admin, nil))
	// The trashed space moved along and is restored in its new organization.
	if got := c.Must(200, "POST", "/v1/spaces/"+trashed+"/restore", admin, nil).JSON()["organization"]; got != sister {
		t.Errorf("trashed space organization %v", got)
	}
	c.Must(404, "GET", "/v1/spaces/"+s1, c.ByRole["read"].Token, nil)
}
