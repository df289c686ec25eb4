package graph

import (
	"context"
	"io"
	"sync"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2/ast"

	"docsapi/graph/model"
	"docsapi/storage"
)

// A revision's page tree is the heaviest part of reading content: a
// thousand pages are a thousand models to build and, in GraphQL, a
// thousand objects whose every field gqlgen resolves on its own (a field
// context, a middleware call, a goroutine per list element). Revisions are
// immutable, so the models are built once per revision and shared (read,
// never changed), and a `pages` selection of plain fields is written
// straight from them.

// pageTreeCache keeps the page models of recently read revisions. An
// entry is valid for the very page slice storage gave when it was built:
// storage shares one slice per revision while its change counter stands
// still (DB.RevisionPages), so the models live exactly as long as the
// cached rows they were made from, within the same counters.
type pageTreeCache struct {
	mu sync.Mutex
	m  map[string]*pageTreeEntry
}

type pageTreeEntry struct {
	first *storage.ContentPage // the slice the models were built from
	n     int
	top   []*model.RevisionPage
	byID  map[string]*model.RevisionPage
}

// maxCachedPageTrees bounds the cache like storage's tree cache (32 trees
// of at most 5,000 pages).
const maxCachedPageTrees = 32

// sharedPageTree is pageTreeInto for a whole revision, built once per
// revision and page slice. Callers must not change what it returns.
func (r *Resolver) sharedPageTree(spaceID, revID string, pages []storage.ContentPage) ([]*model.RevisionPage, map[string]*model.RevisionPage) {
	if len(pages) == 0 {
		return []*model.RevisionPage{}, map[string]*model.RevisionPage{}
	}
	key := spaceID + "\x00" + revID
	c := &r.pageTrees
	c.mu.Lock()
	e := c.m[key]
	c.mu.Unlock()
	if e != nil && e.first == &pages[0] && e.n == len(pages) {
		return e.top, e.byID
	}
	byID := make(map[string]*model.RevisionPage, len(pages))
	e = &pageTreeEntry{first: &pages[0], n: len(pages), top: r.pageTreeInto(spaceID, pages, byID), byID: byID}
	c.mu.Lock()
	if c.m == nil || len(c.m) >= maxCachedPageTrees {
		c.m = map[string]*pageTreeEntry{}
	}
	c.m[key] = e
	c.mu.Unlock()
	return e.top, e.byID
}

// pageTreeField is one field of a plain page selection: its name, its
// response key as written (quoted, with its colon) and, for `pages`, the
// selection of the children.
type pageTreeField struct {
	name, key string
	children  []pageTreeField
}

func pageField(alias, name string, children []pageTreeField) pageTreeField {
	return pageTreeField{name: name, key: quotedGQLString(alias) + ":", children: children}
}

// plainPageFields are the RevisionPage fields that are struct fields of
// scalar type (pages is handled on its own).
var plainPageFields = map[string]bool{
	"__typename": true, "id": true, "title": true, "emoji": true, "icon": true, "createdAt": true, "updatedAt": true,
	"kind": true, "type": true, "markdown": true, "document": true, "slug": true, "path": true, "description": true,
	"cover": true, "variables": true, "hidden": true, "noIndex": true, "noRobotsIndex": true, "target": true,
	"href": true, "computed": true,
}

// planPageFields compiles a RevisionPage selection made only of plain
// fields and nested `pages` (ok false otherwise: gqlgen answers it). The
// nesting is that of the operation, which the depth limit bounds; depth
// guards against a deeper one anyway.
func planPageFields(oc *graphql.OperationContext, sel ast.SelectionSet, depth int) ([]pageTreeField, bool) {
	if depth > maxPageTreeDepth {
		return nil, false
	}
	fields := graphql.CollectFields(oc, sel, []string{"RevisionPage"})
	plan := make([]pageTreeField, 0, len(fields))
	for _, f := range fields {
		if f.IsDeferred() {
			return nil, false
		}
		pf := pageField(f.Alias, f.Name, nil)
		switch {
		case f.Name == "pages":
			children, ok := planPageFields(oc, f.Selections, depth+1)
			if !ok {
				return nil, false
			}
			pf.children = children
		case !plainPageFields[f.Name]:
			return nil, false
		}
		plan = append(plan, pf)
	}
	return plan, true
}

// maxPageTreeDepth is deeper than any operation the depth limit lets
// through and than any stored tree.
const maxPageTreeDepth = 64

