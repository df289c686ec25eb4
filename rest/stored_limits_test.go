package rest_test

import (
	"strconv"
	"strings"
	"testing"

	"docsapi/apitest"
	"docsapi/server"
)

// What integrations store is bounded: a script over
// --integration-max-script-bytes, an installation configuration deeper
// than --installation-config-max-depth or with more keys and array items
// than --installation-config-max-keys are a 400 naming the field and the
// flag; a configuration within them is stored.
func TestIntegrationStoredSizeLimits(t *testing.T) {
	env := apitest.New(t, apitest.Options{Config: func(c *server.Config) {
		c.IntegrationMaxScriptBytes, c.ConfigurationMaxDepth, c.ConfigurationMaxKeys = 1000, 3, 5
	}})
	r := env.Do("POST", "/v1/integrations/big", env.Admin.Token, publishBody(env.Org, map[string]any{"script": strings.Repeat("x", 1001)}))
	if r.Status != 400 || !strings.Contains(string(r.Body), "script: must be at most 1000 bytes (--integration-max-script-bytes)") {
		t.Fatalf("script over the cap: %d %s", r.Status, r.Body)
	}
	publish(env, env.Admin, "conf", env.Org, map[string]any{"script": strings.Repeat("x", 1000)})
	path := "/v1/integrations/conf/installations/" + install(env, env.Admin, "conf", env.Org)
	nested := func(levels int) map[string]any {
		v := map[string]any{"leaf": 1}
		for range levels - 1 {
			v = map[string]any{"a": v}
		}
		return v
	}
	wide := map[string]any{}
	for i := range 6 {
		wide["k"+strconv.Itoa(i)] = i
	}
	for _, c := range []struct {
		conf map[string]any
		want string
	}{
		{nested(4), "configuration: must be nested at most 3 levels deep (--installation-config-max-depth)"},
		{wide, "configuration: must hold at most 5 keys and array items (--installation-config-max-keys)"},
		{map[string]any{"list": []any{1, 2, 3, 4, 5}}, "configuration: must hold at most 5 keys and array items"},
	} {
		r := env.Do("PATCH", path, env.Admin.Token, map[string]any{"configuration": c.conf})
		if r.Status != 400 || !strings.Contains(string(r.Body), c.want) {
			t.Errorf("%v: %d %s", c.conf, r.Status, r.Body)
		}
	}
	env.Must(200, "PATCH", path, env.Admin.Token, map[string]any{"configuration": nested(3)})
}

// An organization's webhooks are capped (--webhook-max-endpoints): the one
// over the cap is a 422 naming it, and the cap is the organization's own.
func TestWebhookEndpointCap(t *testing.T) {
	env := apitest.New(t, apitest.Options{Config: func(c *server.Config) { c.WebhookMaxEndpoints = 2 }})
	hook := map[string]any{"url": "https://hooks.example.test/in", "events": []string{"space.created"}, "active": false}
	for range 2 {
		env.Must(201, "POST", "/v1/orgs/"+env.Org+"/webhooks", env.Admin.Token, hook)
	}
	r := env.Do("POST", "/v1/orgs/"+env.Org+"/webhooks", env.Admin.Token, hook)
	if r.Status != 422 || !strings.Contains(string(r.Body), "the organization has 2 webhooks, the most it may have (--webhook-max-endpoints)") {
		t.Fatalf("third webhook: %d %s", r.Status, r.Body)
	}
	other, user := env.NewOrg("Other", "b@other.test")
	env.Must(201, "POST", "/v1/orgs/"+other+"/webhooks", user.Token, hook)
}
