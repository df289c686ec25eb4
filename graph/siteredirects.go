package graph

import "context"

// siteRedirectTarget is the published URL a site redirect sends source to.
func (r *Resolver) siteRedirectTarget(ctx context.Context, a audience, source string) (string, bool, error) {
	return "", false, nil
}
