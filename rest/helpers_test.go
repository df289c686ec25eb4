package rest_test

import (
	"encoding/json"
	"testing"

	"docsapi/apitest"
)

// Shared helpers of the foundation tests (users, organizations, members,
// teams, invites).

// body decodes a JSON object answer.
func body(t testing.TB, r apitest.Response) map[string]any {
	t.Helper()
	var v map[string]any
	if err := json.Unmarshal(r.Body, &v); err != nil {
		t.Fatalf("not a JSON object: %s", r.Body)
	}
	return v
}

// items returns a list answer's items as objects.
func items(t testing.TB, r apitest.Response) []map[string]any {
	t.Helper()
	raw, ok := body(t, r)["items"].([]any)
	if !ok {
		t.Fatalf("no items array: %s", r.Body)
	}
	out := make([]map[string]any, len(raw))
	for i, it := range raw {
		out[i] = it.(map[string]any)
	}
	return out
}

// ids collects key "id" (or the given nested path, dot separated) of items.
func ids(list []map[string]any, path ...string) []string {
	var out []string
	for _, it := range list {
		v := any(it)
		for _, p := range append(path, "id") {
			v = v.(map[string]any)[p]
		}
		out = append(out, v.(string))
	}
	return out
}

// names is the Contains fragment of a 400 whose message names field.
func names(field string) []string { return []string{`"message":"` + field + `: `} }

// gqlRefusal runs a GraphQL operation that must be refused with code and
// status (the REST status of the same request).
func gqlRefusal(t *testing.T, env *apitest.Env, token, query string, vars map[string]any, code string, status int) apitest.GraphQLError {
	t.Helper()
	_, errs := env.GraphQL(token, query, vars)
	if len(errs) == 0 {
		t.Fatalf("graphql %s: no error, want %s", query, code)
	}
	e := errs[0]
	if e.Code() != code || int(e.Extensions["status"].(float64)) != status {
		t.Fatalf("graphql %s: error %+v, want %s/%d", query, e, code, status)
	}
	return e
}

// gqlData runs a GraphQL operation that must succeed and returns its data.
func gqlData(t *testing.T, env *apitest.Env, token, query string, vars map[string]any) map[string]any {
	t.Helper()
	data, errs := env.GraphQL(token, query, vars)
	if len(errs) > 0 {
		t.Fatalf("graphql %s: %+v", query, errs)
	}
	return data
}

// sameJSON compares two values by their JSON encoding.
func sameJSON(t *testing.T, what string, a, b any) {
	t.Helper()
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(b)
	if string(ja) != string(jb) {
		t.Errorf("%s differ:\nREST    %s\nGraphQL %s", what, ja, jb)
	}
}

var orgKeys = []string{"object", "id", "title", "createdAt", "emailDomains", "type", "defaultRole", "sso", "ai",
	"inviteLinks", "plan", "urls", "trial", "internal_isOnNewTrial", "permissions"}

var orgPermissionKeys = []string{"view", "admin", "ownTeam", "createContent", "createOpenAPISpec", "ingestConversations",
	"viewBilling", "listMembers", "listTeams", "listIntegrations"}

var memberKeys = []string{"object", "id", "role", "user", "disabled", "joinedAt", "sso", "spaces", "teams"}

var userKeys = []string{"object", "id", "displayName", "email", "urls"}

var teamKeys = []string{"object", "id", "title", "members", "spaces", "createdAt", "permissions"}
