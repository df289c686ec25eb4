package rest_test

import (
	"net/http"
	"strings"
	"testing"

	"docsapi/apitest"
)

func TestPublishIntegration(t *testing.T) {
	env := apitest.New(t)
	member := env.NewUser("create@acme.test", env.Org, "create")
	otherOrg, foreign := env.NewOrg("Other", "admin@other.test")
	full := publishBody(env.Org, map[string]any{
		"runtime": "v2", "icon": pngB64(4, 4), "summary": "# Chat\nLong text", "previewImages": []string{pngB64(8, 6), webp1x1},
		"visibility": "public", "target": "space", "categories": []string{"content", "other"},
		"blocks": []map[string]any{{"id": "chat", "title": "Chat block", "urlUnfurl": []string{"https://*.chat.example/**"},
			"markdown": map[string]any{"codeblock": "chat", "body": "text"}}},
		"contentSources": []map[string]any{{"id": "src", "title": "Source", "configuration": map[string]any{"componentId": "cfg"}}},
		"externalLinks":  []map[string]any{{"url": "https://chat.example/docs", "label": "Docs"}},
		"configurations": map[string]any{"account": map[string]any{
			"properties": map[string]any{
				"token":  map[string]any{"type": "string", "title": "Token"},
				"limit":  map[string]any{"type": "number", "default": 3},
				"on":     map[string]any{"type": "boolean"},
				"go":     map[string]any{"type": "button", "callback_url": "/cb", "button_text": "Connect"},
				"colour": map[string]any{"type": "string", "enum": []string{"red", "blue"}},
			},
			"required": []string{"token"},
		}},
		"secrets":               map[string]any{"API_KEY": "s3cret"},
		"contentSecurityPolicy": map[string]any{"script-src": "'self'", "img-src": "*"},
	})
	var it map[string]any
	env.Run(t, []apitest.Scenario{
		{Name: "publish", Method: "POST", Path: "/v1/integrations/acme-chat", Token: env.Admin.Token, Body: full, Status: 200,
			Check: func(r apitest.Response) {
				it = r.JSON()
				apitest.Keys(t, it, "object", "name", "version", "title", "description", "summary", "previewImages", "target", "verified",
					"visibility", "scopes", "categories", "blocks", "contentSources", "configurations", "externalLinks", "owner", "urls",
					"permissions", "contentSecurityPolicy")
				apitest.Keys(t, it["urls"].(map[string]any), "location", "icon", "app", "assets", "publicEndpoint")
				apitest.Keys(t, it["permissions"].(map[string]any), "admin", "install")
				if it["object"] != "integration" || it["version"] != 1.0 || it["target"] != "space" || it["owner"].(map[string]any)["id"] != env.Org {
					t.Errorf("integration: %v", it)
				}
				if len(it["previewImages"].([]any)) != 2 || it["permissions"].(map[string]any)["admin"] != true {
					t.Errorf("previews or permissions: %v", it)
				}
				if strings.Contains(string(r.Body), "s3cret") || strings.Contains(string(r.Body), "API_KEY") || strings.Contains(string(r.Body), "export default") {
					t.Errorf("secrets or script leaked: %s", r.Body)
				}
				b := it["blocks"].([]any)[0].(map[string]any)
				apitest.Keys(t, b, "id", "title", "urlUnfurl", "markdown")
				// The stored images are served by URL, without a token.
				for _, u := range append(it["previewImages"].([]any), it["urls"].(map[string]any)["icon"]) {
					res, err := http.Get(u.(string))
					if err != nil || res.StatusCode != 200 || !strings.HasPrefix(res.Header.Get("Content-Type"), "image/") {
						t.Fatalf("image %s: %v %v", u, res, err)
					}
					res.Body.Close()
				}
			}},
		{Name: "publish again increments version", Method: "POST", Path: "/v1/integrations/acme-chat", Token: env.Admin.Token,
			Body: publishBody(env.Org, nil), Status: 200, Contains: []string{`"version":2`, `"previewImages":[]`}},
		{Name: "unknown name", Method: "GET", Path: "/v1/integrations/nope", Token: env.Admin.Token, Status: 404},
		{Name: "bad name", Method: "POST", Path: "/v1/integrations/bad%20name", Token: env.Admin.Token, Body: publishBody(env.Org, nil), Status: 400, Contains: []string{"integrationName"}},
		{Name: "name too long", Method: "POST", Path: "/v1/integrations/" + strings.Repeat("a", 101), Token: env.Admin.Token, Body: publishBody(env.Org, nil), Status: 400, Contains: []string{"integrationName"}},
		{Name: "member below admin", Method: "POST", Path: "/v1/integrations/acme-chat", Token: member.Token, Body: publishBody(env.Org, nil), Status: 403},
		{Name: "other org publishes a public name", Method: "POST", Path: "/v1/integrations/acme-chat", Token: foreign.Token, Body: publishBody(otherOrg, nil), Status: 403},
		{Name: "organization of someone else", Method: "POST", Path: "/v1/integrations/x", Token: foreign.Token, Body: publishBody(env.Org, nil), Status: 404},
		{Name: "unknown organization", Method: "POST", Path: "/v1/integrations/x", Token: env.Admin.Token, Body: publishBody("nope", nil), Status: 404},
		{Name: "no token", Method: "POST", Path: "/v1/integrations/x", Body: publishBody(env.Org, nil), Status: 401},
	})
	// The new publication replaced the images.
	env.Must(404, "GET", strings.TrimPrefix(it["urls"].(map[string]any)["icon"].(string), env.HTTP.URL), "", nil)

	// A private name of another organization is simply taken.
	publish(env, foreign, "secret-one", otherOrg, map[string]any{"visibility": "private"})
	env.Must(409, "POST", "/v1/integrations/secret-one", env.Admin.Token, publishBody(env.Org, nil))

	// The subdomain of the organization works as well as its id.
	env.Must(200, "PATCH", "/v1/orgs/"+env.Org, env.Admin.Token, map[string]any{"hostname": "acme"})
	publish(env, env.Admin, "by-subdomain", "acme", nil)
}

