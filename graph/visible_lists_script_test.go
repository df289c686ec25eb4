package graph

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"docsapi/auth"
	"docsapi/graph/model"
	"docsapi/storage"
)

// The lists other than a member's own list of spaces, each
// read through its resolver (views selected in SQL) and compared, after
// every write of the random scripts (runAccessScripts), with a brute-force
// oracle: every row of the organization kept by effectiveRole in Go.

// accessOfUser is user's view of the script's organization, as the
// resolvers build it.
func (sc *accessScript) accessOfUser(t *testing.T, user string) *contentAccess {
	t.Helper()
	d, err := sc.db.ContentAccess(context.Background(), sc.org, user, nil)
	if err != nil {
		t.Fatal(err)
	}
	a := memberAccess(context.Background(), sc.db, sc.org, d)
	// The oracle knows every space's grants at once (when the cached
	// access holds none, the resolvers look them up page by page).
	if err := a.primeSpaces(sc.spaces...); err != nil {
		t.Fatal(err)
	}
	return a
}

// callerCtx is a request context of user, with the per-request loaders.
func callerCtx(user string) context.Context {
	return auth.WithCaller(context.Background(), auth.Caller{UserID: user, Kind: "api"})
}

// readPages reads a list page by page (limit 7) through page and returns
// the ids in order and the total, failing if the total moves between pages.
func readPages(t *testing.T, page func(p *string, limit *int) (ids []string, count int, next *model.Next, err error)) ([]string, int) {
	t.Helper()
	var got []string
	var cursor *string
	limit, count := 7, -1
	for range 1000 {
		ids, n, next, err := page(cursor, &limit)
		if err != nil {
			t.Fatal(err)
		}
		if count >= 0 && n != count {
			t.Fatalf("count moved between pages: %d then %d", count, n)
		}
		count = n
		got = append(got, ids...)
		if next == nil {
			return got, count
		}
		cursor = &next.Page
	}
	t.Fatal("more than 1000 pages")
	return nil, 0
}

// TestMemberSpacesRandomScripts: GET /orgs/{id}/members/{userId}/spaces
// for every pair of (caller, member) who may list it, both orders, read as
// merged creation-ordered ranges and as the scan, equals the spaces both
// see by effectiveRole, in creation order.
func TestMemberSpacesRandomScripts(t *testing.T) {
	partial := false
	runAccessScripts(t, func(sc *accessScript, after string) {
		t.Helper()
		r := &Resolver{Store: sc.db, Now: time.Now}
		all, err := sc.db.ListSpaces(context.Background(), storage.SpaceFilter{OrganizationID: sc.org}, nil, storage.PageQuery{Limit: 1000})
		if err != nil {
			t.Fatal(err)
		}
		for ci, caller := range sc.users {
			a := sc.accessOfUser(t, caller)
			for ti, target := range sc.users {
				if caller != target && a.orgRank < roleRank["read"] {
					continue // refused (403), tested elsewhere
				}
				b := sc.accessOfUser(t, target)
				for _, merge := range []bool{true, false} {
					sc.db.SetListRanges(&merge)
					defer sc.db.SetListRanges(nil)
					for _, order := range []model.Order{"asc", "desc"} {
						f := storage.SpaceFilter{OrganizationID: sc.org, ByCreation: true, Desc: order == "desc"}
						want, err := sc.db.ListSpaces(context.Background(), f, func(s storage.Space) bool { return a.spaceRole(s) > 0 && b.spaceRole(s) > 0 }, storage.PageQuery{Limit: 1000})
						if err != nil {
							t.Fatal(err)
						}
						got, count := readPages(t, func(p *string, limit *int) ([]string, int, *model.Next, error) {
							l, err := r.Query().MemberSpaces(callerCtx(caller), sc.org, target, p, limit, &order)
							if err != nil {
								return nil, 0, nil, err
							}
							var ids []string
							for _, e := range l.Items {
								ids = append(ids, e.Space.ID)
								if s := spaceOf(want.Items, e.Space.ID); s != nil && e.Permission != roleName(b.spaceRole(*s)) {
									t.Errorf("%s: member %d's permission on a space %s, effectiveRole %s", after, ti, e.Permission, roleName(b.spaceRole(*s)))
								}
							}
							return ids, l.Count, l.Next, nil
						})
						ids := idsOf(want.Items, func(s storage.Space) string { return s.ID })
						if count > 0 && count < all.Count {
							partial = true
						}
						if !slices.Equal(got, ids) || count != len(ids) {
							t.Errorf("script %d %s: caller %d lists member %d's spaces (%s, merged ranges %v): %d spaces (count %d), oracle %d",
								sc.script, after, ci, ti, order, merge, len(got), count, len(ids))
						}
					}
				}
			}
		}
	})
	if !partial {
		t.Error("no member's list was partial: the scripts test nothing")
	}
}

