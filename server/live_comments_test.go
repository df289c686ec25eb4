package server_test

import (
	"encoding/json"
	"testing"
	"time"

	"docsapi/apitest"
)

// TestSubscriptionCommentEditsAndDeletions: commentUpdated fires for a
// comment's edit (the new body), a reply's edit and deletion (the reply's
// comment, its replies count current) and the comment's deletion (a
// tombstone: its id and author, permissions.view false), all made through
// REST; another space's subscriber hears nothing.
func TestSubscriptionCommentEditsAndDeletions(t *testing.T) {
	env := apitest.New(t)
	space, other := newSpace(env, env.Admin.Token), newSpace(env, env.Admin.Token)
	id := postComment(env, env.Admin.Token, space, "First")
	base := "/v1/spaces/" + space + "/comments/" + id
	reply := env.Must(200, "POST", base+"/replies", env.Admin.Token, map[string]any{"body": map[string]any{"markdown": "Re"}}).JSON()["id"].(string)

	c := dialLive(t, env, nil, bearer(env.Admin.Token))
	defer c.close()
	sub := `subscription($s: ID!) { commentUpdated(spaceId: $s) { id replies body { markdown } postedBy { id } permissions { view edit } } }`
	c.subscribe("1", sub, map[string]any{"s": space})
	c.subscribe("2", sub, map[string]any{"s": other})
	waitSubscribed(t, env, 2)

	event := func(what string) map[string]any {
		t.Helper()
		return c.next("1")["commentUpdated"].(map[string]any)
	}
	env.Must(200, "PUT", base, env.Admin.Token, map[string]any{"body": map[string]any{"markdown": "Edited"}})
	if got := event("edit"); got["id"] != id || got["body"].(map[string]any)["markdown"] != "Edited" {
		t.Fatalf("edit: %v", got)
	}
	env.Must(200, "PUT", base+"/replies/"+reply, env.Admin.Token, map[string]any{"body": map[string]any{"markdown": "Re, edited"}})
	if got := event("reply edit"); got["id"] != id || got["replies"] != float64(1) {
		t.Fatalf("reply edit: %v", got)
	}
	// Resolving is one change, so one event.
	env.Must(200, "PUT", base, env.Admin.Token, map[string]any{"resolved": true})
	if got := event("resolution"); got["id"] != id {
		t.Fatalf("resolution: %v", got)
	}
	env.Must(205, "DELETE", base+"/replies/"+reply, env.Admin.Token, nil)
	if got := event("reply deletion"); got["id"] != id || got["replies"] != float64(0) {
		t.Fatalf("reply deletion: %v", got)
	}
	env.Must(205, "DELETE", base, env.Admin.Token, nil)
	got := event("deletion")
	perms := got["permissions"].(map[string]any)
	if got["id"] != id || got["postedBy"].(map[string]any)["id"] != env.Admin.ID || perms["view"] != false || perms["edit"] != false ||
		got["body"].(map[string]any)["markdown"] != "" {
		t.Fatalf("deletion: %v", got)
	}
	c.quiet(200 * time.Millisecond)
}

// TestSubscriptionPermissionsPerSubscriber: the subscribers of one event
// share its read but each gets its own permissions: the author edits and
// deletes its comment, an admin deletes any, a COMMENT member replies and
// reacts, a READ member only views; two readers get the same.
func TestSubscriptionPermissionsPerSubscriber(t *testing.T) {
	env := apitest.New(t)
	space := newSpace(env, env.Admin.Token)
	commenter := env.NewUser("commenter@acme.test", env.Org, "comment")
	readers := []apitest.User{env.NewUser("reader1@acme.test", env.Org, "read"), env.NewUser("reader2@acme.test", env.Org, "read")}
	type subscriber struct {
		name string
		c    *liveClient
	}
	var subs []subscriber
	for _, u := range []struct {
		name, token string
	}{{"admin", env.Admin.Token}, {"commenter", commenter.Token}, {"reader1", readers[0].Token}, {"reader2", readers[1].Token}} {
		c := dialLive(t, env, nil, bearer(u.token))
		defer c.close()
		c.subscribe("c", `subscription($s: ID!) { commentUpdated(spaceId: $s) { id permissions { view edit reply react delete } } }`, map[string]any{"s": space})
		c.subscribe("r", `subscription($s: ID!) { commentReplyPosted(spaceId: $s) { id permissions { view edit reply react delete } } }`, map[string]any{"s": space})
		subs = append(subs, subscriber{u.name, c})
	}
	waitSubscribed(t, env, 2*len(subs))

	perms := func(view, edit, reply, react, del bool) map[string]any {
		return map[string]any{"view": view, "edit": edit, "reply": reply, "react": react, "delete": del}
	}
	check := func(what, sub, field, id string, want map[string]map[string]any) {
		t.Helper()
		for _, s := range subs {
			got := s.c.next(sub)[field].(map[string]any)
			if got["id"] != id || !equalJSON(got["permissions"], want[s.name]) {
				t.Errorf("%s, %s: got %v, want id %s and permissions %v", what, s.name, got, id, want[s.name])
			}
		}
	}
	byAdmin := postComment(env, env.Admin.Token, space, "by the admin")
	check("the admin's comment", "c", "commentUpdated", byAdmin, map[string]map[string]any{
		"admin":     perms(true, true, true, true, true),
		"commenter": perms(true, false, true, true, false),
		"reader1":   perms(true, false, false, false, false),
		"reader2":   perms(true, false, false, false, false),
	})
	byCommenter := postComment(env, commenter.Token, space, "by the commenter")
	check("the commenter's comment", "c", "commentUpdated", byCommenter, map[string]map[string]any{
		"admin":     perms(true, false, true, true, true),
		"commenter": perms(true, true, true, true, true),
		"reader1":   perms(true, false, false, false, false),
		"reader2":   perms(true, false, false, false, false),
	})
	reply := env.Must(200, "POST", "/v1/spaces/"+space+"/comments/"+byAdmin+"/replies", commenter.Token,
		map[string]any{"body": map[string]any{"markdown": "Re"}}).JSON()["id"].(string)
	check("the commenter's reply", "r", "commentReplyPosted", reply, map[string]map[string]any{
		"admin":     perms(true, false, true, true, true),
		"commenter": perms(true, true, true, true, true),
		"reader1":   perms(true, false, false, false, false),
		"reader2":   perms(true, false, false, false, false),
	})
}

