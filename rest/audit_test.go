package rest_test

import (
	"context"
	"fmt"
	"net/url"
	"strings"
	"testing"
	"time"

	"docsapi/apitest"
	"docsapi/server"
)

// auditEnv sends requests with a request id of their own and reads the
// audit log back.
type auditEnv struct {
	*apitest.Env
	t *testing.T
	n int
}

// do sends one request with a fresh X-Request-Id, fails unless the status
// is want, and returns the answer and the request id.
func (a *auditEnv) do(want int, method, path, token string, body any) (apitest.Response, string) {
	a.t.Helper()
	a.n++
	id := fmt.Sprintf("audit-req-%d", a.n)
	r := a.Do(method, path, token, body, "X-Request-Id", id)
	if r.Status != want {
		a.t.Fatalf("%s %s: status %d, want %d; body %s", method, path, r.Status, want, r.Body)
	}
	return r, id
}

// log reads every entry of org's audit log matching query (pages of 2, so
// the keyset pagination is walked too), newest first.
func (a *auditEnv) log(org, token, query string) []map[string]any {
	a.t.Helper()
	var out []map[string]any
	page := ""
	for range 1000 {
		q := "limit=2"
		if query != "" {
			q += "&" + query
		}
		if page != "" {
			q += "&page=" + url.QueryEscape(page)
		}
		r := a.Must(200, "GET", "/v1/orgs/"+org+"/audit-log?"+q, token, nil)
		out = append(out, items(a.t, r)...)
		next, _ := body(a.t, r)["next"].(map[string]any)
		if next == nil {
			return out
		}
		page = next["page"].(string)
	}
	a.t.Fatal("audit log pagination does not end")
	return nil
}

// entry finds the one entry with action on the target among entries (made
// by the request requestID, unless empty).
func entry(t *testing.T, entries []map[string]any, action, targetType, targetID string, requestID ...string) map[string]any {
	t.Helper()
	var found []map[string]any
	for _, e := range entries {
		tg := e["target"].(map[string]any)
		if len(requestID) > 0 && e["actor"].(map[string]any)["requestId"] != requestID[0] {
			continue
		}
		if e["action"] == action && tg["type"] == targetType && (targetID == "" || tg["id"] == targetID) {
			found = append(found, e)
		}
	}
	if len(found) != 1 {
		t.Fatalf("%d entries %s on %s %s, want 1; log: %v", len(found), action, targetType, targetID, actions(entries))
	}
	return found[0]
}

func actions(entries []map[string]any) []string {
	var out []string
	for _, e := range entries {
		out = append(out, e["action"].(string)+"/"+e["target"].(map[string]any)["id"].(string))
	}
	return out
}