// PlainPageTrees is a GraphQL field middleware (AroundFields): a `pages`
// list (Revision.pages, PageList.pages, RevisionPage.pages) selecting only
// plain fields and nested `pages` is answered as one value written from
// the page models, with gqlgen's own scalar and enum encodings, the same
// bytes gqlgen writes field by field. Any other selection (links,
// backlinks, urls, layout, fragments with @defer) goes through gqlgen.
func PlainPageTrees(ctx context.Context, next graphql.Resolver) (any, error) {
	fc := graphql.GetFieldContext(ctx)
	if fc == nil || fc.Field.Field == nil || fc.Field.Name != "pages" {
		return next(ctx)
	}
	switch fc.Object {
	case "Revision", "RevisionPage", "PageList":
	default:
		return next(ctx)
	}
	res, err := next(ctx)
	pages, ok := res.([]*model.RevisionPage)
	if err != nil || !ok || pages == nil {
		return res, err
	}
	oc := graphql.GetOperationContext(ctx)
	if oc == nil {
		return res, nil
	}
	plan, ok := planPageFields(oc, fc.Field.Selections, 0)
	if !ok {
		return res, nil
	}
	return pageTreeJSON{pages: pages, fields: plan}, nil
}

// pageTreeJSON writes a list of pages for a plain selection.
type pageTreeJSON struct {
	pages  []*model.RevisionPage
	fields []pageTreeField
}

func (t pageTreeJSON) MarshalGQL(w io.Writer) { writePageList(w, t.pages, t.fields) }

func writePageList(w io.Writer, pages []*model.RevisionPage, fields []pageTreeField) {
	if pages == nil {
		io.WriteString(w, "null")
		return
	}
	io.WriteString(w, "[")
	for i, p := range pages {
		if i > 0 {
			io.WriteString(w, ",")
		}
		writePage(w, p, fields)
	}
	io.WriteString(w, "]")
}

func writePage(w io.Writer, p *model.RevisionPage, fields []pageTreeField) {
	io.WriteString(w, "{")
	for i, f := range fields {
		if i > 0 {
			io.WriteString(w, ",")
		}
		io.WriteString(w, f.key)
		// The string fields of every page, written without a marshaler
		// each (a thousand pages are thousands of them).
		switch f.name {
		case "id":
			writeGQLString(w, p.ID)
		case "title":
			writeGQLString(w, p.Title)
		case "path":
			writeOptGQLString(w, p.Path)
		case "slug":
			writeOptGQLString(w, p.Slug)
		default:
			pageFieldValue(p, f).MarshalGQL(w)
		}
	}
	io.WriteString(w, "}")
}

// pageFieldValue is what gqlgen's generated marshaler gives for the field.
func pageFieldValue(p *model.RevisionPage, f pageTreeField) graphql.Marshaler {
	switch f.name {
	case "__typename":
		return graphql.MarshalString("RevisionPage")
	case "id":
		return graphql.MarshalID(p.ID)
	case "title":
		return graphql.MarshalString(p.Title)
	case "emoji":
		return gqlOptString(p.Emoji)
	case "icon":
		return gqlOptString(p.Icon)
	case "createdAt":
		return gqlOptString(p.CreatedAt)
	case "updatedAt":
		return gqlOptString(p.UpdatedAt)
	case "kind":
		return graphql.MarshalString(p.Kind)
	case "type":
		return p.Type
	case "markdown":
		return gqlOptString(p.Markdown)
	case "document":
		if p.Document == nil {
			return graphql.Null
		}
		return graphql.MarshalAny(p.Document)
	case "slug":
		return gqlOptString(p.Slug)
	case "path":
		return gqlOptString(p.Path)
	case "description":
		return gqlOptString(p.Description)
	case "cover":
		return gqlOptMap(p.Cover)
	case "variables":
		return gqlOptMap(p.Variables)
	case "hidden":
		return gqlOptBool(p.Hidden)
	case "noIndex":
		return gqlOptBool(p.NoIndex)
	case "noRobotsIndex":
		return gqlOptBool(p.NoRobotsIndex)
	case "target":
		return gqlOptMap(p.Target)
	case "href":
		return gqlOptString(p.Href)
	case "computed":
		return gqlOptMap(p.Computed)
	case "pages":
		return pageTreeJSON{pages: p.Pages, fields: f.children}
	}
	return graphql.Null // planPageFields admits no other field
}

func gqlOptString(s *string) graphql.Marshaler {
	if s == nil {
		return graphql.Null
	}
	return graphql.MarshalString(*s)
}

func gqlOptBool(b *bool) graphql.Marshaler {
	if b == nil {
		return graphql.Null
	}
	return graphql.MarshalBoolean(*b)
}

func gqlOptMap(m map[string]any) graphql.Marshaler {
	if m == nil {
		return graphql.Null
	}
	return graphql.MarshalMap(m)
}
