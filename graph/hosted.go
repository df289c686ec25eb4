package graph

import (
	"context"
	"net/http"

	"docsapi/apierr"
)

// HostedOnly answers the operations of the published interface that only
// GitBook's hosted service can provide (AI agents and answers, conversation
// analytics, ads, custom hostnames and subdomains it provisions, MCP servers
// it runs): 501 with a sentence saying so. The caller's access to the
// organization (and site) the path names is checked first, so another
// organization's ids still answer 404 like everywhere else.
func (r *Resolver) HostedOnly(ctx context.Context, orgID, siteID, what string) error {
	switch {
	case siteID != "":
		if _, _, err := r.siteScope(ctx, orgID, siteID, "read", "reading sites"); err != nil {
			return err
		}
	case orgID != "":
		if _, err := r.inOrg(ctx, orgID); err != nil {
			return err
		}
	default:
		if _, err := callerOf(ctx); err != nil {
			return err
		}
	}
	return apierr.New(http.StatusNotImplemented,
		"%s is a service of GitBook's hosted platform and is not available on a self-hosted docsapi", what)
}