// Every listed action through REST (and the content grants through
// GraphQL) leaves one entry naming its actor, target, address and request.
func TestAuditLogRecordsEachAction(t *testing.T) {
	env := apitest.New(t)
	a := &auditEnv{Env: env, t: t}
	admin := env.Admin.Token
	org := "/v1/orgs/" + env.Org
	tokenID := items(t, env.Must(200, "GET", "/v1/user/tokens", admin, nil))[0]["id"].(string)
	member := env.NewUser("member@acme.test", env.Org, "read")
	// A second organization the admin also administers, for transfers.
	adminRole := "admin"
	org2, _ := env.NewOrg("Other", "admin@other.test")
	if err := env.DB.AddMember(context.Background(), org2, env.Admin.ID, &adminRole); err != nil {
		t.Fatal(err)
	}

	type want struct {
		action, targetType, targetID, requestID string
		fields                                  map[string]any
	}
	var wants []want
	expect := func(reqID, action, targetType, targetID string, fields map[string]any) {
		wants = append(wants, want{action, targetType, targetID, reqID, fields})
	}

	r, id := a.do(201, "POST", org+"/spaces", admin, map[string]any{"title": "Handbook"})
	space := r.JSON()["id"].(string)
	expect(id, "space.created", "space", space, map[string]any{"title": "Handbook"})
	_, id = a.do(200, "PATCH", "/v1/spaces/"+space, admin, map[string]any{"title": "Manual", "defaultLevel": "read"})
	expect(id, "space.updated", "space", space, map[string]any{"title": "Manual", "defaultLevel": "read"})
	expect(id, "permission.changed", "space", space, map[string]any{"defaultLevel": "read"})
	r, id = a.do(201, "POST", org+"/collections", admin, map[string]any{"title": "Guides"})
	coll := r.JSON()["id"].(string)
	expect(id, "collection.created", "collection", coll, map[string]any{"title": "Guides"})
	_, id = a.do(200, "PATCH", "/v1/collections/"+coll, admin, map[string]any{"title": "Docs"})
	expect(id, "collection.updated", "collection", coll, map[string]any{"title": "Docs"})
	_, id = a.do(200, "POST", "/v1/spaces/"+space+"/move", admin, map[string]any{"parent": coll})
	expect(id, "space.moved", "space", space, map[string]any{"parent": coll})
	r, id = a.do(201, "POST", org+"/collections", admin, map[string]any{"title": "Outer"})
	outer := r.JSON()["id"].(string)
	expect(id, "collection.created", "collection", outer, nil)
	_, id = a.do(200, "POST", "/v1/collections/"+coll+"/move", admin, map[string]any{"parent": outer})
	expect(id, "collection.moved", "collection", coll, map[string]any{"parent": outer})
	r, id = a.do(201, "POST", "/v1/spaces/"+space+"/duplicate", admin, nil)
	dup := r.JSON()["id"].(string)
	expect(id, "space.created", "space", dup, map[string]any{"duplicateOf": space})
	_, id = a.do(205, "DELETE", "/v1/spaces/"+dup, admin, nil)
	expect(id, "space.deleted", "space", dup, nil)
	_, id = a.do(200, "POST", "/v1/spaces/"+dup+"/restore", admin, nil)
	expect(id, "space.restored", "space", dup, nil)
	_, id = a.do(200, "POST", "/v1/spaces/"+dup+"/transfer", admin, map[string]any{"organization": org2})
	expect(id, "space.transferred", "space", dup, map[string]any{"from": env.Org, "to": org2})
	r, _ = a.do(201, "POST", org+"/collections", admin, map[string]any{"title": "Empty"})
	empty := r.JSON()["id"].(string)
	_, id = a.do(205, "DELETE", "/v1/collections/"+empty, admin, nil)
	expect(id, "collection.deleted", "collection", empty, nil)
	r, _ = a.do(201, "POST", org+"/collections", admin, map[string]any{"title": "Leaving"})
	leaving := r.JSON()["id"].(string)
	_, id = a.do(200, "POST", "/v1/collections/"+leaving+"/transfer", admin, map[string]any{"organization": org2})
	expect(id, "collection.transferred", "collection", leaving, map[string]any{"from": env.Org, "to": org2})

	gqlData(t, env, admin, `mutation($s: ID!, $u: ID!) { grantContentRole(input: {space: $s, user: $u, role: EDIT}) { role } }`,
		map[string]any{"s": space, "u": member.ID})
	_, id = a.do(200, "PATCH", org+"/members/"+member.ID, admin, map[string]any{"role": "edit"})
	expect(id, "member.role_changed", "member", member.ID, map[string]any{"role": "edit"})
	_, id = a.do(200, "POST", org+"/members/"+member.ID+"/sso", admin, nil)
	expect(id, "member.updated", "member", member.ID, map[string]any{"sso": true})
	r, id = a.do(200, "POST", org+"/invites", admin, map[string]any{"emails": []map[string]any{{"email": "new@acme.test"}}})
	invited := r.JSON()["users"].([]any)[0].(string)
	expect(id, "member.added", "member", invited, map[string]any{"email": "new@acme.test"})
	r, id = a.do(201, "POST", org+"/link-invites", admin, map[string]any{"role": "read"})
	invite := r.JSON()["id"].(string)
	expect(id, "invite.created", "invite", invite, map[string]any{"role": "read"})
	_, id = a.do(205, "DELETE", org+"/link-invites/"+invite, admin, nil)
	expect(id, "invite.deleted", "invite", invite, nil)

	r, id = a.do(201, "PUT", org+"/teams", admin, map[string]any{"title": "Writers"})
	team := r.JSON()["id"].(string)
	expect(id, "team.created", "team", team, map[string]any{"title": "Writers"})
	_, id = a.do(200, "PATCH", org+"/teams/"+team, admin, map[string]any{"title": "Editors"})
	expect(id, "team.updated", "team", team, map[string]any{"title": "Editors"})
	_, id = a.do(204, "PUT", org+"/teams/"+team+"/members", admin, map[string]any{"add": []string{env.Admin.ID}})
	expect(id, "team.member_added", "team", team, map[string]any{"user": env.Admin.ID})
	_, id = a.do(204, "PUT", org+"/teams/"+team+"/members/"+member.ID, admin, nil)
	expect(id, "team.member_added", "team", team, map[string]any{"user": member.ID})
	_, id = a.do(205, "DELETE", org+"/teams/"+team+"/members/"+member.ID, admin, nil)
	expect(id, "team.member_removed", "team", team, map[string]any{"user": member.ID})
	_, id = a.do(205, "DELETE", org+"/teams/"+team, admin, nil)
	expect(id, "team.deleted", "team", team, nil)

	_, id = a.do(200, "PATCH", org, admin, map[string]any{"title": "Acme Inc"})
	expect(id, "organization.updated", "organization", env.Org, map[string]any{"title": "Acme Inc"})

	r, id = a.do(201, "POST", org+"/sites", admin, map[string]any{"title": "Docs site"})
	site := r.JSON()["id"].(string)
	expect(id, "site.created", "site", site, map[string]any{"title": "Docs site"})
	_, id = a.do(200, "PATCH", org+"/sites/"+site, admin, map[string]any{"title": "Public docs"})
	expect(id, "site.updated", "site", site, map[string]any{"title": "Public docs"})
	_, id = a.do(200, "POST", org+"/sites/"+site+"/publish", admin, nil)
	expect(id, "site.published", "site", site, nil)
	_, id = a.do(200, "POST", org+"/sites/"+site+"/unpublish", admin, nil)
	expect(id, "site.unpublished", "site", site, nil)
	r, id = a.do(201, "POST", org+"/sites/"+site+"/share-links", admin, map[string]any{"name": "Partners", "password": "hunter2-hunter2"})
	link := r.JSON()["id"].(string)
	expect(id, "share_link.created", "share_link", link, map[string]any{"name": "Partners", "password": "(changed)"})
	_, id = a.do(200, "PATCH", org+"/sites/"+site+"/share-links/"+link, admin, map[string]any{"active": false, "password": "another-password"})
	expect(id, "share_link.updated", "share_link", link, map[string]any{"active": false, "password": "(changed)"})
	_, id = a.do(205, "DELETE", org+"/sites/"+site+"/share-links/"+link, admin, nil)
	expect(id, "share_link.deleted", "share_link", link, nil)
	_, id = a.do(205, "DELETE", org+"/sites/"+site, admin, nil)
	expect(id, "site.deleted", "site", site, nil)

	_, _, certPEM := testRSACertificate(t)
	r, id = a.do(201, "POST", org+"/saml", admin, map[string]any{"label": "Okta", "certificate": certPEM})
	provider := r.JSON()["id"].(string)
	expect(id, "sso_provider.created", "sso_provider", provider, map[string]any{"label": "Okta", "certificate": "(changed)"})
	_, id = a.do(200, "PATCH", org+"/saml/"+provider, admin, map[string]any{"label": "Okta SSO"})
	expect(id, "sso_provider.updated", "sso_provider", provider, map[string]any{"label": "Okta SSO"})
	_, id = a.do(205, "DELETE", org+"/saml/"+provider, admin, nil)
	expect(id, "sso_provider.deleted", "sso_provider", provider, nil)

	publish(env, env.Admin, "acme-chat", env.Org, map[string]any{"target": "all"})
	r, id = a.do(201, "POST", "/v1/integrations/acme-chat/installations", admin, map[string]any{"organization": env.Org})
	inst := r.JSON()["id"].(string)
	expect(id, "integration.installed", "integration_installation", inst, map[string]any{"integration": "acme-chat"})
	_, id = a.do(200, "PATCH", "/v1/integrations/acme-chat/installations/"+inst, admin, map[string]any{"externalIds": []string{"ext-1"}})
	expect(id, "integration.updated", "integration_installation", inst, map[string]any{"externalIds": []string{"ext-1"}})
	_, id = a.do(201, "POST", "/v1/integrations/acme-chat/installations/"+inst+"/spaces", admin, map[string]any{"space": space})
	expect(id, "integration.installed", "space", space, map[string]any{"installation": inst})
	_, id = a.do(205, "DELETE", "/v1/integrations/acme-chat/installations/"+inst+"/spaces/"+space, admin, nil)
	expect(id, "integration.uninstalled", "space", space, map[string]any{"installation": inst})
	_, id = a.do(205, "DELETE", "/v1/integrations/acme-chat/installations/"+inst, admin, nil)
	expect(id, "integration.uninstalled", "integration_installation", inst, nil)

	r, id = a.do(201, "POST", "/v1/user/tokens", admin, map[string]any{"label": "ci"})
	tok := r.JSON()
	expect(id, "token.created", "token", tok["id"].(string), map[string]any{"label": "ci"})
	_, id = a.do(205, "DELETE", "/v1/user/tokens/"+tok["id"].(string), admin, nil)
	expect(id, "token.revoked", "token", tok["id"].(string), nil)

	_, id = a.do(205, "DELETE", org+"/members/"+member.ID, admin, nil)
	expect(id, "member.removed", "member", member.ID, nil)

	log := a.log(env.Org, admin, "")
	for _, w := range wants {
		e := entry(t, log, w.action, w.targetType, w.targetID, w.requestID)
		actor := e["actor"].(map[string]any)
		if actor["user"] != env.Admin.ID || actor["token"] != tokenID || actor["address"] != "127.0.0.1" || actor["requestId"] != w.requestID {
			t.Errorf("%s: actor %v, want user %s token %s from 127.0.0.1 request %s", w.action, actor, env.Admin.ID, tokenID, w.requestID)
		}
		fields := e["fields"].(map[string]any)
		for k, v := range w.fields {
			if fmt.Sprint(fields[k]) != fmt.Sprint(v) {
				t.Errorf("%s: fields %v, want %s = %v", w.action, fields, k, v)
			}
		}
		if e["object"] != "audit-entry" || e["createdAt"] == "" {
			t.Errorf("%s: entry %v", w.action, e)
		}
	}
	// The grant went through GraphQL, with the same actor.
	grant := entry(t, log, "permission.granted", "space", space)
	if f := grant["fields"].(map[string]any); f["user"] != member.ID || f["role"] != "edit" {
		t.Errorf("permission.granted fields %v", grant["fields"])
	}
	// Newest first: the member's removal came last.
	if log[0]["action"] != "member.removed" {
		t.Errorf("newest entry is %v, want member.removed", log[0]["action"])
	}
	// The secrets never reach the log.
	raw := string(env.Must(200, "GET", org+"/audit-log?limit=1000", admin, nil).Body)
	for _, secret := range []string{"hunter2-hunter2", "another-password", tok["token"].(string), "BEGIN CERTIFICATE"} {
		if strings.Contains(raw, secret) {
			t.Errorf("the audit log holds a secret: %q", secret)
		}
	}
	// The transfer is in the receiving organization's log too.
	entry(t, a.log(org2, admin, ""), "space.transferred", "space", dup)
}