func TestPublishIntegrationValidation(t *testing.T) {
	env := apitest.New(t)
	bad := func(name string, extra map[string]any, field string) apitest.Scenario {
		return apitest.Scenario{Name: name, Method: "POST", Path: "/v1/integrations/v", Token: env.Admin.Token,
			Body: publishBody(env.Org, extra), Status: 400, Contains: []string{field}}
	}
	without := func(field string) apitest.Scenario {
		b := publishBody(env.Org, nil)
		delete(b, field)
		return apitest.Scenario{Name: "without " + field, Method: "POST", Path: "/v1/integrations/v", Token: env.Admin.Token, Body: b, Status: 400, Contains: []string{field}}
	}
	links := []map[string]any{}
	for range 6 {
		links = append(links, map[string]any{"url": "https://x.example", "label": "x"})
	}
	secrets := map[string]any{}
	for i := range 21 {
		secrets[strings.Repeat("k", i+1)] = "v"
	}
	env.Run(t, []apitest.Scenario{
		without("title"), without("description"), without("script"), without("scopes"), without("organization"),
		bad("title too short", map[string]any{"title": "A"}, "title: must be at least 2"),
		bad("title too long", map[string]any{"title": strings.Repeat("t", 31)}, "title: must be at most 30"),
		bad("description too long", map[string]any{"description": strings.Repeat("d", 101)}, "description"),
		bad("summary too long", map[string]any{"summary": strings.Repeat("s", 2049)}, "summary"),
		bad("runtime", map[string]any{"runtime": "v3"}, "runtime"),
		bad("visibility", map[string]any{"visibility": "secret"}, "visibility"),
		bad("target", map[string]any{"target": "page"}, "target"),
		bad("scope", map[string]any{"scopes": []string{"space:everything"}}, "scopes[0]"),
		bad("category", map[string]any{"categories": []string{"games"}}, "categories[0]"),
		bad("icon not base64", map[string]any{"icon": "%%%"}, "icon"),
		bad("icon not an image", map[string]any{"icon": "aGVsbG8gd29ybGQ="}, "icon"),
		bad("truncated image", map[string]any{"icon": pngB64(4, 4)[:60]}, "icon"),
		bad("too many previews", map[string]any{"previewImages": []string{webp1x1, webp1x1, webp1x1, webp1x1}}, "previewImages"),
		bad("bad preview", map[string]any{"previewImages": []string{webp1x1, "aGVsbG8="}}, "previewImages[1]"),
		bad("too many links", map[string]any{"externalLinks": links}, "externalLinks"),
		bad("link url", map[string]any{"externalLinks": []map[string]any{{"url": "ftp://x", "label": "x"}}}, "externalLinks[0].url"),
		bad("block title", map[string]any{"blocks": []map[string]any{{"id": "b", "title": "B"}}}, "blocks[0].title"),
		bad("block unfurl", map[string]any{"blocks": []map[string]any{{"id": "b", "title": "Block", "urlUnfurl": []string{"not a url"}}}}, "blocks[0].urlUnfurl[0]"),
		bad("blocks shape", map[string]any{"blocks": "nope"}, "blocks"),
		bad("content source", map[string]any{"contentSources": []map[string]any{{"id": "s", "title": "Source"}}}, "contentSources[0].configuration.componentId"),
		bad("configuration level", map[string]any{"configurations": map[string]any{"page": map[string]any{"properties": map[string]any{}}}}, "configurations.page"),
		bad("configuration type", map[string]any{"configurations": map[string]any{"account": map[string]any{"properties": map[string]any{"x": map[string]any{"type": "date"}}}}}, "configurations.account.properties.x.type"),
		bad("configuration button", map[string]any{"configurations": map[string]any{"space": map[string]any{"properties": map[string]any{"x": map[string]any{"type": "button"}}}}}, "configurations.space.properties.x"),
		bad("configuration required", map[string]any{"configurations": map[string]any{"site": map[string]any{"properties": map[string]any{}, "required": []string{"y"}}}}, "configurations.site.required[0]"),
		bad("configuration default", map[string]any{"configurations": map[string]any{"account": map[string]any{"properties": map[string]any{"n": map[string]any{"type": "number", "default": "x"}}}}}, "default"),
		bad("too many secrets", map[string]any{"secrets": secrets}, "secrets"),
		bad("secret value", map[string]any{"secrets": map[string]any{"a": 1}}, "secrets"),
		bad("csp type", map[string]any{"contentSecurityPolicy": 3}, "contentSecurityPolicy"),
		bad("csp directive", map[string]any{"contentSecurityPolicy": map[string]any{"Script Src": "x"}}, "contentSecurityPolicy"),
		bad("wrong JSON type", map[string]any{"title": 3}, "title"),
	})
	// The same refusal through GraphQL, naming the same field.
	_, errs := env.GraphQL(env.Admin.Token, `mutation($in: PublishIntegrationInput!) { publishIntegration(integrationName: "v", input: $in) { name } }`,
		map[string]any{"in": publishBody(env.Org, map[string]any{"title": "A", "scopes": []string{"SPACE_CONTENT_READ"}})})
	if len(errs) != 1 || errs[0].Code() != "BAD_REQUEST" || errs[0].Extensions["field"] != "title" {
		t.Fatalf("graphql errors: %+v", errs)
	}
}

