package server_test

import (
	"strings"
	"testing"

	"docsapi/apitest"
)

// TestSecurityHeaders: every answer says nosniff (successes, refusals, 404s,
// 405s, GraphQL, health); the SSO pages forbid scripts and framing.
func TestSecurityHeaders(t *testing.T) {
	env := apitest.New(t)
	for _, c := range []struct{ method, path, token string }{
		{"GET", "/v1/orgs/" + env.Org, env.Admin.Token},
		{"GET", "/v1/orgs/" + env.Org, ""},
		{"GET", "/v1/orgs/nope", env.Admin.Token},
		{"DELETE", "/healthz", ""},
		{"GET", "/healthz", ""},
		{"GET", "/nowhere", ""},
		{"POST", "/graphql", env.Admin.Token},
		{"GET", "/sso/saml/nope/metadata", ""},
	} {
		r := env.Do(c.method, c.path, c.token, map[string]any{"query": "{ __typename }"})
		if got := r.Header.Get("X-Content-Type-Options"); got != "nosniff" {
			t.Errorf("%s %s (%d): X-Content-Type-Options %q", c.method, c.path, r.Status, got)
		}
	}
	page := env.Do("GET", "/sso/saml/nope/start", "", nil, "Accept", "text/html")
	csp := page.Header.Get("Content-Security-Policy")
	if page.Status != 404 || !strings.HasPrefix(page.Header.Get("Content-Type"), "text/html") ||
		!strings.Contains(csp, "frame-ancestors 'none'") || !strings.Contains(csp, "default-src 'none'") || strings.Contains(csp, "script") ||
		page.Header.Get("X-Frame-Options") != "DENY" || page.Header.Get("X-Content-Type-Options") != "nosniff" {
		t.Fatalf("SSO page: %d %v", page.Status, page.Header)
	}
}