// Refused requests (403, 400, 404) and deletes of nothing write no entry.
func TestAuditLogNothingForRefusals(t *testing.T) {
	env := apitest.New(t)
	a := &auditEnv{Env: env, t: t}
	admin := env.Admin.Token
	org := "/v1/orgs/" + env.Org
	reader := env.NewUser("reader@acme.test", env.Org, "read")
	otherOrg, other := env.NewOrg("Other", "admin@other.test")
	space := createSpaceAs(env, admin, env.Org, nil)
	before := len(a.log(env.Org, admin, ""))

	a.do(403, "POST", org+"/spaces", reader.Token, map[string]any{"title": "Nope"})
	a.do(403, "PATCH", org+"/members/"+reader.ID, reader.Token, map[string]any{"role": "admin"})
	a.do(403, "PUT", org+"/teams", reader.Token, map[string]any{"title": "Nope"})
	a.do(400, "POST", org+"/spaces", admin, map[string]any{"title": ""})
	a.do(400, "PATCH", "/v1/spaces/"+space, admin, map[string]any{"defaultLevel": "owner"})
	a.do(400, "PUT", org+"/teams", admin, map[string]any{"title": ""})
	a.do(404, "PATCH", "/v1/spaces/"+space, other.Token, map[string]any{"title": "Theirs"})
	a.do(404, "POST", "/v1/orgs/"+otherOrg+"/spaces", admin, map[string]any{"title": "Theirs"})
	a.do(404, "PATCH", org+"/teams/nope", admin, map[string]any{"title": "x"})
	a.do(409, "PATCH", org+"/members/"+env.Admin.ID, admin, map[string]any{"role": "read"}) // the last admin
	// Deletes of what does not exist answer 204 and change nothing.
	a.do(204, "DELETE", org+"/teams/nope", admin, nil)
	a.do(204, "DELETE", org+"/link-invites/nope", admin, nil)
	a.do(204, "DELETE", org+"/members/nope", admin, nil)
	a.do(204, "DELETE", "/v1/user/tokens/nope", admin, nil)
	if after := a.log(env.Org, admin, ""); len(after) != before {
		t.Fatalf("refused requests wrote entries: %v", actions(after[:len(after)-before]))
	}
	if n := len(a.log(otherOrg, other.Token, "")); n != 0 {
		t.Fatalf("the other organization's log has %d entries", n)
	}
}

