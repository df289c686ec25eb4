package server_test

import (
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
