package rest_test

// Authorization rules of one invite link (admin), joining through one (any
// signed-in user: only the 401 checks apply), and the caller's own profile
// (any signed-in user; another user's is a 403, see invites_test.go).

func init() {
	invite := func(f *fixture) string { return "/v1/orgs/" + f.Org + "/link-invites/" + f.IDs["invite"] }
	rules := map[string]authzRule{
		"GET /v1/orgs/{organizationId}/link-invites/{inviteId}":   {Min: "admin", Path: invite},
		"PATCH /v1/orgs/{organizationId}/link-invites/{inviteId}": {Min: "admin", Path: invite, Body: map[string]any{"role": "comment"}},
		"POST /v1/orgs/{organizationId}/invites/{inviteId}": {
			Path: func(f *fixture) string { return "/v1/orgs/" + f.Org + "/invites/" + f.IDs["invite"] }},
		"PATCH /v1/users/{userId}": {Path: func(f *fixture) string { return "/v1/users/" + f.ByRole["read"].ID },
			Body: map[string]any{"displayName": "Reader"}},
	}
	for k, v := range rules {
		authzRules[k] = v
	}
}