// Only organization admins read the log; another organization's is a 404;
// each bad filter is a 400 naming it; filters narrow the list.
func TestAuditLogReadersAndFilters(t *testing.T) {
	env := apitest.New(t)
	a := &auditEnv{Env: env, t: t}
	admin := env.Admin.Token
	org := "/v1/orgs/" + env.Org
	log := org + "/audit-log"
	creator := env.NewUser("creator@acme.test", env.Org, "create")
	otherOrg, other := env.NewOrg("Other", "admin@other.test")
	s1 := createSpaceAs(env, admin, env.Org, nil)
	s2 := createSpaceAs(env, creator.Token, env.Org, nil)
	env.Must(201, "PUT", org+"/teams", admin, map[string]any{"title": "Writers"})
	env.Must(200, "PATCH", "/v1/spaces/"+s1, admin, map[string]any{"title": "Renamed"})

	env.Run(t, []apitest.Scenario{
		{Name: "no token", Method: "GET", Path: log, Status: 401},
		{Name: "a creator is not an admin", Method: "GET", Path: log, Token: creator.Token, Status: 403},
		{Name: "another organization's log", Method: "GET", Path: log, Token: other.Token, Status: 404},
		{Name: "an unknown organization", Method: "GET", Path: "/v1/orgs/nope/audit-log", Token: admin, Status: 404},
		{Name: "bad action", Method: "GET", Path: log + "?action=Space.Created", Token: admin, Status: 400, Contains: names("action")},
		{Name: "bad action characters", Method: "GET", Path: log + "?action=space.%25", Token: admin, Status: 400, Contains: names("action")},
		{Name: "bad targetType", Method: "GET", Path: log + "?targetType=a%20b", Token: admin, Status: 400, Contains: names("targetType")},
		{Name: "empty targetId", Method: "GET", Path: log + "?targetId=", Token: admin, Status: 400, Contains: names("targetId")},
		{Name: "empty actor", Method: "GET", Path: log + "?actor=", Token: admin, Status: 400, Contains: names("actor")},
		{Name: "bad from", Method: "GET", Path: log + "?from=yesterday", Token: admin, Status: 400, Contains: names("from")},
		{Name: "bad to", Method: "GET", Path: log + "?to=2026-13-01T00:00:00Z", Token: admin, Status: 400, Contains: names("to")},
		{Name: "to before from", Method: "GET", Path: log + "?from=2026-01-02T00:00:00Z&to=2026-01-01T00:00:00Z", Token: admin, Status: 400, Contains: names("to")},
		{Name: "bad limit", Method: "GET", Path: log + "?limit=5000", Token: admin, Status: 400, Contains: names("limit")},
		{Name: "bad page", Method: "GET", Path: log + "?page=garbage", Token: admin, Status: 400, Contains: names("page")},
	})
	_ = otherOrg

	count := func(query string) int { return len(a.log(env.Org, admin, query)) }
	if n := count(""); n != 4 {
		t.Fatalf("%d entries, want 4: %v", n, actions(a.log(env.Org, admin, "")))
	}
	if n := count("actor=" + creator.ID); n != 1 {
		t.Errorf("actor filter: %d entries, want 1", n)
	}
	if n := count("action=space.created"); n != 2 {
		t.Errorf("exact action: %d entries, want 2", n)
	}
	if n := count("action=space."); n != 3 {
		t.Errorf("action prefix: %d entries, want 3", n)
	}
	if n := count("action=space"); n != 3 {
		t.Errorf("action without a dot is a prefix: %d entries, want 3", n)
	}
	if n := count("action=spa."); n != 0 {
		t.Errorf("a prefix is a whole target: %d entries, want 0", n)
	}
	if n := count("targetType=space&targetId=" + s1); n != 2 {
		t.Errorf("target filter: %d entries, want 2", n)
	}
	if n := count("targetId=" + s2); n != 1 {
		t.Errorf("target id filter: %d entries, want 1", n)
	}
	now := env.Clock.Now()
	if n := count("from=" + url.QueryEscape(now.Add(time.Second).Format(time.RFC3339))); n != 0 {
		t.Errorf("from the future: %d entries, want 0", n)
	}
	if n := count("to=" + url.QueryEscape(now.Add(-time.Hour).Format(time.RFC3339))); n != 0 {
		t.Errorf("to an hour ago: %d entries, want 0", n)
	}
	if n := count("from=" + url.QueryEscape(now.Add(-time.Hour).Format(time.RFC3339)) + "&to=" + url.QueryEscape(now.Add(time.Hour).Format(time.RFC3339))); n != 4 {
		t.Errorf("within the hour: %d entries, want 4", n)
	}
	// The count is the filtered total; limit 0 pages nothing.
	r := env.Must(200, "GET", log+"?limit=1&action=space.", admin, nil)
	if b := body(t, r); b["count"].(float64) != 3 || len(items(t, r)) != 1 || b["next"] == nil {
		t.Errorf("first page of one: %s", r.Body)
	}
}

