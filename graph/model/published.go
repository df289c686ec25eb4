package model

// PublishedSiteContentLookup is what a published URL resolves to: either a
// redirect (Target and Redirect only) or the site content the URL names
// with the apiToken that reads it. Every field is optional so that one
// type answers both shapes of the published interface's oneOf.
type PublishedSiteContentLookup struct {
	Target        *string `json:"target,omitempty"`
	Redirect      *string `json:"redirect,omitempty"`
	Site          *string `json:"site,omitempty"`
	SiteSection   *string `json:"siteSection,omitempty"`
	SiteSpace     *string `json:"siteSpace,omitempty"`
	Space         *string `json:"space,omitempty"`
	ChangeRequest *string `json:"changeRequest,omitempty"`
	Revision      *string `json:"revision,omitempty"`
	Pathname      *string `json:"pathname,omitempty"`
	BasePath      *string `json:"basePath,omitempty"`
	SiteBasePath  *string `json:"siteBasePath,omitempty"`
	APIToken      *string `json:"apiToken,omitempty"`
	Organization  *string `json:"organization,omitempty"`
	ShareKey      *string `json:"shareKey,omitempty"`
	Complete      *bool   `json:"complete,omitempty"`
	ContextID     *string `json:"contextId,omitempty"`
	CanonicalURL  *string `json:"canonicalUrl,omitempty"`
}

// SiteVisitorPayloadInput is the visitor of a URL resolution: a visitor
// token signed with the site's key and/or unsigned claims.
type SiteVisitorPayloadInput struct {
	JwtToken       *string        `json:"jwtToken"`
	UnsignedClaims map[string]any `json:"unsignedClaims"`
}

// ResolvePublishedContentByURLInput is the body of resolvePublishedContentByUrl.
type ResolvePublishedContentByURLInput struct {
	URL             string                   `json:"url"`
	RedirectOnError *bool                    `json:"redirectOnError"`
	Visitor         *SiteVisitorPayloadInput `json:"visitor"`
}
