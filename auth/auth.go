// Package auth turns a bearer token into the Caller of a request. Tokens are
// random 256-bit secrets shown once; only their SHA-256 is stored. Lookups
// are cached in memory, valid while the database's token counter stands
// still: an authenticated request costs one prepared read of that counter,
// and a revocation made by any process sharing the database is seen at once.
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
	"sync/atomic"
	"time"

	"docsapi/apierr"
	"docsapi/storage"
)

// TokenPrefix marks docsapi API tokens, so that leaked ones are easy to grep.
const TokenPrefix = "dapi_"

// KindInstallation marks integration installation tokens (see
// graph/installations.go for what they may do).
const KindInstallation = "installation"

// KindSite marks the short-lived apiToken a published site's URL
// resolution hands to a renderer (graph/published.go): it reads that
// site's published content as its visitor and nothing else.
const KindSite = "site"

// SiteGrant is what a site token carries: its site, the share key its URL
// used and the visitor's claims. A pointer in Caller keeps Caller
// comparable (answer cache keys).
type SiteGrant struct {
	SiteID   string
	ShareKey *string
	Claims   map[string]any
}

// Caller is who is making the request.
type Caller struct {
	UserID  string
	TokenID string
	Kind    string // api | session | installation
	// OrganizationID is set for tokens scoped to one organization.
	OrganizationID string
	// ReadOnly tokens may read what their user may and write nothing (see
	// graph.RequireWrite).
	ReadOnly bool
	// Site is set for site tokens (Kind KindSite) only.
	Site *SiteGrant
}

type ctxKey struct{}

// WithCaller stores the caller in ctx.
func WithCaller(ctx context.Context, c Caller) context.Context {
	return context.WithValue(ctx, ctxKey{}, c)
}

// CallerKey is the context key WithCaller stores the caller under (a
// request context keeping its values in one struct answers it itself).
var CallerKey any = ctxKey{}

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

// TokenStore is what the authenticator reads and writes (storage.DB).
type TokenStore interface {
	TokenByHash(ctx context.Context, hash string) (storage.Token, error)
	// TokenChanges moves whenever a token is deleted or changes what it
	// grants, in any process sharing the database.
	TokenChanges(ctx context.Context) (int64, error)
	TouchTokens(ctx context.Context, used map[string]time.Time) error
}

// Authenticator resolves bearer tokens, with a cache in front of the store.
// A cached lookup is used only while the store's token counter stands
// still, so a token revoked by any process answers 401 from the next
// request on; the price is one prepared primary-key read per request.
type Authenticator struct {
	tokens TokenStore
	now    func() time.Time

	mu    sync.RWMutex
	cache map[string]*cached // by token hash

	usage usage

	// siteTokens verifies site tokens (see AcceptSiteTokens); nil: none.
	siteTokens func(ctx context.Context, token string) (Caller, error)
}

// AcceptSiteTokens makes Authenticate hand bearer tokens that are JWTs
// (not docsapi API tokens) to verify: site tokens are signed, not stored.
func (a *Authenticator) AcceptSiteTokens(verify func(ctx context.Context, token string) (Caller, error)) {
	a.siteTokens = verify
}

type cached struct {
	caller    Caller
	expiresAt time.Time // of the token itself; zero when it never expires
	changes   int64     // the token counter it was read under
	// noted is when a use of the token was last queued for lastUsedAt
	// (Unix ms), so that a token is queued at most once per UsageInterval.
	noted atomic.Int64
}

// UsageInterval is how often at most a token's lastUsedAt is written.
const UsageInterval = time.Minute

// maxPendingUses bounds the queue of last uses waiting to be written (a
// flood of distinct tokens loses some lastUsedAt updates, never memory).
const maxPendingUses = 10_000

// usage is the queue of last uses, written by FlushUsage.
type usage struct {
	mu      sync.Mutex
	pending map[string]time.Time // by token id
}

// NewAuthenticator builds an Authenticator over tokens.
func NewAuthenticator(tokens TokenStore, now func() time.Time) *Authenticator {
	if now == nil {
		now = time.Now
	}
	return &Authenticator{tokens: tokens, now: now, cache: map[string]*cached{}}
}

var errUnauthorized = apierr.Unauthorized("missing or invalid bearer token")

