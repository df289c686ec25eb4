package rest

import (
	"net/http"

	"github.com/go-chi/chi/v5"
)

// hostedOperation is an operation of @gitbook/api@0.130.0 that only
// GitBook's hosted service provides; docsapi answers it 501 (see
// graph.HostedOnly) so that a client learns why, instead of "no route".
type hostedOperation struct {
	method, pattern, id, tag, what string
}

const (
	hostedOrg  = "/orgs/{organizationId}"
	hostedSite = hostedOrg + "/sites/{siteId}"
)

var hostedOperations = []hostedOperation{
	{"GET", hostedOrg + "/agent-tasks", "listAgentTasks", "agents", "AI agent tasks"},
	{"GET", hostedOrg + "/agent-tasks/{agentTaskId}", "getAgentTask", "agents", "AI agent tasks"},
	{"PATCH", hostedOrg + "/agent-tasks/{agentTaskId}", "updateAgentTask", "agents", "AI agent tasks"},
	{"GET", hostedOrg + "/agents-setup", "getAgentSetupState", "agents", "AI agents"},
	{"GET", hostedOrg + "/conversations-clusters", "listConversationsIssuesClusters", "agents", "Conversation analytics"},
	{"GET", hostedOrg + "/conversations-clusters/{clusterId}", "getConversationsIssuesCluster", "agents", "Conversation analytics"},
	{"GET", hostedOrg + "/conversations-clusters/{clusterId}/issues", "listConversationsIssuesInCluster", "agents", "Conversation analytics"},
	{"POST", hostedOrg + "/conversations", "ingestConversation", "conversations", "Conversation analytics"},
	{"POST", hostedOrg + "/ask", "askInOrganization", "organization-ask", "AI search (Ask)"},
	{"GET", hostedOrg + "/ask/stream", "streamAskInOrganization", "organization-ask", "AI search (Ask)"},
	{"GET", hostedOrg + "/ask/questions", "getRecommendedQuestionsInOrganization", "organization-ask", "AI search (Ask)"},
	{"GET", hostedOrg + "/ask/questions/stream", "streamRecommendedQuestionsInOrganization", "organization-ask", "AI search (Ask)"},
	{"POST", hostedSite + "/ask", "streamAskInSite", "site-ask", "AI search (Ask)"},
	{"GET", hostedSite + "/ask/questions", "streamRecommendedQuestionsInSite", "site-ask", "AI search (Ask)"},
	{"POST", hostedSite + "/ai/response", "streamAIResponseInSite", "sites", "AI answers"},
	{"GET", hostedSite + "/ai/response/{responseId}", "streamExistingAIResponseInSite", "sites", "AI answers"},
	{"GET", hostedSite + "/mcp-servers", "listSiteMcpServers", "site-mcp-servers", "Hosted MCP servers"},
	{"POST", hostedSite + "/mcp-servers", "createSiteMcpServer", "site-mcp-servers", "Hosted MCP servers"},
	{"GET", hostedSite + "/mcp-servers/{siteMcpServerId}", "getSiteMcpServerById", "site-mcp-servers", "Hosted MCP servers"},
	{"PATCH", hostedSite + "/mcp-servers/{siteMcpServerId}", "updateSiteMcpServerById", "site-mcp-servers", "Hosted MCP servers"},
	{"DELETE", hostedSite + "/mcp-servers/{siteMcpServerId}", "deleteSiteMcpServerById", "site-mcp-servers", "Hosted MCP servers"},
	{"POST", hostedSite + "/ads", "updateSiteAdsById", "site-ads", "Site ads"},
	{"GET", "/ads/sites", "adsListSites", "site-ads", "Site ads"},
	{"PATCH", "/ads/sites/{siteId}", "adsUpdateSite", "site-ads", "Site ads"},
	{"GET", "/custom-hostnames/{hostname}", "getCustomHostname", "custom-hostnames", "Custom hostname provisioning (DNS and certificates)"},
	{"PATCH", "/custom-hostnames/{hostname}", "dnsRevalidateCustomHostname", "custom-hostnames", "Custom hostname provisioning (DNS and certificates)"},
	{"DELETE", "/custom-hostnames/{hostname}", "removeCustomHostname", "custom-hostnames", "Custom hostname provisioning (DNS and certificates)"},
	{"GET", "/subdomains/{subdomain}", "getSubdomain", "subdomains", "GitBook subdomains"},
}

func init() {
	register(func(a *API, r chi.Router) {
		for _, op := range hostedOperations {
			r.Method(op.method, op.pattern, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				// Only the ads paths name a site without its organization:
				// there the site is not looked up (nothing is read).
				org, site := path(r, "organizationId"), ""
				if org != "" {
					site = path(r, "siteId")
				}
				WriteError(w, r, a.Log, a.Resolver.HostedOnly(r.Context(), org, site, op.what))
			}))
		}
	})
	for _, op := range hostedOperations {
		describe(Operation{Method: op.method, Pattern: op.pattern, ID: op.id, Tag: op.tag, Status: http.StatusNotImplemented,
			Summary: op.what + ": a service of GitBook's hosted platform; answers 501 on a self-hosted docsapi."})
	}
}
