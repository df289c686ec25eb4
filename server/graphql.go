package server

import (
	"context"
	"strings"

	"github.com/99designs/gqlgen/graphql"
	"github.com/99designs/gqlgen/graphql/errcode"
	"github.com/99designs/gqlgen/graphql/handler"
	"github.com/99designs/gqlgen/graphql/handler/extension"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/gqlerror"
)

// guardGraphQL adds the configured limits: operation complexity (gqlgen
// counts each selected field as 1 plus its children), selection depth, and
// how many resolvers of one operation run at once (gqlgen otherwise starts a
// goroutine per field and per list element).
func (s *Server) guardGraphQL(h *handler.Server) {
	if n := s.Config.GraphQLComplexity; n > 0 {
		h.Use(extension.FixedComplexityLimit(n))
	}
	if n := s.Config.GraphQLDepth; n > 0 {
		h.Use(depthLimit(n))
	}
	if n := s.Config.GraphQLConcurrency; n > 0 {
		h.AroundOperations(func(ctx context.Context, next graphql.OperationHandler) graphql.ResponseHandler {
			return next(context.WithValue(ctx, resolverSlotsKey{}, make(chan struct{}, n)))
		})
		h.AroundFields(func(ctx context.Context, next graphql.Resolver) (any, error) {
			slots, _ := ctx.Value(resolverSlotsKey{}).(chan struct{})
			if fc := graphql.GetFieldContext(ctx); slots == nil || fc == nil || !fc.IsResolver {
				return next(ctx)
			}
			// next resolves this field only; its children resolve after it
			// returns, so holding a slot here cannot deadlock.
			select {
			case slots <- struct{}{}:
			case <-ctx.Done():
				return nil, ctx.Err()
			}
			defer func() { <-slots }()
			return next(ctx)
		})
	}
}

type resolverSlotsKey struct{}

// depthLimit refuses operations nested deeper than its value. Introspection
// fields (__schema, __type) are not counted: they are governed by
// --graphql-introspection.
type depthLimit int

var _ interface {
	graphql.HandlerExtension
	graphql.OperationContextMutator
} = depthLimit(0)

func (depthLimit) ExtensionName() string                          { return "DepthLimit" }
func (depthLimit) Validate(schema graphql.ExecutableSchema) error { return nil }

func (d depthLimit) MutateOperationContext(ctx context.Context, oc *graphql.OperationContext) *gqlerror.Error {
	if oc.Operation == nil {
		return nil
	}
	if depth := selectionDepth(oc.Operation.SelectionSet, int(d)+1); depth > int(d) {
		err := gqlerror.Errorf("operation is nested %d levels deep, more than the limit of %d", depth, int(d))
		errcode.Set(err, "DEPTH_LIMIT_EXCEEDED")
		return err
	}
	return nil
}

// selectionDepth is the nesting of set, counting no further than stop
// (fragment cycles are refused by validation before this runs, and stop
// bounds the walk anyway).
func selectionDepth(set ast.SelectionSet, stop int) int {
	if stop <= 0 {
		return 0
	}
	deepest := 0
	for _, sel := range set {
		var d int
		switch sel := sel.(type) {
		case *ast.Field:
			if strings.HasPrefix(sel.Name, "__") {
				continue
			}
			d = 1 + selectionDepth(sel.SelectionSet, stop-1)
		case *ast.InlineFragment:
			d = selectionDepth(sel.SelectionSet, stop)
		case *ast.FragmentSpread:
			if sel.Definition != nil {
				d = selectionDepth(sel.Definition.SelectionSet, stop)
			}
		}
		deepest = max(deepest, d)
	}
	return deepest
}
