package rest_test

import (
	"strings"
	"testing"

	"docsapi/apitest"
)

func TestChangeRequestReviewCycle(t *testing.T) {
	env := apitest.New(t)
	f := newCRFixture(t, env)
	admin := env.Admin.Token
	reviewer := env.NewUser("reviewer@acme.test", env.Org, "review")
	editor := env.NewUser("editor@acme.test", env.Org, "edit")
	cr := f.crBase()

	// The editor edits, then asks the reviewer, renaming the change request.
	f.edit(t, editor.Token, &f.cr, `updatePage(target: $t, pageId: "`+f.pages["A"]+`", input: {markdown: "changed\n"}) { revision }`)
	head := env.Must(200, "GET", cr, admin, nil).JSON()["revision"].(string)
	r := env.Must(200, "POST", cr+"/requested-reviewers", editor.Token, map[string]any{"users": []string{reviewer.ID, reviewer.ID}, "subject": "Ready"}).JSON()
	users := r["users"].([]any)
	if len(users) != 1 {
		t.Fatalf("requested %v", users)
	}
	req := users[0].(map[string]any)
	if req["object"] != "change-request-requested-reviewer" || req["kind"] != "user" || req["revision"] != head ||
		req["user"].(map[string]any)["id"] != reviewer.ID || req["requestedBy"].(map[string]any)["id"] != editor.ID {
		t.Errorf("request %v", req)
	}
	if s := env.Must(200, "GET", cr, admin, nil).JSON()["subject"]; s != "Ready" {
		t.Errorf("subject %v", s)
	}
	if got := items(t, env.Must(200, "GET", cr+"/requested-reviewers", reviewer.Token, nil)); len(got) != 1 {
		t.Errorf("requested reviewers %v", got)
	}

	// The review fulfils the request; it is current until the next edit.
	resp := env.Must(201, "POST", cr+"/reviews", reviewer.Token, map[string]any{"status": "changes-requested",
		"comment": map[string]any{"object": "document", "nodes": []any{map[string]any{"object": "block", "type": "paragraph",
			"nodes": []any{map[string]any{"object": "text", "leaves": []any{map[string]any{"object": "leaf", "text": "Fix the title"}}}}}}}})
	if loc := resp.Header.Get("Location"); !strings.HasSuffix(loc, "/v1/spaces/"+f.space+"/change-requests/"+f.cr+"/reviews") {
		t.Errorf("Location %q", loc)
	}
	r = resp.JSON()
	apitest.Keys(t, r, "object", "id", "revision", "reviewer", "requestedBy", "status", "comment", "createdAt", "updatedAt")
	if r["status"] != "changes-requested" || r["revision"] != head || r["requestedBy"].(map[string]any)["id"] != editor.ID {
		t.Errorf("review %v", r)
	}
	if _, ok := r["stale"]; ok {
		t.Errorf("REST review carries GraphQL's stale: %v", r)
	}
	if !strings.Contains(string(env.Must(200, "GET", cr+"/comments", admin, nil).Body), "Fix the title") {
		t.Errorf("the review comment is not among the change request's comments")
	}
	if got := items(t, env.Must(200, "GET", cr+"/requested-reviewers", admin, nil)); len(got) != 0 {
		t.Errorf("request left after the review: %v", got)
	}
	stale := func() bool {
		data, errs := env.GraphQL(admin, `query($s: ID!, $c: ID!) { changeRequestReviews(spaceId: $s, changeRequestId: $c) { count items { status stale reviewer { id } } } }`,
			map[string]any{"s": f.space, "c": f.cr})
		if len(errs) > 0 {
			t.Fatal(errs)
		}
		its := data["changeRequestReviews"].(map[string]any)["items"].([]any)
		if len(its) != 1 {
			t.Fatalf("reviews %v", its)
		}
		return its[0].(map[string]any)["stale"].(bool)
	}
	if stale() {
		t.Errorf("a review of the head is stale")
	}
	f.edit(t, editor.Token, &f.cr, `updatePage(target: $t, pageId: "`+f.pages["A"]+`", input: {markdown: "fixed\n"}) { revision }`)
	if !stale() {
		t.Errorf("a review of an earlier head is not stale")
	}
	// A new review replaces the reviewer's previous one.
	r = env.Must(201, "POST", cr+"/reviews", reviewer.Token, map[string]any{"status": "approved"}).JSON()
	list := items(t, env.Must(200, "GET", cr+"/reviews", admin, nil))
	if len(list) != 1 || list[0]["status"] != "approved" || list[0]["id"] != r["id"] || list[0]["requestedBy"] != nil {
		t.Errorf("reviews after approval %v", list)
	}

	// Contributors: the creator (no edit) and the editor (two edits).
	contrib := env.Must(200, "GET", cr+"/contributors", admin, nil).JSON()
	counts := map[string]float64{}
	for _, it := range contrib["items"].([]any) {
		m := it.(map[string]any)
		apitest.Keys(t, m, "user", "count", "updatedAt")
		counts[m["user"].(map[string]any)["id"].(string)] = m["count"].(float64)
	}
	if contrib["count"] != float64(2) || counts[editor.ID] != 2 || counts[env.Admin.ID] != 0 {
		t.Errorf("contributors %v", contrib)
	}

	// Withdrawing: 205 when there was a request, then 204.
	env.Must(200, "POST", cr+"/requested-reviewers", admin, map[string]any{"users": []string{reviewer.ID}})
	env.Must(205, "DELETE", cr+"/requested-reviewers/"+reviewer.ID, editor.Token, nil)
	env.Must(204, "DELETE", cr+"/requested-reviewers/"+reviewer.ID, editor.Token, nil)

	// Links of the change request, with stats.
	links := env.Must(200, "GET", cr+"/links?brokenContext=change-request", admin, nil).JSON()
	apitest.Keys(t, links, "items", "stats", "count")
	// The same rule through GraphQL (the check lives in the resolver).
	q := `query($s: ID!, $c: ID!, $b: String) { changeRequestLinks(spaceId: $s, changeRequestId: $c, brokenContext: $b) { count } }`
	if data := gqlData(t, env, admin, q, map[string]any{"s": f.space, "c": f.cr, "b": "space"}); data["changeRequestLinks"].(map[string]any)["count"] != links["count"] {
		t.Errorf("GraphQL changeRequestLinks: %v, REST count %v", data, links["count"])
	}
	gqlRefusal(t, env, admin, q, map[string]any{"s": f.space, "c": f.cr, "b": "site"}, "BAD_REQUEST", 400)

	// The audit log has each step.
	log := string(env.Must(200, "GET", "/v1/orgs/"+env.Org+"/audit-log?action=change_request.", admin, nil).Body)
	for _, a := range []string{"change_request.review_requested", "change_request.reviewed", "change_request.review_request_removed"} {
		if !strings.Contains(log, a) {
			t.Errorf("audit log lacks %s", a)
		}
	}
}

