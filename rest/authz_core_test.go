package rest_test

// Authorization rules and fixtures of the foundation routes: users,
// organizations, members, teams and invites.

func init() {
	org := func(f *fixture) string { return "/v1/orgs/" + f.Org }
	target := func(f *fixture) string { return f.ByRole["read"].ID }
	fixtureSetups = append(fixtureSetups, func(f *fixture) {
		r := f.Env.Must(201, "PUT", org(f)+"/teams", f.ByRole["admin"].Token, map[string]any{"title": "Writers"})
		f.IDs["team"] = r.JSON()["id"].(string)
		r = f.Env.Must(201, "POST", org(f)+"/link-invites", f.ByRole["admin"].Token, map[string]any{"role": "read"})
		f.IDs["invite"] = r.JSON()["id"].(string)
	})
	rules := map[string]authzRule{
		"GET /v1/":               {Path: func(f *fixture) string { return "/v1/" }, Public: true},
		"GET /v1/user":           {Path: func(f *fixture) string { return "/v1/user" }},
		"GET /v1/users/{userId}": {Path: func(f *fixture) string { return "/v1/users/" + target(f) }},
		"GET /v1/orgs":           {Path: func(f *fixture) string { return "/v1/orgs" }},
		"GET /v1/email-domains/{emailDomain}/orgs": {Path: func(f *fixture) string { return "/v1/email-domains/acme.test/orgs" }},
		"GET /v1/orgs/{organizationId}":            {Min: "member", Path: org},
		"PATCH /v1/orgs/{organizationId}":          {Min: "admin", Path: org, Body: map[string]any{"title": "Acme Inc"}},
		"POST /v1/orgs/{organizationId}/invites": {Min: "admin", Path: func(f *fixture) string { return org(f) + "/invites" },
			Body: map[string]any{"emails": []string{"new@acme.test"}}},
		"GET /v1/orgs/{organizationId}/link-invites":  {Min: "admin", Path: func(f *fixture) string { return org(f) + "/link-invites" }},
		"POST /v1/orgs/{organizationId}/link-invites": {Min: "admin", Path: func(f *fixture) string { return org(f) + "/link-invites" }, Body: map[string]any{"role": "read"}},
		"DELETE /v1/orgs/{organizationId}/link-invites/{inviteId}": {Min: "admin",
			Path: func(f *fixture) string { return org(f) + "/link-invites/" + f.IDs["invite"] }},

		"GET /v1/orgs/{organizationId}/members":                {Min: "read", Path: func(f *fixture) string { return org(f) + "/members" }},
		"GET /v1/orgs/{organizationId}/members/{userId}":       {Min: "read", Path: func(f *fixture) string { return org(f) + "/members/" + target(f) }},
		"PATCH /v1/orgs/{organizationId}/members/{userId}":     {Min: "admin", Path: func(f *fixture) string { return org(f) + "/members/" + target(f) }, Body: map[string]any{"role": "comment"}},
		"DELETE /v1/orgs/{organizationId}/members/{userId}":    {Min: "admin", Path: func(f *fixture) string { return org(f) + "/members/" + target(f) }},
		"POST /v1/orgs/{organizationId}/ping":                  {Min: "member", Path: func(f *fixture) string { return org(f) + "/ping" }},
		"POST /v1/orgs/{organizationId}/members/{userId}/sso":  {Min: "admin", Path: func(f *fixture) string { return org(f) + "/members/" + target(f) + "/sso" }},
		"GET /v1/orgs/{organizationId}/members/{userId}/teams": {Min: "read", Path: func(f *fixture) string { return org(f) + "/members/" + target(f) + "/teams" }},

		"GET /v1/orgs/{organizationId}/teams":                  {Min: "read", Path: func(f *fixture) string { return org(f) + "/teams" }},
		"PUT /v1/orgs/{organizationId}/teams":                  {Min: "admin", Path: func(f *fixture) string { return org(f) + "/teams" }, Body: map[string]any{"title": "Readers"}},
		"GET /v1/orgs/{organizationId}/teams/{teamId}":         {Min: "read", Path: func(f *fixture) string { return org(f) + "/teams/" + f.IDs["team"] }},
		"PATCH /v1/orgs/{organizationId}/teams/{teamId}":       {Min: "admin", Path: func(f *fixture) string { return org(f) + "/teams/" + f.IDs["team"] }, Body: map[string]any{"title": "Editors"}},
		"DELETE /v1/orgs/{organizationId}/teams/{teamId}":      {Min: "admin", Path: func(f *fixture) string { return org(f) + "/teams/" + f.IDs["team"] }},
		"GET /v1/orgs/{organizationId}/teams/{teamId}/members": {Min: "read", Path: func(f *fixture) string { return org(f) + "/teams/" + f.IDs["team"] + "/members" }},
		"PUT /v1/orgs/{organizationId}/teams/{teamId}/members": {Min: "admin", Path: func(f *fixture) string { return org(f) + "/teams/" + f.IDs["team"] + "/members" },
			Body: map[string]any{"add": []string{"read@acme.test"}}},
		"PUT /v1/orgs/{organizationId}/teams/{teamId}/members/{userId}": {Min: "admin", Path: func(f *fixture) string { return org(f) + "/teams/" + f.IDs["team"] + "/members/" + target(f) },
			Body: map[string]any{"role": "member"}},
		"DELETE /v1/orgs/{organizationId}/teams/{teamId}/members/{userId}": {Min: "admin", Path: func(f *fixture) string { return org(f) + "/teams/" + f.IDs["team"] + "/members/" + target(f) }},
	}
	for k, v := range rules {
		authzRules[k] = v
	}
}
