package server

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/99designs/gqlgen/graphql"
	"github.com/99designs/gqlgen/graphql/errcode"
	"github.com/vektah/gqlparser/v2/gqlerror"

	"docsapi/storage"
)

// PersistedQueries are GraphQL documents registered ahead of time (the
// --graphql-persisted-queries file), by the SHA-256 of their text, the
// hash Apollo's persisted-query link and Automatic Persisted Queries send.
// A client may send a registered document's hash alone, even to a fresh
// replica; with Only (--graphql-persisted-only) every other document is
// refused, so a production front-end's server runs nothing but the
// operations that front-end was built with.
//
// Documents registered in the database (docsapi admin persisted-queries)
// count as well, on every replica: the server looks a hash up there when
// the file does not have it.
type PersistedQueries struct {
	Only   bool
	byHash map[string]string
	names  map[string]string // the manifest's operation names, by hash
	store  persistedStore
}

// Operations are the file's documents, by hash, to register in the
// database (docsapi admin persisted-queries add).
func (q *PersistedQueries) Operations() []storage.PersistedQuery {
	out := make([]storage.PersistedQuery, 0, len(q.byHash))
	for h, body := range q.byHash {
		out = append(out, storage.PersistedQuery{Hash: h, Name: q.names[h], Body: body})
	}
	slices.SortFunc(out, func(a, b storage.PersistedQuery) int { return strings.Compare(a.Hash, b.Hash) })
	return out
}

// persistedStore reads the documents registered in the database
// (storage.DB).
type persistedStore interface {
	PersistedQueryBody(ctx context.Context, hash string) (string, error)
}

// withStore is q (nil: no file) with the database's documents beside it.
func (q *PersistedQueries) withStore(store persistedStore) *PersistedQueries {
	c := PersistedQueries{store: store}
	if q != nil {
		c.Only, c.byHash = q.Only, q.byHash
	}
	return &c
}

// lookup finds the registered document of hash: in the file, then in the
// database.
func (q *PersistedQueries) lookup(ctx context.Context, hash string) (string, bool, error) {
	if text, ok := q.byHash[hash]; ok {
		return text, true, nil
	}
	if q.store == nil || !validHash(hash) {
		return "", false, nil
	}
	text, err := q.store.PersistedQueryBody(ctx, hash)
	if errors.Is(err, storage.ErrNotFound) {
		return "", false, nil
	}
	return text, err == nil, err
}

// validHash tells a hex SHA-256 (what may be registered) from anything
// else a client sends, which is not looked up.
func validHash(h string) bool {
	if len(h) != sha256.Size*2 {
		return false
	}
	_, err := hex.DecodeString(h)
	return err == nil
}

// allows tells whether a document's text may run: always unless Only, else
// when it is registered (in the file or, still, in the database). The
// fast path asks it, as it skips gqlgen's extensions.
func (q *PersistedQueries) allows(ctx context.Context, query string) bool {
	if !q.Only {
		return true
	}
	text, ok, err := q.lookup(ctx, queryHash(query))
	return err == nil && ok && text == query
}

// NewPersistedQueries is an empty registration (documents from the
// database only), refusing every other document when only is set.
func NewPersistedQueries(only bool) *PersistedQueries { return &PersistedQueries{Only: only} }

// PersistedQueryHash is the hash a document is registered by: the hex
// SHA-256 of its text.
func PersistedQueryHash(query string) string { return queryHash(query) }

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
	q := &PersistedQueries{byHash: make(map[string]string, len(m.Operations)), names: make(map[string]string, len(m.Operations))}
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
		q.byHash[op.ID], q.names[op.ID] = op.Body, op.Name
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
		if hash == "" {
			return nil
		}
		text, ok, err := q.lookup(ctx, hash)
		if err != nil {
			return gqlerror.Errorf("the registered GraphQL documents could not be read")
		}
		if ok {
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
	text, ok, err := q.lookup(ctx, hash)
	if err != nil {
		return gqlerror.Errorf("the registered GraphQL documents could not be read")
	}
	if ok && text == raw.Query {
		return nil
	}
	refused := gqlerror.Errorf("this server runs registered GraphQL documents only (--graphql-persisted-only), and this one is not registered")
	errcode.Set(refused, codePersistedQueryNotAllowed)
	return refused
}

// CheckPersistedDocument refuses a document to register that the server
// would refuse with its default bounds (bytes, nesting and tokens before
// it is parsed; fields, aliases and pairs after), so that registering
// never runs the parser on a document outside them.
func CheckPersistedDocument(query string) error {
	b := documentBounds{limits: GraphQLLimits{
		DocumentBytes: DefaultGraphQLMaxDocumentBytes, Tokens: DefaultGraphQLMaxTokens, Nesting: DefaultGraphQLMaxNesting,
		Fields: DefaultGraphQLMaxFields, Aliases: DefaultGraphQLMaxAliases, FieldPairs: DefaultGraphQLMaxFieldPairs,
	}}
	if err := b.check(query); err != nil {
		return err
	}
	return nil
}
