package server

import (
	"context"
	"encoding/json"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2/ast"

	"docsapi/graph"
)

// Operation cost, as clients see it in extensions.cost and as the
// complexity limit counts it: each selected field costs 1 plus what it
// selects, and a list field taking a `limit` argument costs 1 plus what it
// selects times its limit (graph.DefaultPageSize when none is given), since
// that is how many items it may answer. So
// `spaces(limit: 10) { items { id title } }` costs 1 + 10 × 3 = 31, and
// nesting lists multiplies their limits, like GitHub's and Shopify's
// budgets.

// maxCost saturates the figure: limits multiplied along a deep selection
// could otherwise overflow.
const maxCost = 1 << 40

// operationCost is op's cost with vars (the values of limit arguments).
func operationCost(op *ast.OperationDefinition, vars map[string]any) int {
	return selectionCost(op.SelectionSet, vars, 0)
}

func selectionCost(set ast.SelectionSet, vars map[string]any, depth int) int {
	if depth > 64 { // validated documents are far shallower (the depth limit); a bound anyway
		return maxCost
	}
	n := 0
	for _, sel := range set {
		switch sel := sel.(type) {
		case *ast.Field:
			if sel.Name == "__schema" { // counted by schemaFields (graphqlbounds.go)
				continue
			}
			children := selectionCost(sel.SelectionSet, vars, depth+1)
			if sel.Definition != nil && sel.Definition.Arguments.ForName("limit") != nil {
				children = saturatingMul(children, fieldLimit(sel, vars))
			}
			n = saturatingAdd(n, 1+children)
		case *ast.InlineFragment:
			n = saturatingAdd(n, selectionCost(sel.SelectionSet, vars, depth+1))
		case *ast.FragmentSpread:
			if sel.Definition != nil {
				n = saturatingAdd(n, selectionCost(sel.Definition.SelectionSet, vars, depth+1))
			}
		}
	}
	return n
}

// fieldLimit is the limit a field is asked with: its argument's value (a
// literal or a variable), or the default page size.
func fieldLimit(f *ast.Field, vars map[string]any) int {
	arg := f.Arguments.ForName("limit")
	if arg == nil || arg.Value == nil {
		return graph.DefaultPageSize
	}
	v, err := arg.Value.Value(vars)
	if err != nil || v == nil {
		return graph.DefaultPageSize
	}
	var n int64
	switch v := v.(type) {
	case int64:
		n = v
	case int:
		n = int64(v)
	case float64:
		n = int64(v)
	case interface{ Int64() (int64, error) }: // json.Number
		n, _ = v.Int64()
	default:
		return graph.DefaultPageSize
	}
	// Out of range limits are refused by the resolver; count them at the
	// largest page so the figure stays meaningful.
	return int(min(max(n, 0), graph.MaxPageSize))
}

func saturatingAdd(a, b int) int { return min(a+b, maxCost) }

func saturatingMul(a, b int) int {
	if a == 0 || b == 0 {
		return 0
	}
	if a > maxCost/b {
		return maxCost
	}
	return a * b
}

// costExtension puts each answered operation's cost and the limit it was
// measured against in extensions.cost: {requested, limit} (limit null when
// there is none). It wraps the operation (not only the executed response),
// so remembered answers (introspection) carry it too.
func costExtension(ctx context.Context, next graphql.OperationHandler) graphql.ResponseHandler {
	answer := next(ctx)
	return func(ctx context.Context) *graphql.Response {
		resp := answer(ctx)
		if resp == nil || !graphql.HasOperationContext(ctx) {
			return resp
		}
		stats, _ := graphql.GetOperationContext(ctx).Stats.GetExtension("ComplexityLimit").(*costStats)
		if stats == nil {
			return resp
		}
		cost := map[string]any{"requested": stats.Complexity, "limit": nil}
		if stats.ComplexityLimit > 0 {
			cost["limit"] = stats.ComplexityLimit
		}
		ext := make(map[string]any, len(resp.Extensions)+1) // a remembered response is shared: never written to
		for k, v := range resp.Extensions {
			ext[k] = v
		}
		ext["cost"] = cost
		out := *resp
		out.Extensions = ext
		return &out
	}
}

// costJSON is `,"extensions":{...}` with the cost of the operation in
// ctx, as gqlgen's transport encodes costExtension's (sorted keys), or ""
// without one.
func costJSON(oc *graphql.OperationContext) string {
	stats, _ := oc.Stats.GetExtension("ComplexityLimit").(*costStats)
	if stats == nil {
		return ""
	}
	cost := map[string]any{"requested": stats.Complexity, "limit": nil}
	if stats.ComplexityLimit > 0 {
		cost["limit"] = stats.ComplexityLimit
	}
	b, _ := json.Marshal(map[string]any{"cost": cost})
	return `,"extensions":` + string(b)
}
