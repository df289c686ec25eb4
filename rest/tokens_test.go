package rest_test

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"docsapi/apitest"
	"docsapi/storage"
)

func init() {
	authzRules["GET /v1/user/tokens"] = authzRule{Path: func(f *fixture) string { return "/v1/user/tokens" }}
	authzRules["POST /v1/user/tokens"] = authzRule{Path: func(f *fixture) string { return "/v1/user/tokens" }, Body: map[string]any{"label": "ci"}}
	authzRules["DELETE /v1/user/tokens/{tokenId}"] = authzRule{Path: func(f *fixture) string { return "/v1/user/tokens/nope" }}
}

var tokenKeys = []string{"object", "id", "label", "createdAt", "expiresAt", "lastUsedAt", "readOnly"}

func TestAPITokenLifecycle(t *testing.T) {
	env := apitest.New(t)
	admin := env.Admin.Token
	other := env.NewUser("other@acme.test", env.Org, "read")
	future := env.Clock.Now().Add(48 * time.Hour).UTC().Format(time.RFC3339)
	var created map[string]any
	// The test clock stands still: move it so that creation times order the
	// list (the bootstrap token, then "deploy bot", then the date-only one).
	env.Clock.Advance(time.Second)

	env.Run(t, []apitest.Scenario{
		{Name: "create", Method: "POST", Path: "/v1/user/tokens", Token: admin, Status: 201,
			Body: map[string]any{"label": "deploy bot", "expiresAt": future, "readOnly": true},
			Check: func(r apitest.Response) {
				created = body(t, r)
				apitest.Keys(t, created, append(tokenKeys, "token")...)
				if created["object"] != "api-token" || created["label"] != "deploy bot" || created["readOnly"] != true ||
					created["lastUsedAt"] != nil || !strings.HasPrefix(created["token"].(string), "dapi_") ||
					!strings.HasPrefix(created["expiresAt"].(string), future[:19]) {
					t.Errorf("created %v", created)
				}
				env.Clock.Advance(time.Second)
			}},
		{Name: "date-only expiry", Method: "POST", Path: "/v1/user/tokens", Token: admin, Status: 201,
			Body: map[string]any{"label": "d", "expiresAt": env.Clock.Now().AddDate(1, 0, 0).Format(time.DateOnly)}},
		{Name: "label required", Method: "POST", Path: "/v1/user/tokens", Token: admin, Body: map[string]any{"readOnly": true}, Status: 400, Contains: names("label")},
		{Name: "label empty", Method: "POST", Path: "/v1/user/tokens", Token: admin, Body: map[string]any{"label": ""}, Status: 400, Contains: names("label")},
		{Name: "label too long", Method: "POST", Path: "/v1/user/tokens", Token: admin, Body: map[string]any{"label": strings.Repeat("l", 101)}, Status: 400, Contains: names("label")},
		{Name: "label of the wrong type", Method: "POST", Path: "/v1/user/tokens", Token: admin, Body: map[string]any{"label": 3}, Status: 400, Contains: names("label")},
		{Name: "readOnly of the wrong type", Method: "POST", Path: "/v1/user/tokens", Token: admin, Body: map[string]any{"label": "x", "readOnly": "yes"}, Status: 400, Contains: names("readOnly")},
		{Name: "expiresAt not a date", Method: "POST", Path: "/v1/user/tokens", Token: admin, Body: map[string]any{"label": "x", "expiresAt": "tomorrow"}, Status: 400, Contains: names("expiresAt")},
		{Name: "expiresAt in the past", Method: "POST", Path: "/v1/user/tokens", Token: admin, Body: map[string]any{"label": "x", "expiresAt": "2001-01-01T00:00:00Z"}, Status: 400, Contains: names("expiresAt")},
		{Name: "malformed JSON", Method: "POST", Path: "/v1/user/tokens", Token: admin, Body: `{"label":`, Status: 400},
		{Name: "no token", Method: "POST", Path: "/v1/user/tokens", Body: map[string]any{"label": "x"}, Status: 401},
	})

	// The list: newest first, never a secret, only the caller's.
	list := env.Must(200, "GET", "/v1/user/tokens", admin, nil)
	got := items(t, list)
	if len(got) != 3 || body(t, list)["count"] != 3.0 || got[1]["id"] != created["id"] || got[2]["label"] != "API token" {
		t.Fatalf("list %s", list.Body)
	}
	for _, it := range got {
		apitest.Keys(t, it, tokenKeys...)
	}
	if strings.Contains(string(list.Body), created["token"].(string)) || strings.Contains(string(list.Body), `"token"`) {
		t.Fatalf("the list shows a secret: %s", list.Body)
	}
	page := env.Must(200, "GET", "/v1/user/tokens?limit=2", admin, nil)
	next := body(t, page)["next"].(map[string]any)["page"].(string)
	if rest := items(t, env.Must(200, "GET", "/v1/user/tokens?limit=2&page="+next, admin, nil)); len(rest) != 1 || rest[0]["label"] != "API token" {
		t.Fatalf("second page %v", rest)
	}
	env.Must(400, "GET", "/v1/user/tokens?limit=1001", admin, nil)
	if n := len(items(t, env.Must(200, "GET", "/v1/user/tokens", other.Token, nil))); n != 1 {
		t.Fatalf("the other user sees %d tokens", n)
	}

	// Another user's token, an unknown one: 204, and the token still works.
	env.Must(204, "DELETE", "/v1/user/tokens/"+created["id"].(string), other.Token, nil)
	env.Must(204, "DELETE", "/v1/user/tokens/unknown", admin, nil)
	secret := created["token"].(string)
	env.Must(200, "GET", "/v1/user", secret, nil)
	// The read-only token may not revoke itself (a write); its user may.
	env.Must(403, "DELETE", "/v1/user/tokens/"+created["id"].(string), secret, nil)
	env.Must(205, "DELETE", "/v1/user/tokens/"+created["id"].(string), admin, nil)
	r := env.Must(401, "GET", "/v1/user", secret, nil)
	if h := r.Header.Get("WWW-Authenticate"); !strings.HasPrefix(h, `Bearer error="invalid_token"`) {
		t.Errorf("WWW-Authenticate %q", h)
	}
	env.Must(204, "DELETE", "/v1/user/tokens/"+created["id"].(string), admin, nil)
}

