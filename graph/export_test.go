package graph

import "context"

// RevisionRepository exposes revisionRepository to the package's outside
// tests (which start a whole server).
func (r *Resolver) RevisionRepository(ctx context.Context, spaceID, revisionID string) (map[string][]byte, error) {
	return r.revisionRepository(ctx, spaceID, revisionID)
}
