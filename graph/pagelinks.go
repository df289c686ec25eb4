package graph

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/99designs/gqlgen/graphql"

	"docsapi/apierr"
	"docsapi/graph/model"
	"docsapi/storage"
)

// RevisionPage.links and .backlinks are answered for all the pages of one
// level of a page tree at once: the first page of a level to ask loads the
// answers of every page at the same place of the same tree (with the same
// arguments), in the statements of one read (storage's ListLinksOfPages,
// BacklinksOfPages), with the space's access, its active revision and the
// locations read once; the other pages of the level take theirs from the
// request's loaders. The answers are those of spaceLinks(pageId:) and
// spacePageBacklinks (TestGraphQLPageLinksAsTheRootQueries): in the
// space's current content, NOT_FOUND for a page not in it.

// treeLevel is the pages at the place of the tree obj was reached at (the
// field being resolved is one of obj's): every page at the same depth under
// the list the tree started from (Revision.pages, PageList.pages), and a key
// naming that place; obj alone when it was not reached through a tree.
func treeLevel(ctx context.Context, obj *model.RevisionPage) (string, []*model.RevisionPage) {
	alone := "page\x00" + obj.ID
	fc := graphql.GetFieldContext(ctx)
	if fc == nil {
		return alone, []*model.RevisionPage{obj}
	}
	depth := 0
	var root []*model.RevisionPage
	var path []string
	// fc is obj's field; its parent is obj's place in a list, whose parent
	// is the pages field giving the list.
	for f := fc.Parent; f != nil; f = f.Parent {
		if f.Index == nil || f.Parent == nil || f.Parent.Field.Field == nil || f.Parent.Field.Name != "pages" {
			return alone, []*model.RevisionPage{obj}
		}
		list := f.Parent
		pages, ok := list.Result.([]*model.RevisionPage)
		if !ok || len(pages) == 0 {
			return alone, []*model.RevisionPage{obj}
		}
		path = append(path, list.Field.Alias)
		if list.Object != "RevisionPage" { // the tree's start
			root = pages
			break
		}
		depth++
		f = list // continue from the list's parent: the page holding it
		if depth > maxPageTreeDepth {
			return alone, []*model.RevisionPage{obj}
		}
	}
	if root == nil {
		return alone, []*model.RevisionPage{obj}
	}
	level := root
	for range depth {
		var next []*model.RevisionPage
		for _, p := range level {
			next = append(next, p.Pages...)
		}
		level = next
	}
	return fmt.Sprintf("tree\x00%p\x00%s", &root[0], strings.Join(path, "\x00")), level
}

// levelAnswers is what a level's load gives each of its pages.
type levelAnswers[T any] struct {
	byID map[string]T
	errs map[string]error
}

func (a levelAnswers[T]) of(id string) (T, error) {
	if err := a.errs[id]; err != nil {
		var zero T
		return zero, err
	}
	v, ok := a.byID[id]
	if !ok {
		var zero T
		return zero, apierr.NotFound("page")
	}
	return v, nil
}

// levelIDs are the distinct ids of a level's pages, in order.
func levelIDs(level []*model.RevisionPage) []string {
	seen := make(map[string]bool, len(level))
	ids := make([]string, 0, len(level))
	for _, p := range level {
		if !seen[p.ID] {
			seen[p.ID] = true
			ids = append(ids, p.ID)
		}
	}
	return ids
}

