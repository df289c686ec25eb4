package graph

import (
	"context"

	"docsapi/apierr"
	"docsapi/graph/model"
	"docsapi/storage"
)

// Semantic changes: pages and files compared by id between two revisions
// (a revision and its first parent; a change request's head and its base).
// A page is edited when its title, slug or content (its content address)
// changed, moved when its parent did.

const defaultChangesLimit = 10

func (r *Resolver) revisionSemanticChanges(ctx context.Context, spaceID, revisionID string, limit *int) (*model.RevisionSemanticChanges, error) {
	cs, err := r.contentSpace(ctx, spaceID, false)
	if err != nil {
		return nil, err
	}
	rev, err := r.revisionOf(ctx, cs, &revisionID)
	if err != nil {
		return nil, err
	}
	before := ""
	if len(rev.Parents) > 0 {
		before = rev.Parents[0]
	}
	return r.semanticChanges(ctx, spaceID, before, rev.ID, limit)
}

func (r *Resolver) changeRequestChanges(ctx context.Context, spaceID, changeRequestID string, limit *int) (*model.RevisionSemanticChanges, error) {
	cs, err := r.contentSpace(ctx, spaceID, false)
	if err != nil {
		return nil, err
	}
	_, cr, err := r.readVersion(ctx, cs, nil, &changeRequestID)
	if err != nil {
		return nil, err
	}
	return r.semanticChanges(ctx, spaceID, cr.RevisionBase, cr.Revision, limit)
}

// semanticChanges compares revision before ("": nothing) with after.
func (r *Resolver) semanticChanges(ctx context.Context, spaceID, before, after string, limit *int) (*model.RevisionSemanticChanges, error) {
	max := defaultChangesLimit
	if limit != nil {
		if *limit < 1 || *limit > 1000 {
			return nil, apierr.Invalid("limit", "must be from 1 to 1000")
		}
		max = *limit
	}
	var oldPages []storage.ContentPage
	var oldFiles []storage.File
	var err error
	if before != "" {
		if oldPages, err = r.Store.RevisionPages(ctx, before); err != nil {
			return nil, err
		}
		if oldFiles, err = r.Store.RevisionFiles(ctx, before); err != nil {
			return nil, err
		}
	}
	newPages, err := r.Store.RevisionPages(ctx, after)
	if err != nil {
		return nil, err
	}
	newFiles, err := r.Store.RevisionFiles(ctx, after)
	if err != nil {
		return nil, err
	}
	pageRef := func(p storage.ContentPage) map[string]any {
		return map[string]any{"id": p.ID, "type": p.Type, "title": p.Title, "path": p.Path}
	}
	change := func(before, after string) map[string]any { return map[string]any{"before": before, "after": after} }
	var changes []map[string]any
	oldByID := map[string]storage.ContentPage{}
	for _, p := range oldPages {
		oldByID[p.ID] = p
	}
	newByID := map[string]storage.ContentPage{}
	for _, p := range newPages {
		newByID[p.ID] = p
	}
	for _, p := range newPages {
		o, existed := oldByID[p.ID]
		if !existed {
			changes = append(changes, map[string]any{"type": "page_created", "page": pageRef(p)})
			continue
		}
		if o.ParentID != p.ParentID {
			parent := map[string]any{}
			if op, ok := oldByID[o.ParentID]; ok {
				parent["before"] = pageRef(op)
			}
			if np, ok := newByID[p.ParentID]; ok {
				parent["after"] = pageRef(np)
			}
			changes = append(changes, map[string]any{"type": "page_moved", "page": pageRef(p), "parent": parent})
		}
		attrs := map[string]any{}
		if o.Title != p.Title {
			attrs["title"] = change(o.Title, p.Title)
		}
		if o.Slug != p.Slug && p.Type != "link" {
			attrs["slug"] = change(o.Slug, p.Slug)
		}
		if o.Version != p.Version && p.Type == "document" && len(attrs) == 0 {
			attrs["document"] = map[string]any{}
		}
		if len(attrs) > 0 {
			changes = append(changes, map[string]any{"type": "page_edited", "page": pageRef(p), "attributes": attrs})
		}
	}
	for _, o := range oldPages {
		if _, ok := newByID[o.ID]; !ok {
			changes = append(changes, map[string]any{"type": "page_deleted", "page": pageRef(o)})
		}
	}
	fileRef := func(rev string, f storage.File) (map[string]any, error) {
		m, err := r.fileModel(ctx, spaceID, rev, f)
		if err != nil {
			return nil, err
		}
		return map[string]any{"id": f.ID, "name": f.Name, "contentType": f.ContentType, "downloadURL": m.DownloadURL}, nil
	}
	oldFileByID := map[string]storage.File{}
	for _, f := range oldFiles {
		oldFileByID[f.ID] = f
	}
	newFileIDs := map[string]bool{}
	for _, f := range newFiles {
		newFileIDs[f.ID] = true
		ref, err := fileRef(after, f)
		if err != nil {
			return nil, err
		}
		o, existed := oldFileByID[f.ID]
		switch {
		case !existed:
			changes = append(changes, map[string]any{"type": "file_created", "file": ref})
		case o.Name != f.Name || o.Blob != f.Blob || o.ContentType != f.ContentType:
			attrs := map[string]any{}
			if o.Name != f.Name {
				attrs["name"] = change(o.Name, f.Name)
			}
			if o.ContentType != f.ContentType {
				attrs["contentType"] = change(o.ContentType, f.ContentType)
			}
			if o.Size != f.Size || len(attrs) == 0 {
				attrs["size"] = map[string]any{"before": o.Size, "after": f.Size}
			}
			changes = append(changes, map[string]any{"type": "file_edited", "file": ref, "attributes": attrs})
		}
	}
	for _, o := range oldFiles {
		if !newFileIDs[o.ID] {
			ref, err := fileRef(before, o)
			if err != nil {
				return nil, err
			}
			changes = append(changes, map[string]any{"type": "file_deleted", "file": ref})
		}
	}
	out := &model.RevisionSemanticChanges{Changes: []map[string]any{}}
	if len(changes) > max {
		out.More = ptr(len(changes) - max)
		changes = changes[:max]
	}
	out.Changes = append(out.Changes, changes...)
	return out, nil
}
