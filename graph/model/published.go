package model

import "github.com/99designs/gqlgen/graphql"

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

// SiteRedirect sends a path of a site to a section, a site space or a page.
type SiteRedirect struct {
	Object      string                  `json:"object"`
	ID          string                  `json:"id"`
	Source      string                  `json:"source"`
	Destination SiteRedirectDestination `json:"destination"`
}

// SiteRedirectDestination is one of the three kinds of the published
// interface: site-section (siteSectionId), site-space (siteSpaceId),
// site-page (siteSpaceId and pageId).
type SiteRedirectDestination struct {
	Kind          string  `json:"kind"`
	SiteSectionID *string `json:"siteSectionId,omitempty"`
	SiteSpaceID   *string `json:"siteSpaceId,omitempty"`
	PageID        *string `json:"pageId,omitempty"`
}

type SiteRedirectDestinationInput struct {
	Kind          *string `json:"kind"`
	SiteSectionID *string `json:"siteSectionId"`
	SiteSpaceID   *string `json:"siteSpaceId"`
	PageID        *string `json:"pageId"`
}

type SiteRedirectInput struct {
	Source      *string                       `json:"source"`
	Destination *SiteRedirectDestinationInput `json:"destination"`
}

type SiteRedirectList List[*SiteRedirect]

// SiteRedirectLookup is getSiteRedirectBySource's answer: the redirect and
// the published URL it leads to.
type SiteRedirectLookup struct {
	Redirect *SiteRedirect `json:"redirect"`
	Target   string        `json:"target"`
}

// SearchSiteContentInput is searchSiteContent's body: the query and which
// site spaces to search (scope, or the deprecated mode fields).
type SearchSiteContentInput struct {
	Query        string                `json:"query"`
	Scope        *SiteSearchScopeInput `json:"scope"`
	Mode         *string               `json:"mode"`
	SiteSpaceIds []string              `json:"siteSpaceIds"`
	SiteSpaceID  *string               `json:"siteSpaceId"`
}

// SiteSearchScopeInput: mode default (each section's default site space,
// plus includedSiteSpaces), specific (siteSpaceIds) or all.
type SiteSearchScopeInput struct {
	Mode               string   `json:"mode"`
	IncludedSiteSpaces []string `json:"includedSiteSpaces"`
	SiteSpaceIds       []string `json:"siteSpaceIds"`
}

// SiteEventsAggregation is aggregateSiteEvents' answer: one
// {column, values} object per selected column, rows in the same order.
type SiteEventsAggregation struct {
	Columns []map[string]any `json:"columns"`
}

// SiteVisitorSegment is the visitors sharing the same claims.
type SiteVisitorSegment struct {
	Title    string         `json:"title"`
	Claims   map[string]any `json:"claims"`
	Events   int            `json:"events"`
	Visitors int            `json:"visitors"`
	Sessions int            `json:"sessions"`
}

type SiteVisitorSegmentList List[*SiteVisitorSegment]

// Embed is what a URL shows embedded: type link (title and site only),
// rich (html from the page's oEmbed) or integration (not produced: docsapi
// runs no integration unfurls).
type Embed struct {
	Type  string  `json:"type"`
	Title string  `json:"title"`
	Site  string  `json:"site"`
	Icon  *string `json:"icon,omitempty"`
	HTML  *string `json:"html,omitempty"`
}

// ContentURLLookup is what a URL of the service names: a collection, or a
// space with the page the URL points at.
type ContentURLLookup struct {
	Collection *Collection   `json:"collection,omitempty"`
	Space      *Space        `json:"space,omitempty"`
	Page       *RevisionPage `json:"page,omitempty"`
}

// SitePublishingAuth is a site's authenticated access settings: the key
// visitor tokens are signed with (HS256), the backend (custom: docsapi has
// no authenticated-access integrations) and the fallback URL.
type SitePublishingAuth struct {
	Object      string  `json:"object"`
	Backend     string  `json:"backend"`
	PrivateKey  string  `json:"privateKey"`
	FallbackURL *string `json:"fallbackURL,omitempty"`
}

// UpdateSitePublishingAuthInput: backend custom; fallbackURL set, or null
// to remove it (omitted: kept).
type UpdateSitePublishingAuthInput struct {
	Backend     *string                    `json:"backend"`
	FallbackURL graphql.Omittable[*string] `json:"fallbackURL,omitzero"`
}

// ComputeContentInput is the body of getComputedDocument and
// getComputedRevision: a computed content source and the seed of the ids.
type ComputeContentInput struct {
	Source map[string]any `json:"source"`
	Seed   *string        `json:"seed"`
}

// ComputedRevision is getComputedRevision's answer.
type ComputedRevision struct {
	Pages            []*RevisionPage  `json:"pages"`
	Files            []map[string]any `json:"files"`
	ReusableContents []map[string]any `json:"reusableContents"`
}

// RevisionSemanticChanges lists what changed between two revisions: one
// object per change ({type, page | file, attributes?, parent?}), at most
// the limit, more counting those left out.
type RevisionSemanticChanges struct {
	Changes []map[string]any `json:"changes"`
	More    *int             `json:"more,omitempty"`
}