// REST and GraphQL give the same entries, and GraphQL refuses alike.
func TestAuditLogGraphQL(t *testing.T) {
	env := apitest.New(t)
	admin := env.Admin.Token
	creator := env.NewUser("creator@acme.test", env.Org, "create")
	_, other := env.NewOrg("Other", "admin@other.test")
	createSpaceAs(env, admin, env.Org, nil)
	env.Must(201, "PUT", "/v1/orgs/"+env.Org+"/teams", admin, map[string]any{"title": "Writers"})

	const q = `query($org: ID!, $action: String, $from: String) { auditLog(organizationId: $org, action: $action, from: $from) {
		count next { page } items { object id action target { type id } actor { user token address requestId } createdAt fields } } }`
	data := gqlData(t, env, admin, q, map[string]any{"org": env.Org})
	rest := body(t, env.Must(200, "GET", "/v1/orgs/"+env.Org+"/audit-log", admin, nil))
	gql := data["auditLog"].(map[string]any)
	if gql["next"] != nil {
		t.Fatalf("one page, yet a next page: %v", gql["next"])
	}
	delete(gql, "next") // REST leaves out a null next, like every list
	sameJSON(t, "audit log", rest, gql)

	gqlRefusal(t, env, creator.Token, q, map[string]any{"org": env.Org}, "FORBIDDEN", 403)
	gqlRefusal(t, env, other.Token, q, map[string]any{"org": env.Org}, "NOT_FOUND", 404)
	e := gqlRefusal(t, env, admin, q, map[string]any{"org": env.Org, "from": "soon"}, "BAD_REQUEST", 400)
	if e.Extensions["field"] != "from" {
		t.Errorf("bad from names %v", e.Extensions["field"])
	}
}

