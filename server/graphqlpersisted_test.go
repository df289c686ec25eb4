package server_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"strings"
	"testing"

	"docsapi/apitest"
	"docsapi/server"
	"docsapi/storage"
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

// TestGraphQLPersistedQueriesInDatabase: documents registered in the
// database (docsapi admin persisted-queries add) run by their hash alone
// on every replica, persisted-only accepts them beside the file's, and a
// removed one is refused from the next request on (the fast path
// included).
func TestGraphQLPersistedQueriesInDatabase(t *testing.T) {
	fromFile := `{ viewer { id } }`
	pq, err := server.ParsePersistedQueries(manifest(t, fromFile), 0)
	if err != nil {
		t.Fatal(err)
	}
	pq.Only = true
	only := apitest.Options{Config: func(c *server.Config) { c.GraphQLPersisted = pq }}
	env := apitest.New(t, only)
	replica := env.Replica(apitest.Options{Config: func(c *server.Config) { c.GraphQLPersisted = server.NewPersistedQueries(true) }})
	fromDB := `query Org($id: ID!) { organization(id: $id) { id title } }`
	if _, err := env.Server.DB.AddPersistedQueries(context.Background(), []storage.PersistedQuery{{Hash: server.PersistedQueryHash(fromDB), Name: "Org", Body: fromDB}}); err != nil {
		t.Fatal(err)
	}
	vars := map[string]any{"id": env.Org}
	ext := map[string]any{"persistedQuery": map[string]any{"version": 1, "sha256Hash": sha(fromDB)}}
	for name, e := range map[string]*apitest.Env{"server": env, "replica": replica} {
		if r := e.Do("POST", "/graphql", env.Admin.Token, map[string]any{"variables": vars, "extensions": ext}); r.Status != 200 || !strings.Contains(string(r.Body), `"title":"Acme"`) {
			t.Errorf("%s: database hash alone: %d %s", name, r.Status, r.Body)
		}
		for range 2 { // the second may come from the fast path
			if r := e.Do("POST", "/graphql", env.Admin.Token, map[string]any{"query": fromDB, "variables": vars}); r.Status != 200 || !strings.Contains(string(r.Body), `"title":"Acme"`) {
				t.Errorf("%s: database text: %d %s", name, r.Status, r.Body)
			}
		}
	}
	if r := env.Do("POST", "/graphql", env.Admin.Token, map[string]any{"query": fromFile}); r.Status != 200 || !strings.Contains(string(r.Body), env.Admin.ID) {
		t.Errorf("file text: %d %s", r.Status, r.Body)
	}
	if r := replica.Do("POST", "/graphql", env.Admin.Token, map[string]any{"query": fromFile}); r.Status != 422 || !strings.Contains(string(r.Body), "PERSISTED_QUERY_NOT_ALLOWED") {
		t.Errorf("the file's document on a replica without the file: %d %s", r.Status, r.Body)
	}
	if n, err := env.Server.DB.RemovePersistedQueries(context.Background(), []string{sha(fromDB)}); err != nil || n != 1 {
		t.Fatalf("remove: %d %v", n, err)
	}
	for name, e := range map[string]*apitest.Env{"server": env, "replica": replica} {
		if r := e.Do("POST", "/graphql", env.Admin.Token, map[string]any{"query": fromDB, "variables": vars}); r.Status != 422 || !strings.Contains(string(r.Body), "PERSISTED_QUERY_NOT_ALLOWED") {
			t.Errorf("%s: removed document: %d %s", name, r.Status, r.Body)
		}
	}
}
