package graph

import (
	"bytes"
	"cmp"
	"context"
	"encoding/base64"
	"errors"
	"image"
	_ "image/gif" // image dimensions of uploaded and imported files
	_ "image/jpeg"
	_ "image/png"
	"mime"
	"net/http"
	"path"
	"regexp"
	"slices"
	"strings"

	"docsapi/apierr"
	"docsapi/graph/model"
	"docsapi/importer"
	"docsapi/markdown"
	"docsapi/storage"
)

// Limits of content written through the API.
const (
	maxPageTitle    = 100
	maxMarkdown     = markdown.MaxBody
	maxUploadBytes  = 10 << 20
	maxFileName     = 255
	maxImportURLLen = 2048
)

// maxPageDescription bounds a page's description (characters).
const maxPageDescription = 1000

var slugPattern = regexp.MustCompile(`^[a-z0-9]+(?:-[a-z0-9]+)*$`)

// changeContent makes a new revision of a target's content with edit: the
// space's main content (a new active revision), or with changeRequest a
// change request's content (its head moves; the space needs the same edit
// role and must be live).
func (r *Resolver) changeContent(ctx context.Context, target model.ContentTarget, edit func(t *storage.Tree) error) (contentScope, string, error) {
	return r.changeWith(ctx, target, storage.RevisionChange{Edit: edit})
}

// changePages is changeContent for an edit of pages (create, move, delete,
// update): on the main content and on a change request the storage reads
// and writes only what the edit touches (storage.PageTree).
func (r *Resolver) changePages(ctx context.Context, target model.ContentTarget, edit func(t storage.PageTree) error) (contentScope, string, error) {
	return r.changeWith(ctx, target, storage.RevisionChange{Pages: edit})
}

func (r *Resolver) changeWith(ctx context.Context, target model.ContentTarget, c storage.RevisionChange) (contentScope, string, error) {
	if target.Space == nil || *target.Space == "" {
		return contentScope{}, "", apierr.Invalid("target.space", "is required (with changeRequest: the change request's space)")
	}
	cs, err := r.contentSpace(ctx, *target.Space, true)
	if err != nil {
		return cs, "", err
	}
	rev, err := r.writeRevisionIn(ctx, cs, target.ChangeRequest, c)
	return cs, rev, err
}

// writeRevision makes and activates a new revision of the space's content.
// The new revision is announced as page.changed (webhooks, audit log).
func (r *Resolver) writeRevision(ctx context.Context, cs contentScope, edit func(t *storage.Tree) error) (string, error) {
	return r.writeRevisionOf(ctx, cs, storage.RevisionChange{Edit: edit})
}

// writeRevisionOf is writeRevision for the edit of c (Edit or Pages).
func (r *Resolver) writeRevisionOf(ctx context.Context, cs contentScope, c storage.RevisionChange) (string, error) {
	c.ID = storage.NewID()
	ctx = storage.RecordingChange(ctx, storage.PageChanged(cs.Head.OrganizationID, cs.Head.ID, c.ID))
	c.SpaceID, c.Type, c.Activate, c.Analyzer = cs.Head.ID, "edits", true, r.analyzerFor(ctx)
	return r.Store.CreateRevision(ctx, c)
}

// writeRevisionIn is writeRevisionOf, or with changeRequestID a new head of
// that change request (the caller is recorded as a contributor).
func (r *Resolver) writeRevisionIn(ctx context.Context, cs contentScope, changeRequestID *string, c storage.RevisionChange) (string, error) {
	if changeRequestID == nil || *changeRequestID == "" {
		return r.writeRevisionOf(ctx, cs, c)
	}
	cr, err := r.Store.ChangeRequest(ctx, cs.Head.ID, *changeRequestID)
	if err != nil {
		return "", notFoundAs(err, "change request")
	}
	caller, err := callerOf(ctx)
	if err != nil {
		return "", err
	}
	c.SpaceID, c.ChangeRequest, c.Author, c.Type, c.Analyzer = cs.Head.ID, cr.ID, caller.UserID, "edits", r.analyzerFor(ctx)
	if c.ID == "" {
		c.ID = storage.NewID()
	}
	// Announced (audit log, live updates; no webhook event) as the change
	// request's new head.
	ctx = storage.RecordingChange(ctx, changeRequestChange(storage.Space{ID: cs.Head.ID, OrganizationID: cs.Head.OrganizationID}, cr.ID, "edited", map[string]any{"revision": c.ID}))
	rev, err := r.Store.CreateRevision(ctx, c)
	return rev, changeRequestError(err)
}

