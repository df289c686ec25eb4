package rest_test

import (
	"strings"
	"testing"
	"time"

	"docsapi/apitest"
)

func TestComments(t *testing.T) {
	env := apitest.New(t)
	f := newCRFixture(t, env)
	commenter := env.NewUser("commenter@acme.test", env.Org, "comment")
	other := env.NewUser("other@acme.test", env.Org, "comment")
	reader := env.NewUser("reader@acme.test", env.Org, "read")
	_, foreign := env.NewOrg("Other", "admin@other.test")

	for _, level := range []struct{ name, base string }{{"space", f.base()}, {"change request", f.crBase()}} {
		t.Run(level.name, func(t *testing.T) {
			base := level.base
			counter := func() float64 { // open comments of the level
				return env.Must(200, "GET", base, reader.Token, nil).JSON()["comments"].(float64)
			}
			if level.base == f.base() {
				counter = func() float64 { return env.Must(200, "GET", f.base(), reader.Token, nil).JSON()["comments"].(float64) }
			} else {
				counter = func() float64 {
					return env.Must(200, "GET", f.crBase(), reader.Token, nil).JSON()["comments"].(float64)
				}
			}
			c := env.Must(200, "POST", base+"/comments", commenter.Token, map[string]any{"body": map[string]any{"markdown": "Looks **good**"},
				"page": f.pages["A"], "node": "n1"}).JSON()
			apitest.Keys(t, c, "object", "id", "postedBy", "postedAt", "reactions", "replies", "body", "target", "urls", "permissions", "status")
			target := c["target"].(map[string]any)
			if c["object"] != "comment" || c["status"] != "open" || target["space"] != f.space || target["page"].(map[string]any)["title"] != "A" ||
				target["node"].(map[string]any)["id"] != "n1" {
				t.Fatalf("comment: %v", c)
			}
			apitest.Keys(t, target["page"].(map[string]any), "id", "title", "createdAt", "updatedAt", "path", "outdated")
			if perms := c["permissions"].(map[string]any); perms["edit"] != true || perms["delete"] != true || perms["reply"] != true || perms["view"] != true {
				t.Fatalf("author permissions: %v", perms)
			}
			id := c["id"].(string)
			if counter() != 1 {
				t.Fatalf("open comments: %v", counter())
			}
			env.Clock.Advance(time.Second) // distinct posting times order the list
			doc := map[string]any{"object": "document", "data": map[string]any{}, "nodes": []any{
				map[string]any{"object": "block", "type": "paragraph", "nodes": []any{map[string]any{"object": "text", "leaves": []any{map[string]any{"object": "leaf", "text": "As a document"}}}}}}}
			second := env.Must(200, "POST", base+"/comments", other.Token, map[string]any{"body": map[string]any{"document": doc},
				"tableCell": map[string]any{"record": "r1", "definition": "d1"}}).JSON()
			if second["body"].(map[string]any)["markdown"] != "As a document\n" {
				t.Fatalf("document body: %v", second["body"])
			}
			secondID := second["id"].(string)
			reply := env.Must(200, "POST", base+"/comments/"+id+"/replies", other.Token, map[string]any{"body": map[string]any{"markdown": "Agreed"}}).JSON()
			apitest.Keys(t, reply, "object", "id", "postedBy", "postedAt", "reactions", "body", "urls", "permissions")
			replyID := reply["id"].(string)

			env.Run(t, []apitest.Scenario{
				{Name: "list", Method: "GET", Path: base + "/comments", Token: reader.Token, Status: 200, Check: func(r apitest.Response) {
					items := r.JSON()["items"].([]any)
					if len(items) != 2 || items[0].(map[string]any)["id"] != secondID || items[1].(map[string]any)["replies"].(float64) != 1 {
						t.Errorf("list (newest first): %v", items)
					}
					if p := items[0].(map[string]any)["permissions"].(map[string]any); p["edit"] != false || p["delete"] != false || p["reply"] != false {
						t.Errorf("a reader's permissions: %v", p)
					}
				}},
				{Name: "asc", Method: "GET", Path: base + "/comments?order=asc", Token: reader.Token, Status: 200, Check: func(r apitest.Response) {
					if r.JSON()["items"].([]any)[0].(map[string]any)["id"] != id {
						t.Error("asc order")
					}
				}},
				{Name: "authors", Method: "GET", Path: base + "/comments?authors=" + other.ID + "&authors=nobody", Token: reader.Token, Status: 200, Contains: []string{`"count":1`, secondID}},
				{Name: "target page", Method: "GET", Path: base + "/comments?targetPage=" + f.pages["A"], Token: reader.Token, Status: 200, Contains: []string{`"count":1`, id}},
				{Name: "document format", Method: "GET", Path: base + "/comments/" + id + "?format=document", Token: reader.Token, Status: 200, Contains: []string{`"document":{"object":"document"`}},
				{Name: "bad format", Method: "GET", Path: base + "/comments?format=html", Token: reader.Token, Status: 400, Contains: []string{"format"}},
				{Name: "bad status", Method: "GET", Path: base + "/comments?status=closed", Token: reader.Token, Status: 400, Contains: []string{"status"}},
				{Name: "bad order", Method: "GET", Path: base + "/comments?order=up", Token: reader.Token, Status: 400, Contains: []string{"order"}},
				{Name: "no body", Method: "POST", Path: base + "/comments", Token: commenter.Token, Body: map[string]any{"page": f.pages["A"]}, Status: 400, Contains: []string{"body"}},
				{Name: "both bodies", Method: "POST", Path: base + "/comments", Token: commenter.Token, Body: map[string]any{"body": map[string]any{"markdown": "x", "document": doc}}, Status: 400, Contains: []string{"body"}},
				{Name: "unknown page", Method: "POST", Path: base + "/comments", Token: commenter.Token, Body: map[string]any{"body": map[string]any{"markdown": "x"}, "page": "nope"}, Status: 400, Contains: []string{"page"}},
				{Name: "reader cannot post", Method: "POST", Path: base + "/comments", Token: reader.Token, Body: map[string]any{"body": map[string]any{"markdown": "x"}}, Status: 403},
				{Name: "reader cannot reply", Method: "POST", Path: base + "/comments/" + id + "/replies", Token: reader.Token, Body: map[string]any{"body": map[string]any{"markdown": "x"}}, Status: 403},
				{Name: "other organization", Method: "GET", Path: base + "/comments", Token: foreign.Token, Status: 404},
				{Name: "unknown comment", Method: "GET", Path: base + "/comments/nope", Token: reader.Token, Status: 404},
				{Name: "unknown reply", Method: "GET", Path: base + "/comments/" + id + "/replies/nope", Token: reader.Token, Status: 404},
				{Name: "reply of another comment", Method: "GET", Path: base + "/comments/" + secondID + "/replies/" + replyID, Token: reader.Token, Status: 404},
				{Name: "replies", Method: "GET", Path: base + "/comments/" + id + "/replies", Token: reader.Token, Status: 200, Contains: []string{`"count":1`, replyID}},
				{Name: "reply", Method: "GET", Path: base + "/comments/" + id + "/replies/" + replyID, Token: reader.Token, Status: 200, Contains: []string{`"markdown":"Agreed"`}},
				{Name: "reply answered as a document", Method: "POST", Path: base + "/comments/" + id + "/replies?format=document", Token: other.Token, Body: map[string]any{"body": map[string]any{"markdown": "In **bold**"}}, Status: 200,
					Check: func(r apitest.Response) {
						b := r.JSON()["body"].(map[string]any)
						if _, md := b["markdown"]; md || !strings.Contains(string(r.Body), `"document":{"object":"document"`) || !strings.Contains(string(r.Body), `"type":"bold"`) {
							t.Errorf("reply body %s", r.Body)
						}
						env.Must(205, "DELETE", base+"/comments/"+id+"/replies/"+r.JSON()["id"].(string), other.Token, nil)
					}},
				{Name: "reply with an unknown format writes nothing", Method: "POST", Path: base + "/comments/" + id + "/replies?format=html", Token: other.Token, Body: map[string]any{"body": map[string]any{"markdown": "x"}}, Status: 400, Contains: names("format")},
				{Name: "still one reply", Method: "GET", Path: base + "/comments/" + id + "/replies", Token: reader.Token, Status: 200, Contains: []string{`"count":1`}},
				{Name: "edit someone else's", Method: "PUT", Path: base + "/comments/" + id, Token: other.Token, Body: map[string]any{"body": map[string]any{"markdown": "hijack"}}, Status: 403},
				{Name: "react", Method: "PUT", Path: base + "/comments/" + id, Token: other.Token, Body: map[string]any{"addedReactions": []string{"👍", "🎉"}}, Status: 200},
				{Name: "tick", Method: "GET", Path: base, Token: reader.Token, Status: 200, Check: func(apitest.Response) { env.Clock.Advance(time.Second) }},
				{Name: "react too", Method: "PUT", Path: base + "/comments/" + id, Token: commenter.Token, Body: map[string]any{"addedReactions": []string{"👍"}}, Status: 200, Check: func(r apitest.Response) {
					reactions := r.JSON()["reactions"].([]any)
					first := reactions[0].(map[string]any)
					if first["emoji"] != "👍" { // 🎉 came in the same request: order by emoji then
						first = reactions[1].(map[string]any)
					}
					if len(reactions) != 2 || first["emoji"] != "👍" || first["count"].(float64) != 2 || len(first["users"].([]any)) != 2 {
						t.Errorf("reactions: %v", reactions)
					}
					apitest.Keys(t, first["users"].([]any)[0].(map[string]any), "user", "reactedAt")
				}},
				{Name: "unreact", Method: "PUT", Path: base + "/comments/" + id, Token: other.Token, Body: map[string]any{"removedReactions": []string{"🎉"}}, Status: 200, Check: func(r apitest.Response) {
					if n := len(r.JSON()["reactions"].([]any)); n != 1 {
						t.Errorf("reactions after removal: %d", n)
					}
				}},
				{Name: "reader cannot react", Method: "PUT", Path: base + "/comments/" + id, Token: reader.Token, Body: map[string]any{"addedReactions": []string{"👍"}}, Status: 403},
				{Name: "edit own", Method: "PUT", Path: base + "/comments/" + id, Token: commenter.Token, Body: map[string]any{"body": map[string]any{"markdown": "Edited"}}, Status: 200, Check: func(r apitest.Response) {
					if v := r.JSON(); v["editedAt"] == nil || v["body"].(map[string]any)["markdown"] != "Edited" {
						t.Errorf("edited: %v", v)
					}
				}},
				{Name: "react to a reply", Method: "PUT", Path: base + "/comments/" + id + "/replies/" + replyID, Token: commenter.Token, Body: map[string]any{"addedReactions": []string{"❤️"}}, Status: 200, Contains: []string{`"emoji":"❤️"`}},
				{Name: "resolve", Method: "PUT", Path: base + "/comments/" + id, Token: other.Token, Body: map[string]any{"resolved": true}, Status: 200, Check: func(r apitest.Response) {
					v := r.JSON()
					if v["status"] != "resolved" || v["resolvedAt"] == nil || v["resolvedBy"].(map[string]any)["id"] != other.ID {
						t.Errorf("resolved: %v", v)
					}
					if counter() != 1 {
						t.Errorf("open comments after resolving: %v", counter())
					}
				}},
				{Name: "resolved filter", Method: "GET", Path: base + "/comments?status=resolved", Token: reader.Token, Status: 200, Contains: []string{`"count":1`, id}},
				{Name: "open filter", Method: "GET", Path: base + "/comments?status=open", Token: reader.Token, Status: 200, Contains: []string{`"count":1`, secondID}},
				{Name: "commenters", Method: "GET", Path: base + "/commenters", Token: reader.Token, Status: 200, Check: func(r apitest.Response) {
					v := r.JSON()
					if v["count"].(float64) != 2 {
						t.Errorf("commenters: %v", v)
					}
					apitest.Keys(t, v["items"].([]any)[0].(map[string]any), "object", "id", "role", "user", "disabled", "joinedAt", "sso", "spaces", "teams")
				}},
				{Name: "delete someone else's", Method: "DELETE", Path: base + "/comments/" + secondID, Token: commenter.Token, Status: 403},
				{Name: "admin deletes any", Method: "DELETE", Path: base + "/comments/" + secondID, Token: env.Admin.Token, Status: 205},
				{Name: "deleted already", Method: "DELETE", Path: base + "/comments/" + secondID, Token: env.Admin.Token, Status: 204},
			})
			if counter() != 0 {
				t.Fatalf("open comments after deleting the open one: %v", counter())
			}
			// Replies: resolved is a thread change, at change-request level only.
			r := env.Do("PUT", base+"/comments/"+id+"/replies/"+replyID, other.Token, map[string]any{"resolved": false})
			if level.base == f.base() {
				if r.Status != 400 {
					t.Fatalf("resolved on a space reply: %d %s", r.Status, r.Body)
				}
			} else {
				if r.Status != 200 || counter() != 1 {
					t.Fatalf("reopen through a reply: %d %s (%v open)", r.Status, r.Body, counter())
				}
				if c := env.Must(200, "GET", base+"/comments/"+id, reader.Token, nil).JSON(); c["status"] != "open" || c["resolvedAt"] != nil {
					t.Fatalf("thread after reopening: %v", c)
				}
			}
			env.Must(403, "DELETE", base+"/comments/"+id+"/replies/"+replyID, commenter.Token, nil)
			env.Must(205, "DELETE", base+"/comments/"+id+"/replies/"+replyID, other.Token, nil)
			env.Must(204, "DELETE", base+"/comments/"+id+"/replies/"+replyID, other.Token, nil)
			if c := env.Must(200, "GET", base+"/comments/"+id, reader.Token, nil).JSON(); c["replies"].(float64) != 0 {
				t.Fatalf("replies after delete: %v", c)
			}
			env.Must(205, "DELETE", base+"/comments/"+id, commenter.Token, nil)
		})
	}

	// A page that leaves the content makes its comments' page target outdated.
	c := env.Must(200, "POST", f.base()+"/comments", commenter.Token, map[string]any{"body": map[string]any{"markdown": "on C"}, "page": f.pages["C"]}).JSON()
	f.edit(t, env.Admin.Token, nil, `deletePage(target: $t, pageId: "`+f.pages["C"]+`") { revision }`)
	got := env.Must(200, "GET", f.base()+"/comments/"+c["id"].(string), reader.Token, nil).JSON()
	if p := got["target"].(map[string]any)["page"].(map[string]any); p["outdated"] != true || p["title"] != "C" {
		t.Fatalf("outdated page target: %v", p)
	}

	// GraphQL gives the same list and refusals.
	data, errs := env.GraphQL(reader.Token, `query($s: ID!) { comments(spaceId: $s, status: OPEN) { count items { id status body { markdown } } } }`, map[string]any{"s": f.space})
	if len(errs) > 0 || data["comments"].(map[string]any)["count"].(float64) != 1 {
		t.Fatalf("graphql: %v %v", data, errs)
	}
	_, errs = env.GraphQL(reader.Token, `mutation($s: ID!) { postComment(spaceId: $s, input: {body: {markdown: "x"}}) { id } }`, map[string]any{"s": f.space})
	if len(errs) != 1 || errs[0].Code() != "FORBIDDEN" {
		t.Fatalf("graphql refusal: %v", errs)
	}
	if !strings.Contains(string(env.Must(200, "GET", f.base()+"/comments?limit=0", reader.Token, nil).Body), `"count":1`) {
		t.Fatal("limit=0 count")
	}
}

