package graph

import (
	"context"
	"encoding/json"
	"net/url"
	"strings"

	"docsapi/markdown"
	"docsapi/storage"
)

// Documents for readers. Every read that answers a body as a 0.130.0
// document (a page read with format=document, whatever the route: the
// space's content, a revision, a change request, GraphQL's spacePage and
// Revision.page; a computed page's rendered body; a reusable content's
// document) builds it with readerDocument, so the same link reads as the
// same reference everywhere: a relative link to a page of the revision is
// {kind: page, page, anchor}, to a file {kind: file, file}, the rest a URL.
// The stored Markdown keeps the links as written; references are made on
// read (and cached per body and references by markdown's document cache).

// readerDocument is the JSON document of md: links found in links (the
// destinations the body's relative links resolved to: PageLinkTargets for
// a page, bodyLinkTargets for other bodies) become page and file
// references, other destinations naming a file of files file references.
func readerDocument(md string, files []storage.File, links map[string]storage.LinkTarget) json.RawMessage {
	return markdown.DocumentJSON(md, filesKey(files)+linksKey(links), linkedRefResolver(files, links))
}

// pageLinkTargets is what a page's relative links resolve to in revID,
// for readerDocument: the links analysis stored when the page was written,
// looked up again in revID (one statement). Only document pages have links.
func (r *Resolver) pageLinkTargets(ctx context.Context, revID string, p storage.ContentPage) (map[string]storage.LinkTarget, error) {
	if p.Type != "document" {
		return nil, nil
	}
	return r.Store.PageLinkTargets(ctx, revID, p.ID)
}

// bodyLinkTargets resolves the relative links of a body whose links are
// not stored (a reusable content's, read from the top of the tree: from
// ""; a computed page's rendered body, from its page path) against revID as
// the links analysis reads a page's: a file of files by name, else a page
// by its path (relative to from's folder or to from itself, or from the
// top with a leading slash; .md suffix, README and index understood), the
// pages found in one statement. Destinations that name nothing of the
// revision are left out (they read as URL links).
func (r *Resolver) bodyLinkTargets(ctx context.Context, revID, from, body string, files []storage.File) (map[string]storage.LinkTarget, error) {
	fileNamed := map[string]string{}
	for _, f := range files {
		if id, ok := fileNamed[f.Name]; !ok || f.ID < id {
			fileNamed[f.Name] = f.ID // the first of the name, as the links analysis picks it
		}
	}
	byName := func(name string) (string, bool) { id, ok := fileNamed[name]; return id, ok }
	top := &storage.TreePage{ContentPage: storage.ContentPage{Path: from}}
	var unresolved []storage.PageLink
	var paths []string
	out := map[string]storage.LinkTarget{}
	for _, l := range markdown.Links(body) {
		dest := strings.TrimSpace(l.Dest)
		if dest == "" || strings.HasPrefix(dest, "#") || strings.HasPrefix(dest, markdown.IncludeReusablePrefix) {
			continue
		}
		if u, err := url.Parse(dest); err == nil && u.Scheme != "" {
			continue
		}
		if _, seen := out[dest]; seen {
			continue
		}
		pl := resolveRelative(dest, l.Image, top, nil, byName)
		switch {
		case pl.Kind == "file" && pl.Target != "":
			out[dest] = storage.LinkTarget{Kind: "file", Target: pl.Target}
		case pl.Kind == "page" && pl.Lookup != "":
			unresolved = append(unresolved, pl)
			paths = append(paths, pl.Lookup)
			if pl.LookupAlt != "" {
				paths = append(paths, pl.LookupAlt)
			}
		}
	}
	if len(unresolved) == 0 {
		return out, nil
	}
	found, err := r.Store.PagesAtPaths(ctx, revID, paths)
	if err != nil {
		return nil, err
	}
	for _, pl := range unresolved {
		id := found[pl.Lookup]
		if id == "" && pl.LookupAlt != "" {
			id = found[pl.LookupAlt]
		}
		if id != "" {
			out[pl.Dest] = storage.LinkTarget{Kind: "page", Target: id}
		}
	}
	return out, nil
}
