package auth

import (
	"context"
	"testing"
	"time"

	"docsapi/storage"
)

// oneToken is a Tokens store holding a single token.
type oneToken struct{ t storage.Token }

func (s oneToken) TokenByHash(_ context.Context, hash string) (storage.Token, error) {
	if hash != s.t.Hash {
		return storage.Token{}, storage.ErrNotFound
	}
	return s.t, nil
}
func (oneToken) CreateToken(context.Context, *storage.Token) error { return nil }
func (oneToken) DeleteToken(context.Context, string) (bool, error) { return false, nil }

// BenchmarkAuthenticateCached is the per-request cost of authentication
// once the token's lookup is cached (the steady state of every request).
func BenchmarkAuthenticateCached(b *testing.B) {
	secret, hash := NewToken()
	a := NewAuthenticator(oneToken{storage.Token{ID: "t", UserID: "u", Hash: hash, Kind: "api"}}, nil, time.Minute)
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
