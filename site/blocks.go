package site

import (
	"errors"

	"docsapi/docrender"
	"docsapi/docwalk"
	"docsapi/graph/model"
	"docsapi/markdown"
	"docsapi/openapi"
)

// Bounds of what one page's blocks may look up: a page (or a reusable
// content including itself) cannot make a render read without end.
const (
	maxSpecsPerPage    = 8  // distinct specifications parsed
	maxOpenAPIPerPage  = 64 // OpenAPI blocks rendered from a spec
	maxReusablePerPage = 32 // reusable contents expanded
)

// docResolver resolves what a page's document refers to, as the visitor
// (every read below runs with d.rc.ctx, the reader's caller, so the API's
// permissions decide): links to the site's pages, the revision's files,
// the operations of the organization's OpenAPI specifications, and
// reusable content of the space.
func (h *Handler) docResolver(d *siteData, space string, cur *model.RevisionPage) docrender.Resolver {
	q := h.Res.Query()
	org := deref(d.rc.lookup.Organization)
	specs := map[string][]byte{} // slug -> document (nil: not readable)
	operations, reusables := 0, 0
	spec := func(slug string) []byte {
		if doc, ok := specs[slug]; ok || len(specs) >= maxSpecsPerPage {
			return doc
		}
		specs[slug] = nil
		if doc, err := q.OpenAPISpecVersionDocument(d.rc.ctx, org, slug, nil); err == nil {
			specs[slug] = []byte(doc.Text)
		}
		return specs[slug]
	}
	return docrender.Resolver{
		Integration: h.integrationRenderer(d.rc.ctx, org, space, d.integrations),
		Link:        d.linkResolver(cur),
		File: func(id string) (docrender.File, bool) {
			f, ok := d.files[id]
			return f, ok
		},
		OpenAPI: func(n *markdown.Node) (*markdown.Document, bool) {
			ref := docwalk.Ref(n.Data)
			slug := docwalk.Str(ref, "spec")
			if org == "" || slug == "" || operations >= maxOpenAPIPerPage {
				return nil, false
			}
			operations++
			data := spec(slug)
			if data == nil {
				return nil, false
			}
			var md string
			var err error
			switch n.Type {
			case "openapi-schemas":
				var names []string
				if list, ok := n.Data["schemas"].([]any); ok {
					for _, s := range list {
						if name, ok := s.(string); ok {
							names = append(names, name)
						}
					}
				}
				md, err = openapi.RenderSchemas(d.rc.ctx, data, names)
			default:
				path := docwalk.Str(n.Data, "path")
				if n.Type == "openapi-webhook" {
					path = docwalk.Str(n.Data, "name")
				}
				md, err = openapi.RenderOperation(d.rc.ctx, data, docwalk.Str(n.Data, "method"), path, n.Type == "openapi-webhook")
			}
			if err != nil {
				if !errors.Is(err, openapi.ErrNoSuchOperation) {
					h.Log.Warn("reader site: rendering an OpenAPI block", "spec", slug, "err", err)
				}
				return nil, false
			}
			return markdown.ToDocument(md, nil), true
		},
		Reusable: func(id, in string) (*markdown.Document, bool) {
			if in == "" {
				in = space
			}
			if id == "" || reusables >= maxReusablePerPage {
				return nil, false
			}
			reusables++
			rc, err := q.ReusableContent(d.rc.ctx, in, id, nil, nil, nil, nil)
			if err != nil {
				return nil, false
			}
			docID, _ := rc["document"].(string)
			if docID == "" {
				return &markdown.Document{Object: "document"}, true // no body: nothing to show
			}
			raw, err := q.SpaceDocument(d.rc.ctx, in, docID, nil)
			if err != nil {
				return nil, false
			}
			doc, err := docrender.Document(raw)
			return doc, err == nil
		},
	}
}
