package rest_test

import (
	"strings"
	"testing"

	"docsapi/apitest"
)

// petstore is a spec with parameters, a request body, several responses and
// a component schema.
const petstore = `{"openapi":"3.0.3","info":{"title":"Petstore","version":"1.2.0","description":"Pets for everyone."},
"servers":[{"url":"https://api.example.com/v1"}],
"paths":{
 "/pets":{
  "get":{"summary":"List pets","operationId":"listPets","parameters":[{"name":"limit","in":"query","description":"How many | at most","schema":{"type":"integer","format":"int32"}}],
   "responses":{"200":{"description":"A page of pets","content":{"application/json":{"schema":{"type":"array","items":{"$ref":"#/components/schemas/Pet"}}}}},"default":{"description":"An error"}}},
  "post":{"summary":"Create a pet","requestBody":{"required":true,"content":{"application/json":{"schema":{"$ref":"#/components/schemas/Pet"}}}},
   "responses":{"201":{"description":"Created"}}}},
 "/pets/{petId}":{"delete":{"summary":"Delete a pet","deprecated":true,"parameters":[{"name":"petId","in":"path","required":true,"schema":{"type":"string"}}],
   "responses":{"204":{"description":"Deleted"}}}}},
"components":{"schemas":{"Pet":{"type":"object","description":"A pet.","required":["name"],"properties":{"name":{"type":"string","description":"Its name"},"tag":{"type":"string"}}}}}}`

const petstoreMarkdown = "Petstore, version 1.2.0 (OpenAPI 3.0.3).\n\nPets for everyone.\n\nServers:\n\n- `https://api.example.com/v1`\n\n" +
	"## GET /pets\n\n**List pets**\n\nOperation ID: `listPets`\n\n### Parameters\n\n| Name | In | Type | Required | Description |\n|---|---|---|---|---|\n" +
	"| `limit` | query | integer (int32) | no | How many \\| at most |\n\n### Responses\n\n| Status | Description | Content |\n|---|---|---|\n" +
	"| 200 | A page of pets | `application/json`: array of Pet |\n| default | An error |  |\n\n" +
	"## POST /pets\n\n**Create a pet**\n\n### Request body\n\nRequired: yes.\n\n| Content type | Schema |\n|---|---|\n| `application/json` | Pet |\n\n" +
	"### Responses\n\n| Status | Description | Content |\n|---|---|---|\n| 201 | Created |  |\n\n" +
	"## DELETE /pets/{petId}\n\nDeprecated.\n\n**Delete a pet**\n\n### Parameters\n\n| Name | In | Type | Required | Description |\n|---|---|---|---|---|\n" +
	"| `petId` | path | string | yes |  |\n\n### Responses\n\n| Status | Description | Content |\n|---|---|---|\n| 204 | Deleted |  |\n"

func computedSource(slug string, models bool) map[string]any {
	return map[string]any{"type": "builtin:openapi", "dependencies": map[string]any{"spec": map[string]any{"ref": map[string]any{"kind": "openapi", "spec": slug}}},
		"props": map[string]any{"models": models}}
}

