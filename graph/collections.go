package graph

import (
	"context"

	"docsapi/graph/model"
)

// Limits of collection fields.
const (
	collectionTitleMax       = 50
	collectionDescriptionMax = 100
)

// collectionAnswer reads a collection as the caller sees it (after a read
// or a change).
func (r *Resolver) collectionAnswer(ctx context.Context, id string) (*model.Collection, error) {
	c, s, err := r.collectionScope(ctx, id, chainOnly)
	if err != nil {
		return nil, err
	}
	return r.collectionModel(c, s.Role), nil
}

func ptr[T any](v T) *T { return &v }
