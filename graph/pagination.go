package graph

import (
	"docsapi/apierr"
	"docsapi/graph/model"
	"docsapi/storage"
)

// DefaultPageSize is the page size when `limit` is omitted; MaxPageSize is
// the largest accepted.
const (
	DefaultPageSize = 50
	MaxPageSize     = 1000
)

// pageQuery validates the `page` and `limit` arguments every list takes.
func pageQuery(page *string, limit *int) (storage.PageQuery, error) {
	pq := storage.PageQuery{Limit: DefaultPageSize}
	if limit != nil {
		if *limit < 0 || *limit > MaxPageSize {
			return pq, apierr.Invalid("limit", "must be between 0 and %d", MaxPageSize)
		}
		pq.Limit = *limit
	}
	if page != nil {
		c, err := storage.DecodeCursor(*page)
		if err != nil {
			return pq, apierr.Invalid("page", "is not a page cursor issued by this list")
		}
		pq.After = c
	}
	return pq, nil
}

// listOf converts a storage page into the API list shape.
func listOf[S, T any](p storage.Page[S], conv func(S) T) model.List[T] {
	out := model.List[T]{Count: p.Count, Items: make([]T, 0, len(p.Items))}
	for _, it := range p.Items {
		out.Items = append(out.Items, conv(it))
	}
	if p.Next != nil {
		out.Next = &model.Next{Page: p.Next.Encode()}
	}
	return out
}
