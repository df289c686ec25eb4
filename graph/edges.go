package graph

import (
	"context"
	"strings"
	"sync"

	"github.com/99designs/gqlgen/graphql"

	"docsapi/apierr"
	"docsapi/graph/model"
	"docsapi/storage"
)

// Edges are the fields leading from one object to another (Space.org,
// Collection.children, Comment.replyList, ...). Each resolves through the
// same resolver method as the root query it mirrors, so access checks and
// answers are those of REST. Within one GraphQL request an object reached
// again (the organization of 50 spaces, the collections of a path) is
// loaded and authorized once: the request's Loaders remember each answer.

// Loaders are one request's memory of objects already loaded through an
// edge, keyed by kind and id. A second asker of the same key waits for the
// first one's answer rather than loading it again.
type Loaders struct {
	mu    sync.Mutex
	calls map[string]*loadCall
	// parents are the organizations of teams node(id:) read under the one
	// their global id named: the team model lacks it.
	parents map[*model.Team]string
}

type loadCall struct {
	done chan struct{}
	val  any
	err  error
}

type loadersKey struct{}

// WithLoaders gives a GraphQL operation its request-scoped loaders (the
// server calls it once per operation).
func WithLoaders(ctx context.Context) context.Context {
	return context.WithValue(ctx, loadersKey{}, &Loaders{calls: map[string]*loadCall{}, parents: map[*model.Team]string{}})
}

func loadersOf(ctx context.Context) *Loaders {
	l, _ := ctx.Value(loadersKey{}).(*Loaders)
	return l
}

// maxMemoKeys bounds what one request remembers: a query's items are
// bounded by its complexity limit, this bounds the memory whatever it is.
const maxMemoKeys = 10000

// memo answers load(ctx) once per request for key: without loaders in the
// context (REST, tests calling resolvers directly) it just loads.
func memo[T any](ctx context.Context, key string, load func(context.Context) (T, error)) (T, error) {
	l := loadersOf(ctx)
	if l == nil {
		return load(ctx)
	}
	l.mu.Lock()
	if c, ok := l.calls[key]; ok {
		l.mu.Unlock()
		select {
		case <-c.done:
		case <-ctx.Done():
			var zero T
			return zero, ctx.Err()
		}
		v, _ := c.val.(T)
		return v, c.err
	}
	if len(l.calls) >= maxMemoKeys {
		l.mu.Unlock()
		return load(ctx)
	}
	c := &loadCall{done: make(chan struct{})}
	l.calls[key] = c
	l.mu.Unlock()
	v, err := load(ctx)
	c.val, c.err = v, err
	close(c.done)
	return v, err
}

// enclosing finds, walking up from the field being resolved, the id that
// the nearest enclosing object gives (pick) or, failing that, the root
// field's argument arg: the space of a revision reached through
// Space.activeRevision or through spaceContent(spaceId:).
func enclosing(ctx context.Context, arg string, pick func(any) string) string {
	l := loadersOf(ctx)
	for fc := graphql.GetFieldContext(ctx); fc != nil; fc = fc.Parent {
		if fc.Result != nil {
			if id := pick(fc.Result); id != "" {
				return id
			}
			if t, ok := fc.Result.(*model.Team); ok && l != nil { // a pointer: results may be unhashable slices
				l.mu.Lock()
				id := l.parents[t]
				l.mu.Unlock()
				if id != "" {
					return id
				}
			}
		}
		if v, ok := fc.Args[arg].(string); ok && v != "" {
			return v
		}
	}
	return ""
}

// enclosingSpace is the space a revision, a page or a change request was
// read in.
func enclosingSpace(ctx context.Context) (string, error) {
	id := enclosing(ctx, "spaceId", func(v any) string {
		switch v := v.(type) {
		case *model.Space:
			return v.ID
		case *model.Comment:
			if v.Target != nil {
				return v.Target.Space
			}
		case *model.ChangeRequest:
			return segmentAfter(v.Urls.Location, "/spaces/")
		}
		return ""
	})
	if id == "" {
		return "", apierr.New(400, "this field needs the space it was read in: reach it from a space or a spaceId argument")
	}
	return id, nil
}

// enclosingOrg is the organization a site or a team was read in.
func enclosingOrg(ctx context.Context) (string, error) {
	id := enclosing(ctx, "organizationId", func(v any) string {
		switch v := v.(type) {
		case *model.Organization:
			return v.ID
		case *model.Site:
			return segmentAfter(v.Urls.Location, "/orgs/")
		case *model.Space:
			return v.Organization
		case *model.Collection:
			return v.Organization
		}
		return ""
	})
	if id == "" {
		return "", apierr.New(400, "this field needs the organization it was read in: reach it from an organization or an organizationId argument")
	}
	return id, nil
}