func TestListIntegrations(t *testing.T) {
	env := apitest.New(t)
	otherOrg, foreign := env.NewOrg("Other", "admin@other.test")
	guest := env.NewUser("guest@acme.test", env.Org, "guest")
	env.Must(200, "PATCH", "/v1/orgs/"+otherOrg, foreign.Token, map[string]any{"hostname": "other"})
	publish(env, env.Admin, "alpha-blocks", env.Org, map[string]any{"categories": []string{"content"}, "target": "space",
		"blocks": []map[string]any{{"id": "b", "title": "Block", "urlUnfurl": []string{"https://www.youtube.com/watch**"}}}})
	publish(env, env.Admin, "beta-sources", env.Org, map[string]any{"categories": []string{"analytics"}, "scopes": []string{"site:views:read"},
		"contentSources": []map[string]any{{"id": "s", "title": "Source", "configuration": map[string]any{"componentId": "c"}}}})
	publish(env, env.Admin, "gamma-private", env.Org, map[string]any{"visibility": "private"})
	publish(env, env.Admin, "delta-unlisted", env.Org, map[string]any{"visibility": "unlisted", "target": "organization"})
	publish(env, foreign, "other-public", otherOrg, map[string]any{"target": "site"})
	publish(env, foreign, "other-private", otherOrg, map[string]any{"visibility": "private"})

	names := func(u apitest.User, query string) string {
		var l struct {
			Count int              `json:"count"`
			Items []map[string]any `json:"items"`
		}
		env.Must(200, "GET", "/v1/integrations"+query, u.Token, nil).Decode(t, &l)
		var out []string
		for _, it := range l.Items {
			out = append(out, it["name"].(string))
		}
		if l.Count != len(out) && !strings.Contains(query, "limit") {
			t.Errorf("%s: count %d for %d items", query, l.Count, len(out))
		}
		return strings.Join(out, ",")
	}
	for _, tc := range []struct {
		user        apitest.User
		query, want string
	}{
		{env.Admin, "", "alpha-blocks,beta-sources,delta-unlisted,gamma-private,other-public"},
		{guest, "", "alpha-blocks,beta-sources,delta-unlisted,gamma-private,other-public"},
		{foreign, "", "alpha-blocks,beta-sources,other-private,other-public"},
		{env.Admin, "?search=ETA", "beta-sources"},
		{env.Admin, "?category=content", "alpha-blocks"},
		{env.Admin, "?blockDomain=youtube.com", "alpha-blocks"},
		{env.Admin, "?blockDomain=www.youtube.com", "alpha-blocks"},
		{env.Admin, "?blockDomain=vimeo.com", ""},
		{env.Admin, "?blocks=true", "alpha-blocks"},
		{env.Admin, "?blocks=false", "beta-sources,delta-unlisted,gamma-private,other-public"},
		{env.Admin, "?contentSources=true", "beta-sources"},
		{env.Admin, "?contentSources=false&blocks=false", "delta-unlisted,gamma-private,other-public"},
		{env.Admin, "?owner=" + otherOrg, "other-public"},
		{env.Admin, "?owner=other", "other-public"},
		{env.Admin, "?scope=site:views:read", "beta-sources"},
		{env.Admin, "?target=organization", "delta-unlisted"},
		{env.Admin, "?target=site", "other-public"},
		{foreign, "?owner=" + env.Org, "alpha-blocks,beta-sources"},
	} {
		if got := names(tc.user, tc.query); got != tc.want {
			t.Errorf("%s GET /v1/integrations%s = %q, want %q", tc.user.Email, tc.query, got, tc.want)
		}
	}
	// Pagination: keyset by name.
	var p1 struct {
		Next  struct{ Page string } `json:"next"`
		Count int                   `json:"count"`
	}
	env.Must(200, "GET", "/v1/integrations?limit=2", env.Admin.Token, nil).Decode(t, &p1)
	if p1.Count != 5 || p1.Next.Page == "" {
		t.Fatalf("page 1: %+v", p1)
	}
	if got := names(env.Admin, "?limit=2&page="+p1.Next.Page); got != "delta-unlisted,gamma-private" {
		t.Errorf("page 2: %s", got)
	}
	// Unlisted integrations are readable by name; private ones are not.
	env.Must(200, "GET", "/v1/integrations/delta-unlisted", foreign.Token, nil)
	env.Must(404, "GET", "/v1/integrations/gamma-private", foreign.Token, nil)
	env.Must(200, "GET", "/v1/integrations/gamma-private", guest.Token, nil)
	env.Run(t, []apitest.Scenario{
		{Name: "bad category", Method: "GET", Path: "/v1/integrations?category=games", Token: env.Admin.Token, Status: 400, Contains: []string{"category"}},
		{Name: "bad scope", Method: "GET", Path: "/v1/integrations?scope=x", Token: env.Admin.Token, Status: 400, Contains: []string{"scope"}},
		{Name: "bad target", Method: "GET", Path: "/v1/integrations?target=x", Token: env.Admin.Token, Status: 400, Contains: []string{"target"}},
		{Name: "bad blockDomain", Method: "GET", Path: "/v1/integrations?blockDomain=a%20b", Token: env.Admin.Token, Status: 400, Contains: []string{"blockDomain"}},
		{Name: "bad blocks flag", Method: "GET", Path: "/v1/integrations?blocks=maybe", Token: env.Admin.Token, Status: 400, Contains: []string{"blocks"}},
		{Name: "bad limit", Method: "GET", Path: "/v1/integrations?limit=1001", Token: env.Admin.Token, Status: 400, Contains: []string{"limit"}},
		{Name: "no token", Method: "GET", Path: "/v1/integrations", Status: 401},
	})
	// GraphQL gives the same list.
	data, errs := env.GraphQL(env.Admin.Token, `{ integrations(category: CONTENT) { count items { name target scopes owner { id } } } }`, nil)
	if len(errs) > 0 || data["integrations"].(map[string]any)["count"] != 1.0 {
		t.Fatalf("graphql: %v %v", data, errs)
	}
}

