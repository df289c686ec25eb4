package graph

import (
	"context"
	"time"

	"docsapi/apierr"
	"docsapi/auth"
	"docsapi/graph/model"
	"docsapi/storage"
)

// RequireWrite is the one check of read-only tokens: every write, REST
// (any method but GET and HEAD, see rest.API.Mount) and GraphQL (every
// mutation, see server.graphQLHandler), passes through it before any
// resolver runs; reads never do.
func RequireWrite(ctx context.Context) error {
	if c, ok := auth.CallerFrom(ctx); ok && c.ReadOnly {
		return apierr.Forbidden("this API token is read-only: writes need a token created without readOnly")
	}
	return nil
}

// tokenModel is the API shape of a stored token; secret is set only when
// the token was just created.
func tokenModel(t storage.Token, secret string) *model.APIToken {
	out := &model.APIToken{
		Object: "api-token", ID: t.ID, Label: t.Label, CreatedAt: model.Time(t.CreatedAt),
		ExpiresAt: model.TimePtr(t.ExpiresAt), LastUsedAt: model.TimePtr(t.LastUsedAt), ReadOnly: t.ReadOnly,
	}
	if secret != "" {
		out.Token = &secret
	}
	return out
}

// futureExpiry parses an optional expiresAt (of a new token, of a share
// link): an ISO 8601 date-time, or a date (its midnight UTC), in the future.
func futureExpiry(v *string, now time.Time) (*time.Time, error) {
	if v == nil {
		return nil, nil
	}
	at, err := time.Parse(time.RFC3339Nano, *v)
	if err != nil {
		if at, err = time.Parse(time.DateOnly, *v); err != nil {
			return nil, apierr.Invalid("expiresAt", "must be an ISO 8601 date or date-time such as 2030-01-02 or 2030-01-02T03:04:05Z")
		}
	}
	at = at.UTC().Truncate(time.Millisecond)
	if !at.After(now) {
		return nil, apierr.Invalid("expiresAt", "must be in the future")
	}
	return &at, nil
}

// createAPIToken stores a new personal token of the caller. A token minted
// with an organization-scoped token (a SAML sign-in) is scoped to the same
// organization, so a session cannot widen its own reach.
func (r *Resolver) createAPIToken(ctx context.Context, in model.CreateAPITokenInput) (*model.APIToken, error) {
	c, err := userCaller(ctx, "creating API tokens")
	if err != nil {
		return nil, err
	}
	if err := checkLen("label", in.Label, 1, 100); err != nil {
		return nil, err
	}
	expires, err := futureExpiry(in.ExpiresAt, r.Now())
	if err != nil {
		return nil, err
	}
	secret, hash := auth.NewToken()
	t := storage.Token{UserID: c.UserID, Hash: hash, Kind: "api", Label: in.Label, ExpiresAt: expires, ReadOnly: in.ReadOnly != nil && *in.ReadOnly}
	if c.OrganizationID != "" {
		t.OrganizationID = &c.OrganizationID
	}
	ctx, err = r.tokenChanges(ctx, c, "token.created", func() string { return t.ID },
		map[string]any{"label": t.Label, "readOnly": t.ReadOnly, "expiresAt": model.TimePtr(t.ExpiresAt)})
	if err != nil {
		return nil, err
	}
	if err := r.Store.CreateToken(ctx, &t); err != nil {
		return nil, err
	}
	return tokenModel(t, secret), nil
}

// apiTokens lists the caller's personal tokens (never their secrets).
func (r *Resolver) apiTokens(ctx context.Context, page *string, limit *int) (*model.APITokenList, error) {
	c, err := userCaller(ctx, "listing API tokens")
	if err != nil {
		return nil, err
	}
	pq, err := pageQuery(page, limit)
	if err != nil {
		return nil, err
	}
	p, err := r.Store.ListUserTokens(ctx, c.UserID, pq)
	if err != nil {
		return nil, err
	}
	l := model.APITokenList(listOf(p, func(t storage.Token) *model.APIToken { return tokenModel(t, "") }))
	return &l, nil
}

// deleteAPIToken revokes one of the caller's personal tokens. Every
// process sees it at once: the delete moves the token counter the
// authenticators validate their caches with.
func (r *Resolver) deleteAPIToken(ctx context.Context, id string) (*model.DeleteResult, error) {
	c, err := userCaller(ctx, "deleting API tokens")
	if err != nil {
		return nil, err
	}
	ctx, err = r.tokenChanges(ctx, c, "token.revoked", func() string { return id }, nil)
	if err != nil {
		return nil, err
	}
	ok, err := r.Store.DeleteUserToken(ctx, c.UserID, id)
	if err != nil {
		return nil, err
	}
	if ok {
		r.Auth.Forget(id)
	}
	return &model.DeleteResult{Deleted: ok}, nil
}
