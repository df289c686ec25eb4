package server

import (
	"context"

	"github.com/99designs/gqlgen/graphql"
	"github.com/99designs/gqlgen/graphql/errcode"
	"github.com/99designs/gqlgen/graphql/handler"
	"github.com/99designs/gqlgen/graphql/handler/extension"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/gqlerror"
)

// guardGraphQL adds the configured limits: the document's bounds before
// it is parsed and validated (graphqlbounds.go), operation complexity
// (gqlgen counts each selected field as 1 plus its children), selection
// depth, how many resolvers of one operation run at once (gqlgen otherwise
// starts a goroutine per field and per list element) and the errors of one
// answer. Introspection fields count in complexity and depth like any other.
func (s *Server) guardGraphQL(h *handler.Server, bounds *documentBounds) {
	limits := s.Config.GraphQLLimits
	h.SetParserTokenLimit(limits.Tokens)
	h.Use(bounds)
	if n := limits.Errors; n > 0 {
		h.AroundResponses(capErrors(n))
	}
	// Depth first: a deep operation is refused as such, not for its cost.
	if n := s.Config.GraphQLDepth; n > 0 {
		h.Use(depthLimit(n))
	}
	// Every operation's cost is measured (and answered in extensions.cost,
	// graphqlcost.go); a positive limit refuses those above it.
	h.Use(&complexityLimit{limit: s.Config.GraphQLComplexity, known: newWeightedLRU(complexityCacheBytes, largestComplexityKey, keyWeight[int])})
	h.AroundOperations(costExtension)
	if n := s.Config.GraphQLConcurrency; n > 0 {
		h.AroundOperations(func(ctx context.Context, next graphql.OperationHandler) graphql.ResponseHandler {
			return next(context.WithValue(ctx, resolverSlotsKey{}, make(chan struct{}, n)))
		})
		h.AroundFields(func(ctx context.Context, next graphql.Resolver) (any, error) {
			// Every field passes here, most of them plain struct fields: the
			// field context is the innermost context value (found at once),
			// the slots are far up the chain, so look them up only for
			// resolvers.
			if fc := graphql.GetFieldContext(ctx); fc == nil || !fc.IsResolver {
				return next(ctx)
			}
			if err := ctx.Err(); err != nil { // the client left: resolve nothing more
				return nil, err
			}
			slots, _ := ctx.Value(resolverSlotsKey{}).(chan struct{})
			if slots == nil {
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

// costStats is gqlgen's complexity statistics (the same extension name).
type costStats = extension.ComplexityStats

// complexityLimit is gqlgen's FixedComplexityLimit (same error, code and
// stats) with each operation's complexity remembered by query text and
// operation name: without complexity functions (generated.Config sets none)
// a field counts 1 plus its children whatever the variables, so the figure
// depends on the document only, and recomputing it (walking the selection
// and building every field's argument map) was 7% of a small query's CPU.
// The fields of __schema, which gqlgen's figure leaves out, are added: a
// thousand aliases of it counted 0.
type complexityLimit struct {
	limit int
	es    graphql.ExecutableSchema
	known graphql.Cache[int]
}

var _ interface {
	graphql.HandlerExtension
	graphql.OperationContextMutator
} = &complexityLimit{}

func (c *complexityLimit) ExtensionName() string { return "ComplexityLimit" }

func (c *complexityLimit) Validate(schema graphql.ExecutableSchema) error {
	c.es = schema
	return nil
}

func (c *complexityLimit) MutateOperationContext(ctx context.Context, oc *graphql.OperationContext) *gqlerror.Error {
	// The cost depends on the variables only through limit arguments: an
	// operation without variables is measured once.
	key := oc.OperationName + "\x00" + oc.RawQuery
	n, ok := 0, false
	if len(oc.Variables) == 0 {
		n, ok = c.known.Get(ctx, key)
	}
	if !ok {
		op := oc.Doc.Operations.ForName(oc.OperationName)
		if op == nil {
			return nil // gqlgen refuses it next
		}
		n = saturatingAdd(operationCost(op, oc.Variables), schemaFields(oc.Doc, op))
		if len(oc.Variables) == 0 {
			c.known.Add(ctx, key, n)
		}
	}
	oc.Stats.SetExtension("ComplexityLimit", &costStats{Complexity: n, ComplexityLimit: c.limit})
	if c.limit > 0 && n > c.limit {
		err := gqlerror.Errorf("operation has complexity %d, which exceeds the limit of %d", n, c.limit)
		errcode.Set(err, codeComplexityLimitExceeded)
		return err
	}
	return nil
}

// depthLimit refuses operations nested deeper than its value, introspection
// fields included (the standard introspection query is 14 levels deep).
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
		errcode.Set(err, codeDepthLimitExceeded)
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
