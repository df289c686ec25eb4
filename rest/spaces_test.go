package rest_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"docsapi/apitest"
	"docsapi/auth"
	"docsapi/graph"
)

var spaceKeys = []string{"object", "id", "type", "title", "emoji", "visibility", "createdAt", "updatedAt", "editMode", "organization",
	"revision", "defaultLevel", "comments", "changeRequests", "changeRequestsOpen", "changeRequestsDraft", "urls", "permissions"}

func TestSpaceCreateAndRead(t *testing.T) {
	c := newContentEnv(t)
	admin, org := c.Admin.Token, "/v1/orgs/"+c.Org
	col := c.collection(admin, map[string]any{"title": "Guides"})
	var id string
	c.Run(t, []apitest.Scenario{
		{Name: "create", Method: "POST", Path: org + "/spaces", Token: admin, Body: map[string]any{"title": "Handbook", "emoji": "📘"}, Status: 201,
			Check: func(r apitest.Response) {
				obj := r.JSON()
				apitest.Keys(t, obj, spaceKeys...)
				apitest.Keys(t, obj["permissions"].(map[string]any), "view", "access", "admin", "viewInviteLinks", "edit", "triggerGitSync", "comment", "merge", "review")
				apitest.Keys(t, obj["urls"].(map[string]any), "location", "app")
				id = obj["id"].(string)
				if obj["object"] != "space" || obj["emoji"] != "📘" || obj["visibility"] != "private" || obj["editMode"] != "live" ||
					obj["defaultLevel"] != "inherit" || obj["revision"] == "" || obj["comments"] != float64(0) {
					t.Errorf("created %v", obj)
				}
				if r.Header.Get("Location") != c.HTTP.URL+"/v1/spaces/"+id {
					t.Errorf("Location %q", r.Header.Get("Location"))
				}
			}},
		{Name: "create in a collection", Method: "POST", Path: org + "/spaces", Token: c.ByRole["create"].Token, Body: map[string]any{"parent": col, "editMode": "locked"}, Status: 201,
			Contains: []string{`"parent":"` + col + `"`, `"title":"Untitled"`, `"emoji":""`, `"editMode":"locked"`, `"edit":false`}},
		{Name: "title too long", Method: "POST", Path: org + "/spaces", Token: admin, Body: map[string]any{"title": strings.Repeat("t", 51)}, Status: 400, Contains: []string{"title: must be at most 50"}},
		{Name: "not an emoji", Method: "POST", Path: org + "/spaces", Token: admin, Body: map[string]any{"emoji": "smile"}, Status: 400, Contains: []string{"emoji:"}},
		{Name: "bad edit mode", Method: "POST", Path: org + "/spaces", Token: admin, Body: map[string]any{"editMode": "frozen"}, Status: 400, Contains: []string{"editMode:"}},
		{Name: "templates are not supported", Method: "POST", Path: org + "/spaces", Token: admin, Body: map[string]any{"template": map[string]any{"id": "x"}}, Status: 400, Contains: []string{"template:"}},
		{Name: "wrong type", Method: "POST", Path: org + "/spaces", Token: admin, Body: map[string]any{"title": 3}, Status: 400, Contains: []string{"title:"}},
		{Name: "no token", Method: "POST", Path: org + "/spaces", Status: 401},
		{Name: "reviewer cannot create", Method: "POST", Path: org + "/spaces", Token: c.ByRole["review"].Token, Status: 403},
		{Name: "other organization", Method: "POST", Path: "/v1/orgs/" + c.Other + "/spaces", Token: admin, Status: 404},
	})
	sp := "/v1/spaces/" + id
	c.Run(t, []apitest.Scenario{
		{Name: "an unknown share key is refused", Method: "GET", Path: sp + "?shareKey=abc", Token: c.ByRole["comment"].Token, Status: 404},
		{Name: "get", Method: "GET", Path: sp, Token: c.ByRole["comment"].Token, Status: 200,
			Contains: []string{`"permissions":{"view":true,"access":true,"admin":false,"viewInviteLinks":false,"edit":false,"triggerGitSync":false,"comment":true,"merge":false,"review":false}`}},
		{Name: "get as editor", Method: "GET", Path: sp, Token: c.ByRole["edit"].Token, Status: 200, Contains: []string{`"edit":true`, `"merge":false`}},
		{Name: "guest cannot see a private space", Method: "GET", Path: sp, Token: c.ByRole["guest"].Token, Status: 404},
		{Name: "other organization", Method: "GET", Path: sp, Token: c.OtherAdm.Token, Status: 404},
		{Name: "unknown", Method: "GET", Path: "/v1/spaces/nope", Token: admin, Status: 404},
		{Name: "no token", Method: "GET", Path: sp, Status: 401},
		{Name: "list", Method: "GET", Path: org + "/spaces", Token: c.ByRole["read"].Token, Status: 200, Contains: []string{`"count":2`}},
		{Name: "guest list is empty", Method: "GET", Path: org + "/spaces", Token: c.ByRole["guest"].Token, Status: 200, Contains: []string{`"count":0`, `"items":[]`}},
		{Name: "list bad limit", Method: "GET", Path: org + "/spaces?limit=1001", Token: admin, Status: 400, Contains: []string{"limit:"}},
		{Name: "list other organization", Method: "GET", Path: "/v1/orgs/" + c.Other + "/spaces", Token: admin, Status: 404},
		{Name: "collection spaces", Method: "GET", Path: "/v1/collections/" + col + "/spaces", Token: admin, Status: 200, Contains: []string{`"count":1`}},
	})

	// GraphQL answers with the same space.
	data, errs := c.GraphQL(admin, `query($id: ID!) { space(spaceId: $id) { id title emoji visibility editMode defaultLevel revision permissions { admin edit } } }`, map[string]any{"id": id})
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	rest := c.Must(200, "GET", sp, admin, nil).JSON()
	g := data["space"].(map[string]any)
	if g["revision"] != rest["revision"] || g["visibility"] != "PRIVATE" || g["editMode"] != "LIVE" || g["title"] != "Handbook" {
		t.Errorf("graphql %v, rest %v", g, rest)
	}
	revs, err := c.DB.Revisions(context.Background(), id)
	if err != nil || len(revs) != 1 || revs[0].ID != rest["revision"] || len(revs[0].Parents) != 0 {
		t.Errorf("first revision %+v %v", revs, err)
	}
}