// The purge worker's step deletes entries older than the retention on the
// server clock, in batches, and keeps the rest; 0 keeps everything.
func TestAuditLogRetention(t *testing.T) {
	env := apitest.New(t, apitest.Options{Config: func(c *server.Config) { c.AuditRetention = 30 * 24 * time.Hour }})
	a := &auditEnv{Env: env, t: t}
	admin := env.Admin.Token
	old := createSpaceAs(env, admin, env.Org, nil)
	env.Clock.Advance(20 * 24 * time.Hour)
	recent := createSpaceAs(env, admin, env.Org, nil)
	env.Clock.Advance(15 * 24 * time.Hour) // the first entry is 35 days old, the second 15

	n, err := env.Server.PurgeAuditLog(context.Background())
	if err != nil || n != 1 {
		t.Fatalf("purge: %d, %v; want 1", n, err)
	}
	log := a.log(env.Org, admin, "")
	if len(log) != 1 || log[0]["target"].(map[string]any)["id"] != recent {
		t.Fatalf("after the purge: %v (old space %s)", actions(log), old)
	}
	env.Clock.Advance(16 * 24 * time.Hour)
	if n, err := env.Server.PurgeAuditLog(context.Background()); err != nil || n != 1 {
		t.Fatalf("second purge: %d, %v; want 1", n, err)
	}
	if log := a.log(env.Org, admin, ""); len(log) != 0 {
		t.Fatalf("after the second purge: %v", actions(log))
	}

	keep := apitest.New(t) // no retention: kept for ever
	createSpaceAs(keep, keep.Admin.Token, keep.Org, nil)
	keep.Clock.Advance(10 * 365 * 24 * time.Hour)
	if n, err := keep.Server.PurgeAuditLog(context.Background()); err != nil || n != 0 {
		t.Fatalf("purge without retention: %d, %v", n, err)
	}
}

