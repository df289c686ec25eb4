package rest_test

// Authorization rules and fixtures of the translation routes: READ reads
// translations, CREATE creates, changes, runs and deletes them (creating
// one also needs read access to the source space).

func init() {
	body := func(f *fixture) any {
		return map[string]any{"language": "fr", "source": map[string]any{"space": f.IDs["space"], "language": "en"}}
	}
	fixtureSetups = append(fixtureSetups, func(f *fixture) {
		r := f.Env.Must(201, "POST", "/v1/orgs/"+f.Org+"/translations", f.ByRole["admin"].Token, body(f))
		f.IDs["translation"] = r.JSON()["id"].(string)
	})
	list := func(f *fixture) string { return "/v1/orgs/" + f.Org + "/translations" }
	one := func(f *fixture) string { return list(f) + "/" + f.IDs["translation"] }
	instructions := map[string]any{"instructions": map[string]any{"object": "document", "data": map[string]any{}, "nodes": []any{}}}
	rules := map[string]authzRule{
		"GET /v1/orgs/{organizationId}/translations":                      {Min: "read", Path: list},
		"POST /v1/orgs/{organizationId}/translations":                     {Min: "create", Path: list, BodyFor: body},
		"GET /v1/orgs/{organizationId}/translations/{translationId}":      {Min: "read", Path: one},
		"PUT /v1/orgs/{organizationId}/translations/{translationId}":      {Min: "create", Path: one, Body: instructions},
		"DELETE /v1/orgs/{organizationId}/translations/{translationId}":   {Min: "create", Path: one},
		"POST /v1/orgs/{organizationId}/translations/{translationId}/run": {Min: "create", Path: func(f *fixture) string { return one(f) + "/run" }},
	}
	for k, v := range rules {
		authzRules[k] = v
	}
}