func TestUnpublishIntegration(t *testing.T) {
	env := apitest.New(t)
	member := env.NewUser("create@acme.test", env.Org, "create")
	otherOrg, foreign := env.NewOrg("Other", "admin@other.test")
	publish(env, env.Admin, "chat", env.Org, nil)
	install(env, env.Admin, "chat", env.Org)
	inst := install(env, foreign, "chat", otherOrg)
	tok := env.Must(200, "POST", "/v1/integrations/chat/installations/"+inst+"/tokens", env.Admin.Token, nil).JSON()["token"].(string)
	env.Must(200, "GET", "/v1/orgs/"+otherOrg, tok, nil)
	env.Run(t, []apitest.Scenario{
		{Name: "member below admin", Method: "DELETE", Path: "/v1/integrations/chat", Token: member.Token, Status: 403},
		{Name: "admin of another organization", Method: "DELETE", Path: "/v1/integrations/chat", Token: foreign.Token, Status: 403},
		{Name: "installation token", Method: "DELETE", Path: "/v1/integrations/chat", Token: tok, Status: 403},
		{Name: "unpublish", Method: "DELETE", Path: "/v1/integrations/chat", Token: env.Admin.Token, Status: 205},
		{Name: "again", Method: "DELETE", Path: "/v1/integrations/chat", Token: env.Admin.Token, Status: 204},
		{Name: "gone", Method: "GET", Path: "/v1/integrations/chat", Token: env.Admin.Token, Status: 404},
		{Name: "installations gone", Method: "GET", Path: "/v1/orgs/" + otherOrg + "/installations", Token: foreign.Token, Status: 200, Contains: []string{`"count":0`}},
		{Name: "token revoked", Method: "GET", Path: "/v1/orgs/" + otherOrg, Token: tok, Status: 401},
	})
	// No orphans: the name can be published afresh, at version 1.
	if it := publish(env, foreign, "chat", otherOrg, nil); it["version"] != 1.0 {
		t.Fatalf("republished: %v", it)
	}
	for _, table := range []string{"integration_installations", "integration_events", "integration_installation_tokens", "integration_files", "integration_external_ids", "integration_target_installations"} {
		if n := countRows(t, env, table); n != 0 {
			t.Errorf("%s keeps %d rows after unpublishing", table, n)
		}
	}
}
