package rest

import (
	"docsapi/graph"
	"docsapi/graph/model"
)

// Declarations of the routes in sites.go for the served API description.

// SiteStructureItem is the answer of the structure sort: one of the three
// structure items (described through its override).
type SiteStructureItem struct{}

func init() {
	declareEnum[model.SiteType](model.SiteTypes.List())
	declareEnum[model.SiteVisibility](model.SiteVisibilities.List())
	declareEnum[model.SiteAgentsContext](model.SiteAgentsContexts.List())
	declareEnum[model.SiteAdsStatus](model.SiteAdsStatuses.List())
	declareEnum[model.SiteFeatureKey](model.SiteFeatureKeys.List())
	declareEnum[model.SiteCustomizationFeature](model.SiteCustomizationFeatures.List())
	declareEnum[model.SiteStructureType](model.SiteStructureTypes.List())
	declareEnum[model.SiteStructurePointerType](model.SiteStructurePointerTypes.List())
	declareEnum[model.SiteNewSpace](model.SiteNewSpaces.List())
	items := []any{ref("SiteSpace"), ref("SiteSection"), ref("SiteSectionGroup")}
	overrideSchema(model.CreateSiteInput{}, func(obj map[string]any) map[string]any {
		props := obj["properties"].(map[string]any)
		props["spaces"] = map[string]any{"oneOf": []any{
			map[string]any{"type": "array", "items": map[string]any{"type": "string"}, "description": "Ids of spaces to add at the root, in order."},
			map[string]any{"type": "string", "enum": []string{"sample", "empty"}, "description": "Create a new space for the site (sample content is not available yet: it is created empty)."},
		}}
		return obj
	})
	overrideSchema(model.SiteStructure{}, func(obj map[string]any) map[string]any {
		props := obj["properties"].(map[string]any)
		props["structure"] = map[string]any{"type": "array", "items": map[string]any{"oneOf": items},
			"description": "type sections: SiteSection and SiteSectionGroup items; type siteSpaces: SiteSpace items."}
		return obj
	})
	overrideSchema(SiteStructureItem{}, func(map[string]any) map[string]any { return map[string]any{"oneOf": items} })

	shareKey := Param{Name: "shareKey", Type: "", Description: "Key of an active, unexpired share link of the site; published URLs carry it. " +
		"A password-protected link also needs its password in the " + graph.ShareLinkPasswordHeader + " header (401 without it or when wrong, 429 past 5 wrong guesses)."}
	const site = "/orgs/{organizationId}/sites/{siteId}"
	describe(
		Operation{Method: "GET", Pattern: "/orgs/{organizationId}/sites", ID: "listSites", Tag: "sites",
			Summary: "Sites of an organization (read), oldest first.",
			Query: append([]Param{
				{Name: "space", Type: "", Description: "Only sites holding this space."},
				{Name: "title", Type: "", Description: "Case-insensitive substring of the title."},
				{Name: "published", Type: false, Description: "Only published (true) or unpublished (false) sites."},
				{Name: "type", Type: []model.SiteType{}, Description: "Only sites of these types (repeat the key)."},
			}, pageParams...), Status: 200, Response: model.SiteList{}},
		Operation{Method: "POST", Pattern: "/orgs/{organizationId}/sites", ID: "createSite", Tag: "sites",
			Summary: "Create a site (create role), unpublished.", Body: model.CreateSiteInput{}, BodyOptional: true, Status: 201, Response: model.Site{}},
		Operation{Method: "GET", Pattern: site, ID: "getSiteById", Tag: "sites",
			Summary: "A site (read).", Status: 200, Response: model.Site{}, Conditional: true},
		Operation{Method: "PATCH", Pattern: site, ID: "updateSiteById", Tag: "sites",
			Summary: "Change a site (create; admin for visibility, hostname and proxy).", Body: model.UpdateSiteInput{}, Status: 200, Response: model.Site{}, Conditional: true},
		Operation{Method: "DELETE", Pattern: site, ID: "deleteSiteById", Tag: "sites",
			Summary: "Delete a site with its structure and share links (admin); its spaces stay.", Status: 205, Conditional: true},
		Operation{Method: "POST", Pattern: site + "/publish", ID: "publishSite", Tag: "sites",
			Summary: "Publish a site (admin).", Status: 200, Response: model.Site{}},
		Operation{Method: "POST", Pattern: site + "/unpublish", ID: "unpublishSite", Tag: "sites",
			Summary: "Unpublish a site (admin).", Status: 200, Response: model.Site{}},
		Operation{Method: "GET", Pattern: site + "/adaptive-schema", ID: "getSiteAdaptiveSchema", Tag: "sites",
			Summary: "The JSON Schema (draft-07) of the site's visitor claims (read).", Status: 200, Response: model.SiteAdaptiveSchema{}, Conditional: true},
		Operation{Method: "PUT", Pattern: site + "/adaptive-schema", ID: "updateSiteAdaptiveSchema", Tag: "sites",
			Summary: "Replace the adaptive schema (create); a schema not of the documented shape is a 400.", Body: model.UpdateSiteAdaptiveSchemaInput{},
			Status: 200, Response: model.SiteAdaptiveSchema{}, Conditional: true},
		Operation{Method: "GET", Pattern: site + "/adaptive-schema/template-conditions", ID: "listSiteAdaptiveTemplateConditions", Tag: "sites",
			Summary: "Example conditions built from the current schema's claims (read).", Status: 200, Response: model.SiteAdaptiveTemplateConditionList{}},
		Operation{Method: "GET", Pattern: site + "/published", ID: "getPublishedContentSite", Tag: "sites",
			Summary: "The published site as its audience sees it. Share-link sites need shareKey; visitor-auth sites need the visitor token in the " +
				graph.VisitorTokenHeader + " header (a JWT signed HS256 with the site's key, exp required).",
			Query: []Param{shareKey}, Status: 200, Response: model.PublishedContentSite{}},
		Operation{Method: "GET", Pattern: site + "/structure", ID: "getSiteStructure", Tag: "sites",
			Summary: "The site's structure in the stored order (read).", Query: []Param{shareKey}, Status: 200, Response: model.SiteStructure{}},
		Operation{Method: "PATCH", Pattern: site + "/structure/sort", ID: "sortSiteStructure", Tag: "sites",
			Summary: "Move a site space, section or section group (create): the one ordering operation.", Body: model.SortSiteStructureInput{},
			Status: 200, Response: SiteStructureItem{}},

		Operation{Method: "GET", Pattern: site + "/site-spaces", ID: "listSiteSpaces", Tag: "sites",
			Summary: "Site spaces in structure order (read, or an active shareKey).",
			Query:   append([]Param{shareKey, {Name: "default", Type: false, Description: "Only the defaults (true) or only the others (false)."}}, pageParams...),
			Status:  200, Response: model.SiteSpaceList{}},
		Operation{Method: "POST", Pattern: site + "/site-spaces", ID: "addSpaceToSite", Tag: "sites",
			Summary: "Add a space to the site: in sectionId, else the default section, else the root (create).", Body: model.AddSpaceToSiteInput{},
			Status: 201, Response: model.SiteSpace{}},
		Operation{Method: "PATCH", Pattern: site + "/site-spaces/{siteSpaceId}", ID: "updateSiteSpaceById", Tag: "sites",
			Summary: "Change a site space's path, condition or space (create).", Body: model.UpdateSiteSpaceInput{}, Status: 200, Response: model.SiteSpace{}},
		Operation{Method: "DELETE", Pattern: site + "/site-spaces/{siteSpaceId}", ID: "deleteSiteSpaceById", Tag: "sites",
			Summary: "Remove a site space (create); the first remaining one of its section becomes the default when it was.", Status: 205},
		Operation{Method: "POST", Pattern: site + "/site-spaces/{siteSpaceId}/move", ID: "moveSiteSpace", Tag: "sites",
			Summary: "Deprecated: use sortSiteStructure.", Body: model.MoveSiteSpaceInput{}, BodyOptional: true, Status: 200, Response: model.SiteSpace{}},

		Operation{Method: "GET", Pattern: site + "/sections", ID: "listSiteSections", Tag: "sites",
			Summary: "Sections in structure order with their site spaces (read, or an active shareKey).", Query: append([]Param{shareKey}, pageParams...),
			Status: 200, Response: model.SiteSectionList{}},
		Operation{Method: "POST", Pattern: site + "/sections", ID: "addSectionToSite", Tag: "sites",
			Summary: "Add a section whose first site space is spaceId (create).", Body: model.AddSectionToSiteInput{}, Status: 201, Response: model.SiteSection{}},
		Operation{Method: "PATCH", Pattern: site + "/sections/{siteSectionId}", ID: "updateSiteSectionById", Tag: "sites",
			Summary: "Change a section (create).", Body: model.UpdateSiteSectionInput{}, Status: 200, Response: model.SiteSection{}},
		Operation{Method: "DELETE", Pattern: site + "/sections/{siteSectionId}", ID: "deleteSiteSectionById", Tag: "sites",
			Summary: "Delete a section with its site spaces (create).", Status: 205},
		Operation{Method: "POST", Pattern: site + "/sections/{siteSectionId}/move", ID: "moveSiteSection", Tag: "sites",
			Summary: "Deprecated: use sortSiteStructure.", Body: model.MoveSiteSectionInput{}, BodyOptional: true, Status: 200, Response: model.SiteSection{}},

		Operation{Method: "GET", Pattern: site + "/section-groups", ID: "listSiteSectionGroups", Tag: "sites",
			Summary: "Section groups in structure order with their sections (read).", Query: pageParams, Status: 200, Response: model.SiteSectionGroupList{}},
		Operation{Method: "POST", Pattern: site + "/section-groups", ID: "addSectionGroupToSite", Tag: "sites",
			Summary: "Add a section group at the end of the root, moving the listed sections into it (create).", Body: model.AddSectionGroupToSiteInput{},
			Status: 201, Response: model.SiteSectionGroup{}},
		Operation{Method: "PATCH", Pattern: site + "/section-groups/{siteSectionGroupId}", ID: "updateSiteSectionGroupById", Tag: "sites",
			Summary: "Change a section group (create).", Body: model.UpdateSiteSectionGroupInput{}, Status: 200, Response: model.SiteSectionGroup{}},
		Operation{Method: "DELETE", Pattern: site + "/section-groups/{siteSectionGroupId}", ID: "deleteSiteSectionGroupById", Tag: "sites",
			Summary: "Delete a section group; its sections return to the root where it was (create).", Status: 205},
		Operation{Method: "POST", Pattern: site + "/section-groups/{siteSectionGroupId}/sections", ID: "addSectionToGroup", Tag: "sites",
			Summary: "Move a section to the end of the group (create).", Body: model.AddSectionToGroupInput{}, Status: 201, Response: model.SiteSectionGroup{}},
		Operation{Method: "DELETE", Pattern: site + "/section-groups/{siteSectionGroupId}/sections/{siteSectionId}", ID: "removeSectionFromGroup", Tag: "sites",
			Summary: "Move a section out of the group, right after it (205; 204 when it was not in the group).", Status: 205},
		Operation{Method: "POST", Pattern: site + "/section-groups/{siteSectionGroupId}/move", ID: "moveSiteSectionGroup", Tag: "sites",
			Summary: "Deprecated: use sortSiteStructure.", Body: model.MoveSiteSectionGroupInput{}, BodyOptional: true, Status: 200, Response: model.SiteSectionGroup{}},

		Operation{Method: "GET", Pattern: site + "/share-links", ID: "listSiteShareLinks", Tag: "sites",
			Summary: "Share links of a site, oldest first (admin).", Query: pageParams, Status: 200, Response: model.ShareLinkList{}},
		Operation{Method: "POST", Pattern: site + "/share-links", ID: "createSiteShareLink", Tag: "sites",
			Summary: "Create an active share link with a 256-bit key (admin), optionally expiring (expiresAt) or password-protected (password, write-only).", Body: model.CreateShareLinkInput{}, Status: 201, Response: model.ShareLink{}},
		Operation{Method: "PATCH", Pattern: site + "/share-links/{shareLinkId}", ID: "updateSiteShareLinkById", Tag: "sites",
			Summary: "Rename, deactivate or reactivate a share link, or set, change or remove (null) its expiresAt or password (admin).", Body: model.UpdateShareLinkInput{}, Status: 200, Response: model.ShareLink{}},
		Operation{Method: "DELETE", Pattern: site + "/share-links/{shareLinkId}", ID: "deleteSiteShareLinkById", Tag: "sites",
			Summary: "Delete a share link (admin).", Status: 205},
	)
}
