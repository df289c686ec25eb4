package rest_test

// Authorization rules and fixtures of sites, their structure and share
// links. Reads need READ (a guest gets 403), structure changes CREATE,
// publishing, deleting and share links ADMIN. The fixture site is a
// published share-link site, so its published content answers the other
// organization's admin (who has no key) 404.

func init() {
	fixtureSetups = append(fixtureSetups, func(f *fixture) {
		admin := f.ByRole["admin"].Token
		org := "/v1/orgs/" + f.Org
		// Its own space: the spaces fixture may not exist yet (setups run in file order).
		r := f.Env.Must(201, "POST", org+"/spaces", admin, map[string]any{"title": "Site content"})
		f.IDs["siteContent"] = r.JSON()["id"].(string)
		r = f.Env.Must(201, "POST", org+"/sites", admin, map[string]any{"title": "Docs", "visibility": "share-link", "spaces": []string{f.IDs["siteContent"]}})
		site := org + "/sites/" + r.JSON()["id"].(string)
		f.IDs["site"] = site
		r = f.Env.Must(201, "POST", site+"/sections", admin, map[string]any{"spaceId": f.IDs["siteContent"], "title": "API"})
		f.IDs["section"] = r.JSON()["id"].(string)
		f.IDs["siteSpace"] = r.JSON()["siteSpaces"].([]any)[0].(map[string]any)["id"].(string)
		r = f.Env.Must(201, "POST", site+"/section-groups", admin, map[string]any{"title": "Reference", "sections": []string{f.IDs["section"]}})
		f.IDs["group"] = r.JSON()["id"].(string)
		r = f.Env.Must(201, "POST", site+"/share-links", admin, map[string]any{"name": "Partners"})
		f.IDs["shareLink"] = r.JSON()["id"].(string)
		f.Env.Must(200, "POST", site+"/publish", admin, nil)
	})
	site := func(suffix string) func(f *fixture) string {
		return func(f *fixture) string { return f.IDs["site"] + suffix }
	}
	id := func(prefix, name, suffix string) func(f *fixture) string {
		return func(f *fixture) string { return f.IDs["site"] + prefix + f.IDs[name] + suffix }
	}
	rules := map[string]authzRule{
		"GET /v1/orgs/{organizationId}/sites":                                                    {Min: "read", Path: func(f *fixture) string { return "/v1/orgs/" + f.Org + "/sites" }},
		"POST /v1/orgs/{organizationId}/sites":                                                   {Min: "create", Path: func(f *fixture) string { return "/v1/orgs/" + f.Org + "/sites" }, Body: map[string]any{"title": "Notes"}},
		"GET /v1/orgs/{organizationId}/sites/{siteId}":                                           {Min: "read", Path: site("")},
		"PATCH /v1/orgs/{organizationId}/sites/{siteId}":                                         {Min: "create", Path: site(""), Body: map[string]any{"title": "Manual"}},
		"DELETE /v1/orgs/{organizationId}/sites/{siteId}":                                        {Min: "admin", Path: site("")},
		"POST /v1/orgs/{organizationId}/sites/{siteId}/publish":                                  {Min: "admin", Path: site("/publish")},
		"POST /v1/orgs/{organizationId}/sites/{siteId}/unpublish":                                {Min: "admin", Path: site("/unpublish")},
		"GET /v1/orgs/{organizationId}/sites/{siteId}/adaptive-schema":                           {Min: "read", Path: site("/adaptive-schema")},
		"GET /v1/orgs/{organizationId}/sites/{siteId}/adaptive-schema/template-conditions":       {Min: "read", Path: site("/adaptive-schema/template-conditions")},
		"GET /v1/orgs/{organizationId}/sites/{siteId}/published":                                 {Min: "member", Path: site("/published")},
		"GET /v1/orgs/{organizationId}/sites/{siteId}/structure":                                 {Min: "read", Path: site("/structure")},
		"GET /v1/orgs/{organizationId}/sites/{siteId}/site-spaces":                               {Min: "read", Path: site("/site-spaces")},
		"GET /v1/orgs/{organizationId}/sites/{siteId}/sections":                                  {Min: "read", Path: site("/sections")},
		"GET /v1/orgs/{organizationId}/sites/{siteId}/section-groups":                            {Min: "read", Path: site("/section-groups")},
		"GET /v1/orgs/{organizationId}/sites/{siteId}/share-links":                               {Min: "admin", Path: site("/share-links")},
		"DELETE /v1/orgs/{organizationId}/sites/{siteId}/site-spaces/{siteSpaceId}":              {Min: "create", Path: id("/site-spaces/", "siteSpace", "")},
		"DELETE /v1/orgs/{organizationId}/sites/{siteId}/sections/{siteSectionId}":               {Min: "create", Path: id("/sections/", "section", "")},
		"DELETE /v1/orgs/{organizationId}/sites/{siteId}/section-groups/{siteSectionGroupId}":    {Min: "create", Path: id("/section-groups/", "group", "")},
		"DELETE /v1/orgs/{organizationId}/sites/{siteId}/share-links/{shareLinkId}":              {Min: "admin", Path: id("/share-links/", "shareLink", "")},
		"POST /v1/orgs/{organizationId}/sites/{siteId}/site-spaces/{siteSpaceId}/move":           {Min: "create", Path: id("/site-spaces/", "siteSpace", "/move")},
		"POST /v1/orgs/{organizationId}/sites/{siteId}/sections/{siteSectionId}/move":            {Min: "create", Path: id("/sections/", "section", "/move")},
		"POST /v1/orgs/{organizationId}/sites/{siteId}/section-groups/{siteSectionGroupId}/move": {Min: "create", Path: id("/section-groups/", "group", "/move")},
		"DELETE /v1/orgs/{organizationId}/sites/{siteId}/section-groups/{siteSectionGroupId}/sections/{siteSectionId}": {Min: "create",
			Path: func(f *fixture) string {
				return f.IDs["site"] + "/section-groups/" + f.IDs["group"] + "/sections/" + f.IDs["section"]
			}},
		"PUT /v1/orgs/{organizationId}/sites/{siteId}/adaptive-schema": {Min: "create", Path: site("/adaptive-schema"),
			Body: map[string]any{"jsonSchema": map[string]any{"type": "object", "properties": map[string]any{}, "additionalProperties": false}}},
		"PATCH /v1/orgs/{organizationId}/sites/{siteId}/structure/sort": {Min: "create", Path: site("/structure/sort"),
			Body: map[string]any{"item": map[string]any{"type": "site-section-group", "id": "x"}, "position": map[string]any{}}},
		"POST /v1/orgs/{organizationId}/sites/{siteId}/site-spaces": {Min: "create", Path: site("/site-spaces"),
			Body: map[string]any{"spaceId": "x"}},
		"PATCH /v1/orgs/{organizationId}/sites/{siteId}/site-spaces/{siteSpaceId}": {Min: "create", Path: id("/site-spaces/", "siteSpace", ""),
			Body: map[string]any{"path": "v2"}},
		"POST /v1/orgs/{organizationId}/sites/{siteId}/sections": {Min: "create", Path: site("/sections"),
			Body: map[string]any{"spaceId": "x"}},
		"PATCH /v1/orgs/{organizationId}/sites/{siteId}/sections/{siteSectionId}": {Min: "create", Path: id("/sections/", "section", ""),
			Body: map[string]any{"title": "Guides"}},
		"POST /v1/orgs/{organizationId}/sites/{siteId}/section-groups": {Min: "create", Path: site("/section-groups"),
			Body: map[string]any{"title": "More"}},
		"PATCH /v1/orgs/{organizationId}/sites/{siteId}/section-groups/{siteSectionGroupId}": {Min: "create", Path: id("/section-groups/", "group", ""),
			Body: map[string]any{"title": "More"}},
		"POST /v1/orgs/{organizationId}/sites/{siteId}/section-groups/{siteSectionGroupId}/sections": {Min: "create", Path: id("/section-groups/", "group", "/sections"),
			Body: map[string]any{"sectionId": "x"}},
		"POST /v1/orgs/{organizationId}/sites/{siteId}/share-links": {Min: "admin", Path: site("/share-links"),
			Body: map[string]any{"name": "Press"}},
		"PATCH /v1/orgs/{organizationId}/sites/{siteId}/share-links/{shareLinkId}": {Min: "admin", Path: id("/share-links/", "shareLink", ""),
			Body: map[string]any{"active": false}},
	}
	for k, v := range rules {
		authzRules[k] = v
	}
}
