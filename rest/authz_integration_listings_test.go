package rest_test

// Authorization rules of integration_listings.go, on the integrations
// family's fixture (a private integration of the fixture organization,
// installed there, on one space and one site). Members read the lists
// (guests too where they see the space; sites need READ, as every site
// read); queueing a task needs the admin role in the owning organization
// (or the integration's own installation token, tested in
// TestQueueIntegrationTask).

func init() {
	org := func(f *fixture) string { return "/v1/orgs/" + f.Org }
	space := func(suffix string) func(f *fixture) string {
		return func(f *fixture) string { return "/v1/spaces/" + f.IDs["installedSpace"] + suffix }
	}
	site := func(suffix string) func(f *fixture) string {
		return func(f *fixture) string { return org(f) + "/sites/" + f.IDs["installedSite"] + suffix }
	}
	rules := map[string]authzRule{
		"GET /v1/orgs/{organizationId}/integrations": {Min: "member", Path: func(f *fixture) string { return org(f) + "/integrations" }},
		"GET /v1/orgs/{organizationId}/integrations/{integrationName}/installation_status": {Min: "member",
			Path: func(f *fixture) string { return org(f) + "/integrations/fixture-int/installation_status" }},
		"GET /v1/orgs/{organizationId}/integrations/installations-status":  {Min: "member", Path: func(f *fixture) string { return org(f) + "/integrations/installations-status" }},
		"GET /v1/spaces/{spaceId}/integrations":                            {Min: "member", Path: space("/integrations")},
		"GET /v1/spaces/{spaceId}/integration-blocks":                      {Min: "member", Path: space("/integration-blocks")},
		"GET /v1/spaces/{spaceId}/integration-scripts":                     {Min: "member", Path: space("/integration-scripts")},
		"GET /v1/orgs/{organizationId}/sites/{siteId}/integrations":        {Min: "read", Path: site("/integrations")},
		"GET /v1/orgs/{organizationId}/sites/{siteId}/integration-scripts": {Min: "read", Path: site("/integration-scripts")},
		"POST /v1/integrations/{integrationName}/tasks": {Min: "admin", Path: func(f *fixture) string { return "/v1/integrations/fixture-int/tasks" },
			Body: map[string]any{"task": map[string]any{"kind": "sync"}}},
	}
	for k, v := range rules {
		authzRules[k] = v
	}
}
