package graph

import (
	"context"
	"strings"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/gqlerror"

	"docsapi/apierr"
	"docsapi/graph/model"
)

// Global ids (graph/nodes.graphqls): `<Type>:<id>` for the kinds an id
// alone finds, `<Type>:<parent>/<id>` for those whose reads are scoped
// (a change request or comment under its space, a site or team under its
// organization). The type in the id picks the one read to make: docsapi's
// REST ids do not say their kind, and trying every kind would cost a read
// per kind and could answer an object of the wrong one.

// maxNodeIDBytes bounds a global id before it is split.
const maxNodeIDBytes = 256

// MaxNodes is how many ids one nodes(ids:) takes.
const MaxNodes = 100

func userNodeID(u *model.User) string { return "User:" + u.ID }

func commentNodeID(c *model.Comment) string {
	if c.Target == nil {
		return "Comment:" + c.ID
	}
	if c.Target.ChangeRequest != nil {
		return "Comment:" + c.Target.Space + "/" + *c.Target.ChangeRequest + "/" + c.ID
	}
	return "Comment:" + c.Target.Space + "/" + c.ID
}

// parseNodeID splits a global id into its type and its one to three
// non-empty parts (the parents, then the id); ok is false for anything
// else. It allocates nothing for an id over maxNodeIDBytes.
func parseNodeID(id string) (kind string, parts []string, ok bool) {
	if len(id) > maxNodeIDBytes {
		return "", nil, false
	}
	kind, rest, found := strings.Cut(id, ":")
	if !found || kind == "" || rest == "" || strings.Count(rest, "/") > 2 {
		return "", nil, false
	}
	parts = strings.Split(rest, "/")
	for _, p := range parts {
		if p == "" {
			return "", nil, false
		}
	}
	return kind, parts, true
}

func nodeNotFound(id string) error {
	return apierr.New(404, "no node with id %q", id)
}

// node resolves a global id with the access checks of the object's own
// query; a malformed id is a 404 like an unknown one (the id is opaque to
// clients).
func (r *Resolver) node(ctx context.Context, id string) (model.Node, error) {
	if len(id) > maxNodeIDBytes {
		return nil, apierr.Invalid("id", "must be at most %d bytes", maxNodeIDBytes)
	}
	kind, parts, ok := parseNodeID(id)
	if !ok {
		return nil, nodeNotFound(id)
	}
	var (
		n   model.Node
		err error
	)
	q := r.Query()
	switch {
	case kind == "Organization" && len(parts) == 1:
		n, err = nonNil(r.orgEdge(ctx, parts[0]))
	case kind == "Space" && len(parts) == 1:
		n, err = nonNil(r.spaceEdge(ctx, parts[0]))
	case kind == "Collection" && len(parts) == 1:
		n, err = nonNil(r.collectionEdge(ctx, parts[0]))
	case kind == "User" && len(parts) == 1:
		n, err = nonNil(q.User(ctx, parts[0]))
	case kind == "ChangeRequest" && len(parts) == 2:
		n, err = nonNil(q.ChangeRequest(ctx, parts[0], parts[1]))
	case kind == "Comment" && len(parts) == 2:
		n, err = nonNil(q.Comment(ctx, parts[0], nil, parts[1], nil))
	case kind == "Comment" && len(parts) == 3:
		n, err = nonNil(q.Comment(ctx, parts[0], &parts[1], parts[2], nil))
	case kind == "Site" && len(parts) == 2:
		n, err = nonNil(q.Site(ctx, parts[0], parts[1]))
	case kind == "Team" && len(parts) == 2:
		var t *model.Team
		if t, err = q.Team(ctx, parts[0], parts[1]); err == nil {
			rememberParent(ctx, t, parts[0]) // its fields need its organization
			n = t
		}
	default:
		return nil, nodeNotFound(id)
	}
	if apierr.Status(err) == 400 { // a malformed part (e.g. a change request number): unknown
		return nil, nodeNotFound(id)
	}
	return n, err
}

// nonNil turns a typed nil into a nil interface.
func nonNil[T model.Node](v T, err error) (model.Node, error) {
	if err != nil {
		return nil, err
	}
	return v, nil
}

// nodes resolves each id on its own: one that fails gives null at its
// place and an error with its path, the others are answered.
func (r *Resolver) nodes(ctx context.Context, ids []string) ([]model.Node, error) {
	if len(ids) > MaxNodes {
		return nil, apierr.Invalid("ids", "must list at most %d ids", MaxNodes)
	}
	out := make([]model.Node, len(ids))
	for i, id := range ids {
		n, err := r.node(ctx, id)
		if err != nil {
			path := append(append(ast.Path{}, graphql.GetPath(ctx)...), ast.PathIndex(i))
			graphql.AddError(ctx, &gqlerror.Error{Err: err, Message: err.Error(), Path: path})
			continue
		}
		out[i] = n
	}
	return out, nil
}
