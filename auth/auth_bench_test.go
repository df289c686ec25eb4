package auth

import (
	"context"
	"testing"
	"time"

	"docsapi/storage"
)

// oneToken is a TokenStore holding a single token.
type oneToken struct{ t storage.Token }

func (s oneToken) TokenByHash(_ context.Context, hash string) (storage.Token, error) {
	if hash != s.t.Hash {
		return storage.Token{}, storage.ErrNotFound
	}
	return s.t, nil
}
func (oneToken) TokenChanges(context.Context) (int64, error)             { return 0, nil }
func (oneToken) TouchTokens(context.Context, map[string]time.Time) error { return nil }

// BenchmarkAuthenticateCached is the per-request cost of authentication
// once the token's lookup is cached (the steady state of every request),
// without the token counter's read (the store here answers from memory).
func BenchmarkAuthenticateCached(b *testing.B) {
	secret, hash := NewToken()
	a := NewAuthenticator(oneToken{storage.Token{ID: "t", UserID: "u", Hash: hash, Kind: "api"}}, nil)
	ctx := context.Background()
	header := "Bearer " + secret
	if _, err := a.Authenticate(ctx, header); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if _, err := a.Authenticate(ctx, header); err != nil {
				b.Fatal(err)
			}
		}
	})
}