// format on a posted reply: the answer's body as a document, in GraphQL too;
// an unknown format is refused before anything is written.
func TestCommentReplyFormatGraphQL(t *testing.T) {
	env := apitest.New(t)
	f := newCRFixture(t, env)
	base := f.crBase()
	id := env.Must(200, "POST", base+"/comments", env.Admin.Token, map[string]any{"body": map[string]any{"markdown": "Why?"}}).JSON()["id"].(string)
	q := `mutation($s: ID!, $cr: ID, $c: ID!, $f: PageFormat) { postCommentReply(spaceId: $s, changeRequestId: $cr, commentId: $c, input: {body: {markdown: "In **bold**"}}, format: $f) { id body { markdown document } } }`
	vars := map[string]any{"s": f.space, "cr": f.cr, "c": id, "f": "DOCUMENT"}
	reply := gqlData(t, env, env.Admin.Token, q, vars)["postCommentReply"].(map[string]any)
	body := reply["body"].(map[string]any)
	if body["markdown"] != nil || body["document"].(map[string]any)["object"] != "document" {
		t.Errorf("GraphQL reply body %v", body)
	}
	rest := env.Must(200, "GET", base+"/comments/"+id+"/replies/"+reply["id"].(string)+"?format=document", env.Admin.Token, nil).JSON()
	sameJSON(t, "reply body", rest["body"], dropNulls(body))
	vars["f"] = "HTML" // refused by the schema's enum before the resolver runs
	if _, errs := env.GraphQL(env.Admin.Token, q, vars); len(errs) != 1 {
		t.Errorf("unknown format: %v", errs)
	}
	if n := env.Must(200, "GET", base+"/comments/"+id+"/replies", env.Admin.Token, nil).JSON()["count"]; n != 1.0 {
		t.Errorf("%v replies, want 1", n)
	}
}