// Many expired entries go in batches, all of them in one step.
func TestAuditLogPurgeBatches(t *testing.T) {
	env := apitest.New(t, apitest.Options{Config: func(c *server.Config) { c.AuditRetention = 24 * time.Hour }})
	for i := range 3 {
		env.Must(201, "PUT", "/v1/orgs/"+env.Org+"/teams", env.Admin.Token, map[string]any{"title": fmt.Sprintf("Team %d", i)})
	}
	env.Clock.Advance(48 * time.Hour)
	ctx := context.Background()
	n, err := env.DB.PurgeAudit(ctx, env.Org, env.Clock.Now().Add(-24*time.Hour), 2)
	if err != nil || n != 2 {
		t.Fatalf("first batch: %d, %v; want 2", n, err)
	}
	if n, err = env.DB.PurgeAudit(ctx, env.Org, env.Clock.Now().Add(-24*time.Hour), 2); err != nil || n != 1 {
		t.Fatalf("second batch: %d, %v; want 1", n, err)
	}
}

// Behind a trusted proxy the address is the last one of its header; without
// one configured, a client's own header is ignored.
func TestAuditLogAddressBehindProxy(t *testing.T) {
	for _, tc := range []struct {
		header, want string
	}{{"X-Forwarded-For", "203.0.113.9"}, {"", "127.0.0.1"}} {
		env := apitest.New(t, apitest.Options{Config: func(c *server.Config) { c.ClientIPHeader = tc.header }})
		r := env.Do("PUT", "/v1/orgs/"+env.Org+"/teams", env.Admin.Token, map[string]any{"title": "Writers"},
			"X-Forwarded-For", "198.51.100.1, 203.0.113.9")
		if r.Status != 201 {
			t.Fatalf("create team: %d %s", r.Status, r.Body)
		}
		log := items(t, env.Must(200, "GET", "/v1/orgs/"+env.Org+"/audit-log", env.Admin.Token, nil))
		if got := log[0]["actor"].(map[string]any)["address"]; got != tc.want {
			t.Errorf("client-ip-header %q: address %v, want %s", tc.header, got, tc.want)
		}
	}
}

func init() {
	authzRules["GET /v1/orgs/{organizationId}/audit-log"] = authzRule{Min: "admin",
		Path: func(f *fixture) string { return "/v1/orgs/" + f.Org + "/audit-log" }}
}
