package graph

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"net/url"
	"path"
	"slices"
	"strings"
	"time"

	"github.com/99designs/gqlgen/graphql"
	"github.com/golang-jwt/jwt/v5"

	"docsapi/apierr"
	"docsapi/graph/model"
	"docsapi/markdown"
	"docsapi/storage"
)

// contentScope is a space whose content the caller may read (or change).
type contentScope struct {
	Head storage.SpaceHead
	// Space and Scope are the space as read and the caller's access to it
	// (content locations answer the space object).
	Space storage.Space
	Scope ContentScope
}

// contentSpace loads a space for a content read (edit false: the space must
// be visible to the caller, which is its view permission) or a content
// change (edit true: the edit role on the space, and the space must be live,
// through SpaceForContentChange). Invisible spaces answer 404.
func (r *Resolver) contentSpace(ctx context.Context, spaceID string, edit bool) (contentScope, error) {
	if edit {
		sp, s, err := r.SpaceForContentChange(ctx, spaceID, "edit")
		return contentScope{Head: storage.HeadOf(sp), Space: sp, Scope: s}, err
	}
	sp, s, err := r.spaceScope(ctx, spaceID, chainOnly, false)
	if err != nil {
		return contentScope{}, err
	}
	return contentScope{Head: storage.HeadOf(sp), Space: sp, Scope: s}, s.require("read", "reading the space's content")
}

// readableRevision is readRevision for a read of spaceID by the caller:
// the space's content scope (404 unless they may read it), then the
// revision.
func (r *Resolver) readableRevision(ctx context.Context, spaceID string, revID, changeRequestID *string) (contentScope, storage.Revision, error) {
	cs, err := r.contentSpace(ctx, spaceID, false)
	if err != nil {
		return cs, storage.Revision{}, err
	}
	rev, err := r.readRevision(ctx, cs, revID, changeRequestID)
	return cs, rev, err
}

// readRevision resolves the revision a content read is about: the head of
// the change request changeRequestID (an id or a number) when given, else
// as revisionOf.
func (r *Resolver) readRevision(ctx context.Context, cs contentScope, revID, changeRequestID *string) (storage.Revision, error) {
	rev, _, err := r.readVersion(ctx, cs, revID, changeRequestID)
	return rev, err
}

// readVersion is readRevision that also returns the change request read
// through (nil without changeRequestID).
func (r *Resolver) readVersion(ctx context.Context, cs contentScope, revID, changeRequestID *string) (storage.Revision, *storage.ChangeRequest, error) {
	var through *storage.ChangeRequest
	if changeRequestID != nil && *changeRequestID != "" {
		cr, err := r.Store.ChangeRequest(ctx, cs.Head.ID, *changeRequestID)
		if err != nil {
			return storage.Revision{}, nil, notFoundAs(err, "change request")
		}
		revID, through = &cr.Revision, &cr
	}
	rev, err := r.revisionOf(ctx, cs, revID)
	return rev, through, err
}

// revisionOf resolves the revision a read is about: revID of the space, or
// the active one.
func (r *Resolver) revisionOf(ctx context.Context, cs contentScope, revID *string) (storage.Revision, error) {
	id := cs.Head.Revision
	if revID != nil && *revID != "" {
		id = *revID
	}
	rev, err := r.Store.RevisionByID(ctx, cs.Head.ID, id)
	return rev, notFoundAs(err, "revision")
}

// appURL is the location of content in the app (docsapi serves no app
// pages; the URLs are stable identifiers for front-ends).
func (r *Resolver) appURL(spaceID string, parts ...string) string {
	u := r.Config.PublicURL + "/app/spaces/" + spaceID
	for _, p := range parts {
		if p != "" {
			u += "/" + p
		}
	}
	return u
}

func defaultLayout() *model.PageLayout {
	return &model.PageLayout{Width: "default", Cover: true, CoverSize: "hero", Title: true, Description: true,
		TableOfContents: true, Outline: true, Pagination: true, Metadata: true}
}

func layoutOf(m map[string]any) *model.PageLayout {
	l := defaultLayout()
	if w, ok := m["width"].(string); ok && model.PageWidth(w).IsValid() {
		l.Width = model.PageWidth(w)
	}
	if c, ok := m["coverSize"].(string); ok && model.PageCoverSize(c).IsValid() {
		l.CoverSize = model.PageCoverSize(c)
	}
	for key, dst := range map[string]*bool{"cover": &l.Cover, "title": &l.Title, "description": &l.Description,
		"tableOfContents": &l.TableOfContents, "outline": &l.Outline, "pagination": &l.Pagination, "metadata": &l.Metadata} {
		if v, ok := m[key].(bool); ok {
			*dst = v
		}
	}
	return l
}

