package rest_test

import "context"

// Authorization rules and fixtures of the OpenAPI spec routes: READ reads
// specs and versions, CREATE (the organization's createOpenAPISpec) writes.

// miniSpec is a small valid OpenAPI 3.0 document.
const miniSpec = `{"openapi":"3.0.3","info":{"title":"Mini","version":"1.0.0"},"paths":{"/ping":{"get":{"responses":{"200":{"description":"pong"}}}}}}`

func init() {
	spec := func(f *fixture) string { return "/v1/orgs/" + f.Org + "/openapi/fixture-spec" }
	fixtureSetups = append(fixtureSetups, func(f *fixture) {
		f.Env.Must(201, "POST", "/v1/orgs/"+f.Org+"/openapi", f.ByRole["admin"].Token,
			map[string]any{"slug": "fixture-spec", "source": map[string]any{"text": miniSpec}})
		if _, err := f.Env.Server.OpenAPIProcessor().RunPending(context.Background()); err != nil {
			f.Env.T.Fatal(err)
		}
		r := f.Env.Must(200, "GET", spec(f)+"/versions/latest", f.ByRole["admin"].Token, nil)
		f.IDs["openapiVersion"] = r.JSON()["id"].(string)
	})
	version := func(f *fixture) string { return spec(f) + "/versions/" + f.IDs["openapiVersion"] }
	rules := map[string]authzRule{
		"GET /v1/orgs/{organizationId}/openapi": {Min: "read", Path: func(f *fixture) string { return "/v1/orgs/" + f.Org + "/openapi" }},
		"POST /v1/orgs/{organizationId}/openapi": {Min: "create", Path: func(f *fixture) string { return "/v1/orgs/" + f.Org + "/openapi" },
			Body: map[string]any{"slug": "matrix-spec", "source": map[string]any{"text": miniSpec}}},
		"GET /v1/orgs/{organizationId}/openapi/{specSlug}":                              {Min: "read", Path: spec},
		"PUT /v1/orgs/{organizationId}/openapi/{specSlug}":                              {Min: "create", Path: spec, Body: map[string]any{"source": map[string]any{"text": miniSpec}}},
		"PATCH /v1/orgs/{organizationId}/openapi/{specSlug}":                            {Min: "create", Path: spec, Body: map[string]any{"visibility": "public"}},
		"DELETE /v1/orgs/{organizationId}/openapi/{specSlug}":                           {Min: "create", Path: spec},
		"GET /v1/orgs/{organizationId}/openapi/{specSlug}/versions":                     {Min: "read", Path: func(f *fixture) string { return spec(f) + "/versions" }},
		"GET /v1/orgs/{organizationId}/openapi/{specSlug}/versions/latest":              {Min: "read", Path: func(f *fixture) string { return spec(f) + "/versions/latest" }},
		"GET /v1/orgs/{organizationId}/openapi/{specSlug}/versions/latest/content":      {Min: "read", Path: func(f *fixture) string { return spec(f) + "/versions/latest/content" }},
		"GET /v1/orgs/{organizationId}/openapi/{specSlug}/versions/{versionId}":         {Min: "read", Path: version},
		"GET /v1/orgs/{organizationId}/openapi/{specSlug}/versions/{versionId}/content": {Min: "read", Path: func(f *fixture) string { return version(f) + "/content" }},
		"GET /v1/orgs/{organizationId}/openapi/{specSlug}/versions/{versionId}/raw":     {Min: "read", Path: func(f *fixture) string { return version(f) + "/raw" }},
	}
	for k, v := range rules {
		authzRules[k] = v
	}
}