func TestComputedOpenAPIPage(t *testing.T) {
	env := apitest.New(t)
	createSpec(t, env, "petstore", map[string]any{"text": petstore})
	processAll(t, env)
	space := newSpace(t, env, env.Org)
	reader := env.NewUser("reader@acme.test", env.Org, "read")
	_, foreign := env.NewOrg("Other", "admin@other.test")
	page := addPage(t, env, space, map[string]any{"title": "API reference", "type": "COMPUTED", "computed": computedSource("petstore", false)})
	missing := addPage(t, env, space, map[string]any{"title": "Missing", "type": "COMPUTED", "computed": computedSource("nope", false)})
	createSpec(t, env, "unprocessed", map[string]any{"text": petstore})
	pending := addPage(t, env, space, map[string]any{"title": "Pending", "type": "COMPUTED", "computed": computedSource("unprocessed", false)})
	pagePath := "/v1/spaces/" + space + "/content/page/"

	env.Run(t, []apitest.Scenario{
		{Name: "rendered", Method: "GET", Path: pagePath + page, Token: reader.Token, Status: 200, Check: func(r apitest.Response) {
			p := r.JSON()
			if p["type"] != "computed" || p["kind"] != nil || p["path"] != "api-reference" {
				t.Errorf("page %v", p)
			}
			sameJSON(t, "computed source", p["computed"], computedSource("petstore", false))
			if p["markdown"] != petstoreMarkdown {
				t.Errorf("markdown:\n%s\nwant:\n%s", p["markdown"], petstoreMarkdown)
			}
		}},
		{Name: "computed=false skips computing", Method: "GET", Path: pagePath + page + "?computed=false", Token: reader.Token, Status: 200, Check: func(r apitest.Response) {
			if p := r.JSON(); p["markdown"] != nil || p["computed"] == nil {
				t.Errorf("page %v", p)
			}
		}},
		{Name: "as a document", Method: "GET", Path: pagePath + page + "?format=document", Token: reader.Token, Status: 200, Check: func(r apitest.Response) {
			if !strings.Contains(string(r.Body), `"heading-2"`) || !strings.Contains(string(r.Body), `"text":" /pets"`) {
				t.Errorf("document %s", r.Body)
			}
		}},
		{Name: "missing spec renders a notice", Method: "GET", Path: pagePath + missing, Token: reader.Token, Status: 200,
			Contains: []string{"[!WARNING]", "`nope` does not exist in this organization"}},
		{Name: "spec without a version renders a notice", Method: "GET", Path: pagePath + pending, Token: reader.Token, Status: 200,
			Contains: []string{"`unprocessed` has no processed version yet (processing state: pending)"}},
		{Name: "in the tree", Method: "GET", Path: "/v1/spaces/" + space + "/content", Token: reader.Token, Status: 200,
			Contains: []string{`"type":"computed"`, `"computed":{"dependencies":{"spec":{"ref":{"kind":"openapi","spec":"petstore"}}},"props":{"models":false},"type":"builtin:openapi"}`}},
		{Name: "another organization", Method: "GET", Path: pagePath + page, Token: foreign.Token, Status: 404},
	})

	// With models, the component schemas follow the operations.
	gqlData(t, env, env.Admin.Token, `mutation($t: ContentTarget!, $p: ID!, $c: JSONObject!) { updatePage(target: $t, pageId: $p, input: {computed: $c}) { revision } }`,
		map[string]any{"t": map[string]any{"space": space}, "p": page, "c": computedSource("petstore", true)})
	md := env.Must(200, "GET", pagePath+page, reader.Token, nil).JSON()["markdown"].(string)
	if !strings.HasSuffix(md, "## Models\n\n### Pet\n\nA pet.\n\n| Property | Type | Required | Description |\n|---|---|---|---|\n| `name` | string | yes | Its name |\n| `tag` | string | no |  |\n") {
		t.Errorf("models:\n%s", md)
	}
	// GraphQL reads the same page.
	data := gqlData(t, env, reader.Token, `query($s: ID!, $p: ID!) { spacePage(spaceId: $s, pageId: $p) { type markdown computed } }`, map[string]any{"s": space, "p": page})
	if p := data["spacePage"].(map[string]any); p["type"] != "COMPUTED" || p["markdown"] != md {
		t.Errorf("GraphQL page %v", p)
	}

	// Bad computed sources are refused, naming the field.
	create := `mutation($t: ContentTarget!, $in: CreatePageInput!) { createPage(target: $t, input: $in) { revision } }`
	target := map[string]any{"space": space}
	for name, c := range map[string]struct {
		in    map[string]any
		field string
	}{
		"no source":         {map[string]any{"title": "x", "type": "COMPUTED"}, "computed"},
		"other type":        {map[string]any{"title": "x", "type": "COMPUTED", "computed": map[string]any{"type": "builtin:translation"}}, "computed.type"},
		"no ref":            {map[string]any{"title": "x", "type": "COMPUTED", "computed": map[string]any{"type": "builtin:openapi"}}, "computed.dependencies.spec.ref"},
		"bad slug":          {map[string]any{"title": "x", "type": "COMPUTED", "computed": computedSource("Bad Slug", false)}, "computed.dependencies.spec.ref.spec"},
		"source on a doc":   {map[string]any{"title": "x", "computed": computedSource("petstore", false)}, "computed"},
		"props not boolean": {map[string]any{"title": "x", "type": "COMPUTED", "computed": map[string]any{"type": "builtin:openapi", "dependencies": computedSource("a", false)["dependencies"], "props": map[string]any{"models": "yes"}}}, "computed.props.models"},
	} {
		e := gqlRefusal(t, env, env.Admin.Token, create, map[string]any{"t": target, "in": c.in}, "BAD_REQUEST", 400)
		if e.Extensions["field"] != c.field {
			t.Errorf("%s: field %v, want %s", name, e.Extensions["field"], c.field)
		}
	}
	doc := addPage(t, env, space, map[string]any{"title": "Doc", "markdown": "hi"})
	e := gqlRefusal(t, env, env.Admin.Token, `mutation($t: ContentTarget!, $p: ID!, $c: JSONObject!) { updatePage(target: $t, pageId: $p, input: {computed: $c}) { revision } }`,
		map[string]any{"t": target, "p": doc, "c": computedSource("petstore", false)}, "BAD_REQUEST", 400)
	if e.Extensions["field"] != "computed" {
		t.Errorf("update a document page's source: %+v", e)
	}
}
