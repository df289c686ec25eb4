package server_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"

	"github.com/99designs/gqlgen/graphql"
	"github.com/99designs/gqlgen/graphql/handler"
	"github.com/99designs/gqlgen/graphql/handler/transport"

	"docsapi/apitest"
	"docsapi/auth"
	"docsapi/graph"
	"docsapi/graph/generated"
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
	var written atomic.Int64
	serve := func(plain bool) http.Handler {
		h := handler.New(generated.NewExecutableSchema(generated.Config{Resolvers: env.Server.Resolver}))
		h.AddTransport(transport.POST{})
		h.AroundOperations(func(ctx context.Context, next graphql.OperationHandler) graphql.ResponseHandler {
			return next(graph.WithLoaders(ctx))
		})
		if plain {
			h.AroundFields(func(ctx context.Context, next graphql.Resolver) (any, error) {
				v, err := next(ctx)
				if _, ok := v.(graphql.Marshaler); ok && graphql.GetFieldContext(ctx).Field.Name == "items" {
					written.Add(1)
				}
				return v, err
			})
			h.AroundFields(graph.PlainObjects)
		}
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			h.ServeHTTP(w, r.WithContext(auth.WithCaller(r.Context(), auth.Caller{UserID: env.Admin.ID, Kind: "api"})))
		})
	}
	gqlgen, plain := serve(false), serve(true)
	post := func(h http.Handler, query string, vars map[string]any) []byte {
		body, _ := json.Marshal(map[string]any{"query": query, "variables": vars})
		req := httptest.NewRequest("POST", "/graphql", bytes.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		out, _ := io.ReadAll(rec.Result().Body)
		return out
	}
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
