package graph

import (
	"context"

	"docsapi/auth"
	"docsapi/graph/model"
	"docsapi/storage"
)

// locationSet builds the ContentLocation objects of one answer (a page of
// links or backlinks), as 0.130.0 shapes them: objects, not ids. What the
// locations share is read once per answer: the organization, the space,
// the version (the revision with its pages and files, or the change request
// read); link targets in other spaces or in collections are read with one
// query each for the whole page of results.
type locationSet struct {
	org         *model.Organization
	space       *model.Space
	version     *model.VersionContext
	pages       map[string]*model.RevisionPage
	files       map[string]*model.RevisionFile
	spaces      map[string]*model.Space
	collections map[string]*model.Collection
}

// newLocationSet reads what the locations in rev share; cr is the change
// request the revision was read through (nil: the space's own revision).
func (r *Resolver) newLocationSet(ctx context.Context, cs contentScope, rev storage.Revision, cr *storage.ChangeRequest) (*locationSet, error) {
	c, err := callerOf(ctx)
	if err != nil {
		return nil, err
	}
	org, m, err := r.Store.OrganizationFor(ctx, cs.Head.OrganizationID, c.UserID)
	if err != nil {
		return nil, err
	}
	if c.Kind == auth.KindInstallation {
		m = &storage.Membership{Role: &installationRole}
	}
	revision, pages, err := r.revisionModel(ctx, cs, rev)
	if err != nil {
		return nil, err
	}
	ls := &locationSet{org: r.orgModel(org, m), space: r.spaceModel(cs.Space, cs.Scope.Role), pages: pages,
		files: make(map[string]*model.RevisionFile, len(revision.Files)), version: &model.VersionContext{Type: "revision", Revision: revision}}
	for _, f := range revision.Files {
		ls.files[f.ID] = f
	}
	if cr != nil {
		crm, err := r.oneChangeRequest(ctx, *cr)
		if err != nil {
			return nil, err
		}
		ls.version = &model.VersionContext{Type: "changeRequest", ChangeRequest: crm}
	}
	return ls, nil
}

// loadTargets reads the spaces and collections the usages link to (one
// query each); those the caller cannot see stay URL locations.
func (r *Resolver) loadTargets(ctx context.Context, ls *locationSet, cs contentScope, usages []storage.LinkUsage) error {
	var spaceIDs, collectionIDs []string
	for _, u := range usages {
		switch {
		case u.Target == "":
		case u.Kind == "space":
			spaceIDs = append(spaceIDs, u.Target)
		case u.Kind == "collection":
			collectionIDs = append(collectionIDs, u.Target)
		}
	}
	spaces, err := r.Store.SpacesByIDs(ctx, spaceIDs)
	if err != nil {
		return err
	}
	collections, err := r.Store.CollectionsByIDs(ctx, collectionIDs)
	if err != nil {
		return err
	}
	ls.spaces, ls.collections = map[string]*model.Space{}, map[string]*model.Collection{}
	access := cs.Scope.Access
	if err := access.primeSpaces(spaceIDs...); err != nil {
		return err
	}
	for id, sp := range spaces {
		if sp.OrganizationID != cs.Head.OrganizationID || sp.DeletedAt != nil || access == nil {
			continue
		}
		if role := access.spaceRole(sp); role > 0 {
			ls.spaces[id] = r.spaceModel(sp, role)
		}
	}
	for id, col := range collections {
		if col.OrganizationID != cs.Head.OrganizationID || access == nil {
			continue
		}
		if role := access.collectionRole(id); role > 0 {
			ls.collections[id] = r.collectionModel(col, role)
		}
	}
	return nil
}

// inRevision is a location of kind in the set's space and version.
func (ls *locationSet) inRevision(kind string) *model.ContentLocation {
	return &model.ContentLocation{Kind: kind, Organization: ls.org, Space: ls.space, VersionContext: ls.version}
}

// page is the location of a page of the revision (nil when it has none).
func (ls *locationSet) page(id string) *model.ContentLocation {
	p, ok := ls.pages[id]
	if !ok {
		return nil
	}
	l := ls.inRevision("page")
	l.Page = p
	return l
}

// target is where a link points: a page, file, space or collection object,
// or its URL when the target is not one the caller can read.
func (ls *locationSet) target(u storage.LinkUsage) *model.ContentLocation {
	if u.Target != "" {
		switch u.Kind {
		case "page":
			if l := ls.page(u.Target); l != nil {
				return l
			}
		case "file":
			if f, ok := ls.files[u.Target]; ok {
				l := ls.inRevision("file")
				l.File = f
				return l
			}
		case "space":
			if s, ok := ls.spaces[u.Target]; ok {
				return &model.ContentLocation{Kind: "space", Organization: ls.org, Space: s}
			}
		case "collection":
			if c, ok := ls.collections[u.Target]; ok {
				return &model.ContentLocation{Kind: "collection", Organization: ls.org, Collection: c}
			}
		}
	}
	dest := u.Dest
	return &model.ContentLocation{Kind: "url", URL: &dest}
}