// Authenticate resolves an Authorization header value.
func (a *Authenticator) Authenticate(ctx context.Context, header string) (Caller, error) {
	scheme, secret, ok := strings.Cut(header, " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") || secret == "" {
		return Caller{}, errUnauthorized
	}
	secret = strings.TrimSpace(secret)
	if a.siteTokens != nil && !strings.HasPrefix(secret, TokenPrefix) && strings.Count(secret, ".") == 2 {
		return a.siteTokens(ctx, secret)
	}
	hash := HashToken(secret)
	now := a.now()
	// Read before the lookup: a revoke committed after this read moves the
	// counter, so the entry stored below cannot outlive it.
	changes, err := a.tokens.TokenChanges(ctx)
	if err != nil {
		return Caller{}, err
	}
	a.mu.RLock()
	c, hit := a.cache[hash]
	a.mu.RUnlock()
	if !hit || c.changes != changes {
		if c, err = a.lookup(ctx, hash, changes); err != nil {
			return Caller{}, err
		}
	}
	if !c.expiresAt.IsZero() && !now.Before(c.expiresAt) {
		return Caller{}, apierr.Unauthorized("token expired at " + c.expiresAt.UTC().Format("2006-01-02T15:04:05.000Z"))
	}
	a.noteUse(c, now)
	return c.caller, nil
}

// CachedUserID is the user of the API token in an Authorization header
// value as last cached, without checking the token is still valid ("" when
// it is not cached): a guess for reads that go out before Authenticate
// (the request's first statement, storage.ReadCountersFor), never a
// credential.
func (a *Authenticator) CachedUserID(header string) string {
	scheme, secret, ok := strings.Cut(header, " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") || len(secret) > maxGuessedToken {
		return ""
	}
	hash := HashToken(strings.TrimSpace(secret))
	a.mu.RLock()
	c := a.cache[hash]
	a.mu.RUnlock()
	if c == nil {
		return ""
	}
	return c.caller.UserID
}

// maxGuessedToken bounds the header CachedUserID hashes (an API token is
// far shorter).
const maxGuessedToken = 512

// lookup reads the token with that hash and caches it under changes.
func (a *Authenticator) lookup(ctx context.Context, hash string, changes int64) (*cached, error) {
	t, err := a.tokens.TokenByHash(ctx, hash)
	if errors.Is(err, storage.ErrNotFound) {
		return nil, errUnauthorized
	}
	if err != nil {
		return nil, err
	}
	// The lookup was by hash; compare again in constant time for good measure.
	if subtle.ConstantTimeCompare([]byte(t.Hash), []byte(hash)) != 1 {
		return nil, errUnauthorized
	}
	c := &cached{caller: Caller{UserID: t.UserID, TokenID: t.ID, Kind: t.Kind, ReadOnly: t.ReadOnly}, changes: changes}
	if t.OrganizationID != nil {
		c.caller.OrganizationID = *t.OrganizationID
	}
	if t.ExpiresAt != nil {
		c.expiresAt = *t.ExpiresAt
	}
	if t.LastUsedAt != nil {
		c.noted.Store(t.LastUsedAt.UnixMilli())
	}
	a.mu.Lock()
	if len(a.cache) > 100_000 { // bound memory under a flood of distinct tokens
		a.cache = map[string]*cached{}
	}
	a.cache[hash] = c
	a.mu.Unlock()
	return c, nil
}

// noteUse queues the token's use for lastUsedAt when its last queued use
// is UsageInterval old: between those, a request costs one atomic load.
func (a *Authenticator) noteUse(c *cached, now time.Time) {
	last := c.noted.Load()
	if now.UnixMilli()-last < UsageInterval.Milliseconds() || !c.noted.CompareAndSwap(last, now.UnixMilli()) {
		return
	}
	a.usage.mu.Lock()
	if a.usage.pending == nil {
		a.usage.pending = map[string]time.Time{}
	}
	if len(a.usage.pending) < maxPendingUses {
		a.usage.pending[c.caller.TokenID] = now
	}
	a.usage.mu.Unlock()
}

// FlushUsage writes the queued last uses in one transaction.
func (a *Authenticator) FlushUsage(ctx context.Context) error {
	a.usage.mu.Lock()
	batch := a.usage.pending
	a.usage.pending = nil
	a.usage.mu.Unlock()
	return a.tokens.TouchTokens(ctx, batch)
}

// RunUsageWriter flushes the queued last uses every interval until ctx
// ends, then once more.
func (a *Authenticator) RunUsageWriter(ctx context.Context, interval time.Duration, onErr func(error)) {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			stop, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
			defer cancel()
			if err := a.FlushUsage(stop); err != nil {
				onErr(err)
			}
			return
		case <-t.C:
			if err := a.FlushUsage(ctx); err != nil {
				onErr(err)
			}
		}
	}
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