func strPtr(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

func boolPtr(b bool) *bool { return &b }

// pageModel converts a page without its body and children.
func (r *Resolver) pageModel(spaceID string, p storage.ContentPage) *model.RevisionPage {
	created, updated := model.Time(p.CreatedAt), model.Time(p.UpdatedAt)
	m := &model.RevisionPage{ID: p.ID, Title: p.Title, Emoji: strPtr(p.Meta.Emoji), Icon: strPtr(p.Meta.Icon),
		CreatedAt: &created, UpdatedAt: &updated, Type: model.PageType(p.Type)}
	switch p.Type {
	case "link":
		m.Kind = "link"
		m.Target = p.Meta.Target
		m.Href = strPtr(p.Meta.Href)
		m.Hidden = boolPtr(p.Meta.Hidden)
		return m
	case "group":
		m.Kind = "group"
	default:
		m.Kind = "sheet"
		m.Urls = &model.PageUrls{App: r.appURL(spaceID, p.Path)}
		m.Description = strPtr(p.Meta.Description)
		m.Layout = layoutOf(p.Meta.Layout)
		m.Cover = p.Meta.Cover
		m.Variables = p.Meta.Variables
	}
	m.Slug, m.Path = &p.Slug, &p.Path
	m.Pages = []*model.RevisionPage{}
	m.Hidden, m.NoIndex, m.NoRobotsIndex = boolPtr(p.Meta.Hidden), boolPtr(p.Meta.NoIndex), boolPtr(p.Meta.NoRobotsIndex)
	if p.Type == "computed" { // the reference's computed page has no kind
		m.Kind, m.Computed = "", p.Meta.Computed
	}
	return m
}

// revisionModel reads a revision's pages and files and converts it; it
// also returns the page models by id (content locations point into them).
// The page models are shared between requests (sharedPageTree): read them,
// never change them.
func (r *Resolver) revisionModel(ctx context.Context, cs contentScope, rev storage.Revision) (*model.Revision, map[string]*model.RevisionPage, error) {
	spaceID := cs.Head.ID
	pages, err := r.Store.RevisionPages(ctx, rev.ID)
	if err != nil {
		return nil, nil, err
	}
	files, err := r.Store.RevisionFiles(ctx, rev.ID)
	if err != nil {
		return nil, nil, err
	}
	fm, err := r.fileModels(ctx, spaceID, rev.ID, files)
	if err != nil {
		return nil, nil, err
	}
	mergedFrom, err := r.mergedFrom(ctx, cs, rev)
	if err != nil {
		return nil, nil, err
	}
	urls, err := r.revisionURLs(ctx, cs, rev.ID)
	if err != nil {
		return nil, nil, err
	}
	gitCommit, err := r.revisionGit(ctx, rev.ID)
	if err != nil {
		return nil, nil, err
	}
	top, byID := r.sharedPageTree(spaceID, rev.ID, pages)
	m := &model.Revision{Object: "revision", ID: rev.ID, Type: rev.Type, Parents: rev.Parents, Pages: top,
		Files: fm, ReusableContents: reusableContentModels(rev.ReusableContents), Variables: rev.Variables, CreatedAt: model.Time(rev.CreatedAt),
		Urls: urls, MergedFrom: mergedFrom, Git: gitCommit}
	return m, byID, nil
}

// pageTreeInto nests a revision's pages (in tree order) under their
// parents, filling byID with every page's model.
func (r *Resolver) pageTreeInto(spaceID string, pages []storage.ContentPage, byID map[string]*model.RevisionPage) []*model.RevisionPage {
	top := []*model.RevisionPage{}
	for _, p := range pages {
		m := r.pageModel(spaceID, p)
		byID[p.ID] = m
		if parent := byID[p.ParentID]; parent != nil {
			parent.Pages = append(parent.Pages, m)
		} else {
			top = append(top, m)
		}
	}
	return top
}

// withBody adds the body of a document page in format (markdown default).
// The document is readerDocument's (links: pageLinkTargets), from
// markdown's cache: built once per page content and references, not per
// read.
func (r *Resolver) withBody(m *model.RevisionPage, p storage.ContentPage, format *model.PageFormat, files []storage.File, links map[string]storage.LinkTarget) {
	if p.Type != "document" {
		return
	}
	if format != nil && *format == "document" {
		m.Document = readerDocument(p.Markdown, files, links)
		return
	}
	md := p.Markdown
	m.Markdown = &md
}

// filesKey names the file references refResolver(files) makes: a document
// is rebuilt when a file it may name is added, renamed or replaced.
func filesKey(files []storage.File) string {
	h := sha256.New()
	for _, f := range files {
		h.Write([]byte(f.ID + "\x00" + f.Name + "\x00"))
	}
	return hex.EncodeToString(h.Sum(nil))
}

// selected tells whether the GraphQL field being resolved selects field
// (REST calls, outside any GraphQL field, and wholeRead's want everything).
func selected(ctx context.Context, field string) bool {
	if ctx.Value(wholeReadKey{}) != nil || graphql.GetFieldContext(ctx) == nil || graphql.GetOperationContext(ctx) == nil {
		return true
	}
	for _, f := range graphql.CollectFieldsCtx(ctx, nil) {
		if f.Name == field {
			return true
		}
	}
	return false
}

// wholeReadKey marks a context whose reads answer every field whatever
// the GraphQL field being resolved selects (wholeRead).
type wholeReadKey struct{}

// wholeRead is ctx for a resolver that reads a model to answer a part of
// it as a scalar (pageDocumentInRevision answers a page's document as
// JSON: its field selects nothing, yet wants the document).
func wholeRead(ctx context.Context) context.Context {
	return context.WithValue(ctx, wholeReadKey{}, true)
}

// refResolver maps a document link destination to a content reference:
// file names of the revision become file references.
func refResolver(files []storage.File) markdown.RefFunc {
	byName := map[string]string{}
	for _, f := range files {
		byName[f.Name] = f.ID
	}
	return func(dest string) map[string]any {
		if id, ok := byName[path.Base(dest)]; ok && !strings.Contains(dest, "://") {
			return map[string]any{"kind": "file", "file": id}
		}
		return map[string]any{"kind": "url", "url": dest}
	}
}

// linkedRefResolver is refResolver that first turns the destinations the
// page's links resolved to (storage.PageLinkTargets: relative links to
// pages and files of the revision, as an import writes them) into 0.130.0
// page references (anchor references when the link names a place in the
// page) and file references.
func linkedRefResolver(files []storage.File, links map[string]storage.LinkTarget) markdown.RefFunc {
	byFile := refResolver(files)
	if len(links) == 0 {
		return byFile
	}
	return func(dest string) map[string]any {
		t, ok := links[dest]
		switch {
		case ok && t.Kind == "page":
			// 0.130.0: a page is {kind: page}; a place in a page is
			// {kind: anchor, page, anchor} (ContentRefPage has no anchor).
			if _, anchor, found := strings.Cut(dest, "#"); found && anchor != "" {
				return map[string]any{"kind": "anchor", "page": t.Target, "anchor": anchor}
			}
			return map[string]any{"kind": "page", "page": t.Target}
		case ok && t.Kind == "file":
			return map[string]any{"kind": "file", "file": t.Target}
		}
		return byFile(dest)
	}
}

// linksKey names the references linkedRefResolver makes from links, for
// markdown's document cache.
func linksKey(links map[string]storage.LinkTarget) string {
	if len(links) == 0 {
		return ""
	}
	keys := make([]string, 0, len(links))
	for d := range links {
		keys = append(keys, d)
	}
	slices.Sort(keys)
	h := sha256.New()
	for _, d := range keys {
		h.Write([]byte(d + "\x00" + links[d].Kind + "\x00" + links[d].Target + "\x00"))
	}
	return "/links:" + hex.EncodeToString(h.Sum(nil))
}

// fileTokenTTL is how long a signed download link works.
const fileTokenTTL = time.Hour

// fileModel converts a file; its downloadURL carries a signed token so
// that it works in an <img> tag or a browser without the API token.
func (r *Resolver) fileModel(ctx context.Context, spaceID, revID string, f storage.File) (*model.RevisionFile, error) {
	// The expiry is rounded to the hour so that lists answer stable URLs.
	exp := r.Now().Add(fileTokenTTL).Truncate(time.Hour).Add(time.Hour)
	tok, err := r.Signer.Sign(ctx, jwt.MapClaims{"sub": "file", "space": spaceID, "rev": revID, "file": f.ID, "exp": exp.Unix()})
	if err != nil {
		return nil, err
	}
	m := &model.RevisionFile{ID: f.ID, Name: f.Name, ContentType: f.ContentType, Size: int(f.Size),
		DownloadURL: r.Config.PublicURL + "/files/" + spaceID + "/" + revID + "/" + f.ID + "/" + url.PathEscape(f.Name) + "?token=" + tok}
	if f.Width != nil && f.Height != nil {
		m.Dimensions = &model.FileDimensions{Width: *f.Width, Height: *f.Height}
	}
	return m, nil
}

func (r *Resolver) fileModels(ctx context.Context, spaceID, revID string, files []storage.File) ([]*model.RevisionFile, error) {
	out := make([]*model.RevisionFile, 0, len(files))
	for _, f := range files {
		m, err := r.fileModel(ctx, spaceID, revID, f)
		if err != nil {
			return nil, err
		}
		out = append(out, m)
	}
	return out, nil
}

// FileDownload authorizes a download: a valid signed token for exactly this
// file, or a caller (in ctx) who may read the space. It returns the file and
// its bytes.
func (r *Resolver) FileDownload(ctx context.Context, spaceID, revID, fileID, token string) (storage.File, []byte, error) {
	if token != "" {
		claims, err := r.Signer.Verify(ctx, token)
		if err != nil || claims["sub"] != "file" || claims["space"] != spaceID || claims["rev"] != revID || claims["file"] != fileID {
			return storage.File{}, nil, apierr.Unauthorized("the download link is invalid or has expired")
		}
		if _, err := r.Store.RevisionByID(ctx, spaceID, revID); err != nil {
			return storage.File{}, nil, notFoundAs(err, "file")
		}
	} else {
		cs, err := r.contentSpace(ctx, spaceID, false)
		if err != nil {
			return storage.File{}, nil, err
		}
		if _, err := r.revisionOf(ctx, cs, &revID); err != nil {
			return storage.File{}, nil, err
		}
	}
	f, err := r.Store.RevisionFile(ctx, revID, fileID)
	if err != nil {
		return f, nil, notFoundAs(err, "file")
	}
	b, err := r.Store.FileBytes(ctx, f.Blob)
	return f, b, err
}

// listLinks is the link list of a revision (of one page when pageID is
// set); cr is the change request it was read through, if any.
func (r *Resolver) listLinks(ctx context.Context, cs contentScope, rev storage.Revision, cr *storage.ChangeRequest, pageID string, page *string, limit *int, status *model.LinkStatus) (*model.LinkList, error) {
	pq, err := pageQuery(page, limit)
	if err != nil {
		return nil, err
	}
	st := ""
	if status != nil {
		if err := checkEnum("status", *status, model.LinkStatuses.List()); err != nil {
			return nil, err
		}
		st = string(*status)
	}
	p, stats, err := r.Store.ListLinks(ctx, rev.ID, pageID, st, pq)
	if err != nil {
		return nil, err
	}
	ls, err := r.newLocationSet(ctx, cs, rev, cr)
	if err != nil {
		return nil, err
	}
	if err := r.loadTargets(ctx, ls, cs, p.Items); err != nil {
		return nil, err
	}
	return linkListModel(ls, p, stats), nil
}

// linkListModel is a page of link targets with the pages linking to them,
// as locations of ls (whose targets are loaded).
func linkListModel(ls *locationSet, p storage.Page[storage.LinkUsage], stats storage.LinkStats) *model.LinkList {
	out := &model.LinkList{Count: p.Count, Items: []*model.ContentReferenceUsage{},
		Stats: model.ContentReferencesStats{Total: stats.Total, Broken: model.BrokenLinksTotals{Total: stats.Broken}}}
	for _, u := range p.Items {
		item := &model.ContentReferenceUsage{Status: model.LinkStatus(u.Status), Relation: "reference",
			TargetReference: ls.target(u), LocationReferences: []*model.ContentLocation{}}
		for _, pid := range u.PageIDs {
			if l := ls.page(pid); l != nil {
				item.LocationReferences = append(item.LocationReferences, l)
			}
		}
		out.Items = append(out.Items, item)
	}
	if p.Next != nil {
		out.Next = &model.Next{Page: p.Next.Encode()}
	}
	return out
}

// backlinks lists the pages of the active revision (or of a change
// request's head) linking to a page or file.
func (r *Resolver) backlinks(ctx context.Context, spaceID string, changeRequestID *string, kind, target string, page *string, limit *int) (*model.ContentLocationList, error) {
	cs, err := r.contentSpace(ctx, spaceID, false)
	if err != nil {
		return nil, err
	}
	pq, err := pageQuery(page, limit)
	if err != nil {
		return nil, err
	}
	rev, cr, err := r.readVersion(ctx, cs, nil, changeRequestID)
	if err != nil {
		return nil, err
	}
	if kind == "file" {
		_, err = r.Store.RevisionFile(ctx, rev.ID, target)
	} else {
		_, err = r.Store.RevisionPage(ctx, rev.ID, target, false)
	}
	if err != nil {
		return nil, notFoundAs(err, kind)
	}
	p, err := r.Store.Backlinks(ctx, rev.ID, kind, target, pq)
	if err != nil {
		return nil, err
	}
	ls, err := r.newLocationSet(ctx, cs, rev, cr)
	if err != nil {
		return nil, err
	}
	return backlinkListModel(ls, p), nil
}

// backlinkListModel is a page of the pages linking to something, as
// locations of ls.
func backlinkListModel(ls *locationSet, p storage.Page[string]) *model.ContentLocationList {
	l := model.ContentLocationList{Count: p.Count, Items: make([]*model.ContentLocation, 0, len(p.Items))}
	for _, pid := range p.Items {
		if loc := ls.page(pid); loc != nil {
			l.Items = append(l.Items, loc)
		}
	}
	if p.Next != nil {
		l.Next = &model.Next{Page: p.Next.Encode()}
	}
	return &l
}

// analyzer gives the storage the links and search sections of pages. One
// analyzer serves one revision write: the tree's path and file-name indexes
// are built once, on the first link to resolve.
type analyzer struct {
	publicURL string
	// prepared are the analyses of the bodies a write brings, made before
	// its transaction (prepareBodies); other bodies (read in the
	// transaction) come from markdown's cache, parsed there on a miss.
	prepared map[string]*markdown.Analysis
	tree     *storage.Tree
	byPath   map[string]string
	byName   map[string]string
}

func (r *Resolver) analyzer() *analyzer { return r.analyzerFor(context.Background()) }

// analyzerFor is the analyzer of a write whose bodies prepareBodies
// analyzed in ctx.
func (r *Resolver) analyzerFor(ctx context.Context) *analyzer {
	a, _ := ctx.Value(preparedKey{}).(map[string]*markdown.Analysis)
	return &analyzer{publicURL: r.Config.PublicURL, prepared: a}
}

type preparedKey struct{}

// prepareBodies parses the bodies a write brings before its transaction
// (the single writer must not wait on Markdown parsing) and carries the
// analyses in ctx to the analyzer of the write.
func prepareBodies(ctx context.Context, bodies ...string) (context.Context, error) {
	prepared, _ := ctx.Value(preparedKey{}).(map[string]*markdown.Analysis)
	next := make(map[string]*markdown.Analysis, len(prepared)+len(bodies))
	for k, v := range prepared {
		next[k] = v
	}
	for _, b := range bodies {
		if err := ctx.Err(); err != nil {
			return ctx, err
		}
		if b != "" && next[b] == nil {
			next[b] = markdown.Analyze(b)
		}
	}
	return context.WithValue(ctx, preparedKey{}, next), nil
}

// analysis is the analysis of a body: prepared, else markdown's cache.
func (a *analyzer) analysis(body string) *markdown.Analysis {
	if an := a.prepared[body]; an != nil {
		return an
	}
	return markdown.Analyze(body)
}

// indexes returns the page-path and file-name indexes of t.
func (a *analyzer) indexes(t *storage.Tree) (byPath, byName map[string]string) {
	if a.tree != t {
		a.tree, a.byPath, a.byName = t, map[string]string{}, map[string]string{}
		t.Walk(func(tp, _ *storage.TreePage) bool {
			if tp.Path != "" {
				a.byPath[tp.Path] = tp.ID
			}
			return true
		})
		for _, f := range t.Files {
			a.byName[f.Name] = f.ID
		}
	}
	return a.byPath, a.byName
}

// Sections: the text before the first heading is titled with the page title.
func (a *analyzer) Sections(p *storage.TreePage) []storage.SearchSection {
	var out []storage.SearchSection
	secs := a.analysis(p.Markdown).Sections
	if len(secs) == 0 || secs[0].Title != "" {
		out = append(out, storage.SearchSection{Title: p.Title, Body: p.Meta.Description})
	}
	for _, s := range secs {
		if s.Title == "" {
			s.Title = p.Title
		}
		out = append(out, storage.SearchSection{ID: s.ID, Title: s.Title, Body: s.Body})
	}
	return out
}

// Links classifies each link of a page: URLs on this service's host are
// in-app (or space/collection links for /spaces/{id} and /collections/{id}
// paths), other URLs are url links, relative destinations name a file of
// the revision (by name) or a page (by path, relative to the page's folder
// or absolute from the revision root with a leading slash; .md suffixes and
// README/index names are understood). Pure anchors are not links.
func (a *analyzer) Links(p *storage.TreePage, t *storage.Tree) []storage.PageLink {
	var out []storage.PageLink
	for _, l := range a.analysis(p.Markdown).Links {
		dest := strings.TrimSpace(l.Dest)
		if dest == "" || strings.HasPrefix(dest, "#") {
			continue
		}
		if u, err := url.Parse(dest); err == nil && u.Scheme != "" {
			out = append(out, a.absolute(u, dest))
			continue
		}
		byPath, byName := a.indexes(t)
		fileNamed := t.LookupFile
		if fileNamed == nil {
			fileNamed = func(name string) (string, bool) { id, ok := byName[name]; return id, ok }
		}
		out = append(out, resolveRelative(dest, l.Image, p, byPath, fileNamed))
	}
	return out
}

func (a *analyzer) absolute(u *url.URL, dest string) storage.PageLink {
	if base, err := url.Parse(a.publicURL); err == nil && base.Host != "" && strings.EqualFold(u.Host, base.Host) {
		parts := strings.Split(strings.Trim(u.Path, "/"), "/")
		for i := 0; i+1 < len(parts); i++ {
			switch parts[i] {
			case "spaces":
				return storage.PageLink{Kind: "space", Target: parts[i+1], Dest: dest}
			case "collections":
				return storage.PageLink{Kind: "collection", Target: parts[i+1], Dest: dest}
			}
		}
		return storage.PageLink{Kind: "url", Target: dest, Dest: dest, InApp: true}
	}
	return storage.PageLink{Kind: "url", Target: dest, Dest: dest}
}

func resolveRelative(dest string, image bool, p *storage.TreePage, byPath map[string]string, fileNamed func(name string) (string, bool)) storage.PageLink {
	clean, _, _ := strings.Cut(dest, "#")
	clean, _, _ = strings.Cut(clean, "?")
	if un, err := url.PathUnescape(clean); err == nil {
		clean = un
	}
	if clean != "" {
		if id, ok := fileNamed(path.Base(clean)); ok {
			return storage.PageLink{Kind: "file", Target: id, Dest: dest}
		}
	}
	if image || isFileName(clean) {
		return storage.PageLink{Kind: "file", Dest: dest, Lookup: path.Base(clean)}
	}
	var candidates []string
	if strings.HasPrefix(clean, "/") {
		candidates = []string{clean}
	} else {
		candidates = []string{path.Join(path.Dir(p.Path), clean), path.Join(p.Path, clean)}
	}
	for i, c := range candidates {
		candidates[i] = pagePathOf(c)
		if id, ok := byPath[candidates[i]]; ok {
			return storage.PageLink{Kind: "page", Target: id, Dest: dest}
		}
	}
	// Unresolved: later revisions look the candidates up among their pages.
	l := storage.PageLink{Kind: "page", Dest: dest, Lookup: candidates[0]}
	if len(candidates) > 1 && candidates[1] != candidates[0] {
		l.LookupAlt = candidates[1]
	}
	return l
}

// pagePathOf normalizes a link path to a page path: no leading or trailing
// slash, no .md suffix, README/index meaning the folder, slugged segments.
func pagePathOf(p string) string {
	p = strings.Trim(path.Clean("/"+p), "/")
	p = strings.TrimSuffix(p, path.Ext(p))
	var segs []string
	for _, s := range strings.Split(p, "/") {
		if s != "" {
			segs = append(segs, markdown.Slugify(s))
		}
	}
	if n := len(segs); n > 0 && (segs[n-1] == "readme" || segs[n-1] == "index") {
		segs = segs[:n-1]
	}
	return strings.Join(segs, "/")
}

func isFileName(p string) bool {
	ext := strings.ToLower(path.Ext(p))
	return ext != "" && ext != ".md" && ext != ".html" && ext != ".htm"
}
