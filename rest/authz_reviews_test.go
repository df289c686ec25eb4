package rest_test

// Authorization rules of change-request review, on the change-request
// fixture: reads need the space's view permission ("member"), asking for
// and withdrawing reviews needs edit, reviewing needs review.

func init() {
	cr := func(suffix string) func(f *fixture) string {
		return func(f *fixture) string {
			return "/v1/spaces/" + f.IDs["crSpace"] + "/change-requests/" + f.IDs["cr"] + suffix
		}
	}
	const crp = "/v1/spaces/{spaceId}/change-requests/{changeRequestId}"
	rules := map[string]authzRule{
		"GET " + crp + "/requested-reviewers": {Min: "member", Path: cr("/requested-reviewers")},
		"POST " + crp + "/requested-reviewers": {Min: "edit", Path: cr("/requested-reviewers"),
			BodyFor: func(f *fixture) any { return map[string]any{"users": []string{f.ByRole["review"].ID}} }},
		"DELETE " + crp + "/requested-reviewers/{userId}": {Min: "edit",
			Path: func(f *fixture) string { return cr("/requested-reviewers/")(f) + f.ByRole["review"].ID }},
		"GET " + crp + "/reviews":      {Min: "member", Path: cr("/reviews")},
		"POST " + crp + "/reviews":     {Min: "review", Path: cr("/reviews"), Body: map[string]any{"status": "approved"}},
		"GET " + crp + "/contributors": {Min: "member", Path: cr("/contributors")},
		"GET " + crp + "/links":        {Min: "member", Path: cr("/links")},
	}
	for k, v := range rules {
		authzRules[k] = v
	}
}
