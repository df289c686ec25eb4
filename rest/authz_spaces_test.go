package rest_test

// Authorization rules and fixtures of collections and spaces. Content roles
// follow the organization role here (every fixture item inherits), so a
// role just below the rule's minimum can see the item and gets 403. Reads
// are "member" rules: a guest cannot see private content and gets 404, like
// the other organization's admin. Transfers refuse on the source side
// before looking at the target organization, so any id serves as body.

func init() {
	fixtureSetups = append(fixtureSetups, func(f *fixture) {
		admin := f.ByRole["admin"].Token
		r := f.Env.Must(201, "POST", "/v1/orgs/"+f.Org+"/collections", admin, map[string]any{"title": "Guides"})
		f.IDs["collection"] = r.JSON()["id"].(string)
		r = f.Env.Must(201, "POST", "/v1/orgs/"+f.Org+"/spaces", admin, map[string]any{"title": "Handbook", "parent": f.IDs["collection"]})
		f.IDs["space"] = r.JSON()["id"].(string)
		r = f.Env.Must(201, "POST", "/v1/orgs/"+f.Org+"/spaces", admin, map[string]any{"title": "Old notes"})
		f.IDs["trashedSpace"] = r.JSON()["id"].(string)
		f.Env.Must(205, "DELETE", "/v1/spaces/"+f.IDs["trashedSpace"], admin, nil)
	})
	org := func(f *fixture) string { return "/v1/orgs/" + f.Org }
	col := func(f *fixture) string { return "/v1/collections/" + f.IDs["collection"] }
	space := func(f *fixture) string { return "/v1/spaces/" + f.IDs["space"] }
	rules := map[string]authzRule{
		"GET /v1/orgs/{organizationId}/collections":  {Min: "member", Path: func(f *fixture) string { return org(f) + "/collections" }},
		"POST /v1/orgs/{organizationId}/collections": {Min: "create", Path: func(f *fixture) string { return org(f) + "/collections" }, Body: map[string]any{"title": "Reference"}},
		"GET /v1/collections/{collectionId}":         {Min: "member", Path: col},
		"PATCH /v1/collections/{collectionId}":       {Min: "admin", Path: col, Body: map[string]any{"title": "Manuals"}},
		"DELETE /v1/collections/{collectionId}":      {Min: "admin", Path: col},
		"GET /v1/collections/{collectionId}/spaces":  {Min: "member", Path: func(f *fixture) string { return col(f) + "/spaces" }},
		"POST /v1/collections/{collectionId}/move":   {Min: "admin", Path: func(f *fixture) string { return col(f) + "/move" }, Body: map[string]any{"parent": nil}},
		"POST /v1/collections/{collectionId}/transfer": {Min: "admin", Path: func(f *fixture) string { return col(f) + "/transfer" },
			Body: map[string]any{"organization": "any-org"}},

		"GET /v1/orgs/{organizationId}/spaces":                  {Min: "member", Path: func(f *fixture) string { return org(f) + "/spaces" }},
		"POST /v1/orgs/{organizationId}/spaces":                 {Min: "create", Path: func(f *fixture) string { return org(f) + "/spaces" }, Body: map[string]any{"title": "Runbook"}},
		"GET /v1/orgs/{organizationId}/members/{userId}/spaces": {Min: "read", Path: func(f *fixture) string { return org(f) + "/members/" + f.ByRole["read"].ID + "/spaces" }},
		"GET /v1/spaces/{spaceId}":                              {Min: "member", Path: space},
		"PATCH /v1/spaces/{spaceId}":                            {Min: "admin", Path: space, Body: map[string]any{"title": "Playbook"}},
		"DELETE /v1/spaces/{spaceId}":                           {Min: "admin", Path: space},
		"POST /v1/spaces/{spaceId}/duplicate":                   {Min: "create", Path: func(f *fixture) string { return space(f) + "/duplicate" }},
		"POST /v1/spaces/{spaceId}/restore":                     {Min: "admin", Path: func(f *fixture) string { return "/v1/spaces/" + f.IDs["trashedSpace"] + "/restore" }},
		"POST /v1/spaces/{spaceId}/move":                        {Min: "admin", Path: func(f *fixture) string { return space(f) + "/move" }, Body: map[string]any{"parent": nil}},
		"POST /v1/spaces/{spaceId}/transfer": {Min: "admin", Path: func(f *fixture) string { return space(f) + "/transfer" },
			Body: map[string]any{"organization": "any-org"}},
	}
	for k, v := range rules {
		authzRules[k] = v
	}
}