// A read-only token reads what its user may and every write, REST or
// GraphQL, is a 403 before any route or resolver runs.
func TestReadOnlyToken(t *testing.T) {
	env := apitest.New(t)
	ro := body(t, env.Must(201, "POST", "/v1/user/tokens", env.Admin.Token, map[string]any{"label": "ro", "readOnly": true}))["token"].(string)
	org := "/v1/orgs/" + env.Org
	space := body(t, env.Must(201, "POST", org+"/spaces", env.Admin.Token, map[string]any{"title": "Docs"}))["id"].(string)

	env.Must(200, "GET", "/v1/user", ro, nil)
	env.Must(200, "GET", org, ro, nil)
	env.Must(200, "GET", org+"/members", ro, nil)
	env.Must(200, "GET", "/v1/spaces/"+space, ro, nil)
	env.Must(200, "GET", "/v1/user/tokens", ro, nil)
	env.Run(t, []apitest.Scenario{
		{Name: "create a space", Method: "POST", Path: org + "/spaces", Token: ro, Body: map[string]any{"title": "X"}, Status: 403, Contains: []string{"read-only"}},
		{Name: "rename the organization", Method: "PATCH", Path: org, Token: ro, Body: map[string]any{"title": "X"}, Status: 403},
		{Name: "create a team", Method: "PUT", Path: org + "/teams", Token: ro, Body: map[string]any{"title": "X"}, Status: 403},
		{Name: "delete the space", Method: "DELETE", Path: "/v1/spaces/" + space, Token: ro, Status: 403},
		{Name: "create a token", Method: "POST", Path: "/v1/user/tokens", Token: ro, Body: map[string]any{"label": "x"}, Status: 403},
		{Name: "unknown route still 403 for a write", Method: "POST", Path: "/v1/nothing-here", Token: ro, Body: map[string]any{}, Status: 403},
	})
	env.Must(200, "GET", "/v1/spaces/"+space, env.Admin.Token, nil) // still there

	data, errs := env.GraphQL(ro, `{ viewer { id } organizations { count } apiTokens { count } }`, nil)
	if len(errs) > 0 || data["viewer"] == nil {
		t.Fatalf("read-only query: %v %v", data, errs)
	}
	gqlRefusal(t, env, ro, `mutation { createAPIToken(input: {label: "x"}) { id } }`, nil, "FORBIDDEN", 403)
	gqlRefusal(t, env, ro, `mutation { revokeCurrentToken }`, nil, "FORBIDDEN", 403)
	env.Must(200, "GET", "/v1/user", ro, nil) // not revoked
}

