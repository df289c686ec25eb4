package rest_test

import (
	"net/http"
	"strings"
	"testing"
)

// The hosted-only operations join the authorization matrix: a token is
// needed, another organization's ids answer 404, and every member (guests
// included) gets the 501 that says why.
func init() {
	type hosted struct {
		key  string
		path func(f *fixture) string
		min  string
	}
	org := func(rest string) func(f *fixture) string {
		return func(f *fixture) string { return "/v1/orgs/" + f.Org + rest }
	}
	site := func(rest string) func(f *fixture) string {
		return func(f *fixture) string { return f.IDs["site"] + rest } // the sites fixture's path
	}
	plain := func(p string) func(f *fixture) string { return func(f *fixture) string { return "/v1" + p } }
	for _, h := range []hosted{
		{"GET /v1/orgs/{organizationId}/agent-tasks", org("/agent-tasks"), "member"},
		{"GET /v1/orgs/{organizationId}/agent-tasks/{agentTaskId}", org("/agent-tasks/t1"), "member"},
		{"PATCH /v1/orgs/{organizationId}/agent-tasks/{agentTaskId}", org("/agent-tasks/t1"), "member"},
		{"GET /v1/orgs/{organizationId}/agents-setup", org("/agents-setup"), "member"},
		{"GET /v1/orgs/{organizationId}/conversations-clusters", org("/conversations-clusters"), "member"},
		{"GET /v1/orgs/{organizationId}/conversations-clusters/{clusterId}", org("/conversations-clusters/c1"), "member"},
		{"GET /v1/orgs/{organizationId}/conversations-clusters/{clusterId}/issues", org("/conversations-clusters/c1/issues"), "member"},
		{"POST /v1/orgs/{organizationId}/conversations", org("/conversations"), "member"},
		{"POST /v1/orgs/{organizationId}/ask", org("/ask"), "member"},
		{"GET /v1/orgs/{organizationId}/ask/stream", org("/ask/stream"), "member"},
		{"GET /v1/orgs/{organizationId}/ask/questions", org("/ask/questions"), "member"},
		{"GET /v1/orgs/{organizationId}/ask/questions/stream", org("/ask/questions/stream"), "member"},
		{"POST /v1/orgs/{organizationId}/sites/{siteId}/ask", site("/ask"), "read"},
		{"GET /v1/orgs/{organizationId}/sites/{siteId}/ask/questions", site("/ask/questions"), "read"},
		{"POST /v1/orgs/{organizationId}/sites/{siteId}/ai/response", site("/ai/response"), "read"},
		{"GET /v1/orgs/{organizationId}/sites/{siteId}/ai/response/{responseId}", site("/ai/response/r1"), "read"},
		{"GET /v1/orgs/{organizationId}/sites/{siteId}/mcp-servers", site("/mcp-servers"), "read"},
		{"POST /v1/orgs/{organizationId}/sites/{siteId}/mcp-servers", site("/mcp-servers"), "read"},
		{"GET /v1/orgs/{organizationId}/sites/{siteId}/mcp-servers/{siteMcpServerId}", site("/mcp-servers/m1"), "read"},
		{"PATCH /v1/orgs/{organizationId}/sites/{siteId}/mcp-servers/{siteMcpServerId}", site("/mcp-servers/m1"), "read"},
		{"DELETE /v1/orgs/{organizationId}/sites/{siteId}/mcp-servers/{siteMcpServerId}", site("/mcp-servers/m1"), "read"},
		{"POST /v1/orgs/{organizationId}/sites/{siteId}/ads", site("/ads"), "read"},
		{"GET /v1/ads/sites", plain("/ads/sites"), ""},
		{"PATCH /v1/ads/sites/{siteId}", plain("/ads/sites/s1"), ""},
		{"GET /v1/custom-hostnames/{hostname}", plain("/custom-hostnames/docs.example.com"), ""},
		{"PATCH /v1/custom-hostnames/{hostname}", plain("/custom-hostnames/docs.example.com"), ""},
		{"DELETE /v1/custom-hostnames/{hostname}", plain("/custom-hostnames/docs.example.com"), ""},
		{"GET /v1/subdomains/{subdomain}", plain("/subdomains/acme"), ""},
	} {
		// The organization's operations answer any member (guests too), a
		// site's those who may read sites, as the site's other reads do:
		// the matrix checks 401, the foreign 404 and the 403; TestHostedOnly
		// the 501 itself.
		authzRules[h.key] = authzRule{Min: h.min, Path: h.path, Body: map[string]any{}}
	}
}

func TestHostedOnly(t *testing.T) {
	f := newFixture(t)
	for p, roles := range map[string][]string{
		"/v1/orgs/" + f.Org + "/agent-tasks": {"admin", "guest"},
		f.IDs["site"] + "/mcp-servers":       {"admin", "read"},
		"/v1/subdomains/acme":                {"admin", "guest"},
	} {
		for _, role := range roles {
			r := f.Env.Do("GET", p, f.ByRole[role].Token, nil)
			if r.Status != http.StatusNotImplemented || !strings.Contains(string(r.Body), "not available on a self-hosted docsapi") {
				t.Errorf("%s as %s: %d %s, want 501 saying why", p, role, r.Status, r.Body)
			}
		}
	}
	// Another organization's site, or an unknown one, is not found before
	// anything is said about the operation.
	if r := f.Env.Do("GET", "/v1/orgs/"+f.Org+"/sites/nosuchsite/mcp-servers", f.ByRole["admin"].Token, nil); r.Status != http.StatusNotFound {
		t.Errorf("unknown site: %d, want 404", r.Status)
	}
	r := f.Env.Do("GET", "/v1/orgs/"+f.Org+"/ask/questions", f.ByRole["read"].Token, nil)
	if !strings.Contains(string(r.Body), `"code":501`) {
		t.Errorf("error body: %s", r.Body)
	}
}
