package rest_test

// Authorization rules and fixtures of the translations glossary: READ
// reads it, CREATE changes it (like translations).

func init() {
	fixtureSetups = append(fixtureSetups, func(f *fixture) {
		f.Env.Must(204, "PUT", "/v1/orgs/"+f.Org+"/translations-glossary", f.ByRole["admin"].Token,
			map[string]any{"operations": []any{map[string]any{"type": "insert", "translations": map[string]any{"en": "Docs", "fr": "Documents"}}}})
		r := f.Env.Must(200, "GET", "/v1/orgs/"+f.Org+"/translations-glossary", f.ByRole["admin"].Token, nil)
		f.IDs["glossaryEntry"] = r.JSON()["items"].([]any)[0].(map[string]any)["id"].(string)
	})
	list := func(f *fixture) string { return "/v1/orgs/" + f.Org + "/translations-glossary" }
	one := func(f *fixture) string { return list(f) + "/" + f.IDs["glossaryEntry"] }
	rules := map[string]authzRule{
		"GET /v1/orgs/{organizationId}/translations-glossary":                   {Min: "read", Path: list},
		"PUT /v1/orgs/{organizationId}/translations-glossary":                   {Min: "create", Path: list, Body: map[string]any{"operations": []any{}}},
		"GET /v1/orgs/{organizationId}/translations-glossary/{glossaryEntryId}": {Min: "read", Path: one},
	}
	for k, v := range rules {
		authzRules[k] = v
	}
}