// pageAfterChange reads a page of the new revision for a mutation's answer.
func (r *Resolver) pageAfterChange(ctx context.Context, cs contentScope, revID, pageID string) (*model.ContentChange, error) {
	p, err := r.Store.RevisionPage(ctx, revID, pageID, false)
	if err != nil {
		return nil, err
	}
	m := r.pageModel(cs.Head.ID, p)
	r.withBody(m, p, nil, nil, nil)
	return &model.ContentChange{Revision: revID, Page: m}, nil
}

func checkTitle(field, title string) error { return checkLen(field, title, 1, maxPageTitle) }

func checkSlug(slug *string) error {
	if slug == nil {
		return nil
	}
	if err := checkLen("slug", *slug, 1, 100); err != nil {
		return err
	}
	return checkPattern("slug", *slug, slugPattern)
}

// checkMarkdown checks a body's size, then its shape against markdown's
// bounds (nesting, links, nodes) in one linear pass, before anything
// parses it.
func checkMarkdown(md *string) error {
	if md == nil {
		return nil
	}
	return checkBody("markdown", *md)
}

func checkBody(field, md string) error {
	if len(md) > maxMarkdown {
		return apierr.Invalid(field, "must be at most %d bytes", maxMarkdown)
	}
	if err := markdown.Check(md); err != nil {
		return apierr.Invalid(field, "%s", err)
	}
	return nil
}

// newTreePage is a new document page.
func newTreePage(title, slug, md string) *storage.TreePage {
	if slug == "" {
		slug = markdown.Slugify(title)
	}
	return &storage.TreePage{ContentPage: storage.ContentPage{ID: storage.NewID(), Type: "document", Title: title, Slug: slug, Markdown: md}, Dirty: true}
}

// parentOf checks the parent a page goes under ("" the top level): a
// document or group page of the revision.
func parentOf(t storage.PageTree, parent *string) (string, error) {
	if parent == nil || *parent == "" {
		return "", nil
	}
	p, err := t.Page(*parent)
	if err != nil {
		return "", err
	}
	if p == nil {
		return "", apierr.Invalid("parent", "page %q does not exist in the space", *parent)
	}
	if p.Type == "link" {
		return "", apierr.Invalid("parent", "a link page cannot hold pages")
	}
	return p.ID, nil
}