// GraphQL gives the same data and the same refusals as REST.
func TestAPITokensGraphQL(t *testing.T) {
	env := apitest.New(t)
	data, errs := env.GraphQL(env.Admin.Token, `mutation { createAPIToken(input: {label: "gql", readOnly: false}) { object id label readOnly token expiresAt lastUsedAt createdAt } }`, nil)
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	tok := data["createAPIToken"].(map[string]any)
	if tok["object"] != "api-token" || tok["label"] != "gql" || !strings.HasPrefix(tok["token"].(string), "dapi_") {
		t.Fatalf("created %v", tok)
	}
	rest := items(t, env.Must(200, "GET", "/v1/user/tokens", env.Admin.Token, nil))
	data, _ = env.GraphQL(env.Admin.Token, `{ apiTokens { count items { id label token } } }`, nil)
	list := data["apiTokens"].(map[string]any)
	first := list["items"].([]any)[0].(map[string]any)
	if list["count"] != 2.0 || first["id"] != rest[0]["id"] || first["token"] != nil {
		t.Fatalf("graphql list %v, rest %v", list, rest)
	}
	if e := gqlRefusal(t, env, env.Admin.Token, `mutation { createAPIToken(input: {label: ""}) { id } }`, nil, "BAD_REQUEST", 400); e.Extensions["field"] != "label" {
		t.Errorf("field %v", e.Extensions)
	}
	data, _ = env.GraphQL(env.Admin.Token, `mutation($id: ID!) { deleteAPIToken(id: $id) { deleted } }`, map[string]any{"id": tok["id"]})
	if data["deleteAPIToken"].(map[string]any)["deleted"] != true {
		t.Fatalf("delete %v", data)
	}
	env.Must(401, "GET", "/v1/user", tok["token"].(string), nil)
}