func TestSpacePatch(t *testing.T) {
	c := newContentEnv(t)
	admin := c.Admin.Token
	col := c.collection(admin, map[string]any{"title": "Guides"})
	id := c.space(admin, map[string]any{"title": "Handbook", "emoji": "📘"})
	inCol := c.space(admin, map[string]any{"title": "Inside", "parent": col})
	sp := "/v1/spaces/" + id
	c.Run(t, []apitest.Scenario{
		{Name: "title and edit mode", Method: "PATCH", Path: sp, Token: admin, Body: map[string]any{"title": "Manual", "editMode": "locked"}, Status: 200,
			Contains: []string{`"title":"Manual"`, `"editMode":"locked"`, `"emoji":"📘"`, `"edit":false`, `"merge":false`, `"admin":true`}},
		{Name: "unlock", Method: "PATCH", Path: sp, Token: admin, Body: map[string]any{"editMode": "live"}, Status: 200, Contains: []string{`"edit":true`}},
		{Name: "icon replaces the emoji", Method: "PATCH", Path: sp, Token: admin, Body: map[string]any{"icon": "https://example.com/i.png"}, Status: 200,
			Contains: []string{`"emoji":""`, `"icon":"https://example.com/i.png"`}},
		{Name: "emoji replaces the icon", Method: "PATCH", Path: sp, Token: admin, Body: map[string]any{"emoji": "1f389"}, Status: 200,
			Check: func(r apitest.Response) {
				obj := r.JSON()
				if obj["emoji"] != "1f389" {
					t.Errorf("emoji %v", obj["emoji"])
				}
				if _, ok := obj["urls"].(map[string]any)["icon"]; ok {
					t.Errorf("icon kept: %v", obj["urls"])
				}
			}},
		{Name: "a body without emoji or icon keeps them", Method: "PATCH", Path: sp, Token: admin, Body: map[string]any{"title": "Manual"}, Status: 200, Contains: []string{`"emoji":"1f389"`}},
		{Name: "remove", Method: "PATCH", Path: sp, Token: admin, Body: map[string]any{"emoji": nil, "icon": nil}, Status: 200, Contains: []string{`"emoji":""`}},
		{Name: "both variants", Method: "PATCH", Path: sp, Token: admin, Body: map[string]any{"emoji": "📘", "icon": "https://example.com/i.png"}, Status: 400, Contains: []string{"icon:"}},
		{Name: "icon not a URL", Method: "PATCH", Path: sp, Token: admin, Body: map[string]any{"icon": "file.png"}, Status: 400, Contains: []string{"icon:"}},
		{Name: "default level", Method: "PATCH", Path: sp, Token: admin, Body: map[string]any{"defaultLevel": "comment"}, Status: 200, Contains: []string{`"defaultLevel":"comment"`}},
		{Name: "a member now only comments", Method: "GET", Path: sp, Token: c.ByRole["create"].Token, Status: 200, Contains: []string{`"comment":true`, `"edit":false`}},
		{Name: "null default level", Method: "PATCH", Path: sp, Token: admin, Body: map[string]any{"defaultLevel": nil}, Status: 200, Contains: []string{`"defaultLevel":null`}},
		{Name: "closed to members", Method: "GET", Path: sp, Token: c.ByRole["create"].Token, Status: 404},
		{Name: "unlisted opens it to reading", Method: "PATCH", Path: sp, Token: admin, Body: map[string]any{"visibility": "unlisted"}, Status: 200},
		{Name: "guest reads unlisted", Method: "GET", Path: sp, Token: c.ByRole["guest"].Token, Status: 200, Contains: []string{`"view":true`, `"comment":false`}},
		{Name: "in-collection needs a collection", Method: "PATCH", Path: sp, Token: admin, Body: map[string]any{"visibility": "in-collection"}, Status: 400, Contains: []string{"visibility:"}},
		{Name: "in-collection inside one", Method: "PATCH", Path: "/v1/spaces/" + inCol, Token: admin, Body: map[string]any{"visibility": "in-collection", "defaultLevel": nil}, Status: 200},
		{Name: "in-collection gives the collection's role", Method: "GET", Path: "/v1/spaces/" + inCol, Token: c.ByRole["edit"].Token, Status: 200, Contains: []string{`"edit":true`}},
		{Name: "bad visibility", Method: "PATCH", Path: sp, Token: admin, Body: map[string]any{"visibility": "secret"}, Status: 400, Contains: []string{"visibility:"}},
		{Name: "title too long", Method: "PATCH", Path: sp, Token: admin, Body: map[string]any{"title": strings.Repeat("t", 51)}, Status: 400, Contains: []string{"title:"}},
		{Name: "bad default level", Method: "PATCH", Path: sp, Token: admin, Body: map[string]any{"defaultLevel": "owner"}, Status: 400, Contains: []string{"defaultLevel:"}},
		{Name: "no body", Method: "PATCH", Path: sp, Token: admin, Status: 400},
		{Name: "reader can see but not change", Method: "PATCH", Path: sp, Token: c.ByRole["read"].Token, Body: map[string]any{"title": "x"}, Status: 403},
		{Name: "other organization", Method: "PATCH", Path: sp, Token: c.OtherAdm.Token, Body: map[string]any{"title": "x"}, Status: 404},
		{Name: "unknown", Method: "PATCH", Path: "/v1/spaces/nope", Token: admin, Body: map[string]any{"title": "x"}, Status: 404},
	})
	// Moving an in-collection space to the top level narrows it to private.
	r := c.Must(200, "POST", "/v1/spaces/"+inCol+"/move", admin, map[string]any{"parent": nil}).JSON()
	if r["visibility"] != "private" || r["parent"] != nil {
		t.Errorf("moved out %v", r)
	}
}