// levelScope is what a level's links and backlinks are read in: the space
// as the caller may read it, its current content, the locations of its
// pages (a copy of the request's, read once for all levels), and which of
// ids are in that content (the others are NOT_FOUND, as for
// spaceLinks(pageId:)).
func (r *Resolver) levelScope(ctx context.Context, spaceID string, ids []string) (contentScope, storage.Revision, *locationSet, []string, map[string]error, error) {
	base, err := memo(ctx, "levelscope\x00"+spaceID, func(ctx context.Context) (*levelBase, error) {
		cs, err := r.contentSpace(ctx, spaceID, false)
		if err != nil {
			return nil, err
		}
		rev, cr, err := r.readVersion(ctx, cs, nil, nil)
		if err != nil {
			return nil, err
		}
		ls, err := r.newLocationSet(ctx, cs, rev, cr)
		if err != nil {
			return nil, err
		}
		return &levelBase{cs: cs, rev: rev, ls: ls}, nil
	})
	if err != nil {
		return contentScope{}, storage.Revision{}, nil, nil, nil, err
	}
	ls := *base.ls // loadTargets fills its own copy's spaces and collections
	var in []string
	errs := map[string]error{}
	for _, id := range ids {
		if _, ok := ls.pages[id]; ok {
			in = append(in, id)
		} else {
			errs[id] = apierr.NotFound("page")
		}
	}
	return base.cs, base.rev, &ls, in, errs, nil
}

// levelBase is the part of levelScope shared by every level of a request.
type levelBase struct {
	cs  contentScope
	rev storage.Revision
	ls  *locationSet
}

func argsKey(page *string, limit *int) string {
	k := "-"
	if page != nil {
		k = "p" + *page
	}
	if limit != nil {
		k += fmt.Sprintf("\x00%d", *limit)
	}
	return k
}

// pageLinks answers RevisionPage.links.
func (r *Resolver) pageLinks(ctx context.Context, spaceID string, obj *model.RevisionPage, page *string, limit *int) (*model.LinkList, error) {
	key, level := treeLevel(ctx, obj)
	answers, err := memo(ctx, "links\x00"+spaceID+"\x00"+key+"\x00"+argsKey(page, limit), func(ctx context.Context) (levelAnswers[*model.LinkList], error) {
		out := levelAnswers[*model.LinkList]{byID: map[string]*model.LinkList{}}
		cs, rev, ls, ids, errs, err := r.levelScope(ctx, spaceID, levelIDs(level))
		if err != nil {
			return out, err
		}
		out.errs = errs
		pq, err := pageQuery(page, limit)
		if err != nil {
			return out, err
		}
		var lists []storage.PageLinks
		for chunk := range slices.Chunk(ids, storage.MaxLinkPages) {
			l, err := r.Store.ListLinksOfPages(ctx, rev.ID, chunk, "", pq)
			if err != nil {
				return out, err
			}
			lists = append(lists, l...)
		}
		var usages []storage.LinkUsage
		for _, l := range lists {
			usages = append(usages, l.Page.Items...)
		}
		if err := r.loadTargets(ctx, ls, cs, usages); err != nil {
			return out, err
		}
		for i, id := range ids {
			out.byID[id] = linkListModel(ls, lists[i].Page, lists[i].Stats)
		}
		return out, nil
	})
	if err != nil {
		return nil, err
	}
	return answers.of(obj.ID)
}

// pageBacklinks answers RevisionPage.backlinks.
func (r *Resolver) pageBacklinks(ctx context.Context, spaceID string, obj *model.RevisionPage, page *string, limit *int) (*model.ContentLocationList, error) {
	key, level := treeLevel(ctx, obj)
	answers, err := memo(ctx, "backlinks\x00"+spaceID+"\x00"+key+"\x00"+argsKey(page, limit), func(ctx context.Context) (levelAnswers[*model.ContentLocationList], error) {
		out := levelAnswers[*model.ContentLocationList]{byID: map[string]*model.ContentLocationList{}}
		_, rev, ls, ids, errs, err := r.levelScope(ctx, spaceID, levelIDs(level))
		if err != nil {
			return out, err
		}
		out.errs = errs
		pq, err := pageQuery(page, limit)
		if err != nil {
			return out, err
		}
		var lists []storage.Page[string]
		for chunk := range slices.Chunk(ids, storage.MaxLinkPages) {
			l, err := r.Store.BacklinksOfPages(ctx, rev.ID, chunk, pq)
			if err != nil {
				return out, err
			}
			lists = append(lists, l...)
		}
		for i, id := range ids {
			out.byID[id] = backlinkListModel(ls, lists[i])
		}
		return out, nil
	})
	if err != nil {
		return nil, err
	}
	return answers.of(obj.ID)
}
