package server

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"

	"github.com/99designs/gqlgen/graphql"
	"github.com/99designs/gqlgen/graphql/errcode"
	"github.com/vektah/gqlparser/v2/gqlerror"
)

// PersistedQueries are GraphQL documents registered ahead of time (the
// --graphql-persisted-queries file), by the SHA-256 of their text, the
// hash Apollo's persisted-query link and Automatic Persisted Queries send.
// A client may send a registered document's hash alone, even to a fresh
// replica; with Only (--graphql-persisted-only) every other document is
// refused, so a production front-end's server runs nothing but the
// operations that front-end was built with.
type PersistedQueries struct {
	Only   bool
	byHash map[string]string
}

// codePersistedQueryNotAllowed refuses an unregistered document in
// persisted-only mode (a protocol error: 422, as the other bounds).
const codePersistedQueryNotAllowed = "PERSISTED_QUERY_NOT_ALLOWED"

func init() { errcode.RegisterErrorType(codePersistedQueryNotAllowed, errcode.KindProtocol) }

// Bounds of the registration file.
const (
	maxPersistedFileBytes = 64 << 20
	maxPersistedQueries   = 100000
)

// persistedManifest is Apollo's persisted query manifest
// (@apollo/generate-persisted-query-manifest writes it): each operation's
// id is the hex SHA-256 of its body.
type persistedManifest struct {
	Format     string `json:"format"`
	Version    int    `json:"version"`
	Operations []struct {
		ID   string `json:"id"`
		Name string `json:"name"`
		Type string `json:"type"`
		Body string `json:"body"`
	} `json:"operations"`
}

// LoadPersistedQueries reads a manifest file (ParsePersistedQueries).
func LoadPersistedQueries(path string, maxDocumentBytes int) (*PersistedQueries, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxPersistedFileBytes+1))
	if err != nil {
		return nil, err
	}
	q, err := ParsePersistedQueries(data, maxDocumentBytes)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return q, nil
}

// ParsePersistedQueries reads an Apollo persisted query manifest: at most
// 64 MiB, 100,000 operations, each body at most maxDocumentBytes (the
// document bound; 0: none) with the SHA-256 of its body as its id.
func ParsePersistedQueries(data []byte, maxDocumentBytes int) (*PersistedQueries, error) {
	if len(data) > maxPersistedFileBytes {
		return nil, fmt.Errorf("larger than %d bytes", maxPersistedFileBytes)
	}
	var m persistedManifest
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, fmt.Errorf("not a persisted query manifest: %w", err)
	}
	if m.Format != "apollo-persisted-query-manifest" || m.Version != 1 {
		return nil, fmt.Errorf("format %q version %d: want apollo-persisted-query-manifest version 1", m.Format, m.Version)
	}
	if len(m.Operations) > maxPersistedQueries {
		return nil, fmt.Errorf("%d operations, more than %d", len(m.Operations), maxPersistedQueries)
	}
	q := &PersistedQueries{byHash: make(map[string]string, len(m.Operations))}
	for i, op := range m.Operations {
		if op.Body == "" {
			return nil, fmt.Errorf("operations[%d] (%q): empty body", i, op.Name)
		}
		if maxDocumentBytes > 0 && len(op.Body) > maxDocumentBytes {
			return nil, fmt.Errorf("operations[%d] (%q): body of %d bytes, larger than the document limit of %d", i, op.Name, len(op.Body), maxDocumentBytes)
		}
		if sum := queryHash(op.Body); op.ID != sum {
			return nil, fmt.Errorf("operations[%d] (%q): id %q is not the SHA-256 of its body (%s)", i, op.Name, op.ID, sum)
		}
		q.byHash[op.ID] = op.Body
	}
	return q, nil
}

// Len is how many documents are registered.
func (q *PersistedQueries) Len() int { return len(q.byHash) }

func queryHash(query string) string {
	sum := sha256.Sum256([]byte(query))
	return hex.EncodeToString(sum[:])
}

var _ interface {
	graphql.HandlerExtension
	graphql.OperationParameterMutator
} = &PersistedQueries{}

func (*PersistedQueries) ExtensionName() string                          { return "PersistedQueries" }
func (*PersistedQueries) Validate(schema graphql.ExecutableSchema) error { return nil }

// MutateOperationParameters runs before Automatic Persisted Queries: a
// registered hash sent alone gets its text; in persisted-only mode a text
// that is not registered is refused before it is parsed (and before APQ
// could remember it). A hash alone that is not registered goes on to APQ,
// which answers PersistedQueryNotFound, and the client's retry with the
// text is refused here.
func (q *PersistedQueries) MutateOperationParameters(ctx context.Context, raw *graphql.RawParams) *gqlerror.Error {
	hash := ""
	if pq, ok := raw.Extensions["persistedQuery"].(map[string]any); ok {
		hash, _ = pq["sha256Hash"].(string)
	}
	if raw.Query == "" {
		if text, ok := q.byHash[hash]; ok && hash != "" {
			raw.Query = text
		}
		return nil
	}
	if !q.Only {
		return nil
	}
	if hash == "" {
		hash = queryHash(raw.Query)
	}
	if text, ok := q.byHash[hash]; ok && text == raw.Query {
		return nil
	}
	err := gqlerror.Errorf("this server runs registered GraphQL documents only (--graphql-persisted-only), and this one is not registered")
	errcode.Set(err, codePersistedQueryNotAllowed)
	return err
}