func TestSpaceTrashLifecycle(t *testing.T) {
	c := newContentEnv(t)
	admin, org := c.Admin.Token, "/v1/orgs/"+c.Org
	id := c.space(admin, map[string]any{"title": "Handbook"})
	other := c.space(admin, map[string]any{"title": "Other"})
	sp := "/v1/spaces/" + id
	c.Run(t, []apitest.Scenario{
		{Name: "reader cannot delete", Method: "DELETE", Path: sp, Token: c.ByRole["read"].Token, Status: 403},
		{Name: "other organization", Method: "DELETE", Path: sp, Token: c.OtherAdm.Token, Status: 204},
		{Name: "restore a live space", Method: "POST", Path: sp + "/restore", Token: admin, Status: 404},
		{Name: "delete", Method: "DELETE", Path: sp, Token: admin, Status: 205},
		{Name: "gone from reads", Method: "GET", Path: sp, Token: admin, Status: 404},
		{Name: "gone from lists", Method: "GET", Path: org + "/spaces", Token: admin, Status: 200, Contains: []string{`"count":1`}},
		{Name: "gone from changes", Method: "PATCH", Path: sp, Token: admin, Body: map[string]any{"title": "x"}, Status: 404},
		{Name: "delete again", Method: "DELETE", Path: sp, Token: admin, Status: 204},
		{Name: "reader cannot restore", Method: "POST", Path: sp + "/restore", Token: c.ByRole["read"].Token, Status: 403},
		{Name: "other organization cannot restore", Method: "POST", Path: sp + "/restore", Token: c.OtherAdm.Token, Status: 404},
		{Name: "restore", Method: "POST", Path: sp + "/restore", Token: admin, Status: 200, Contains: []string{`"id":"` + id + `"`}},
		{Name: "back in order", Method: "GET", Path: org + "/spaces", Token: admin, Status: 200, Check: func(r apitest.Response) { wantIDs(t, r, id, other) }},
		{Name: "unknown", Method: "POST", Path: "/v1/spaces/nope/restore", Token: admin, Status: 404},
	})

	// Within the retention the worker keeps it; after it, restore is 404 and
	// the worker removes it for good.
	c.Must(205, "DELETE", sp, admin, nil)
	purge := func() int {
		n, err := c.Server.Resolver.PurgeTrash(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	c.Clock.Advance(graph.TrashRetention - time.Minute)
	if n := purge(); n != 0 {
		t.Errorf("purged %d within the retention", n)
	}
	c.Must(200, "POST", sp+"/restore", admin, nil)
	c.Must(205, "DELETE", sp, admin, nil)
	c.Clock.Advance(graph.TrashRetention)
	c.Must(404, "POST", sp+"/restore", admin, nil)
	if n := purge(); n != 1 {
		t.Errorf("purged %d, want 1", n)
	}
	if _, err := c.DB.Space(context.Background(), id); err == nil {
		t.Error("the space is still stored")
	}
	if revs, _ := c.DB.Revisions(context.Background(), id); len(revs) != 0 {
		t.Errorf("revisions left: %v", revs)
	}
	c.Must(404, "POST", sp+"/restore", admin, nil)
	c.Must(200, "GET", "/v1/spaces/"+other, admin, nil)
}

func TestSpaceDuplicate(t *testing.T) {
	c := newContentEnv(t)
	admin, org := c.Admin.Token, "/v1/orgs/"+c.Org
	col := c.collection(admin, map[string]any{"title": "Guides"})
	id := c.space(admin, map[string]any{"title": strings.Repeat("h", 50), "emoji": "📘", "parent": col})
	last := c.space(admin, map[string]any{"title": "Last", "parent": col})
	c.Must(200, "PATCH", "/v1/spaces/"+id, admin, map[string]any{"visibility": "in-collection", "defaultLevel": "comment", "editMode": "locked"})
	src := c.Must(200, "GET", "/v1/spaces/"+id, admin, nil).JSON()

	r := c.Must(201, "POST", "/v1/spaces/"+id+"/duplicate", admin, nil)
	dup := r.JSON()
	apitest.Keys(t, dup, append(spaceKeys, "parent")...)
	if dup["id"] == id || dup["revision"] == src["revision"] || dup["parent"] != col || dup["emoji"] != "📘" ||
		dup["visibility"] != "in-collection" || dup["defaultLevel"] != "comment" || dup["editMode"] != "locked" ||
		dup["title"] != strings.Repeat("h", 43)+" (copy)" {
		t.Errorf("duplicate %v of %v", dup, src)
	}
	if r.Header.Get("Location") == "" {
		t.Error("no Location")
	}
	wantIDs(t, c.Must(200, "GET", "/v1/collections/"+col+"/spaces", admin, nil), id, dup["id"].(string), last)
	revs, _ := c.DB.Revisions(context.Background(), dup["id"].(string))
	if len(revs) != 1 || revs[0].ID != dup["revision"] {
		t.Errorf("copied revisions %+v", revs)
	}
	c.Run(t, []apitest.Scenario{
		{Name: "reviewer cannot duplicate", Method: "POST", Path: "/v1/spaces/" + id + "/duplicate", Token: c.ByRole["review"].Token, Status: 403},
		{Name: "other organization", Method: "POST", Path: "/v1/spaces/" + id + "/duplicate", Token: c.OtherAdm.Token, Status: 404},
		{Name: "unknown", Method: "POST", Path: "/v1/spaces/nope/duplicate", Token: admin, Status: 404},
		{Name: "count", Method: "GET", Path: org + "/spaces", Token: admin, Status: 200, Contains: []string{`"count":3`}},
	})
}

func TestSpaceMoveAndTransfer(t *testing.T) {
	c := newContentEnv(t)
	admin := c.Admin.Token
	sister, _ := c.NewOrg("Sister", "owner@sister.test")
	c.addMember(sister, c.Admin.ID, "admin")
	col := c.collection(admin, map[string]any{"title": "Guides"})
	a := c.space(admin, map[string]any{"title": "a"})
	b := c.space(admin, map[string]any{"title": "b"})
	c.Run(t, []apitest.Scenario{
		{Name: "into a collection", Method: "POST", Path: "/v1/spaces/" + a + "/move", Token: admin, Body: map[string]any{"parent": col}, Status: 200, Contains: []string{`"parent":"` + col + `"`}},
		{Name: "next to a space elsewhere takes its parent", Method: "POST", Path: "/v1/spaces/" + b + "/move", Token: admin,
			Body: map[string]any{"position": map[string]any{"before": map[string]any{"type": "space", "space": a}}}, Status: 200, Contains: []string{`"parent":"` + col + `"`}},
		{Name: "order", Method: "GET", Path: "/v1/collections/" + col + "/spaces", Token: admin, Status: 200, Check: func(r apitest.Response) { wantIDs(t, r, b, a) }},
		{Name: "no change", Method: "POST", Path: "/v1/spaces/" + b + "/move", Token: admin,
			Body: map[string]any{"position": map[string]any{"before": map[string]any{"type": "space", "space": a}}}, Status: 409},
		{Name: "before and after not adjacent", Method: "POST", Path: "/v1/spaces/" + a + "/move", Token: admin,
			Body: map[string]any{"parent": nil, "position": map[string]any{"after": map[string]any{"type": "collection", "collection": col}, "before": map[string]any{"type": "collection", "collection": col}}}, Status: 400},
		{Name: "pointer at itself", Method: "POST", Path: "/v1/spaces/" + a + "/move", Token: admin,
			Body: map[string]any{"position": map[string]any{"after": map[string]any{"type": "space", "space": a}}}, Status: 400},
		{Name: "unknown parent", Method: "POST", Path: "/v1/spaces/" + a + "/move", Token: admin, Body: map[string]any{"parent": "nope"}, Status: 400, Contains: []string{"parent:"}},
		{Name: "empty body", Method: "POST", Path: "/v1/spaces/" + a + "/move", Token: admin, Body: map[string]any{}, Status: 400},
		{Name: "creator cannot move", Method: "POST", Path: "/v1/spaces/" + a + "/move", Token: c.ByRole["create"].Token, Body: map[string]any{"parent": nil}, Status: 403},
		{Name: "other organization", Method: "POST", Path: "/v1/spaces/" + a + "/move", Token: c.OtherAdm.Token, Body: map[string]any{"parent": nil}, Status: 404},
		{Name: "unknown", Method: "POST", Path: "/v1/spaces/nope/move", Token: admin, Body: map[string]any{"parent": nil}, Status: 404},

		{Name: "transfer same organization", Method: "POST", Path: "/v1/spaces/" + a + "/transfer", Token: admin, Body: map[string]any{"organization": c.Org}, Status: 409},
		{Name: "transfer without organization", Method: "POST", Path: "/v1/spaces/" + a + "/transfer", Token: admin, Body: map[string]any{}, Status: 400},
		{Name: "transfer to a stranger's organization", Method: "POST", Path: "/v1/spaces/" + a + "/transfer", Token: admin, Body: map[string]any{"organization": c.Other}, Status: 404},
		{Name: "creator cannot transfer", Method: "POST", Path: "/v1/spaces/" + a + "/transfer", Token: c.ByRole["create"].Token, Body: map[string]any{"organization": sister}, Status: 403},
		{Name: "other organization", Method: "POST", Path: "/v1/spaces/" + a + "/transfer", Token: c.OtherAdm.Token, Body: map[string]any{"organization": sister}, Status: 404},
		{Name: "transfer", Method: "POST", Path: "/v1/spaces/" + a + "/transfer", Token: admin, Body: map[string]any{"organization": sister}, Status: 200,
			Check: func(r apitest.Response) {
				obj := r.JSON()
				if obj["organization"] != sister || obj["parent"] != nil {
					t.Errorf("transferred %v", obj)
				}
			}},
		{Name: "gone from the source", Method: "GET", Path: "/v1/collections/" + col + "/spaces", Token: admin, Status: 200, Check: func(r apitest.Response) { wantIDs(t, r, b) }},
		{Name: "in the target", Method: "GET", Path: "/v1/orgs/" + sister + "/spaces", Token: admin, Status: 200, Check: func(r apitest.Response) { wantIDs(t, r, a) }},
	})
}

func TestContentGrantsAndMemberSpaces(t *testing.T) {
	c := newContentEnv(t)
	admin, org := c.Admin.Token, "/v1/orgs/"+c.Org
	guest, reader := c.ByRole["guest"], c.ByRole["read"]
	team := c.Must(201, "PUT", org+"/teams", admin, map[string]any{"title": "Writers", "members": []string{guest.ID}}).JSON()["id"].(string)
	col := c.collection(admin, map[string]any{"title": "Guides"})
	inCol := c.space(admin, map[string]any{"title": "Inside", "parent": col})
	closed := c.space(admin, map[string]any{"title": "Closed"})
	c.Must(200, "PATCH", "/v1/spaces/"+closed, admin, map[string]any{"defaultLevel": nil})
	c.Clock.Advance(time.Second)
	open := c.space(admin, map[string]any{"title": "Open"})

	grant := `mutation($in: ContentGrantInput!) { grantContentRole(input: $in) { principalType principal role target { type space collection } } }`
	// A guest sees nothing until their team is granted the collection.
	c.Must(404, "GET", "/v1/spaces/"+inCol, guest.Token, nil)
	data, errs := c.GraphQL(admin, grant, map[string]any{"in": map[string]any{"collection": col, "team": team, "role": "EDIT"}})
	if len(errs) > 0 || data["grantContentRole"].(map[string]any)["principalType"] != "TEAM" {
		t.Fatalf("grant %v %v", data, errs)
	}
	c.Must(200, "GET", "/v1/spaces/"+inCol, guest.Token, nil)
	if !strings.Contains(string(c.Must(200, "GET", "/v1/collections/"+col, guest.Token, nil).Body), `"view":true,"admin":false`) {
		t.Error("guest collection permissions")
	}
	// A member grant lifts a reader above their organization role.
	if _, errs := c.GraphQL(admin, grant, map[string]any{"in": map[string]any{"space": closed, "user": reader.ID, "role": "ADMIN"}}); len(errs) > 0 {
		t.Fatal(errs)
	}
	c.Must(200, "PATCH", "/v1/spaces/"+closed, reader.Token, map[string]any{"title": "Reader's"})
	// Team grants on a space count in the team's and its members' spaces.
	if _, errs := c.GraphQL(admin, grant, map[string]any{"in": map[string]any{"space": open, "team": team, "role": "COMMENT"}}); len(errs) > 0 {
		t.Fatal(errs)
	}
	if n := c.Must(200, "GET", org+"/teams/"+team, admin, nil).JSON()["spaces"]; n != float64(1) {
		t.Errorf("team spaces %v", n)
	}
	if n := c.Must(200, "GET", org+"/members/"+guest.ID, admin, nil).JSON()["spaces"]; n != float64(1) {
		t.Errorf("member spaces %v", n)
	}
	if n := c.Must(200, "GET", org+"/members/"+reader.ID, admin, nil).JSON()["spaces"]; n != float64(1) {
		t.Errorf("reader spaces %v", n)
	}

	// Refusals of the grant mutations.
	for _, tc := range []struct {
		token string
		in    map[string]any
		code  string
	}{
		{c.ByRole["create"].Token, map[string]any{"space": open, "team": team, "role": "READ"}, "FORBIDDEN"},
		{c.OtherAdm.Token, map[string]any{"space": open, "team": team, "role": "READ"}, "NOT_FOUND"},
		{admin, map[string]any{"space": open, "collection": col, "team": team, "role": "READ"}, "BAD_REQUEST"},
		{admin, map[string]any{"space": open, "team": "nope", "role": "READ"}, "BAD_REQUEST"},
		{admin, map[string]any{"space": open, "user": c.OtherAdm.ID, "role": "READ"}, "BAD_REQUEST"},
		{admin, map[string]any{"space": open, "team": team}, "BAD_REQUEST"},
	} {
		if _, errs := c.GraphQL(tc.token, grant, map[string]any{"in": tc.in}); len(errs) != 1 || errs[0].Code() != tc.code {
			t.Errorf("grant %v: %v, want %s", tc.in, errs, tc.code)
		}
	}
	data, errs = c.GraphQL(admin, `query($id: ID) { contentGrants(space: $id) { count items { principal role } } }`, map[string]any{"id": open})
	if len(errs) > 0 || data["contentGrants"].(map[string]any)["count"] != float64(1) {
		t.Errorf("grants %v %v", data, errs)
	}

	// The member's spaces, newest first by default, with the member's role.
	path := org + "/members/" + guest.ID + "/spaces"
	r := c.Must(200, "GET", path, admin, nil)
	wantIDs(t, r, open, inCol)
	items := r.JSON()["items"].([]any)
	if p := items[0].(map[string]any)["permission"]; p != "comment" {
		t.Errorf("permission %v", p)
	}
	if p := items[1].(map[string]any)["permission"]; p != "edit" {
		t.Errorf("permission %v", p)
	}
	apitest.Keys(t, items[0].(map[string]any), "permission", "space")
	wantIDs(t, c.Must(200, "GET", path+"?order=asc", admin, nil), inCol, open)
	c.Run(t, []apitest.Scenario{
		{Name: "own spaces as a guest", Method: "GET", Path: path, Token: guest.Token, Status: 200, Contains: []string{`"count":2`}},
		{Name: "bad order", Method: "GET", Path: path + "?order=up", Token: admin, Status: 400, Contains: []string{"order:"}},
		{Name: "guest cannot list others", Method: "GET", Path: org + "/members/" + reader.ID + "/spaces", Token: guest.Token, Status: 403},
		{Name: "not a member", Method: "GET", Path: org + "/members/" + c.OtherAdm.ID + "/spaces", Token: admin, Status: 404},
		{Name: "other organization", Method: "GET", Path: path, Token: c.OtherAdm.Token, Status: 404},
		{Name: "no token", Method: "GET", Path: path, Status: 401},
		// A reader listing the guest's spaces sees only what both can see.
		{Name: "reader sees the intersection", Method: "GET", Path: path, Token: reader.Token, Status: 200, Contains: []string{`"count":2`}},
	})

	// Revoking, and removing the team, take the access away.
	data, errs = c.GraphQL(admin, `mutation($in: ContentGrantInput!) { revokeContentRole(input: $in) { deleted } }`, map[string]any{"in": map[string]any{"space": closed, "user": reader.ID}})
	if len(errs) > 0 || data["revokeContentRole"].(map[string]any)["deleted"] != true {
		t.Errorf("revoke %v %v", data, errs)
	}
	c.Must(404, "GET", "/v1/spaces/"+closed, reader.Token, nil)
	c.Must(205, "DELETE", org+"/teams/"+team, admin, nil)
	c.Must(404, "GET", "/v1/spaces/"+inCol, guest.Token, nil)
	if n := c.Must(200, "GET", org+"/members/"+guest.ID, admin, nil).JSON()["spaces"]; n != float64(0) {
		t.Errorf("member spaces after the team went %v", n)
	}
}

// TestLockedSpaceRefusesContentChanges checks the one gate content
// mutations go through.
func TestLockedSpaceRefusesContentChanges(t *testing.T) {
	c := newContentEnv(t)
	admin := c.Admin.Token
	id := c.space(admin, map[string]any{"title": "Handbook"})
	as := func(u apitest.User) context.Context {
		return auth.WithCaller(context.Background(), auth.Caller{UserID: u.ID, Kind: "api"})
	}
	gate := func(u apitest.User) int {
		_, _, err := c.Server.Resolver.SpaceForContentChange(as(u), id, "edit")
		if err == nil {
			return http.StatusOK
		}
		return apiStatus(err)
	}
	if s := gate(c.ByRole["edit"]); s != 200 {
		t.Errorf("editor on a live space: %d", s)
	}
	if s := gate(c.ByRole["comment"]); s != 403 {
		t.Errorf("commenter: %d", s)
	}
	if s := gate(c.OtherAdm); s != 404 {
		t.Errorf("other organization: %d", s)
	}
	c.Must(200, "PATCH", "/v1/spaces/"+id, admin, map[string]any{"editMode": "locked"})
	if s := gate(c.Admin); s != 409 {
		t.Errorf("admin on a locked space: %d", s)
	}
	// Settings are not content: an admin can still unlock.
	c.Must(200, "PATCH", "/v1/spaces/"+id, admin, map[string]any{"editMode": "live"})
	if s := gate(c.Admin); s != 200 {
		t.Errorf("after unlocking: %d", s)
	}
}

// TestFilteredListPaging pages through lists whose rows depend on the
// reader's permissions: counts are exact and pages neither skip nor repeat.
func TestFilteredListPaging(t *testing.T) {
	c := newContentEnv(t)
	admin, org := c.Admin.Token, "/v1/orgs/"+c.Org
	col := c.collection(admin, map[string]any{"title": "Guides"})
	var visible []string
	for i := 0; i < 7; i++ {
		parent := any(nil)
		if i%2 == 0 {
			parent = col
		}
		id := c.space(admin, map[string]any{"title": "s", "parent": parent})
		if i%3 == 1 {
			c.Must(200, "PATCH", "/v1/spaces/"+id, admin, map[string]any{"defaultLevel": nil})
			continue
		}
		visible = append(visible, id)
	}
	// The tree order: the collection's spaces first, then the top level.
	all := itemIDs(t, c.Must(200, "GET", org+"/spaces?limit=100", c.ByRole["read"].Token, nil))
	if len(all) != len(visible) {
		t.Fatalf("visible %v, want %d items", all, len(visible))
	}
	var paged []string
	page := ""
	for n := 0; n < 10; n++ {
		r := c.Must(200, "GET", org+"/spaces?limit=2"+page, c.ByRole["read"].Token, nil)
		if cnt := r.JSON()["count"]; cnt != float64(len(visible)) {
			t.Errorf("count %v, want %d", cnt, len(visible))
		}
		paged = append(paged, itemIDs(t, r)...)
		next, ok := r.JSON()["next"].(map[string]any)
		if !ok {
			break
		}
		page = "&page=" + next["page"].(string)
	}
	if strings.Join(paged, ",") != strings.Join(all, ",") {
		t.Errorf("pages %v, want %v", paged, all)
	}
	// The admin sees all seven through the unfiltered path, paged the same way.
	r := c.Must(200, "GET", org+"/spaces?limit=5", admin, nil)
	if r.JSON()["count"] != float64(7) || len(itemIDs(t, r)) != 5 {
		t.Errorf("admin page %s", r.Body)
	}
	c.Run(t, []apitest.Scenario{
		{Name: "collection spaces of an unknown collection", Method: "GET", Path: "/v1/collections/nope/spaces", Token: admin, Status: 404},
		{Name: "collection spaces from another organization", Method: "GET", Path: "/v1/collections/" + col + "/spaces", Token: c.OtherAdm.Token, Status: 404},
		{Name: "collection spaces without a token", Method: "GET", Path: "/v1/collections/" + col + "/spaces", Status: 401},
		{Name: "a bad page cursor", Method: "GET", Path: org + "/spaces?page=zzz", Token: c.ByRole["read"].Token, Status: 400, Contains: []string{"page:"}},
		{Name: "delete unknown", Method: "DELETE", Path: "/v1/spaces/nope", Token: admin, Status: 204},
		{Name: "team members still list with their counts", Method: "GET", Path: org + "/teams/" +
			c.Must(201, "PUT", org+"/teams", admin, map[string]any{"title": "T", "members": []string{c.ByRole["read"].ID}}).JSON()["id"].(string) + "/members",
			Token: admin, Status: 200, Contains: []string{`"spaces":0`}},
	})
}

// TestSpaceGraphQLParity runs the space mutations through GraphQL: the same
// data as REST, the same refusals.
func TestSpaceGraphQLParity(t *testing.T) {
	c := newContentEnv(t)
	admin := c.Admin.Token
	col := c.collection(admin, map[string]any{"title": "Guides"})
	data, errs := c.GraphQL(admin, `mutation($org: ID!, $col: ID) {
  createSpace(organizationId: $org, input: {title: "Handbook", emoji: "📘", parent: $col}) { id parent visibility editMode defaultLevel }
}`, map[string]any{"org": c.Org, "col": col})
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	created := data["createSpace"].(map[string]any)
	id := created["id"].(string)
	rest := c.Must(200, "GET", "/v1/spaces/"+id, admin, nil).JSON()
	if created["parent"] != rest["parent"] || created["visibility"] != "PRIVATE" || created["defaultLevel"] != "INHERIT" {
		t.Errorf("graphql %v, rest %v", created, rest)
	}
	data, errs = c.GraphQL(admin, `mutation($id: ID!) {
  updateSpace(spaceId: $id, input: {visibility: IN_COLLECTION, emoji: null, icon: null, defaultLevel: null}) { emoji visibility defaultLevel }
}`, map[string]any{"id": id})
	if len(errs) > 0 || data["updateSpace"].(map[string]any)["emoji"] != "" || data["updateSpace"].(map[string]any)["defaultLevel"] != nil {
		t.Errorf("update %v %v", data, errs)
	}
	for _, tc := range []struct {
		token, query, code string
	}{
		{c.ByRole["read"].Token, `mutation($id: ID!) { updateSpace(spaceId: $id, input: {title: "x"}) { id } }`, "FORBIDDEN"},
		{c.OtherAdm.Token, `mutation($id: ID!) { deleteSpace(spaceId: $id) { deleted } }`, ""},
		{admin, `mutation($id: ID!) { moveSpace(spaceId: $id, input: {}) { id } }`, "BAD_REQUEST"},
		{admin, `mutation($id: ID!) { moveSpace(spaceId: $id, input: {parent: null}) { visibility } }`, ""},
		{admin, `mutation($id: ID!) { moveSpace(spaceId: $id, input: {parent: null}) { id } }`, "CONFLICT"},
		{c.OtherAdm.Token, `query($id: ID!) { space(spaceId: $id) { id } }`, "NOT_FOUND"},
	} {
		data, errs := c.GraphQL(tc.token, tc.query, map[string]any{"id": id})
		switch {
		case tc.code == "" && len(errs) > 0:
			t.Errorf("%s: %v", tc.query, errs)
		case tc.code != "" && (len(errs) != 1 || errs[0].Code() != tc.code):
			t.Errorf("%s: %v, want %s", tc.query, errs, tc.code)
		case tc.code == "" && strings.Contains(tc.query, "deleteSpace") && data["deleteSpace"].(map[string]any)["deleted"] != false:
			t.Errorf("another organization deleted the space: %v", data)
		}
	}
	if v := c.Must(200, "GET", "/v1/spaces/"+id, admin, nil).JSON()["visibility"]; v != "private" {
		t.Errorf("visibility after leaving the collection %v", v)
	}
}
