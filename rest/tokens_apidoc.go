package rest

import "docsapi/graph/model"

// Declarations of the routes in tokens.go for the served API description.
// They extend the published interface (its operationIds have no token
// management), so the names are docsapi's own.

func init() {
	describe(
		Operation{Method: "GET", Pattern: "/user/tokens", ID: "listUserAPITokens", Tag: "users",
			Summary: "The caller's personal API tokens, newest first, without their secrets (SAML sign-ins included, with their expiry).",
			Query:   pageParams, Status: 200, Response: model.APITokenList{}},
		Operation{Method: "POST", Pattern: "/user/tokens", ID: "createUserAPIToken", Tag: "users",
			Summary: "Create a personal API token; the answer's `token` is the secret, shown only here.",
			Body:    model.CreateAPITokenInput{}, Status: 201, Response: model.APIToken{}},
		Operation{Method: "DELETE", Pattern: "/user/tokens/{tokenId}", ID: "deleteUserAPIToken", Tag: "users",
			Summary: "Revoke one of the caller's personal API tokens: it answers 401 from the next request on (204 when it is not the caller's or does not exist).",
			Status:  205},
	)
}
