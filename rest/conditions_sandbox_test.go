package rest_test

import (
	"strings"
	"testing"

	"docsapi/apitest"
)

// TestHostileConditionsRefusedAtSave: conditions outside the condition
// language are a 400 naming the field and the place, over REST and GraphQL,
// and nothing is saved.
func TestHostileConditionsRefusedAtSave(t *testing.T) {
	env := apitest.New(t)
	site := env.Must(201, "POST", "/v1/orgs/"+env.Org+"/sites", env.Admin.Token, map[string]any{"spaces": "empty"}).JSON()
	ss := env.Must(200, "GET", "/v1/orgs/"+env.Org+"/sites/"+site["id"].(string)+"/site-spaces", env.Admin.Token, nil).JSON()["items"].([]any)[0].(map[string]any)["id"].(string)
	path := "/v1/orgs/" + env.Org + "/sites/" + site["id"].(string) + "/site-spaces/" + ss // PATCH only
	for src, where := range map[string]string{
		"new Array(5e7).fill(0).length > 0":                       "line 1, column 1",
		"'x'.repeat(4e8).length > 0":                              "line 1, column 5",
		"visitor.constructor.constructor('return 1')() === 1":     "line 1, column 9",
		"visitor.claims.plans.some(p => {\n  while (true) {}\n})": "line 1, column 32",
	} {
		r := env.Do("PATCH", path, env.Admin.Token, map[string]any{"condition": src})
		if r.Status != 400 || !strings.Contains(string(r.Body), "condition: is not allowed at "+where) {
			t.Errorf("%q: %d %s", src, r.Status, r.Body)
		}
		_, errs := env.GraphQL(env.Admin.Token, `mutation($o: ID!, $s: ID!, $i: ID!, $c: String) { updateSiteSpace(organizationId: $o, siteId: $s, siteSpaceId: $i, input: {condition: $c}) { id } }`,
			map[string]any{"o": env.Org, "s": site["id"], "i": ss, "c": src})
		if len(errs) != 1 || errs[0].Code() != "BAD_REQUEST" {
			t.Errorf("%q over GraphQL: %+v", src, errs)
		}
	}
	list := env.Must(200, "GET", "/v1/orgs/"+env.Org+"/sites/"+site["id"].(string)+"/site-spaces", env.Admin.Token, nil).JSON()
	if got := list["items"].([]any)[0].(map[string]any)["condition"]; got != nil {
		t.Fatalf("a refused condition was saved: %v", got)
	}
}
