package graph

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/base64"
	"sync"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"docsapi/storage"
)

// Signer signs the server's own JWTs (visitor claims) with an Ed25519 key
// kept in the database, so every process sharing the database signs alike
// and anyone can verify with the published key (GET /.well-known/jwks.json).
type Signer struct {
	keys storage.Keys
	mu   sync.Mutex
	key  *storage.SigningKey
}

func NewSigner(keys storage.Keys) *Signer { return &Signer{keys: keys} }

// load reads (or creates) the key once. A failure is not remembered: the
// first caller's request may have been cancelled, which must not disable
// signing for the life of the process.
func (s *Signer) load(ctx context.Context) (storage.SigningKey, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.key != nil {
		return *s.key, nil
	}
	k, err := s.keys.SigningKey(ctx, "EdDSA", func() ([]byte, []byte, error) {
		pub, priv, err := ed25519.GenerateKey(rand.Reader)
		return priv, pub, err
	})
	if err != nil {
		return k, err
	}
	s.key = &k
	return k, nil
}

// Sign returns a compact JWT of claims, with the key id in its header.
func (s *Signer) Sign(ctx context.Context, claims jwt.MapClaims) (string, error) {
	k, err := s.load(ctx)
	if err != nil {
		return "", err
	}
	t := jwt.NewWithClaims(jwt.SigningMethodEdDSA, claims)
	t.Header["kid"] = k.ID
	return t.SignedString(ed25519.PrivateKey(k.PrivateKey))
}

// Verify parses a token signed by this server.
func (s *Signer) Verify(ctx context.Context, token string) (jwt.MapClaims, error) {
	return s.VerifyAt(ctx, token, time.Now)
}

// VerifyAt is Verify on the clock now (the resolvers' clock).
func (s *Signer) VerifyAt(ctx context.Context, token string, now func() time.Time) (jwt.MapClaims, error) {
	k, err := s.load(ctx)
	if err != nil {
		return nil, err
	}
	claims := jwt.MapClaims{}
	_, err = jwt.ParseWithClaims(token, claims, func(*jwt.Token) (any, error) { return ed25519.PublicKey(k.PublicKey), nil },
		jwt.WithValidMethods([]string{"EdDSA"}), jwt.WithExpirationRequired(), jwt.WithLeeway(5*time.Second), jwt.WithTimeFunc(now))
	return claims, err
}

// JWKS is the public key set, as served at /.well-known/jwks.json.
func (s *Signer) JWKS(ctx context.Context) (map[string]any, error) {
	k, err := s.load(ctx)
	if err != nil {
		return nil, err
	}
	return map[string]any{"keys": []map[string]string{{
		"kty": "OKP", "crv": "Ed25519", "alg": "EdDSA", "use": "sig", "kid": k.ID,
		"x": base64.RawURLEncoding.EncodeToString(k.PublicKey),
	}}}, nil
}