// An expired token answers 401 saying so; a revoke through another handle
// on the same database file (another process) is seen at the next request.
func TestTokenExpiryAndRevokeByAnotherProcess(t *testing.T) {
	env := apitest.New(t)
	in := env.Clock.Now().Add(time.Hour).Format(time.RFC3339)
	tok := body(t, env.Must(201, "POST", "/v1/user/tokens", env.Admin.Token, map[string]any{"label": "short", "expiresAt": in}))
	secret := tok["token"].(string)
	env.Must(200, "GET", "/v1/user", secret, nil)
	env.Clock.Advance(2 * time.Hour)
	r := env.Must(401, "GET", "/v1/user", secret, nil)
	if !strings.Contains(string(r.Body), "expired") || !strings.Contains(r.Header.Get("WWW-Authenticate"), "expired") {
		t.Fatalf("expired: %s %v", r.Body, r.Header)
	}
	if r := env.Do("POST", "/graphql", secret, map[string]any{"query": "{ viewer { id } }"}); r.Status != 401 || !strings.Contains(string(r.Body), "expired") {
		t.Fatalf("graphql expired: %d %s", r.Status, r.Body)
	}

	second := env.NewUser("second@acme.test", env.Org, "read")
	env.Must(200, "GET", "/v1/user", second.Token, nil) // cached now
	other, err := storage.Open(env.DBPath, storage.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	list, err := other.ListUserTokens(context.Background(), second.ID, storage.PageQuery{Limit: 10})
	if err != nil || len(list.Items) != 1 {
		t.Fatal(list, err)
	}
	if ok, err := other.DeleteUserToken(context.Background(), second.ID, list.Items[0].ID); !ok || err != nil {
		t.Fatal(ok, err)
	}
	r = env.Must(401, "GET", "/v1/user", second.Token, nil)
	if r.Header.Get("WWW-Authenticate") == "" {
		t.Error("no WWW-Authenticate")
	}
	// A user removed by another process takes their tokens along.
	third := env.NewUser("third@acme.test", env.Org, "read")
	env.Must(200, "GET", "/v1/user", third.Token, nil)
	if _, err := other.RemoveMember(context.Background(), env.Org, third.ID); err != nil {
		t.Fatal(err)
	}
	env.Must(200, "GET", "/v1/user", third.Token, nil) // still a user: the token lives
}

// lastUsedAt is written off the request path, at most once a minute.
func TestTokenLastUsed(t *testing.T) {
	env := apitest.New(t)
	tok := body(t, env.Must(201, "POST", "/v1/user/tokens", env.Admin.Token, map[string]any{"label": "used"}))
	secret := tok["token"].(string)
	lastUsed := func() any {
		for _, it := range items(t, env.Must(200, "GET", "/v1/user/tokens", env.Admin.Token, nil)) {
			if it["id"] == tok["id"] {
				return it["lastUsedAt"]
			}
		}
		t.Fatal("token not listed")
		return nil
	}
	flush := func() {
		if err := env.Server.Resolver.Auth.FlushUsage(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	env.Must(200, "GET", "/v1/user", secret, nil)
	if lastUsed() != nil {
		t.Fatal("written on the request path")
	}
	flush()
	first, _ := lastUsed().(string)
	if first == "" {
		t.Fatal("lastUsedAt not written")
	}
	env.Clock.Advance(30 * time.Second)
	env.Must(200, "GET", "/v1/user", secret, nil)
	flush()
	if lastUsed() != first {
		t.Fatal("written twice within a minute")
	}
	env.Clock.Advance(31 * time.Second)
	env.Must(200, "GET", "/v1/user", secret, nil)
	flush()
	if second, _ := lastUsed().(string); second <= first {
		t.Fatalf("not updated after a minute: %s then %s", first, second)
	}
}

// FuzzCreateAPITokenBody: any body to POST /v1/user/tokens is a 201 or a
// 400 with the error shape, never a 500.
func FuzzCreateAPITokenBody(f *testing.F) {
	env := apitest.New(f)
	for _, seed := range []string{`{"label":"ci"}`, `{"label":"x","expiresAt":"2999-01-01","readOnly":true}`, `{"label":""}`,
		`{"label":"x","expiresAt":"2999-13-45T99:00:00Z"}`, `{"label":null}`, `[]`, `{"label":"x","readOnly":1}`, `{`} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		req, _ := http.NewRequest("POST", env.HTTP.URL+"/v1/user/tokens", bytes.NewReader(raw))
		req.Header.Set("Authorization", "Bearer "+env.Admin.Token)
		req.Header.Set("Content-Type", "application/json")
		res, err := env.HTTP.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(res.Body)
		res.Body.Close()
		switch res.StatusCode {
		case http.StatusCreated:
		case http.StatusBadRequest:
			apitest.ErrorShape(t, apitest.Response{Status: res.StatusCode, Body: b})
		default:
			t.Fatalf("%q: %d %s", raw, res.StatusCode, b)
		}
	})
}
