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
}
