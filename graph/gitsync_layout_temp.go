// temporary; replaced by branch gitmd's revisionRepository at merge

package graph

import (
	"context"
	"fmt"
	"path"
	"strings"

	"docsapi/storage"
)

// revisionRepository writes a revision as a repository tree: one .md per
// document page (a page with children as <path>/README.md), SUMMARY.md
// with the page tree, and the revision's files under .gitbook/assets.
func (r *Resolver) revisionRepository(ctx context.Context, spaceID, revisionID string) (map[string][]byte, error) {
	pages, err := r.Store.RevisionPages(ctx, revisionID)
	if err != nil {
		return nil, err
	}
	bodies, err := r.Store.RevisionBodies(ctx, revisionID)
	if err != nil {
		return nil, err
	}
	files, err := r.Store.RevisionFiles(ctx, revisionID)
	if err != nil {
		return nil, err
	}
	out := map[string][]byte{}
	hasChildren := map[string]bool{}
	for _, p := range pages {
		hasChildren[p.ParentID] = true
	}
	dirOf := map[string]string{"": ""}
	depth := map[string]int{"": -1}
	var summary strings.Builder
	summary.WriteString("# Table of contents\n\n")
	for _, p := range pages { // tree order: a parent before its children
		dir := dirOf[p.ParentID]
		depth[p.ID] = depth[p.ParentID] + 1
		name := path.Join(dir, p.Slug+".md")
		if hasChildren[p.ID] {
			dirOf[p.ID] = path.Join(dir, p.Slug)
			name = path.Join(dir, p.Slug, "README.md")
		}
		if p.Type != "document" {
			continue
		}
		if _, taken := out[name]; taken {
			name = strings.TrimSuffix(name, ".md") + "-" + p.ID + ".md"
		}
		out[name] = []byte(bodies[p.ID])
		fmt.Fprintf(&summary, "%s* [%s](%s)\n", strings.Repeat("  ", depth[p.ID]), p.Title, name)
	}
	out["SUMMARY.md"] = []byte(summary.String())
	for _, f := range files {
		data, err := r.Store.FileBytes(ctx, f.Blob)
		if err != nil {
			return nil, err
		}
		out[".gitbook/assets/"+path.Base(f.Name)] = data
	}
	return out, nil
}

var _ = storage.ErrNotFound
