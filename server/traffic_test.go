package server_test

import (
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"docsapi/apitest"
	"docsapi/server"
)

func limited(token, anonymous int) apitest.Options {
	return apitest.Options{Config: func(c *server.Config) {
		c.RateLimit, c.RateLimitAnonymous, c.RateLimitWindow = token, anonymous, time.Minute
	}}
}

func TestRateLimitPerToken(t *testing.T) {
	env := apitest.New(t, limited(5, 2))
	reader := env.NewUser("reader@acme.test", env.Org, "read")
	for i := range 5 {
		r := env.Must(200, "GET", "/v1/user", env.Admin.Token, nil)
		if got := r.Header.Get("X-RateLimit-Limit"); got != "5" {
			t.Fatalf("X-RateLimit-Limit %q", got)
		}
		if got := r.Header.Get("X-RateLimit-Remaining"); got != strconv.Itoa(4-i) {
			t.Fatalf("request %d: X-RateLimit-Remaining %q", i, got)
		}
		reset, err := strconv.ParseInt(r.Header.Get("X-RateLimit-Reset"), 10, 64)
		if err != nil || reset < time.Now().Unix() || reset > time.Now().Add(61*time.Second).Unix() {
			t.Fatalf("X-RateLimit-Reset %q", r.Header.Get("X-RateLimit-Reset"))
		}
	}
	r := env.Do("GET", "/v1/orgs/"+env.Org, env.Admin.Token, nil)
	if r.Status != http.StatusTooManyRequests {
		t.Fatalf("6th request: %d %s", r.Status, r.Body)
	}
	apitest.ErrorShape(t, r)
	if retry, err := strconv.Atoi(r.Header.Get("Retry-After")); err != nil || retry < 1 || retry > 60 {
		t.Errorf("Retry-After %q", r.Header.Get("Retry-After"))
	}
	if r.Header.Get("X-RateLimit-Remaining") != "0" || r.Header.Get("X-RateLimit-Limit") != "5" {
		t.Errorf("429 headers %v", r.Header)
	}
	// Another token has its own budget; GraphQL shares the token's budget.
	env.Must(200, "GET", "/v1/user", reader.Token, nil)
	if r := env.Do("POST", "/graphql", env.Admin.Token, map[string]any{"query": "{ viewer { id } }"}); r.Status != 429 {
		t.Errorf("graphql over budget: %d", r.Status)
	}
}

func TestRateLimitBurst(t *testing.T) {
	env := apitest.New(t, limited(10, 0))
	var mu sync.Mutex
	statuses := map[int]int{}
	var wg sync.WaitGroup
	for range 30 {
		wg.Go(func() {
			r := env.Do("GET", "/v1/orgs/"+env.Org, env.Admin.Token, nil)
			if r.Header.Get("X-RateLimit-Limit") == "" || r.Header.Get("X-RateLimit-Remaining") == "" || r.Header.Get("X-RateLimit-Reset") == "" {
				t.Errorf("status %d without rate limit headers", r.Status)
			}
			mu.Lock()
			statuses[r.Status]++
			mu.Unlock()
		})
	}
	wg.Wait()
	if statuses[200] != 10 || statuses[429] != 20 {
		t.Fatalf("burst of 30 with a budget of 10: %v", statuses)
	}
	body := string(env.Must(200, "GET", "/metrics", "", nil).Body)
	if !strings.Contains(body, `docsapi_rate_limited_total{limiter="token"} 20`) {
		t.Error("rate limited requests are not counted")
	}
}

func TestRateLimitPerAddressWithoutToken(t *testing.T) {
	env := apitest.New(t, limited(100, 3))
	env.Must(200, "GET", "/healthz", "", nil) // probes do not count (see TestProbesAreNotRateLimited)
	env.Must(200, "GET", "/.well-known/jwks.json", "", nil)
	env.Must(401, "GET", "/v1/user", "dapi_made-up", nil) // made-up tokens count against the address
	env.Must(401, "GET", "/v1/user", "", nil)
	r := env.Do("GET", "/v1/user", "dapi_another-made-up", nil)
	if r.Status != http.StatusTooManyRequests || r.Header.Get("Retry-After") == "" {
		t.Fatalf("4th anonymous request: %d %v", r.Status, r.Header)
	}
	apitest.ErrorShape(t, r)
	env.Must(200, "GET", "/v1/user", env.Admin.Token, nil) // a valid token is not held by its address
}

