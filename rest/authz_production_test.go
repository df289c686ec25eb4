package rest_test

// Authorization rules of the production surface's /v1 routes.

func init() {
	authzRules["GET /v1/openapi.json"] = authzRule{Path: func(f *fixture) string { return "/v1/openapi.json" }, Public: true}
}
