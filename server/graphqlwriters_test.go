package server_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"sync/atomic"

	"github.com/99designs/gqlgen/graphql"
	"github.com/99designs/gqlgen/graphql/handler"
	"github.com/99designs/gqlgen/graphql/handler/transport"

	"docsapi/apitest"
	"docsapi/auth"
	"docsapi/graph"
	"docsapi/graph/generated"
)

// writerPair serves the same schema and resolver twice, as the admin:
// gqlgen alone, and with writer (a field middleware that answers some lists
// itself) behind an outer middleware that counts, in written, the fields
// whose answer taken(v, field name) says the writer gave.
func writerPair(env *apitest.Env, writer graphql.FieldMiddleware, taken func(v any, field string) bool) (gqlgen, plain http.Handler, written *atomic.Int64) {
	written = new(atomic.Int64)
	serve := func(withWriter bool) http.Handler {
		h := handler.New(generated.NewExecutableSchema(generated.Config{Resolvers: env.Server.Resolver}))
		h.AddTransport(transport.POST{})
		h.AroundOperations(func(ctx context.Context, next graphql.OperationHandler) graphql.ResponseHandler {
			return next(graph.WithLoaders(ctx))
		})
		if withWriter {
			h.AroundFields(func(ctx context.Context, next graphql.Resolver) (any, error) {
				v, err := next(ctx)
				if taken(v, graphql.GetFieldContext(ctx).Field.Name) {
					written.Add(1)
				}
				return v, err
			})
			h.AroundFields(writer)
		}
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			h.ServeHTTP(w, r.WithContext(auth.WithCaller(r.Context(), auth.Caller{UserID: env.Admin.ID, Kind: "api"})))
		})
	}
	return serve(false), serve(true), written
}

// postAnswer is h's answer body to a GraphQL POST of query and vars.
func postAnswer(h http.Handler, query string, vars map[string]any) []byte {
	body, _ := json.Marshal(map[string]any{"query": query, "variables": vars})
	req := httptest.NewRequest("POST", "/graphql", bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	out, _ := io.ReadAll(rec.Result().Body)
	return out
}
