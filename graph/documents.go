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
// {kind: page, page} ({kind: anchor, page, anchor} for a place in it), to a
// file {kind: file, file}, the rest a URL.
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
	out, pending, paths := bodyLinkLookups(from, body, files)
	if len(pending) == 0 {
		return out, nil
	}
	found, err := r.Store.PagesAtPaths(ctx, revID, paths)
	if err != nil {
		return nil, err
	}
	for _, pl := range pending {
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

// bodyLinkLookups is bodyLinkTargets without the store: the destinations
// that name a file (resolved), the page links still to look up (each
// destination once) and the distinct page paths they name, at most
// maxBodyLinkPaths (links past that read as URL links). Its cost is linear
// in the body's links (bodies are bounded when written).
func bodyLinkLookups(from, body string, files []storage.File) (resolved map[string]storage.LinkTarget, pending []storage.PageLink, paths []string) {
	fileNamed := map[string]string{}
	for _, f := range files {
		if id, ok := fileNamed[f.Name]; !ok || f.ID < id {
			fileNamed[f.Name] = f.ID // the first of the name, as the links analysis picks it
		}
	}
	byName := func(name string) (string, bool) { id, ok := fileNamed[name]; return id, ok }
	at := &storage.TreePage{ContentPage: storage.ContentPage{Path: from}}
	resolved = map[string]storage.LinkTarget{}
	seen := map[string]bool{}
	named := map[string]bool{}
	for _, l := range markdown.Links(body) {
		dest := strings.TrimSpace(l.Dest)
		if dest == "" || seen[dest] || strings.HasPrefix(dest, "#") || strings.HasPrefix(dest, markdown.IncludeReusablePrefix) {
			continue
		}
		seen[dest] = true
		if u, err := url.Parse(dest); err == nil && u.Scheme != "" {
			continue
		}
		pl := resolveRelative(dest, l.Image, at, nil, byName)
		switch {
		case pl.Kind == "file" && pl.Target != "":
			resolved[dest] = storage.LinkTarget{Kind: "file", Target: pl.Target}
		case pl.Kind == "page" && pl.Lookup != "":
			var add []string
			for _, c := range []string{pl.Lookup, pl.LookupAlt} {
				if c != "" && !named[c] {
					add = append(add, c)
				}
			}
			if len(paths)+len(add) > maxBodyLinkPaths {
				continue
			}
			for _, c := range add {
				named[c] = true
			}
			paths = append(paths, add...)
			pending = append(pending, pl)
		}
	}
	return resolved, pending, paths
}

// maxBodyLinkPaths bounds the page paths one body looks up (the store's
// PagesAtPaths takes at most as many).
const maxBodyLinkPaths = 1000
