// Package auth turns a bearer token into the Caller of a request. Tokens are
// random 256-bit secrets shown once; only their SHA-256 is stored. Lookups
// are cached in memory so that an authenticated request costs no SQL; a
// revocation made through this process drops the cache entry at once.
package auth

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"strings"
	"sync"
	"time"

	"docsapi/apierr"
	"docsapi/storage"
)

// TokenPrefix marks docsapi API tokens, so that leaked ones are easy to grep.
const TokenPrefix = "dapi_"

// KindInstallation marks integration installation tokens (see
// graph/installations.go for what they may do).
const KindInstallation = "installation"

// Caller is who is making the request.
type Caller struct {
	UserID  string
	TokenID string
	Kind    string // api | session | installation
	// OrganizationID is set for tokens scoped to one organization.
	OrganizationID string
}

type ctxKey struct{}

// WithCaller stores the caller in ctx.
func WithCaller(ctx context.Context, c Caller) context.Context {
	return context.WithValue(ctx, ctxKey{}, c)
}

// CallerFrom returns the request's caller; ok is false for anonymous requests.
func CallerFrom(ctx context.Context) (Caller, bool) {
	c, ok := ctx.Value(ctxKey{}).(Caller)
	return c, ok
}

// NewToken returns a fresh secret and the hash to store for it.
func NewToken() (secret, hash string) {
	b := make([]byte, 32)
	rand.Read(b)
	secret = TokenPrefix + base64.RawURLEncoding.EncodeToString(b)
	return secret, HashToken(secret)
}

// HashToken is the stored form of a secret.
func HashToken(secret string) string {
	sum := sha256.Sum256([]byte(secret))
	return hex.EncodeToString(sum[:])
}

// Authenticator resolves bearer tokens, with a cache in front of the store.
type Authenticator struct {
	tokens storage.Tokens
	now    func() time.Time
	ttl    time.Duration

	mu    sync.RWMutex
	cache map[string]cached // by token hash
}

type cached struct {
	caller    Caller
	expiresAt time.Time // of the token itself; zero when it never expires
	fetchedAt time.Time
}

// NewAuthenticator builds an Authenticator; ttl bounds how long a cached
// lookup is trusted (a token revoked by another process stops working within
// ttl; one revoked through this process stops at once).
func NewAuthenticator(tokens storage.Tokens, now func() time.Time, ttl time.Duration) *Authenticator {
	if now == nil {
		now = time.Now
	}
	return &Authenticator{tokens: tokens, now: now, ttl: ttl, cache: map[string]cached{}}
}

var errUnauthorized = apierr.Unauthorized("missing or invalid bearer token")

// Authenticate resolves an Authorization header value.
func (a *Authenticator) Authenticate(ctx context.Context, header string) (Caller, error) {
	scheme, secret, ok := strings.Cut(header, " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") || secret == "" {
		return Caller{}, errUnauthorized
	}
	secret = strings.TrimSpace(secret)
	hash := HashToken(secret)
	now := a.now()
	a.mu.RLock()
	c, hit := a.cache[hash]
	a.mu.RUnlock()
	if hit && now.Sub(c.fetchedAt) < a.ttl {
		if !c.expiresAt.IsZero() && !now.Before(c.expiresAt) {
			return Caller{}, apierr.Unauthorized("token expired")
		}
		return c.caller, nil
	}
	t, err := a.tokens.TokenByHash(ctx, hash)
	if errors.Is(err, storage.ErrNotFound) {
		return Caller{}, errUnauthorized
	}
	if err != nil {
		return Caller{}, err
	}
	// The lookup was by hash; compare again in constant time for good measure.
	if subtle.ConstantTimeCompare([]byte(t.Hash), []byte(hash)) != 1 {
		return Caller{}, errUnauthorized
	}
	caller := Caller{UserID: t.UserID, TokenID: t.ID, Kind: t.Kind}
	if t.OrganizationID != nil {
		caller.OrganizationID = *t.OrganizationID
	}
	entry := cached{caller: caller, fetchedAt: now}
	if t.ExpiresAt != nil {
		entry.expiresAt = *t.ExpiresAt
		if !now.Before(*t.ExpiresAt) {
			return Caller{}, apierr.Unauthorized("token expired")
		}
	}
	a.mu.Lock()
	if len(a.cache) > 100_000 { // bound memory under a flood of distinct tokens
		a.cache = map[string]cached{}
	}
	a.cache[hash] = entry
	a.mu.Unlock()
	return caller, nil
}

// Forget drops every cached lookup of tokenID (call it when revoking).
func (a *Authenticator) Forget(tokenID string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	for h, c := range a.cache {
		if c.caller.TokenID == tokenID {
			delete(a.cache, h)
		}
	}
}

// ForgetUser drops every cached lookup of userID's tokens.
func (a *Authenticator) ForgetUser(userID string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	for h, c := range a.cache {
		if c.caller.UserID == userID {
			delete(a.cache, h)
		}
	}
}
