package server_test

import (
	"context"
	"encoding/json"
	"fmt"
	"sync/atomic"
	"testing"

	"docsapi/apitest"
	"docsapi/graph"
	"docsapi/server"
	"docsapi/storage"
)

// linkedDocs is a space of groups of pages linking to each other (a
// sibling, the first page of the space, a missing page) and to a URL.
func linkedDocs(t testing.TB, env *apitest.Env, groups, per int) string {
	t.Helper()
	space := env.Must(201, "POST", "/v1/orgs/"+env.Org+"/spaces", env.Admin.Token, map[string]any{"title": "Linked"}).JSON()["id"].(string)
	an := (&graph.Resolver{}).ContentAnalyzer()
	if _, err := env.DB.CreateRevision(context.Background(), storage.RevisionChange{SpaceID: space, Type: "edits", Activate: true, Analyzer: an,
		Edit: func(tr *storage.Tree) error {
			for g := range groups {
				group := &storage.TreePage{ContentPage: storage.ContentPage{ID: storage.NewID(), Type: "group", Title: fmt.Sprint("Part ", g), Slug: fmt.Sprint("part-", g)}, Dirty: true}
				for i := range per {
					p := &storage.TreePage{ContentPage: storage.ContentPage{ID: storage.NewID(), Type: "document", Title: fmt.Sprint("Page ", i), Slug: fmt.Sprint("page-", i)}}
					p.SetBody(fmt.Sprintf("[next](page-%d.md) [home](/part-0/page-0) [gone](nowhere.md) [out](https://example.com/%d)\n", (i+1)%per, i%3))
					group.Children = append(group.Children, p)
				}
				tr.Pages = append(tr.Pages, group)
			}
			return nil
		}}); err != nil {
		t.Fatal(err)
	}
	return space
}

const linksSel = `count next { page } stats { total broken { total } } items { status relation targetReference { kind url page { id } } locationReferences { kind page { id } } }`
const backlinksSel = `count next { page } items { kind page { id title } space { id } }`

// TestGraphQLPageLinksAsTheRootQueries: RevisionPage.links and .backlinks,
// loaded a level of the tree at a time, answer for each page what
// spaceLinks(pageId:) and spacePageBacklinks answer for it alone, with and
// without a limit.
func TestGraphQLPageLinksAsTheRootQueries(t *testing.T) {
	env := apitest.New(t, apitest.Options{Config: withServeDefaults})
	space := linkedDocs(t, env, 3, 6)
	for _, limit := range []int{20, 1} {
		args := fmt.Sprintf("(limit: %d)", limit)
		data, errs := env.GraphQL(env.Admin.Token, `query($s: ID!) { space(spaceId: $s) { activeRevision { pages { id links`+args+` { `+linksSel+` } backlinks`+args+` { `+backlinksSel+` }
			pages { id links`+args+` { `+linksSel+` } backlinks`+args+` { `+backlinksSel+` } } } } } }`, map[string]any{"s": space})
		if len(errs) > 0 {
			t.Fatal(errs)
		}
		var pages []map[string]any
		for _, g := range data["space"].(map[string]any)["activeRevision"].(map[string]any)["pages"].([]any) {
			pages = append(pages, g.(map[string]any))
			for _, p := range g.(map[string]any)["pages"].([]any) {
				pages = append(pages, p.(map[string]any))
			}
		}
		withLinks := 0
		for _, p := range pages {
			alone, errs := env.GraphQL(env.Admin.Token, `query($s: ID!, $p: ID!) { spaceLinks(spaceId: $s, pageId: $p`+fmt.Sprintf(", limit: %d", limit)+`) { `+linksSel+` }
				spacePageBacklinks(spaceId: $s, pageId: $p`+fmt.Sprintf(", limit: %d", limit)+`) { `+backlinksSel+` } }`, map[string]any{"s": space, "p": p["id"]})
			if len(errs) > 0 {
				t.Fatal(errs)
			}
			for field, root := range map[string]string{"links": "spaceLinks", "backlinks": "spacePageBacklinks"} {
				got, _ := json.Marshal(p[field])
				want, _ := json.Marshal(alone[root])
				if string(got) != string(want) {
					t.Errorf("page %s %s (limit %d):\n got %s\nwant %s", p["id"], field, limit, got, want)
				}
			}
			if alone["spacePageBacklinks"].(map[string]any)["count"].(float64) > 0 {
				withLinks++
			}
		}
		if withLinks < 6 {
			t.Errorf("%d pages with backlinks: the fixture does not link", withLinks)
		}
	}
}

// TestGraphQLPageLinksStatementsPerLevel: the links and backlinks of every
// page of a tree cost the same statements for 3 pages a group as for 40.
func TestGraphQLPageLinksStatementsPerLevel(t *testing.T) {
	measure := func(per int) int64 {
		var n atomic.Int64
		env := apitest.New(t, apitest.Options{Statements: &n, Config: func(c *server.Config) {
			withServeDefaults(c)
			c.GraphQLComplexity = 0
		}})
		space := linkedDocs(t, env, 4, per)
		q := `query($s: ID!) { space(spaceId: $s) { activeRevision { pages { id links { count } backlinks { count }
			pages { id links(limit: 2) { count items { status } } backlinks(limit: 2) { count items { page { id } } } } } } } }`
		n.Store(0)
		if _, errs := env.GraphQL(env.Admin.Token, q, map[string]any{"s": space}); len(errs) > 0 {
			t.Fatal(errs)
		}
		got := n.Load()
		t.Logf("4 groups of %d pages: %d statements", per, got)
		return got
	}
	small, large := measure(3), measure(40)
	if large > small {
		t.Errorf("statements grew with pages: %d for 12 pages, %d for 160", small, large)
	}
}