func (r *Resolver) createPage(ctx context.Context, target model.ContentTarget, in model.CreatePageInput) (*model.ContentChange, error) {
	typ := model.PageType("document")
	if in.Type != nil {
		typ = *in.Type
	}
	if err := firstErr(checkTitle("title", in.Title), checkSlug(in.Slug), checkMarkdown(in.Markdown),
		checkLenPtr("emoji", in.Emoji, 0, 50), checkLenPtr("icon", in.Icon, 0, 50), checkLenPtr("description", in.Description, 0, maxPageDescription)); err != nil {
		return nil, err
	}
	switch typ {
	case "document":
	case "group":
		if in.Parent != nil {
			return nil, apierr.Invalid("parent", "group pages are top-level only")
		}
	case "link":
		if kind, _ := in.Target["kind"].(string); kind == "" {
			return nil, apierr.Invalid("target", "link pages need a content reference {kind, ...}")
		}
		if err := r.checkLinkTarget(ctx, in.Target); err != nil {
			return nil, err
		}
	case "computed":
		c, err := checkComputed(in.Computed)
		if err != nil {
			return nil, err
		}
		in.Computed = c
	default:
		return nil, apierr.Invalid("type", "must be one of document, group, link, computed")
	}
	if typ != "computed" && in.Computed != nil {
		return nil, apierr.Invalid("computed", "only computed pages have a computed source")
	}
	if err := checkPageSettings(string(typ), in.Layout, in.Cover, in.Variables); err != nil {
		return nil, err
	}
	page := newTreePage(in.Title, deref(in.Slug), deref(in.Markdown))
	page.Type = string(typ)
	if page.Slug == "" {
		page.Slug = "page"
	}
	page.Meta = storage.PageMeta{Emoji: deref(in.Emoji), Icon: deref(in.Icon), Description: deref(in.Description), Target: in.Target, Computed: in.Computed}
	if in.Hidden != nil {
		page.Meta.Hidden = *in.Hidden
	}
	if typ != "document" {
		page.Markdown = ""
	}
	ctx, err := prepareBodies(ctx, page.Markdown)
	if err != nil {
		return nil, err
	}
	cs, rev, err := r.changePages(ctx, target, func(t storage.PageTree) error {
		if err := applyPageSettings(t.Files, page, in.Layout, in.Cover, in.Variables); err != nil {
			return err
		}
		parent, err := parentOf(t, in.Parent)
		if err != nil {
			return err
		}
		if id, _ := in.Target["page"].(string); typ == "link" && id != "" && in.Target["space"] == nil {
			// A page of this space: of the content being edited.
			if p, err := t.Page(id); err != nil || p == nil {
				return cmp.Or[error](err, apierr.Invalid("target.page", "page %q does not exist in the space", id))
			}
		}
		return t.Insert(page, parent, in.Index)
	})
	if err != nil {
		return nil, err
	}
	return r.pageAfterChange(ctx, cs, rev, page.ID)
}

func deref(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}

func (r *Resolver) updatePage(ctx context.Context, target model.ContentTarget, pageID string, in model.UpdatePageInput) (*model.ContentChange, error) {
	if in.Title != nil {
		if err := checkTitle("title", *in.Title); err != nil {
			return nil, err
		}
	}
	if err := firstErr(checkSlug(in.Slug), checkMarkdown(in.Markdown), checkLenPtr("emoji", in.Emoji, 0, 50),
		checkLenPtr("icon", in.Icon, 0, 50), checkLenPtr("description", in.Description, 0, maxPageDescription)); err != nil {
		return nil, err
	}
	if in.Computed != nil {
		c, err := checkComputed(in.Computed)
		if err != nil {
			return nil, err
		}
		in.Computed = c
	}
	ctx, err := prepareBodies(ctx, deref(in.Markdown))
	if err != nil {
		return nil, err
	}
	cs, rev, err := r.changePages(ctx, target, func(t storage.PageTree) error {
		p, err := t.Page(pageID)
		if err != nil {
			return err
		}
		if p == nil {
			return apierr.NotFound("page")
		}
		if in.Computed != nil {
			if p.Type != "computed" {
				return apierr.Invalid("computed", "only computed pages have a computed source")
			}
			p.Meta.Computed = in.Computed
		}
		set := func(dst *string, v *string) {
			if v != nil {
				*dst = *v
			}
		}
		setB := func(dst *bool, v *bool) {
			if v != nil {
				*dst = *v
			}
		}
		if in.Layout != nil || in.Cover != nil || in.Variables != nil {
			if err := checkPageSettings(p.Type, in.Layout, in.Cover, in.Variables); err != nil {
				return err
			}
			if err := applyPageSettings(t.Files, p, in.Layout, in.Cover, in.Variables); err != nil {
				return err
			}
		}
		set(&p.Title, in.Title)
		set(&p.Slug, in.Slug)
		set(&p.Meta.Emoji, in.Emoji)
		set(&p.Meta.Icon, in.Icon)
		set(&p.Meta.Description, in.Description)
		if in.Markdown != nil && p.Type == "document" {
			p.SetBody(*in.Markdown)
		}
		setB(&p.Meta.Hidden, in.Hidden)
		setB(&p.Meta.NoIndex, in.NoIndex)
		setB(&p.Meta.NoRobotsIndex, in.NoRobotsIndex)
		p.Dirty = true
		return nil
	})
	if err != nil {
		return nil, err
	}
	return r.pageAfterChange(ctx, cs, rev, pageID)
}

