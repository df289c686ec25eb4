package server_test

import (
	"strings"
	"testing"

	"docsapi/apitest"
)

// What a new user meets first: the API description without a token, a
// 401 that says how to authenticate, probes that are never rate limited,
// and metrics that keep unknown paths out of the route label.

func TestOpenAPIDescriptionNeedsNoToken(t *testing.T) {
	env := apitest.New(t)
	r := env.Must(200, "GET", "/v1/openapi.json", "", nil)
	tag := r.Header.Get("ETag")
	if !strings.Contains(string(r.Body), `"openapi": "3.1.0"`) || tag == "" {
		t.Fatalf("description %d bytes, ETag %q", len(r.Body), tag)
	}
	if r := env.Do("GET", "/v1/openapi.json", "", nil, "If-None-Match", tag); r.Status != 304 || len(r.Body) != 0 {
		t.Fatalf("If-None-Match: %d %s", r.Status, r.Body)
	}
	env.Must(200, "GET", "/v1/openapi.json", "dapi_unknown", nil)
	env.Must(200, "GET", "/v1/openapi.json", env.Admin.Token, nil)
	env.Must(401, "GET", "/v1/openapi.json/x", "", nil) // only the description itself
}

func TestUnauthorizedCarriesChallenge(t *testing.T) {
	env := apitest.New(t)
	for _, c := range []struct{ method, path, token, want string }{
		{"GET", "/v1/user", "", "Bearer"},
		{"GET", "/v1/user", "dapi_unknown", `Bearer error="invalid_token", error_description="missing or invalid bearer token"`},
		{"POST", "/graphql", "", "Bearer"},
		{"POST", "/graphql", "dapi_unknown", `Bearer error="invalid_token"`},
	} {
		r := env.Do(c.method, c.path, c.token, map[string]any{"query": "{ viewer { id } }"})
		if got := r.Header.Get("WWW-Authenticate"); r.Status != 401 || !strings.HasPrefix(got, c.want) || (c.token == "" && got != "Bearer") {
			t.Errorf("%s %s token %q: %d, WWW-Authenticate %q", c.method, c.path, c.token, r.Status, got)
		}
	}
}

func TestProbesAreNotRateLimited(t *testing.T) {
	env := apitest.New(t, limited(0, 2))
	for range 5 {
		env.Must(200, "GET", "/healthz", "", nil)
		env.Must(200, "GET", "/readyz", "", nil)
		env.Must(200, "GET", "/metrics", "", nil)
	}
	env.Must(401, "GET", "/v1/user", "", nil)
	env.Must(401, "GET", "/v1/user", "", nil)
	env.Must(429, "GET", "/v1/user", "", nil)
	env.Must(200, "GET", "/healthz", "", nil) // still answers once the budget is spent
}

func TestUnknownV1PathsAreUnrouted(t *testing.T) {
	env := apitest.New(t)
	env.Must(404, "GET", "/v1/no/such/thing", env.Admin.Token, nil)
	body := string(env.Must(200, "GET", "/metrics", "", nil).Body)
	if strings.Contains(body, `route="/v1/*"`) || !strings.Contains(body, `docsapi_http_requests_total{method="GET",route="(none)",status="404"} 1`) {
		t.Fatalf("unknown path labels: %s", grepLines(body, "docsapi_http_requests_total"))
	}
}

func grepLines(s, sub string) string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if strings.Contains(l, sub) {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}
