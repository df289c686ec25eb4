package auth

import (
	"context"
	"net/http"
	"testing"

	"docsapi/apierr"
	"docsapi/storage"
)

// FuzzAuthenticate: any Authorization header either resolves to the one
// known token or is refused with a 401; nothing else (no panic, no 500).
// CachedUserID guesses that token's user, for no other header.
func FuzzAuthenticate(f *testing.F) {
	secret, hash := NewToken()
	a := NewAuthenticator(oneToken{storage.Token{ID: "t", UserID: "u", Hash: hash, Kind: "api"}}, nil)
	for _, seed := range []string{"Bearer " + secret, "bearer " + secret + " ", "Bearer", "Bearer ", "Basic abc", "", "Bearer dapi_", "Bearer \x00"} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, header string) {
		c, err := a.Authenticate(context.Background(), header)
		// The guess made before authenticating (CachedUserID) is the
		// cached token's user or nothing, and a header that resolved is
		// cached (short ones: long ones are not hashed for a guess).
		if g := a.CachedUserID(header); g != "" && (g != "u" || err != nil) || g == "" && err == nil && len(header) < 256 {
			t.Fatalf("%q: guessed %q after %v", header, g, err)
		}
		if err == nil {
			if c.UserID != "u" || c.TokenID != "t" {
				t.Fatalf("%q resolved to %+v", header, c)
			}
			return
		}
		if e, ok := apierr.As(err); !ok || e.Status != http.StatusUnauthorized {
			t.Fatalf("%q: %v", header, err)
		}
	})
}