func (r *Resolver) movePage(ctx context.Context, target model.ContentTarget, pageID string, in model.MovePageInput) (*model.ContentChange, error) {
	cs, rev, err := r.changePages(ctx, target, func(t storage.PageTree) error {
		p, err := t.Page(pageID)
		if err != nil {
			return err
		}
		if p == nil {
			return apierr.NotFound("page")
		}
		if in.Parent != nil {
			if *in.Parent == pageID {
				return apierr.Invalid("parent", "a page cannot be moved under itself")
			}
			// Up the new parent's ancestors: O(depth), not the subtree.
			inside, err := t.IsUnder(*in.Parent, pageID)
			if err != nil {
				return err
			}
			if inside {
				return apierr.Invalid("parent", "a page cannot be moved under its own descendant")
			}
			if p.Type == "group" {
				return apierr.Invalid("parent", "group pages are top-level only")
			}
		}
		parent, err := parentOf(t, in.Parent)
		if err != nil {
			return err
		}
		return t.Move(pageID, parent, in.Index)
	})
	if err != nil {
		return nil, err
	}
	return r.pageAfterChange(ctx, cs, rev, pageID)
}

func (r *Resolver) deletePage(ctx context.Context, target model.ContentTarget, pageID string) (*model.ContentChange, error) {
	_, rev, err := r.changePages(ctx, target, func(t storage.PageTree) error {
		p, err := t.Page(pageID)
		if err != nil {
			return err
		}
		if p == nil {
			return apierr.NotFound("page")
		}
		return t.Delete(pageID)
	})
	if err != nil {
		return nil, err
	}
	return &model.ContentChange{Revision: rev}, nil
}

// checkLinkTarget resolves the ids a link page's target names for the
// caller (the tenant rule): a space or collection they cannot see, in
// their organization or another, and a page of another space that is not
// in its content, are refused as a 400 naming the field, the same answer
// as for an id that does not exist. A page of the page's own space is
// checked in the edit.
func (r *Resolver) checkLinkTarget(ctx context.Context, target map[string]any) error {
	ids := func(key string) string { id, _ := target[key].(string); return id }
	if id := ids("collection"); id != "" {
		if _, _, err := r.collectionScope(ctx, id, chainOnly); err != nil {
			return refusedAs(ctx, err, "target.collection", "collection", id)
		}
	}
	spaceID := ids("space")
	if spaceID == "" {
		return nil
	}
	cs, err := r.contentSpace(ctx, spaceID, false)
	if err != nil {
		return refusedAs(ctx, err, "target.space", "space", spaceID)
	}
	if id := ids("page"); id != "" {
		if _, err := r.Store.RevisionPage(ctx, cs.Head.Revision, id, false); err != nil {
			return refusedAs(ctx, notFoundAs(err, "page"), "target.page", "page", id)
		}
	}
	return nil
}

// refusedAs turns a refusal to resolve an id (not found, forbidden) into
// a 400 naming field; other errors (the database's, a client gone) stay.
func refusedAs(ctx context.Context, err error, field, what, id string) error {
	var ae *apierr.Error
	if ctx.Err() != nil || !errors.As(err, &ae) || ae.Status >= 500 {
		return err
	}
	return apierr.Invalid(field, "%s %q does not exist", what, id)
}

