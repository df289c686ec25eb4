package rest

import (
	"docsapi/graph/model"
)

// Declarations of the routes in content.go and search.go for the served API
// description. Page paths are the rest of the URL (`*`, which may hold
// slashes: `.../content/path/guides/install`).

// contentReadFlags are the query flags every content read accepts.
var contentReadFlags = []Param{
	{Name: "metadata", Type: false, Description: "Default true; false leaves out the revision's git commit (set by Git Sync imports)."},
	{Name: "computed", Type: false, Description: "Accepted for compatibility (default true); no computed content exists."},
}

func init() {
	declareEnum[model.PageType](model.PageTypes.List())
	declareEnum[model.PageWidth](model.PageWidths.List())
	declareEnum[model.PageCoverSize](model.PageCoverSizes.List())
	declareEnum[model.PageFormat](model.PageFormats.List())
	declareEnum[model.LinkStatus](model.LinkStatuses.List())
	declareEnum[model.ImportSource](model.ImportSources.List())
	flags := contentReadFlags
	pageFlags := append([]Param{
		{Name: "format", Type: model.PageFormat(""), Description: "markdown (default) or document (a JSON document of blocks)."},
		{Name: "evaluated", Type: false, Description: "Accepted (default false); Markdown bodies have nothing to evaluate."},
	}, flags...)
	status := Param{Name: "status", Type: model.LinkStatus(""), Description: "Only link targets of this status."}
	query := Param{Name: "query", Type: "", Required: true, Description: "Search text, 1 to 512 characters: every word must match, the last as a prefix."}
	read := func(method, pattern, id, summary string, q []Param, res any) Operation {
		return Operation{Method: method, Pattern: pattern, ID: id, Tag: "spaces", Summary: summary, Query: q, Status: 200, Response: res}
	}
	files := append(append([]Param{}, pageParams...), flags...)
	describe(
		read("GET", "/spaces/{spaceId}/content", "getCurrentRevision", "The space's active revision.", flags, model.Revision{}),
		read("GET", "/spaces/{spaceId}/revisions/{revisionId}", "getRevisionById", "A revision of the space.", flags, model.Revision{}),
		read("GET", "/spaces/{spaceId}/content/pages", "listPages", "The page tree of the active revision.", flags, model.PageList{}),
		read("GET", "/spaces/{spaceId}/revisions/{revisionId}/pages", "listPagesInRevisionById", "The page tree of a revision.", flags, model.PageList{}),
		read("GET", "/spaces/{spaceId}/content/page/{pageId}", "getPageById", "A page of the active revision with its body.", pageFlags, model.RevisionPage{}),
		read("GET", "/spaces/{spaceId}/revisions/{revisionId}/page/{pageId}", "getPageInRevisionById", "A page of a revision with its body.", pageFlags, model.RevisionPage{}),
		read("GET", "/spaces/{spaceId}/content/path/*", "getPageByPath", "A page of the active revision by path.", pageFlags, model.RevisionPage{}),
		read("GET", "/spaces/{spaceId}/revisions/{revisionId}/path/*", "getPageInRevisionByPath", "A page of a revision by path.", pageFlags, model.RevisionPage{}),
		read("GET", "/spaces/{spaceId}/content/files", "listFiles", "Files of the active revision, by name.", files, model.RevisionFileList{}),
		read("GET", "/spaces/{spaceId}/revisions/{revisionId}/files", "listFilesInRevisionById", "Files of a revision, by name.", files, model.RevisionFileList{}),
		read("GET", "/spaces/{spaceId}/content/files/{fileId}", "getFileById", "A file of the active revision.", flags, model.RevisionFile{}),
		read("GET", "/spaces/{spaceId}/revisions/{revisionId}/files/{fileId}", "getFileInRevisionById", "A file of a revision.", flags, model.RevisionFile{}),
		read("GET", "/spaces/{spaceId}/content/files/{fileId}/backlinks", "listSpaceFileBacklinks", "Pages of the active revision linking to a file.", pageParams, model.ContentLocationList{}),
		read("GET", "/spaces/{spaceId}/content/page/{pageId}/backlinks", "listSpacePageBacklinks", "Pages of the active revision linking to a page.", pageParams, model.ContentLocationList{}),
		read("GET", "/spaces/{spaceId}/links", "listSpaceLinks", "Link targets of the active revision, with stats.", append([]Param{status}, pageParams...), model.LinkList{}),
		read("GET", "/spaces/{spaceId}/content/page/{pageId}/links", "listPageLinksInSpace", "Link targets of a page, with stats.", append([]Param{status}, pageParams...), model.LinkList{}),
		read("GET", "/spaces/{spaceId}/search", "searchSpaceContent", "Full-text search of the active revision, pages ranked by their best section.", append([]Param{query}, pageParams...), model.SearchPageList{}),
		Operation{Method: "GET", Pattern: "/orgs/{organizationId}/search", ID: "searchOrganizationContent", Tag: "organizations",
			Summary: "Full-text search of the spaces the caller can see.", Query: append([]Param{query}, pageParams...), Status: 200, Response: model.SearchSpaceList{}},
		Operation{Method: "POST", Pattern: "/spaces/{spaceId}/content/import", ID: "importContent", Tag: "spaces",
			Summary: "Import content from a URL (markdown, zip, html, website) as a new revision (edit role).", Body: model.ImportContentInput{}, Status: 201, Response: model.ImportContentResult{}},
		Operation{Method: "POST", Pattern: "/spaces/{spaceId}/content/page/{pageId}/import", ID: "importContentInPageById", Tag: "spaces",
			Summary: "Import content into one page (edit role).", Body: model.ImportContentInput{}, Status: 201, Response: model.ImportContentResult{}},
		Operation{Method: "POST", Pattern: "/spaces/{spaceId}/content/template", ID: "applyTemplateToSpace", Tag: "spaces",
			Summary: "Add a built-in template's pages (blank, getting-started, knowledge-base; edit role).", Body: model.ApplyTemplateInput{}, Status: 201},
	)
}
