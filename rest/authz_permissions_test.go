package rest_test

// Authorization rules of the permissions routes: listing who has access
// needs to see the item ("member": a guest without a grant gets 404 like
// the other organization), granting and removing needs admin on it; a
// site's aggregate needs READ in the organization, like reading the site.

func init() {
	for _, t := range []struct{ pattern, id string }{
		{"/v1/spaces/{spaceId}", "space"},
		{"/v1/collections/{collectionId}", "collection"},
	} {
		base := func(f *fixture) string { return "/v1/" + t.id + "s/" + f.IDs[t.id] + "/permissions" }
		at := func(suffix func(f *fixture) string) func(f *fixture) string {
			return func(f *fixture) string { return base(f) + suffix(f) }
		}
		user := func(f *fixture) string { return "/users/" + f.ByRole["read"].ID }
		team := func(f *fixture) string { return "/teams/" + f.IDs["team"] }
		fixed := func(s string) func(f *fixture) string { return func(*fixture) string { return s } }
		rules := map[string]authzRule{
			"POST " + t.pattern + "/permissions": {Min: "admin", Path: base,
				BodyFor: func(f *fixture) any { return map[string]any{"role": "read", "users": []string{f.ByRole["read"].ID}} }},
			"GET " + t.pattern + "/permissions/users":             {Min: "member", Path: at(fixed("/users"))},
			"GET " + t.pattern + "/permissions/teams":             {Min: "member", Path: at(fixed("/teams"))},
			"GET " + t.pattern + "/permissions/aggregate":         {Min: "member", Path: at(fixed("/aggregate"))},
			"PATCH " + t.pattern + "/permissions/users/{userId}":  {Min: "admin", Path: at(user), Body: map[string]any{"role": "edit"}},
			"DELETE " + t.pattern + "/permissions/users/{userId}": {Min: "admin", Path: at(user)},
			"PATCH " + t.pattern + "/permissions/teams/{teamId}":  {Min: "admin", Path: at(team), Body: map[string]any{"role": "edit"}},
			"DELETE " + t.pattern + "/permissions/teams/{teamId}": {Min: "admin", Path: at(team)},
		}
		for k, v := range rules {
			authzRules[k] = v
		}
	}
	authzRules["GET /v1/orgs/{organizationId}/sites/{siteId}/permissions/aggregate"] = authzRule{Min: "read",
		Path: func(f *fixture) string {
			return f.IDs["site"] + "/permissions/aggregate" // the site fixture is its path
		}}
}