// newFile makes a revision file of bytes, reading image dimensions from
// the image itself.
func newFile(name, contentType string, data []byte) *storage.File {
	if contentType == "" {
		contentType = mime.TypeByExtension(strings.ToLower(path.Ext(name)))
	}
	if contentType == "" {
		contentType = http.DetectContentType(data)
	}
	if mt, _, err := mime.ParseMediaType(contentType); err == nil {
		contentType = mt
	}
	f := &storage.File{ID: storage.NewID(), Name: name, ContentType: contentType, Bytes: data}
	if cfg, _, err := image.DecodeConfig(bytes.NewReader(data)); err == nil {
		f.Width, f.Height = &cfg.Width, &cfg.Height
	}
	return f
}

func (r *Resolver) uploadFile(ctx context.Context, target model.ContentTarget, in model.UploadFileInput) (*model.ContentChange, error) {
	if err := checkLen("name", in.Name, 1, maxFileName); err != nil {
		return nil, err
	}
	if strings.ContainsAny(in.Name, "/\\") {
		return nil, apierr.Invalid("name", "must not contain slashes")
	}
	data, err := base64.StdEncoding.DecodeString(in.Data)
	if err != nil {
		return nil, apierr.Invalid("data", "must be base64")
	}
	if len(data) > maxUploadBytes {
		return nil, apierr.Invalid("data", "must be at most %d bytes", maxUploadBytes)
	}
	f := newFile(in.Name, deref(in.ContentType), data)
	cs, rev, err := r.changePages(ctx, target, func(t storage.PageTree) error { return t.AddFile(f) })
	if err != nil {
		return nil, err
	}
	stored, err := r.Store.RevisionFile(ctx, rev, f.ID)
	if err != nil {
		return nil, err
	}
	m, err := r.fileModel(ctx, cs.Head.ID, rev, stored)
	return &model.ContentChange{Revision: rev, File: m}, err
}

// importContent fetches and converts outside content, then adds it to the
// space (or into one page) as a new active revision, or to a change
// request's content with changeRequestID.
func (r *Resolver) importContent(ctx context.Context, spaceID string, changeRequestID, pageID *string, in model.ImportContentInput) (*model.ImportContentResult, error) {
	cs, err := r.contentSpace(ctx, spaceID, true)
	if err != nil {
		return nil, err
	}
	into, err := r.readRevision(ctx, cs, nil, changeRequestID)
	if err != nil {
		return nil, err
	}
	if err := checkURL("url", in.URL, maxImportURLLen); err != nil {
		return nil, err
	}
	if err := checkEnum("source", in.Source, model.ImportSources.List()); err != nil {
		return nil, err
	}
	if !slices.Contains(importer.Sources, string(in.Source)) {
		return nil, apierr.Invalid("source", "%s is not supported; supported sources are %s", in.Source, strings.Join(importer.Sources, ", "))
	}
	if pageID != nil {
		if _, err := r.Store.RevisionPage(ctx, into.ID, *pageID, false); err != nil {
			return nil, notFoundAs(err, "page")
		}
	}
	res, err := importer.Import(ctx, r.importFetcher(cs.Space.OrganizationID), string(in.Source), in.URL, importer.Limits{})
	if err != nil {
		var fe *importer.FetchError
		var ce *importer.Error
		switch {
		case errors.As(err, &fe):
			return nil, apierr.New(http.StatusBadRequest, "%s", fe.Msg)
		case errors.As(err, &ce):
			return nil, apierr.Invalid("url", "%s", ce.Msg)
		}
		return nil, err
	}
	res.AssignReusableIDs(storage.NewID)
	// Parsed here, not under the writer; a client gone by now writes nothing.
	ctx, err = prepareBodies(ctx, importedBodies(res.Pages, nil)...)
	if err != nil {
		return nil, err
	}
	// Batched: stored in batches, then published by one short write; the
	// edit may run again (the base moved meanwhile), so it only adds.
	rev, err := r.writeRevisionIn(ctx, cs, changeRequestID, storage.RevisionChange{Batched: true, Edit: func(t *storage.Tree) error {
		for _, f := range res.Files {
			t.Files = append(t.Files, newFile(f.Name, f.ContentType, f.Data))
		}
		for _, rc := range res.Reusable { // GitBook's .gitbook/includes
			t.ReusableContents = append(t.ReusableContents, map[string]any{"id": rc.ID, "title": rc.Title, reusableBodyKey: rc.Markdown})
		}
		if pageID != nil {
			for _, p := range res.Pages {
				if p.Kind == "group" {
					p.Kind = "" // groups are top-level only: under a page, a SUMMARY group is a page of its own
				}
			}
		}
		pages := treePages(res.Pages)
		if pageID == nil {
			t.Pages = append(t.Pages, pages...)
			return nil
		}
		p, _, _ := t.Find(*pageID)
		if p == nil {
			return apierr.NotFound("page")
		}
		// One imported page replaces the page's body; several become its children.
		if len(pages) == 1 && len(pages[0].Children) == 0 && p.Type == "document" {
			p.SetBody(pages[0].Markdown)
			res.Imported = len(res.Files) + 1
			return nil
		}
		p.Children = append(p.Children, pages...)
		return nil
	}})
	if err != nil {
		return nil, err
	}
	return &model.ImportContentResult{Revision: rev, ImportedResources: res.Imported, TotalResources: res.Total}, nil
}

