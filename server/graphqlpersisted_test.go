package server_test

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"strings"
	"testing"

	"docsapi/apitest"
	"docsapi/server"
)

func sha(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}

func manifest(t testing.TB, bodies ...string) []byte {
	t.Helper()
	ops := []map[string]any{}
	for _, b := range bodies {
		ops = append(ops, map[string]any{"id": sha(b), "name": "Op", "type": "query", "body": b})
	}
	data, err := json.Marshal(map[string]any{"format": "apollo-persisted-query-manifest", "version": 1, "operations": ops})
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// TestGraphQLPersistedOnly: a registered document runs by its hash alone
// or by its text; any other document, APQ registrations included, is
// refused before it is parsed.
func TestGraphQLPersistedOnly(t *testing.T) {
	registered := `query Org($id: ID!) { organization(id: $id) { id title } }`
	pq, err := server.ParsePersistedQueries(manifest(t, registered), server.DefaultGraphQLMaxDocumentBytes)
	if err != nil {
		t.Fatal(err)
	}
	pq.Only = true
	env := apitest.New(t, apitest.Options{Config: func(c *server.Config) { withServeDefaults(c); c.GraphQLPersisted = pq }})
	vars := map[string]any{"id": env.Org}
	post := func(body map[string]any) (int, map[string]any, []apitest.GraphQLError) {
		t.Helper()
		r := env.Do("POST", "/graphql", env.Admin.Token, body)
		var out struct {
			Data   map[string]any         `json:"data"`
			Errors []apitest.GraphQLError `json:"errors"`
		}
		json.Unmarshal(r.Body, &out)
		return r.Status, out.Data, out.Errors
	}
	ext := func(hash string) map[string]any {
		return map[string]any{"persistedQuery": map[string]any{"version": 1, "sha256Hash": hash}}
	}
	// Hash alone, twice (the second from the fast path's memory or APQ's).
	for range 2 {
		if st, data, errs := post(map[string]any{"variables": vars, "extensions": ext(sha(registered))}); st != 200 || len(errs) != 0 || data["organization"] == nil {
			t.Fatalf("registered hash: %d %v %v", st, data, errs)
		}
	}
	if st, data, errs := post(map[string]any{"query": registered, "variables": vars}); st != 200 || len(errs) != 0 || data["organization"] == nil {
		t.Errorf("registered text: %d %v %v", st, data, errs)
	}
	other := `query Org($id: ID!) { organization(id: $id) { id } }`
	for name, body := range map[string]map[string]any{
		"plain text":                  {"query": other, "variables": vars},
		"APQ registration":            {"query": other, "variables": vars, "extensions": ext(sha(other))},
		"registered hash, other text": {"query": other, "variables": vars, "extensions": ext(sha(registered))},
		"introspection":               {"query": `{ __schema { queryType { name } } }`},
	} {
		st, data, errs := post(body)
		if st != 422 || data != nil || len(errs) != 1 || errs[0].Code() != "PERSISTED_QUERY_NOT_ALLOWED" {
			t.Errorf("%s: %d %v %v", name, st, data, errs)
		}
	}
	// The refused APQ registration was not remembered.
	if _, _, errs := post(map[string]any{"variables": vars, "extensions": ext(sha(other))}); len(errs) != 1 || errs[0].Code() != "PERSISTED_QUERY_NOT_FOUND" {
		t.Errorf("hash of a refused document: %v", errs)
	}
}

// TestGraphQLPersistedQueriesRegistered: without persisted-only, a
// registered document's hash is known from the start and other documents
// run as always.
func TestGraphQLPersistedQueriesRegistered(t *testing.T) {
	registered := `{ viewer { id } }`
	pq, err := server.ParsePersistedQueries(manifest(t, registered), 0)
	if err != nil {
		t.Fatal(err)
	}
	env := apitest.New(t, apitest.Options{Config: func(c *server.Config) { c.GraphQLPersisted = pq }})
	r := env.Do("POST", "/graphql", env.Admin.Token, map[string]any{"extensions": map[string]any{"persistedQuery": map[string]any{"version": 1, "sha256Hash": sha(registered)}}})
	if r.Status != 200 || !strings.Contains(string(r.Body), env.Admin.ID) {
		t.Errorf("registered hash: %d %s", r.Status, r.Body)
	}
	if data, errs := env.GraphQL(env.Admin.Token, `{ viewer { displayName } }`, nil); len(errs) != 0 || data["viewer"] == nil {
		t.Errorf("another document: %v", errs)
	}
}

func TestParsePersistedQueries(t *testing.T) {
	good := manifest(t, `{ viewer { id } }`)
	if q, err := server.ParsePersistedQueries(good, 0); err != nil || q.Len() != 1 {
		t.Fatalf("good manifest: %v", err)
	}
	for name, data := range map[string]string{
		"not JSON":     `{`,
		"wrong format": `{"format": "other", "version": 1, "operations": []}`,
		"wrong hash":   `{"format": "apollo-persisted-query-manifest", "version": 1, "operations": [{"id": "00", "body": "{ viewer { id } }"}]}`,
		"empty body":   `{"format": "apollo-persisted-query-manifest", "version": 1, "operations": [{"id": "` + sha("") + `", "body": ""}]}`,
	} {
		if _, err := server.ParsePersistedQueries([]byte(data), 0); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	if _, err := server.ParsePersistedQueries(manifest(t, strings.Repeat(" ", 100)+"{ viewer { id } }"), 64); err == nil || !strings.Contains(err.Error(), "document limit") {
		t.Errorf("body over the document limit: %v", err)
	}
}

// FuzzParsePersistedQueries: any file is either refused or gives
// documents each stored under its own hash.
func FuzzParsePersistedQueries(f *testing.F) {
	f.Add(manifest(f, `{ viewer { id } }`, `query A { organizations { count } }`))
	f.Add([]byte(`{"format": "apollo-persisted-query-manifest", "version": 1, "operations": [{"id": "x", "body": "y"}]}`))
	f.Add([]byte(`[]`))
	f.Fuzz(func(t *testing.T, data []byte) {
		q, err := server.ParsePersistedQueries(data, 1024)
		if err != nil {
			return
		}
		var m struct {
			Operations []struct{ ID, Body string }
		}
		json.Unmarshal(data, &m)
		if q.Len() > len(m.Operations) {
			t.Fatalf("%d documents from %d operations", q.Len(), len(m.Operations))
		}
		for _, op := range m.Operations {
			if op.ID != sha(op.Body) || len(op.Body) > 1024 {
				t.Fatalf("accepted %q for %q", op.ID, op.Body)
			}
		}
	})
}