func TestRateLimitOff(t *testing.T) {
	env := apitest.New(t)
	if r := env.Must(200, "GET", "/v1/user", env.Admin.Token, nil); r.Header.Get("X-RateLimit-Limit") != "" {
		t.Error("limits are off with a zero configuration")
	}
}

func TestCORSPreflight(t *testing.T) {
	env := apitest.New(t, apitest.Options{Config: func(c *server.Config) { c.CORSOrigins = []string{"https://app.example"} }})
	for _, path := range []string{"/v1/orgs/" + env.Org, "/graphql"} {
		r := env.Do("OPTIONS", path, "", nil,
			"Origin", "https://app.example", "Access-Control-Request-Method", "PATCH",
			"Access-Control-Request-Headers", "authorization, content-type, if-match, idempotency-key")
		if r.Status != 200 || r.Header.Get("Access-Control-Allow-Origin") != "https://app.example" ||
			r.Header.Get("Access-Control-Allow-Methods") != "PATCH" ||
			!strings.Contains(strings.ToLower(r.Header.Get("Access-Control-Allow-Headers")), "if-match") {
			t.Errorf("preflight of %s: %d %v", path, r.Status, r.Header)
		}
		r = env.Do("OPTIONS", path, "", nil, "Origin", "https://evil.example", "Access-Control-Request-Method", "GET")
		if r.Header.Get("Access-Control-Allow-Origin") != "" {
			t.Errorf("an origin outside the list is allowed on %s", path)
		}
	}
	r := env.Do("GET", "/v1/user", env.Admin.Token, nil, "Origin", "https://app.example")
	if r.Status != 200 || r.Header.Get("Access-Control-Allow-Origin") != "https://app.example" ||
		!strings.Contains(r.Header.Get("Access-Control-Expose-Headers"), "Etag") {
		t.Errorf("actual request: %d %v", r.Status, r.Header)
	}
	// Refusals are readable by the page too.
	if r := env.Do("GET", "/v1/user", "", nil, "Origin", "https://app.example"); r.Status != 401 || r.Header.Get("Access-Control-Allow-Origin") == "" {
		t.Errorf("401 without CORS headers: %v", r.Header)
	}
	// Other paths are not opened.
	if r := env.Do("GET", "/healthz", "", nil, "Origin", "https://app.example"); r.Header.Get("Access-Control-Allow-Origin") != "" {
		t.Error("CORS headers outside /v1 and /graphql")
	}
}

func TestCORSOffByDefault(t *testing.T) {
	env := apitest.New(t)
	r := env.Do("OPTIONS", "/v1/orgs/"+env.Org, "", nil, "Origin", "https://app.example", "Access-Control-Request-Method", "GET")
	if r.Header.Get("Access-Control-Allow-Origin") != "" || r.Status == 200 {
		t.Errorf("CORS answered without configuration: %d %v", r.Status, r.Header)
	}
}