// importedBodies appends the bodies of pages and their children to out.
func importedBodies(pages []*importer.Page, out []string) []string {
	for _, p := range pages {
		out = importedBodies(p.Children, append(out, p.Markdown))
	}
	return out
}

// treePages turns imported pages into new tree pages: documents, SUMMARY
// groups, and links to an imported page's anchor or to a URL, with the
// fields front matter gave.
func treePages(in []*importer.Page) []*storage.TreePage {
	made := map[*importer.Page]*storage.TreePage{}
	out := treePagesOf(in, made, "")
	for p, tp := range made {
		if p.Kind == "link" && p.Target != nil && made[p.Target] != nil {
			tp.Meta.Target = map[string]any{"kind": "anchor", "page": made[p.Target].ID, "anchor": p.Anchor}
		}
	}
	return out
}

func treePagesOf(in []*importer.Page, made map[*importer.Page]*storage.TreePage, parentPath string) []*storage.TreePage {
	out := make([]*storage.TreePage, 0, len(in))
	for _, p := range in {
		title := p.Title
		if r := []rune(title); len(r) > maxPageTitle {
			title = string(r[:maxPageTitle])
		}
		tp := newTreePage(title, p.Slug, p.Markdown)
		switch p.Kind {
		case "group":
			tp.Type, tp.Markdown = "group", ""
		case "link":
			tp.Type, tp.Markdown = "link", ""
			if p.URL != "" {
				tp.Meta.Target = map[string]any{"kind": "url", "url": p.URL}
			}
		}
		desc := p.Description
		if r := []rune(desc); len(r) > maxPageDescription {
			desc = string(r[:maxPageDescription])
		}
		tp.Meta.Description, tp.Meta.Hidden = desc, p.Hidden
		if len([]rune(p.Icon)) <= 50 {
			tp.Meta.Icon = p.Icon
		}
		if len(p.Layout) > 0 && checkPageSettings(tp.Type, p.Layout, nil, nil) == nil {
			tp.Meta.Layout = p.Layout
		}
		treePath := tp.Slug
		if parentPath != "" {
			treePath = parentPath + "/" + tp.Slug
		}
		if p.Path != "" && tp.Type == "document" {
			tp.Meta.Git = &storage.PageGitSource{File: p.Path, TreePath: treePath}
		}
		made[p] = tp
		tp.Children = treePagesOf(p.Children, made, treePath)
		out = append(out, tp)
	}
	return out
}
