package rest_test

// Authorization rules and fixtures of the SSO routes: SAML providers (admins
// only) and the login list (any authenticated caller, member or not).

func init() {
	providers := func(f *fixture) string { return "/v1/orgs/" + f.Org + "/saml" }
	provider := func(f *fixture) string { return providers(f) + "/" + f.IDs["samlProvider"] }
	fixtureSetups = append(fixtureSetups, func(f *fixture) {
		r := f.Env.Must(201, "POST", providers(f), f.ByRole["admin"].Token, map[string]any{"label": "Okta"})
		f.IDs["samlProvider"] = r.JSON()["id"].(string)
	})
	rules := map[string]authzRule{
		"GET /v1/orgs/{organizationId}/saml":                     {Min: "admin", Path: providers},
		"POST /v1/orgs/{organizationId}/saml":                    {Min: "admin", Path: providers, Body: map[string]any{"label": "Azure AD"}},
		"GET /v1/orgs/{organizationId}/saml/{samlProviderId}":    {Min: "admin", Path: provider},
		"PATCH /v1/orgs/{organizationId}/saml/{samlProviderId}":  {Min: "admin", Path: provider, Body: map[string]any{"label": "Okta EU"}},
		"DELETE /v1/orgs/{organizationId}/saml/{samlProviderId}": {Min: "admin", Path: provider},
		// A login page reads it before membership is known: no 403 and no
		// 404 for non-members, only the token is required.
		"GET /v1/orgs/{organizationId}/sso": {Min: "member", NoForeign: true, Path: func(f *fixture) string { return "/v1/orgs/" + f.Org + "/sso" }},
	}
	for k, v := range rules {
		authzRules[k] = v
	}
}
