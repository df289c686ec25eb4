package site

import (
	"docsapi/docrender"
	"docsapi/graph/model"
)

// docResolver resolves what a page's document refers to, as the visitor:
// links to the site's pages, the revision's files, the organization's
// OpenAPI operations and reusable content (blocks.go).
func (h *Handler) docResolver(d *siteData, space string, cur *model.RevisionPage) docrender.Resolver {
	return docrender.Resolver{
		Link: d.linkResolver(cur),
		File: func(id string) (docrender.File, bool) {
			f, ok := d.files[id]
			return f, ok
		},
	}
}
