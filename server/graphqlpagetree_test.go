package server_test

import (
	"bytes"
	"context"
	"fmt"
	"testing"

	"docsapi/apitest"
	"docsapi/graph"
	"docsapi/graph/model"
	"docsapi/storage"
)

// TestPlainPageTreesAnswerAsGqlgen: a page tree written from the shared
// page models (graph.PlainPageTrees) is byte for byte what gqlgen writes
// field by field, for every plain field, aliases, fragments, @skip and
// @include, link pages (no children: null) and empty lists; selections it
// does not take (objects, links) are left to gqlgen.
func TestPlainPageTreesAnswerAsGqlgen(t *testing.T) {
	env := apitest.New(t, apitest.Options{Config: withServeDefaults})
	f := newDocsFixture(t, env, 120, 1)
	// A second space with every kind of page and every optional field.
	space := env.Must(201, "POST", "/v1/orgs/"+env.Org+"/spaces", env.Admin.Token, map[string]any{"title": "Kinds"}).JSON()["id"].(string)
	an := (&graph.Resolver{}).ContentAnalyzer()
	if _, err := env.DB.CreateRevision(context.Background(), storage.RevisionChange{SpaceID: space, Type: "edits", Activate: true, Analyzer: an,
		Edit: func(tr *storage.Tree) error {
			doc := &storage.TreePage{ContentPage: storage.ContentPage{ID: storage.NewID(), Type: "document", Title: "Quote \"<&>\" \u2028 é", Slug: "doc",
				Meta: storage.PageMeta{Emoji: "1f600", Icon: "book", Description: "Line\nbreak\t\x01", Hidden: true, NoIndex: true,
					Cover: map[string]any{"ref": map[string]any{"kind": "url", "url": "https://example.com/c.png"}}, Variables: map[string]any{"v": 1.5}}}}
			doc.SetBody("# Doc\n")
			child := &storage.TreePage{ContentPage: storage.ContentPage{ID: storage.NewID(), Type: "document", Title: "Child", Slug: "child"}}
			child.SetBody("Child\n")
			doc.Children = append(doc.Children, child)
			link := &storage.TreePage{ContentPage: storage.ContentPage{ID: storage.NewID(), Type: "link", Title: "Out",
				Meta: storage.PageMeta{Href: "https://example.org", Target: map[string]any{"kind": "url", "url": "https://example.org"}}}}
			group := &storage.TreePage{ContentPage: storage.ContentPage{ID: storage.NewID(), Type: "group", Title: "Empty group", Slug: "g"}}
			tr.Pages = append(tr.Pages, doc, link, group)
			return nil
		}}); err != nil {
		t.Fatal(err)
	}
	// The same schema and resolver, with and without the middleware; an
	// outer middleware counts the lists it answered.
	gqlgen, plain, written := writerPair(env, graph.PlainPageTrees, func(v any, field string) bool {
		_, ok := v.([]*model.RevisionPage)
		return !ok && field == "pages"
	})
	post := postAnswer
	all := `__typename id title emoji icon createdAt updatedAt kind type markdown document slug path description cover variables hidden noIndex noRobotsIndex target href computed`
	for _, tc := range []struct {
		query   string
		vars    map[string]any
		written int64 // lists answered from the models
	}{
		{`query($s: ID!) { spaceContent(spaceId: $s) { pages { ` + all + ` pages { ` + all + ` pages { id } } } } }`, nil, 1},
		{`query($s: ID!) { space(spaceId: $s) { activeRevision { id pages { i: id t: title pages { path p: pages { id } } } } } }`, nil, 1},
		{`fragment P on RevisionPage { id title } query($s: ID!) { spacePages(spaceId: $s) { pages { ...P pages { ... on RevisionPage { path ...P } } } } }`, nil, 1},
		{`query($s: ID!, $yes: Boolean!, $no: Boolean!) { spaceContent(spaceId: $s) { pages { id title @include(if: $yes) kind @skip(if: $yes) pages @include(if: $no) { id } } } }`,
			map[string]any{"yes": true, "no": false}, 1},
		{`query($s: ID!) { a: spaceContent(spaceId: $s) { pages { id } } b: spaceContent(spaceId: $s) { pages { title pages { kind } } } }`, nil, 2},
		// Not plain: gqlgen answers (the same bytes, trivially).
		{`query($s: ID!) { spaceContent(spaceId: $s) { pages { id urls { app } layout { width } } } }`, nil, 0},
		{`query($s: ID!) { spaceContent(spaceId: $s) { pages { id pages { id backlinks { count } } } } }`, nil, 0},
	} {
		for _, s := range []string{f.space, space} {
			vars := map[string]any{"s": s}
			for k, v := range tc.vars {
				vars[k] = v
			}
			written.Store(0)
			want, got := post(gqlgen, tc.query, vars), post(plain, tc.query, vars)
			if !bytes.Equal(got, want) {
				t.Errorf("%s\n got %.600s\nwant %.600s", tc.query, got, want)
			}
			if bytes.Contains(want, []byte(`"errors"`)) || !bytes.Contains(want, []byte(`"data"`)) {
				t.Errorf("%s: %.300s", tc.query, want)
			}
			if n := written.Load(); n != tc.written {
				t.Errorf("%s: %d lists written from the models, want %d", tc.query, n, tc.written)
			}
		}
	}
	_ = fmt.Sprint
}