// segmentAfter is the path segment following marker in an API location
// (".../v1/spaces/<id>/change-requests/..." gives <id> for "/spaces/").
func segmentAfter(location, marker string) string {
	i := strings.Index(location, marker)
	if i < 0 {
		return ""
	}
	rest := location[i+len(marker):]
	if j := strings.IndexByte(rest, '/'); j >= 0 {
		rest = rest[:j]
	}
	return rest
}

// The objects edges lead to, loaded once per request.

func (r *Resolver) orgEdge(ctx context.Context, id string) (*model.Organization, error) {
	return memo(ctx, "org\x00"+id, func(ctx context.Context) (*model.Organization, error) {
		return r.Query().Organization(ctx, id)
	})
}

func (r *Resolver) collectionEdge(ctx context.Context, id string) (*model.Collection, error) {
	return memo(ctx, "collection\x00"+id, func(ctx context.Context) (*model.Collection, error) {
		return r.collectionAnswer(ctx, id)
	})
}

func (r *Resolver) spaceEdge(ctx context.Context, id string) (*model.Space, error) {
	return memo(ctx, "space\x00"+id, func(ctx context.Context) (*model.Space, error) {
		return r.spaceAnswer(ctx, id)
	})
}

func (r *Resolver) revisionEdge(ctx context.Context, spaceID, revisionID string) (*model.Revision, error) {
	return memo(ctx, "revision\x00"+spaceID+"\x00"+revisionID, func(ctx context.Context) (*model.Revision, error) {
		return r.Query().SpaceContent(ctx, spaceID, &revisionID, nil, nil, nil)
	})
}

// maxCollectionDepth bounds a collection path walk (the tree's own depth
// limit is lower; this only guards against a cycle in stored data).
const maxCollectionDepth = 64

// collectionPath is the chain of collections from the top level down to
// parent (nil: none).
func (r *Resolver) collectionPath(ctx context.Context, parent *string) ([]*model.Collection, error) {
	var path []*model.Collection
	for id := parent; id != nil; {
		if len(path) == maxCollectionDepth {
			return nil, apierr.New(500, "collection path deeper than %d", maxCollectionDepth)
		}
		c, err := r.collectionEdge(ctx, *id)
		if err != nil {
			return nil, err
		}
		path = append(path, c)
		id = c.Parent
	}
	for i, j := 0, len(path)-1; i < j; i, j = i+1, j-1 {
		path[i], path[j] = path[j], path[i]
	}
	return path, nil
}

// collectionChildren lists the collections directly in c that the caller
// can see, paginated like every list, selected in SQL.
func (r *Resolver) collectionChildren(ctx context.Context, c *model.Collection, page *string, limit *int) (*model.CollectionList, error) {
	_, a, err := r.orgContent(ctx, c.Organization)
	if err != nil {
		return nil, err
	}
	if _, err := r.collectionEdge(ctx, c.ID); err != nil { // c itself must be visible
		return nil, err
	}
	pq, err := pageQuery(page, limit)
	if err != nil {
		return nil, err
	}
	f := storage.CollectionFilter{OrganizationID: c.Organization, ParentID: &c.ID, Visible: a.visibleCollections()}
	p, err := r.Store.ListCollections(ctx, f, nil, pq)
	if err != nil {
		return nil, err
	}
	l := model.CollectionList(listOf(p, func(it storage.Collection) *model.Collection {
		return r.collectionModel(it, a.effectiveRole(collectionItem(it)))
	}))
	return &l, nil
}

// userOrganizations answers User.organizations: the caller's own
// organizations; another user's memberships are not the caller's to list.
func (r *Resolver) userOrganizations(ctx context.Context, u *model.User, page *string, limit *int) (*model.OrganizationList, error) {
	c, err := callerOf(ctx)
	if err != nil {
		return nil, err
	}
	if c.UserID != u.ID {
		return nil, apierr.Forbidden("only your own user's organizations can be listed")
	}
	return r.Query().Organizations(ctx, page, limit)
}

// rememberParent records the organization a team was read under.
func rememberParent(ctx context.Context, obj *model.Team, parentID string) {
	if l := loadersOf(ctx); l != nil {
		l.mu.Lock()
		if len(l.parents) < maxMemoKeys {
			l.parents[obj] = parentID
		}
		l.mu.Unlock()
	}
}
