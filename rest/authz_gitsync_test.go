package rest_test

// Authorization rules of the Git Sync routes: READ reads the state, EDIT
// imports and exports, ADMIN removes the legacy installation.

func init() {
	space := func(suffix string) func(f *fixture) string {
		return func(f *fixture) string { return "/v1/spaces/" + f.IDs["space"] + suffix }
	}
	body := map[string]any{"url": "https://git.example.com/docs.git", "ref": "refs/heads/main", "commitMessage": "docs"}
	rules := map[string]authzRule{
		"POST /v1/spaces/{spaceId}/git/import":                {Min: "edit", Path: space("/git/import"), Body: body},
		"POST /v1/spaces/{spaceId}/git/export":                {Min: "edit", Path: space("/git/export"), Body: body},
		"GET /v1/spaces/{spaceId}/git/info":                   {Min: "member", Path: space("/git/info")},
		"DELETE /v1/spaces/{spaceId}/git/legacy-installation": {Min: "admin", Path: space("/git/legacy-installation")},
	}
	for k, v := range rules {
		authzRules[k] = v
	}
}