func spaceOf(spaces []storage.Space, id string) *storage.Space {
	for i := range spaces {
		if spaces[i].ID == id {
			return &spaces[i]
		}
	}
	return nil
}

func idsOf[T any](items []T, id func(T) string) []string {
	out := []string{}
	for _, it := range items {
		out = append(out, id(it))
	}
	return out
}

// TestSearchOrganizationRandomScripts: an organization-wide search (REST
// and GraphQL share searchOrganization) by each reader equals the search of
// the spaces effectiveRole lets them see, page by page; two spaces in three
// hold pages that match (some words on some only), the rest none.
func TestSearchOrganizationRandomScripts(t *testing.T) {
	indexed := map[string]bool{}
	partial := false
	runAccessScripts(t, func(sc *accessScript, after string) {
		t.Helper()
		ctx := context.Background()
		r := &Resolver{Store: sc.db, Now: time.Now}
		for i, id := range sc.spaces {
			if indexed[id] {
				continue
			}
			indexed[id] = true
			if i%3 == 2 {
				continue // no pages
			}
			body := fmt.Sprintf("common words here\n\nrare%d appears", i%4)
			_, err := sc.db.CreateRevision(ctx, storage.RevisionChange{SpaceID: id, Activate: true, Analyzer: r.analyzer(), Edit: func(tr *storage.Tree) error {
				p := &storage.TreePage{ContentPage: storage.ContentPage{ID: storage.NewID(), Type: "document", Title: "Page", Slug: "page"}}
				p.SetBody(body)
				tr.Pages = append(tr.Pages, p)
				return nil
			}})
			if err != nil && !errors.Is(err, storage.ErrNotFound) { // a trashed space takes no revision
				t.Fatal(err)
			}
		}
		for ui, user := range sc.users {
			a := sc.accessOfUser(t, user)
			visible, err := sc.db.ListSpaces(ctx, storage.SpaceFilter{OrganizationID: sc.org}, func(s storage.Space) bool { return a.spaceRole(s) > 0 }, storage.PageQuery{Limit: 1000})
			if err != nil {
				t.Fatal(err)
			}
			ids := idsOf(visible.Items, func(s storage.Space) string { return s.ID })
			slices.Sort(ids)
			titles := map[string]string{}
			for _, s := range visible.Items {
				titles[s.ID] = s.Title
			}
			for _, q := range []string{"common", "rare1"} {
				want, err := r.searchSpaces(ctx, ids, titles, q, 0, 1000)
				if err != nil {
					t.Fatal(err)
				}
				wantIDs := idsOf(want.Items, func(h *model.SearchSpaceResult) string { return h.ID + "/" + h.Title + "/" + fmt.Sprint(len(h.Pages)) })
				got, count := readPages(t, func(p *string, limit *int) ([]string, int, *model.Next, error) {
					l, err := r.Query().SearchOrganization(callerCtx(user), sc.org, q, p, limit)
					if err != nil {
						return nil, 0, nil, err
					}
					return idsOf(l.Items, func(h *model.SearchSpaceResult) string { return h.ID + "/" + h.Title + "/" + fmt.Sprint(len(h.Pages)) }), l.Count, l.Next, nil
				})
				if q == "common" && count > 0 && len(ids) < len(sc.spaces) {
					partial = true
				}
				if !slices.Equal(got, wantIDs) || count != want.Count {
					t.Errorf("script %d %s: member %d searches %q: %d spaces (count %d), oracle %d (count %d)", sc.script, after, ui, q, len(got), count, len(wantIDs), want.Count)
				}
			}
		}
	})
	if !partial {
		t.Error("no search was partial: the scripts test nothing")
	}
}

