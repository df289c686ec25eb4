package graph

import (
	"context"
	"fmt"

	"docsapi/gitlayout"
	"docsapi/storage"
)

// revisionRepository lays out a revision of a space the caller may read
// in GitBook's repository layout (gitlayout.WriteRepository), for Git
// exports. It reads the tree, the bodies and the files' bytes in a few
// queries whatever the number of pages (none a page); another
// organization's space or an unknown revision is not found.
func (r *Resolver) revisionRepository(ctx context.Context, spaceID, revisionID string) (map[string][]byte, error) {
	cs, err := r.contentSpace(ctx, spaceID, false)
	if err != nil {
		return nil, err
	}
	rev, err := r.revisionOf(ctx, cs, &revisionID)
	if err != nil {
		return nil, err
	}
	pages, err := r.Store.RevisionPages(ctx, rev.ID)
	if err != nil {
		return nil, err
	}
	bodies, err := r.Store.RevisionBodies(ctx, rev.ID)
	if err != nil {
		return nil, err
	}
	files, err := r.Store.RevisionFiles(ctx, rev.ID)
	if err != nil {
		return nil, err
	}
	blobs := make([]string, 0, len(files))
	for _, f := range files {
		blobs = append(blobs, f.Blob)
	}
	data, err := r.Store.FilesBytes(ctx, blobs)
	if err != nil {
		return nil, err
	}
	in := gitlayout.RepositoryInput{Pages: layoutPages(pages, bodies)}
	for _, rc := range rev.ReusableContents {
		id, _ := rc["id"].(string)
		title, _ := rc["title"].(string)
		in.Reusable = append(in.Reusable, gitlayout.Reusable{ID: id, Title: title, Markdown: reusableBody(rc)})
	}
	for _, f := range files {
		b, ok := data[f.Blob]
		if !ok {
			return nil, fmt.Errorf("file %s: blob %s is not stored", f.ID, f.Blob)
		}
		in.Files = append(in.Files, gitlayout.File{ID: f.ID, Name: f.Name, Data: b})
	}
	return gitlayout.WriteRepository(in)
}

// layoutPages rebuilds the page tree from the pages in tree order
// (parents before their children, siblings in order).
func layoutPages(pages []storage.ContentPage, bodies map[string]string) []*gitlayout.Page {
	byID := make(map[string]*gitlayout.Page, len(pages))
	var top []*gitlayout.Page
	for _, p := range pages {
		lp := &gitlayout.Page{ID: p.ID, Kind: p.Type, Title: p.Title, Slug: p.Slug, Markdown: bodies[p.ID],
			Description: p.Meta.Description, Icon: p.Meta.Icon, Hidden: p.Meta.Hidden, Layout: p.Meta.Layout, Target: p.Meta.Target}
		if g := p.Meta.Git; g != nil {
			lp.Source, lp.SourceTreePath = g.File, g.TreePath
		}
		if p.Type == "computed" {
			lp.Kind = "document" // written as the Markdown it holds
		}
		byID[p.ID] = lp
		if parent := byID[p.ParentID]; p.ParentID != "" && parent != nil {
			parent.Children = append(parent.Children, lp)
		} else {
			top = append(top, lp)
		}
	}
	return top
}
