package rest

import "docsapi/graph/model"

// Declarations of the routes in published.go for the served API description.

func init() {
	lookup := "A published URL's site content (site, siteSection, siteSpace, space, pathname, basePath, siteBasePath, organization, shareKey, " +
		"complete: false when the path names no page, canonicalUrl, contextId with visitor claims) and apiToken, a JWT reading this site's " +
		"published content as this visitor until its exp; or {target, redirect} for a site redirect, or a refusal when redirectOnError is set. " +
		"Sites are found by hostname, proxy origin, or the service's own published URL (<public URL>/sites/<organization>/<basename>); " +
		"the URL's share parameter is the share key. 404 when the URL names no published content."
	describe(
		Operation{Method: "POST", Pattern: "/urls/published", ID: "resolvePublishedContentByUrl", Tag: "urls",
			Summary: "Resolve a published URL. " + lookup, Body: model.ResolvePublishedContentByURLInput{}, Status: 200, Response: model.PublishedSiteContentLookup{}},
		Operation{Method: "GET", Pattern: "/urls/published", ID: "getPublishedContentByUrl", Tag: "urls",
			Summary: "Resolve a published URL (deprecated GET form of resolvePublishedContentByUrl). " + lookup,
			Query: []Param{
				{Name: "url", Type: "", Description: "URL to resolve.", Required: true},
				{Name: "visitorAuthToken", Type: "", Description: "Visitor token signed with the site's visitor key."},
				{Name: "redirectOnError", Type: false, Description: "Answer a redirect instead of a refusal."},
			}, Status: 200, Response: model.PublishedSiteContentLookup{}},
		Operation{Method: "GET", Pattern: "/spaces/{spaceId}/revisions/{revisionId}/page/{pageId}/document", ID: "getPageDocumentInRevisionById", Tag: "spaces",
			Summary: "The JSON document of a page in a revision (groups and links: an empty document); a site's apiToken reads the pages of its site's spaces.",
			Query:   []Param{{Name: "evaluated", Type: false, Description: "Accepted; docsapi documents hold no expressions, so both answer the same document."}},
			Status:  200, Response: map[string]any{}},
	)
	const redirects = "/orgs/{organizationId}/sites/{siteId}/redirects"
	describe(
		Operation{Method: "GET", Pattern: redirects, ID: "listSiteRedirects", Tag: "site-redirects",
			Summary: "Redirects of a site (read), oldest first.", Query: pageParams, Status: 200, Response: model.SiteRedirectList{}},
		Operation{Method: "POST", Pattern: redirects, ID: "createSiteRedirect", Tag: "site-redirects",
			Summary: "Redirect a path of a site (create) to a section, a site space or a page of the site; 409 when the source is taken.",
			Body:    model.SiteRedirectInput{}, Status: 201, Response: model.SiteRedirect{}},
		Operation{Method: "PATCH", Pattern: redirects + "/{siteRedirectId}", ID: "updateSiteRedirectById", Tag: "site-redirects",
			Summary: "Change a redirect's source or destination (create).", Body: model.SiteRedirectInput{}, Status: 200, Response: model.SiteRedirect{}},
		Operation{Method: "DELETE", Pattern: redirects + "/{siteRedirectId}", ID: "deleteSiteRedirectById", Tag: "site-redirects",
			Summary: "Delete a redirect (create).", Status: 205},
		Operation{Method: "GET", Pattern: "/orgs/{organizationId}/sites/{siteId}/redirect", ID: "getSiteRedirectBySource", Tag: "site-redirects",
			Summary: "The redirect of a source path and its published URL (target): read in the organization, or the site's audience (shareKey, the site's apiToken).",
			Query: []Param{
				{Name: "source", Type: "", Description: "The source path, from the site's root: /old/page.", Required: true},
				{Name: "shareKey", Type: "", Description: "A share key of the site (share-link sites)."},
			}, Status: 200, Response: model.SiteRedirectLookup{}},
	)
	const site = "/orgs/{organizationId}/sites/{siteId}"
	describe(
		Operation{Method: "POST", Pattern: site + "/search", ID: "searchSiteContent", Tag: "sites",
			Summary: "Full-text search of a site's published content: the site spaces its reader sees (the site's apiToken: its visitor's; members with read: all), " +
				"in the scope given (default: each section's default site space; specific; all); spaces ranked by their best page.",
			Query: pageParams, Body: model.SearchSiteContentInput{}, Status: 200, Response: model.SearchSpaceList{}},
		Operation{Method: "POST", Pattern: site + "/insights/events", ID: "trackEventsInSiteById", Tag: "site-insights",
			Summary: "Store 1 to 100 events of a published site's readers (anyone who reads the site, its apiToken included).",
			Body: struct {
				Events []map[string]any `json:"events"`
			}{}, Status: 204},
		Operation{Method: "POST", Pattern: site + "/insights/events/aggregate", ID: "aggregateSiteEvents", Tag: "site-insights",
			Summary: "Aggregate the site's tracked events (read): range required; columns datetime, url, eventType, siteSection, siteSpace, siteShareKey, page, " +
				"eventsCount, sessionsCount, visitorsCount; where with in/notIn.",
			Body: map[string]any{}, Status: 200, Response: model.SiteEventsAggregation{}},
		Operation{Method: "GET", Pattern: site + "/insights/visitor-segments", ID: "listSiteVisitorSegments", Tag: "site-insights",
			Summary: "The site's visitors grouped by their claims over the last year, most events first (read).", Status: 200, Response: model.SiteVisitorSegmentList{}},
		Operation{Method: "POST", Pattern: "/integrations/{integrationName}/render", ID: "renderIntegrationUIWithPost", Tag: "integrations",
			Summary: "Render an integration UI through its development tunnel; the body is the request {componentId, props, context, state?, action?}.",
			Body:    map[string]any{}, Status: 200, Response: model.RenderResult{}},
	)
	urlParam := []Param{{Name: "url", Type: "", Description: "The URL (absolute http or https).", Required: true}}
	describe(
		Operation{Method: "GET", Pattern: "/urls/embed", ID: "getEmbedByUrl", Tag: "urls",
			Summary: "The embed of a URL, fetched through the server's fetch guard: rich with the html of its oEmbed, else a link with its OpenGraph or HTML title; " +
				"a plain link when nothing is found.", Query: urlParam, Status: 200, Response: model.Embed{}},
		Operation{Method: "GET", Pattern: "/spaces/{spaceId}/embed", ID: "getEmbedByUrlInSpace", Tag: "spaces",
			Summary: "getEmbedByUrl for an embed block of a space (read on the space; a site's apiToken for its site's spaces).", Query: urlParam, Status: 200, Response: model.Embed{}},
		Operation{Method: "GET", Pattern: "/urls/content", ID: "getContentByUrl", Tag: "urls",
			Summary: "What a URL of the service names, read with the caller's access: /s/<space>, /c/<collection>, /app/spaces/<space>/<page path>, or a published URL " +
				"({space, page}).", Query: urlParam, Status: 200, Response: model.ContentURLLookup{}},
	)
	auth := "/orgs/{organizationId}/sites/{siteId}/publishing"
	describe(
		Operation{Method: "GET", Pattern: auth + "/auth", ID: "getSitePublishingAuthById", Tag: "sites",
			Summary: "A site's authenticated access settings (admin): privateKey signs visitor tokens (HS256), backend custom, fallbackURL.", Status: 200, Response: model.SitePublishingAuth{}},
		Operation{Method: "PATCH", Pattern: auth + "/auth", ID: "updateSitePublishingAuthById", Tag: "sites",
			Summary: "Change a site's authenticated access settings (admin): backend custom (integration: 400), fallbackURL (null removes it); " +
				"URL resolution with redirectOnError sends a refused visitor there.",
			Body: model.UpdateSitePublishingAuthInput{}, Status: 200, Response: model.SitePublishingAuth{}},
		Operation{Method: "POST", Pattern: auth + "/auth/regenerate", ID: "regenerateSitePublishingAuthById", Tag: "sites",
			Summary: "Replace the key visitor tokens are signed with (admin).", Status: 200, Response: model.SitePublishingAuth{}},
		Operation{Method: "GET", Pattern: auth + "/preview", ID: "getSitePublishingPreviewById", Tag: "sites",
			Summary: "A URL previewing a site space on the service (create), with a visitor token (jwt_token) for the claims given or when the site needs one.",
			Query: []Param{
				{Name: "siteSpace", Type: "", Description: "The site space (default: the site's default)."},
				{Name: "claims", Type: "", Description: "The visitor's claims: a JSON object (docsapi does not read Rison)."},
			}, Status: 200, Response: struct {
				URL string `json:"url"`
			}{}},
	)
	custom := "/orgs/{organizationId}/sites/{siteId}"
	describe(
		Operation{Method: "GET", Pattern: custom + "/customization", ID: "getSiteCustomizationById", Tag: "sites",
			Summary: "A site's SiteCustomizationSettings (read): the stored ones, else the defaults.", Status: 200, Response: map[string]any{}},
		Operation{Method: "PUT", Pattern: custom + "/customization", ID: "updateSiteCustomizationById", Tag: "sites",
			Summary: "Replace a site's SiteCustomizationSettings (create): the published interface's keys, the required ones present, objects where objects go.",
			Body:    map[string]any{}, Status: 200, Response: map[string]any{}},
		Operation{Method: "GET", Pattern: custom + "/site-spaces/{siteSpaceId}/customization", ID: "getSiteSpaceCustomizationById", Tag: "sites",
			Summary: "A site space's settings: the site's with the site space's overrides (read).", Status: 200, Response: map[string]any{}},
		Operation{Method: "PATCH", Pattern: custom + "/site-spaces/{siteSpaceId}/customization", ID: "overrideSiteSpaceCustomizationById", Tag: "sites",
			Summary: "Override settings for a site space (create): objects merge into the override, null removes one; published reads answer them in customizations.siteSpaces.",
			Body:    map[string]any{}, Status: 200, Response: map[string]any{}},
		Operation{Method: "DELETE", Pattern: custom + "/site-spaces/{siteSpaceId}/customization", ID: "deleteSiteSpaceCustomizationById", Tag: "sites",
			Summary: "Remove a site space's overrides (create).", Status: 205},
	)
	describe(
		Operation{Method: "POST", Pattern: "/spaces/{spaceId}/content/computed/document", ID: "getComputedDocument", Tag: "spaces",
			Summary: "The document a computed source gives (read on the space): builtin:openapi renders the spec's latest version (props.doc models: with its models).",
			Body:    model.ComputeContentInput{}, Status: 200, Response: map[string]any{}},
		Operation{Method: "POST", Pattern: "/spaces/{spaceId}/content/computed/revision", ID: "getComputedRevision", Tag: "spaces",
			Summary: "The pages a computed source gives (read on the space): builtin:openapi gives one page (markdown) of the spec's latest version.",
			Body:    model.ComputeContentInput{}, Status: 200, Response: model.ComputedRevision{}},
	)
	limit := Param{Name: "limit", Type: 0, Description: "At most this many changes (default 10, at most 1000); more counts the others."}
	describe(
		Operation{Method: "GET", Pattern: "/spaces/{spaceId}/revisions/{revisionId}/changes", ID: "getRevisionSemanticChanges", Tag: "spaces",
			Summary: "What a revision changed from its first parent (read on the space): pages created, edited (title, slug, document), moved, deleted; files created, edited, deleted.",
			Query:   append([]Param{limit}, contentReadFlags...), Status: 200, Response: model.RevisionSemanticChanges{}},
		Operation{Method: "GET", Pattern: "/spaces/{spaceId}/change-requests/{changeRequestId}/changes", ID: "getChangeRequestChanges", Tag: "change-requests",
			Summary: "What a change request changed from its base (read on the space), as getRevisionSemanticChanges.",
			Query:   []Param{limit}, Status: 200, Response: model.RevisionSemanticChanges{}},
	)
}