// TestCollectionsRandomScripts: the collections list (top level and
// nested) and a collection's children, by each reader, equal the
// collections effectiveRole lets them see, in tree order, page by page.
func TestCollectionsRandomScripts(t *testing.T) {
	partial := false
	runAccessScripts(t, func(sc *accessScript, after string) {
		t.Helper()
		ctx := context.Background()
		r := &Resolver{Store: sc.db, Now: time.Now}
		all, err := sc.db.ListCollections(ctx, storage.CollectionFilter{OrganizationID: sc.org, Nested: true}, nil, storage.PageQuery{Limit: 1000})
		if err != nil {
			t.Fatal(err)
		}
		collectionID := func(c *model.Collection) string { return c.ID }
		for ui, user := range sc.users {
			a := sc.accessOfUser(t, user)
			seen := func(c storage.Collection) bool { return a.effectiveRole(collectionItem(c)) > 0 }
			for _, nested := range []bool{true, false} {
				want, err := sc.db.ListCollections(ctx, storage.CollectionFilter{OrganizationID: sc.org, Nested: nested}, seen, storage.PageQuery{Limit: 1000})
				if err != nil {
					t.Fatal(err)
				}
				got, count := readPages(t, func(p *string, limit *int) ([]string, int, *model.Next, error) {
					l, err := r.Query().Collections(callerCtx(user), sc.org, p, limit, &nested)
					if err != nil {
						return nil, 0, nil, err
					}
					return idsOf(l.Items, collectionID), l.Count, l.Next, nil
				})
				ids := idsOf(want.Items, func(c storage.Collection) string { return c.ID })
				if nested && count > 0 && count < all.Count {
					partial = true
				}
				if !slices.Equal(got, ids) || count != len(ids) {
					t.Errorf("script %d %s: member %d lists collections (nested %v): %d (count %d), oracle %d", sc.script, after, ui, nested, len(got), count, len(ids))
				}
			}
			for _, c := range all.Items {
				if !seen(c) {
					if _, err := r.collectionChildren(callerCtx(user), &model.Collection{ID: c.ID, Organization: sc.org}, nil, nil); err == nil {
						t.Errorf("%s: member %d lists the children of a collection they cannot see", after, ui)
					}
					continue
				}
				want, err := sc.db.ListCollections(ctx, storage.CollectionFilter{OrganizationID: sc.org, ParentID: &c.ID}, seen, storage.PageQuery{Limit: 1000})
				if err != nil {
					t.Fatal(err)
				}
				got, count := readPages(t, func(p *string, limit *int) ([]string, int, *model.Next, error) {
					l, err := r.collectionChildren(callerCtx(user), &model.Collection{ID: c.ID, Organization: sc.org}, p, limit)
					if err != nil {
						return nil, 0, nil, err
					}
					return idsOf(l.Items, collectionID), l.Count, l.Next, nil
				})
				ids := idsOf(want.Items, func(c storage.Collection) string { return c.ID })
				if !slices.Equal(got, ids) || count != len(ids) {
					t.Errorf("script %d %s: member %d lists a collection's children: %d (count %d), oracle %d", sc.script, after, ui, len(got), count, len(ids))
				}
			}
		}
	})
	if !partial {
		t.Error("no collection list was partial: the scripts test nothing")
	}
}
