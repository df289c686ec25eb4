package server_test

import (
	"bytes"
	"testing"

	"github.com/99designs/gqlgen/graphql"

	"docsapi/apitest"
	"docsapi/graph"
)

// TestPlainObjectsAnswerAsGqlgen: lists of objects of plain fields written
// from the models (graph.PlainObjects) are byte for byte what gqlgen
// writes field by field: comments with their authors, bodies (characters
// to escape included) and reactions, computed node ids, enums, nullable
// and absent values, aliases, fragments, @skip and @include; selections
// it does not take (a resolver, another scalar) are left to gqlgen.
func TestPlainObjectsAnswerAsGqlgen(t *testing.T) {
	env := apitest.New(t, apitest.Options{Config: withServeDefaults})
	f := newDocsFixture(t, env, 10, 4)
	c := env.Must(200, "POST", "/v1/spaces/"+f.space+"/comments", env.Admin.Token, map[string]any{"body": map[string]any{"markdown": "Quote \"<&>\" \u2028 é\nline\t\x01"}, "page": f.page}).JSON()
	env.Must(200, "PUT", "/v1/spaces/"+f.space+"/comments/"+c["id"].(string), env.Admin.Token, map[string]any{"addedReactions": []string{"1f44d", "1f600"}})
	// The same schema and resolver, with and without the middleware; an
	// outer middleware counts the comment lists it answered.
	gqlgen, plain, written := writerPair(env, graph.PlainObjects, func(v any, field string) bool {
		_, ok := v.(graphql.Marshaler)
		return ok && field == "items"
	})
	post := postAnswer
	user := `__typename object id nodeId displayName email photoURL urls { location }`
	all := `__typename object id nodeId replies status postedBy { ` + user + ` } body { markdown } reactions { emoji count users { user { ` + user + ` } } }`
	for _, tc := range []struct {
		query   string
		vars    map[string]any
		written int64 // comment lists answered from the models
	}{
		{pageView, map[string]any{"page": f.page, "comments": 50}, 1},
		{`query($space: ID!) { space(spaceId: $space) { commentList { items { ` + all + ` } } } }`, nil, 1},
		{`query($space: ID!) { comments(spaceId: $space) { items { i: id b: body { m: markdown } s: status r: reactions { e: emoji } } } }`, nil, 1},
		{`fragment U on User { id displayName } query($space: ID!) { space(spaceId: $space) { commentList(limit: 2) { count items { ...on Comment { id postedBy { ...U } } reactions { users { user { ...U } } } } } } }`, nil, 1},
		{`query($space: ID!, $yes: Boolean!, $no: Boolean!) { space(spaceId: $space) { commentList { items { id status @include(if: $yes) replies @skip(if: $yes) body @include(if: $no) { markdown } } } } }`,
			map[string]any{"yes": true, "no": false}, 1},
		// Not plain: gqlgen answers (the same bytes, trivially).
		{`query($space: ID!) { space(spaceId: $space) { commentList { items { id postedAt } } } }`, nil, 0},
		{`query($space: ID!) { space(spaceId: $space) { commentList { items { id body { document } } } } }`, nil, 0},
		{`query($space: ID!) { space(spaceId: $space) { commentList { items { id replyList { count } } } } }`, nil, 0},
	} {
		vars := map[string]any{"space": f.space}
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
			t.Errorf("%s: %d comment lists written from the models, want %d", tc.query, n, tc.written)
		}
	}
}