func TestGraphQLGuardrails(t *testing.T) {
	env := apitest.New(t, apitest.Options{Config: func(c *server.Config) {
		c.GraphQLDepth, c.GraphQLComplexity, c.GraphQLConcurrency = 4, 12, 1
		c.NoIntrospection, c.NoPlayground = true, true
	}})
	tok := env.Admin.Token
	vars := map[string]any{"org": env.Org}

	data, errs := env.GraphQL(tok, `query($org: ID!) { a: organization(id: $org) { id } b: organization(id: $org) { title } viewer { id } }`, vars)
	if len(errs) != 0 || data["a"] == nil || data["b"] == nil || data["viewer"] == nil {
		t.Fatalf("parallel root fields with one resolver slot: %v %v", data, errs)
	}
	_, errs = env.GraphQL(tok, `query($org: ID!) { members(organizationId: $org) { items { user { urls { location } } } } }`, vars)
	if len(errs) != 1 || errs[0].Code() != "DEPTH_LIMIT_EXCEEDED" {
		t.Errorf("depth 5 with a limit of 4: %v", errs)
	}
	_, errs = env.GraphQL(tok, `fragment U on User { urls { location } }
		query($org: ID!) { members(organizationId: $org) { items { user { ...U } } } }`, vars)
	if len(errs) != 1 || errs[0].Code() != "DEPTH_LIMIT_EXCEEDED" {
		t.Errorf("depth through a fragment: %v", errs)
	}
	_, errs = env.GraphQL(tok, `query($org: ID!) { organization(id: $org) { id title createdAt type plan sso ai inviteLinks emailDomains defaultRole useCase hostname } }`, vars)
	if len(errs) != 1 || errs[0].Code() != "COMPLEXITY_LIMIT_EXCEEDED" {
		t.Errorf("complexity 13 with a limit of 12: %v", errs)
	}
	// Complexity is remembered per query text and operation name: the
	// second time it is refused the same way, and each operation of one
	// document has its own figure.
	for range 2 {
		_, errs = env.GraphQL(tok, `query($org: ID!) { organization(id: $org) { id title createdAt type plan sso ai inviteLinks emailDomains defaultRole useCase hostname } }`, vars)
		if len(errs) != 1 || errs[0].Code() != "COMPLEXITY_LIMIT_EXCEEDED" || errs[0].Message != "operation has complexity 13, which exceeds the limit of 12" {
			t.Errorf("complexity 13 again: %v", errs)
		}
	}
	two := `query Big($org: ID!) { organization(id: $org) { id title createdAt type plan sso ai inviteLinks emailDomains defaultRole useCase hostname } }
		query Small($org: ID!) { organization(id: $org) { id } }`
	for range 2 {
		if data, errs := env.GraphQLOp(tok, two, "Small", vars); len(errs) != 0 || data["organization"] == nil {
			t.Errorf("the small operation of a document with a big one: %v %v", data, errs)
		}
		if _, errs := env.GraphQLOp(tok, two, "Big", vars); len(errs) != 1 || errs[0].Code() != "COMPLEXITY_LIMIT_EXCEEDED" {
			t.Errorf("the big operation of the same document: %v", errs)
		}
	}
	_, errs = env.GraphQL(tok, `{ __schema { types { name } } }`, nil)
	if len(errs) == 0 {
		t.Error("introspection answered while turned off")
	}
	r := env.Do("GET", "/graphql", "", nil, "Accept", "text/html")
	if strings.Contains(string(r.Body), "<html") {
		t.Error("playground served while turned off")
	}
	body := string(env.Must(200, "GET", "/metrics", "", nil).Body)
	if !strings.Contains(body, `docsapi_errors_total{code="DEPTH_LIMIT_EXCEEDED",transport="graphql"} 2`) {
		t.Error("guardrail refusals are not counted")
	}
}

func TestGraphQLIntrospectionAndPlaygroundOnByDefault(t *testing.T) {
	env := apitest.New(t)
	if _, errs := env.GraphQL(env.Admin.Token, `{ __schema { types { name } } }`, nil); len(errs) != 0 {
		t.Errorf("introspection: %v", errs)
	}
	if r := env.Do("GET", "/graphql", "", nil, "Accept", "text/html"); !strings.Contains(string(r.Body), "<html") {
		t.Error("no playground")
	}
}

// A page may send the share link password header (GET with a custom header
// needs a preflight).
func TestCORSAllowsShareLinkPassword(t *testing.T) {
	env := apitest.New(t, apitest.Options{Config: func(c *server.Config) { c.CORSOrigins = []string{"https://app.example"} }})
	for _, path := range []string{"/v1/orgs/" + env.Org + "/sites/s/published", "/graphql"} {
		r := env.Do("OPTIONS", path, "", nil, "Origin", "https://app.example", "Access-Control-Request-Method", "GET",
			"Access-Control-Request-Headers", "authorization, x-share-link-password")
		if r.Status != 200 || !strings.Contains(strings.ToLower(r.Header.Get("Access-Control-Allow-Headers")), "x-share-link-password") {
			t.Errorf("preflight of %s: %d %v", path, r.Status, r.Header)
		}
	}
}