func TestChangeRequestReviewRefusals(t *testing.T) {
	env := apitest.New(t)
	f := newCRFixture(t, env)
	admin := env.Admin.Token
	reader := env.NewUser("reader@acme.test", env.Org, "read")
	editor := env.NewUser("editor@acme.test", env.Org, "edit")
	_, foreign := env.NewOrg("Other", "admin@other.test")
	cr := f.crBase()
	env.Run(t, []apitest.Scenario{
		{Name: "no users", Method: "POST", Path: cr + "/requested-reviewers", Token: admin, Body: map[string]any{"users": []string{}}, Status: 400, Contains: []string{"users"}},
		{Name: "users not a list", Method: "POST", Path: cr + "/requested-reviewers", Token: admin, Body: map[string]any{"users": "x"}, Status: 400, Contains: []string{"users"}},
		{Name: "unknown user", Method: "POST", Path: cr + "/requested-reviewers", Token: admin, Body: map[string]any{"users": []string{"nobody"}}, Status: 404, Contains: []string{"user"}},
		{Name: "another organization's user", Method: "POST", Path: cr + "/requested-reviewers", Token: admin, Body: map[string]any{"users": []string{foreign.ID}}, Status: 404},
		{Name: "a reviewer without review", Method: "POST", Path: cr + "/requested-reviewers", Token: admin, Body: map[string]any{"users": []string{editor.ID}}, Status: 400, Contains: []string{"users", "review"}},
		{Name: "subject too long", Method: "POST", Path: cr + "/requested-reviewers", Token: admin, Body: map[string]any{"users": []string{env.Admin.ID}, "subject": strings.Repeat("x", 101)}, Status: 400, Contains: []string{"subject"}},
		{Name: "no status", Method: "POST", Path: cr + "/reviews", Token: admin, Body: map[string]any{}, Status: 400, Contains: []string{"status"}},
		{Name: "bad status", Method: "POST", Path: cr + "/reviews", Token: admin, Body: map[string]any{"status": "rejected"}, Status: 400, Contains: []string{"status"}},
		{Name: "bad comment", Method: "POST", Path: cr + "/reviews", Token: admin, Body: map[string]any{"status": "approved", "comment": map[string]any{"object": "page"}}, Status: 400, Contains: []string{"comment"}},
		{Name: "edit cannot review", Method: "POST", Path: cr + "/reviews", Token: editor.Token, Body: map[string]any{"status": "approved"}, Status: 403},
		{Name: "read cannot ask", Method: "POST", Path: cr + "/requested-reviewers", Token: reader.Token, Body: map[string]any{"users": []string{env.Admin.ID}}, Status: 403},
		{Name: "bad format", Method: "GET", Path: cr + "/reviews?format=html", Token: admin, Status: 400, Contains: []string{"format"}},
		{Name: "bad brokenContext", Method: "GET", Path: cr + "/links?brokenContext=site", Token: admin, Status: 400, Contains: []string{"brokenContext"}},
		{Name: "unknown change request", Method: "GET", Path: f.base() + "/change-requests/nope/reviews", Token: admin, Status: 404},
		{Name: "unknown space", Method: "GET", Path: "/v1/spaces/nope/change-requests/" + f.cr + "/contributors", Token: admin, Status: 404},
		{Name: "another organization's admin", Method: "GET", Path: cr + "/reviews", Token: foreign.Token, Status: 404},
	})
	// A merged change request is no longer reviewed (409), by either interface.
	env.Must(200, "POST", cr+"/merge", admin, nil)
	env.Must(409, "POST", cr+"/reviews", admin, map[string]any{"status": "approved"})
	_, errs := env.GraphQL(admin, `mutation($s: ID!, $c: ID!) { submitChangeRequestReview(spaceId: $s, changeRequestId: $c, input: {status: APPROVED}) { id } }`,
		map[string]any{"s": f.space, "c": f.cr})
	if len(errs) != 1 || errs[0].Code() != "CONFLICT" {
		t.Errorf("GraphQL review of a merged change request: %v", errs)
	}
}