func equalJSON(a, b any) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return string(x) == string(y)
}

// TestSubscriptionCommentEdges: a comment delivered by commentUpdated over
// a real WebSocket answers every edge the same comment read by the comment
// query answers (replyList, nodeId, its author's fields), with the same
// data; a change request delivered by changeRequestUpdated answers its
// commentList edge. (gqlgen marshals an event outside the subscription
// field's context: the edges that look up the space their object was read
// in found none, "this field needs the space it was read in".)
func TestSubscriptionCommentEdges(t *testing.T) {
	env := apitest.New(t)
	space := newSpace(env, env.Admin.Token)
	id := postComment(env, env.Admin.Token, space, "First")
	base := "/v1/spaces/" + space + "/comments/" + id
	for _, text := range []string{"Re 1", "Re 2"} {
		env.Must(200, "POST", base+"/replies", env.Admin.Token, map[string]any{"body": map[string]any{"markdown": text}})
	}
	cr := env.Must(201, "POST", "/v1/spaces/"+space+"/change-requests", env.Admin.Token, map[string]any{"subject": "Edit"}).JSON()["id"].(string)
	crComment := env.Must(200, "POST", "/v1/spaces/"+space+"/change-requests/"+cr+"/comments", env.Admin.Token,
		map[string]any{"body": map[string]any{"markdown": "On the CR"}}).JSON()["id"].(string)
	const selection = `id nodeId replies postedBy { id displayName }
		replyList { count items { id body { markdown } postedBy { id } permissions { view edit } } }
		paged: replyList(limit: 1) { count next { page } items { id } }`

	c := dialLive(t, env, nil, bearer(env.Admin.Token))
	defer c.close()
	c.subscribe("c", `subscription($s: ID!) { commentUpdated(spaceId: $s) { `+selection+` } }`, map[string]any{"s": space})
	c.subscribe("cr", `subscription($s: ID!, $c: ID!) { changeRequestUpdated(spaceId: $s, changeRequestId: $c) { id commentList { items { id replyList { count } } } } }`,
		map[string]any{"s": space, "c": cr})
	waitSubscribed(t, env, 2)

	env.Must(200, "PUT", base, env.Admin.Token, map[string]any{"body": map[string]any{"markdown": "Edited"}})
	got := c.next("c")["commentUpdated"].(map[string]any)
	data, errs := env.GraphQL(env.Admin.Token, `query($s: ID!, $id: ID!) { comment(spaceId: $s, commentId: $id) { `+selection+` } }`,
		map[string]any{"s": space, "id": id})
	if errs != nil {
		t.Fatal(errs)
	}
	want := data["comment"]
	if !equalJSON(got, want) {
		t.Fatalf("the subscription's comment\n%v\nthe query's\n%v", got, want)
	}
	if items := got["replyList"].(map[string]any)["items"].([]any); len(items) != 2 {
		t.Fatalf("replyList over the subscription: %v", got["replyList"])
	}

	env.Must(200, "PATCH", "/v1/spaces/"+space+"/change-requests/"+cr, env.Admin.Token, map[string]any{"status": "archived"})
	crGot := c.next("cr")["changeRequestUpdated"].(map[string]any)
	if items := crGot["commentList"].(map[string]any)["items"].([]any); len(items) != 1 || items[0].(map[string]any)["id"] != crComment {
		t.Fatalf("commentList over the subscription: %v", crGot)
	}
}
