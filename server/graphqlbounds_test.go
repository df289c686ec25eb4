package server_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"docsapi/apitest"
	"docsapi/server"
)

// withServeDefaults configures the GraphQL limits `docsapi serve` has by
// default.
func withServeDefaults(c *server.Config) {
	c.GraphQLComplexity, c.GraphQLDepth, c.GraphQLConcurrency = 10000, 15, 16
	c.GraphQLLimits = server.GraphQLLimits{
		DocumentBytes: server.DefaultGraphQLMaxDocumentBytes, Tokens: server.DefaultGraphQLMaxTokens,
		Nesting: server.DefaultGraphQLMaxNesting, Fields: server.DefaultGraphQLMaxFields,
		Aliases: server.DefaultGraphQLMaxAliases, FieldPairs: server.DefaultGraphQLMaxFieldPairs,
		Errors: server.DefaultGraphQLMaxErrors,
	}
}

// gqlAnswer is a GraphQL answer as the client reads it.
type gqlAnswer struct {
	status int
	body   []byte
	Data   map[string]any         `json:"data"`
	Errors []apitest.GraphQLError `json:"errors"`
}

func postGraphQL(t *testing.T, env *apitest.Env, query string) gqlAnswer {
	t.Helper()
	r := env.Do("POST", "/graphql", env.Admin.Token, map[string]any{"query": query})
	a := gqlAnswer{status: r.Status, body: r.Body}
	if err := json.Unmarshal(r.Body, &a); err != nil {
		t.Fatalf("status %d, not a GraphQL answer: %.300s", r.Status, r.Body)
	}
	return a
}

// fragmentBomb is n fragments each using the next twice (2^n fields once
// expanded).
func fragmentBomb(n int) string {
	var b strings.Builder
	b.WriteString("{...F0}\n")
	for i := range n {
		b.WriteString("fragment F" + strconv.Itoa(i) + " on Query {__typename ...F" + strconv.Itoa(i+1) + " ...F" + strconv.Itoa(i+1) + "}\n")
	}
	b.WriteString("fragment F" + strconv.Itoa(n) + " on Query {__typename}")
	return b.String()
}

// repeat is n copies of s joined by spaces, with i in place of %d.
func repeat(n int, s string) string {
	parts := make([]string, n)
	for i := range parts {
		parts[i] = strings.ReplaceAll(s, "%d", strconv.Itoa(i))
	}
	return strings.Join(parts, " ")
}

// TestGraphQLDocumentBounds: every bound refuses its document with a 422
// naming it, before validation and in well under a second, whatever the
// document's size behind the bound.
func TestGraphQLDocumentBounds(t *testing.T) {
	env := apitest.New(t, apitest.Options{Config: withServeDefaults})
	nested := `__schema{types{name fields{name args{name type{name ofType{name}}}}}}`
	for _, c := range []struct {
		name, query, code string
	}{
		{"document bytes", "{__typename}" + strings.Repeat(" ", 3<<20), "DOCUMENT_TOO_LARGE"},
		{"a million [ in an argument", "{__typename(a:" + strings.Repeat("[", 1_000_000) + strings.Repeat("]", 1_000_000) + ")}", "NESTING_LIMIT_EXCEEDED"},
		{"half a million nested selections", strings.Repeat("{a", 500_000) + strings.Repeat("}", 500_000), "NESTING_LIMIT_EXCEEDED"},
		{"65 nested selections", strings.Repeat("{a", 65) + strings.Repeat("}", 65), "NESTING_LIMIT_EXCEEDED"},
		{"tokens", "{" + repeat(20000, "f%d") + "}", "GRAPHQL_PARSE_FAILED"},
		{"fields", "{" + repeat(1001, "f%d") + "}", "FIELD_LIMIT_EXCEEDED"},
		{"fields through fragments", fragmentBomb(40), "FIELD_LIMIT_EXCEEDED"},
		{"unknown fields (no error list)", "{" + repeat(5000, "f%d") + "}", "FIELD_LIMIT_EXCEEDED"},
		{"aliases", "{" + repeat(201, "a%d: __typename") + "}", "ALIAS_LIMIT_EXCEEDED"},
		{"a field repeated", "{" + strings.Repeat("__typename ", 500) + "}", "FIELD_PAIR_LIMIT_EXCEEDED"},
		{"spreads of unknown fragments", "{__typename " + repeat(7000, "...X%d") + "}", "FIELD_PAIR_LIMIT_EXCEEDED"},
		{"fragments spread together", "{" + repeat(500, "...A%d") + "}\n" + repeat(500, "fragment A%d on Query {f%d}"), "FIELD_PAIR_LIMIT_EXCEEDED"},
		{"aliases of __schema", "{" + repeat(50, "a%d: "+nested) + "}", "ALIAS_IN_INTROSPECTION"},
		{"an alias in __schema", "{__schema{t: types{name}}}", "ALIAS_IN_INTROSPECTION"},
		{"aliases of __type", "{" + repeat(3, `t%d: __type(name: "Space"){name}`) + "}", "ALIAS_IN_INTROSPECTION"},
	} {
		t.Run(c.name, func(t *testing.T) {
			start := time.Now()
			a := postGraphQL(t, env, c.query)
			took := time.Since(start)
			if a.status != http.StatusUnprocessableEntity || len(a.Errors) != 1 || a.Errors[0].Code() != c.code {
				t.Fatalf("status %d, errors %v; want 422 %s", a.status, a.Errors, c.code)
			}
			if c.code == "GRAPHQL_PARSE_FAILED" && !strings.Contains(a.Errors[0].Message, "token limit of 15000") {
				t.Errorf("the message does not name the token limit: %q", a.Errors[0].Message)
			}
			if took > slowdown*500*time.Millisecond {
				t.Errorf("refused after %v", took)
			}
		})
	}
	// At the bounds: answered.
	for _, q := range []string{
		strings.Repeat("{__typename(a:", 1) + strings.Repeat("[", 60) + strings.Repeat("]", 60) + ")}",
		"{" + repeat(200, "a%d: __typename") + "}",
		"{" + strings.Repeat("__typename ", 141) + "}", // 9870 pairs
		"{__typename} # " + strings.Repeat("{[(", 10000),
		`{__typename(a: "` + strings.Repeat("{[(", 10000) + `")}`,
	} {
		if a := postGraphQL(t, env, q); a.status != 200 && !(len(a.Errors) > 0 && a.Errors[0].Code() == "GRAPHQL_VALIDATION_FAILED") {
			t.Errorf("%.60s…: status %d %v", q, a.status, a.Errors)
		}
	}
}

// TestGraphQLIntrospectionWithinLimits: the standard introspection query
// (the playground's, GraphiQL's) is within the default limits and answered
// the same each time (the second from memory), and introspection counts
// in complexity and depth like any other field.
func TestGraphQLIntrospectionWithinLimits(t *testing.T) {
	env := apitest.New(t, apitest.Options{Config: withServeDefaults})
	query, err := os.ReadFile("testdata/introspection.graphql")
	if err != nil {
		t.Fatal(err)
	}
	first := postGraphQL(t, env, string(query))
	if first.status != 200 || len(first.Errors) != 0 || first.Data["__schema"] == nil {
		t.Fatalf("standard introspection: status %d %v", first.status, first.Errors)
	}
	if again := postGraphQL(t, env, string(query)); string(again.body) != string(first.body) {
		t.Error("the second answer differs from the first")
	}

	small := apitest.New(t, apitest.Options{Config: func(c *server.Config) {
		withServeDefaults(c)
		c.GraphQLComplexity, c.GraphQLDepth = 4, 3
	}})
	if a := postGraphQL(t, small, `{__schema{types{name kind description}}}`); a.status != 422 || len(a.Errors) != 1 || a.Errors[0].Code() != "COMPLEXITY_LIMIT_EXCEEDED" {
		t.Errorf("__schema with complexity 5, limit 4: status %d %v", a.status, a.Errors)
	}
	if a := postGraphQL(t, small, `{__schema{types{fields{name}}}}`); a.status != 422 || len(a.Errors) != 1 || a.Errors[0].Code() != "DEPTH_LIMIT_EXCEEDED" {
		t.Errorf("__schema 4 levels deep, limit 3: status %d %v", a.status, a.Errors)
	}
	if a := postGraphQL(t, small, `{__schema{types{name}}}`); a.status != 200 || len(a.Errors) != 0 {
		t.Errorf("__schema within the limits: status %d %v", a.status, a.Errors)
	}
}

func TestGraphQLErrorListIsCapped(t *testing.T) {
	env := apitest.New(t, apitest.Options{Config: func(c *server.Config) {
		withServeDefaults(c)
		c.GraphQLLimits.Errors = 3
	}})
	a := postGraphQL(t, env, "{"+repeat(900, "f%d")+"}")
	if len(a.Errors) != 4 || a.Errors[0].Code() != "GRAPHQL_VALIDATION_FAILED" || a.Errors[3].Code() != "TOO_MANY_ERRORS" ||
		!strings.Contains(a.Errors[3].Message, "897 more errors") {
		t.Errorf("900 unknown fields with at most 3 errors: %v", a.Errors)
	}
}

// TestGraphQLRequestShapes: what is not one GraphQL request sent as JSON
// is refused with a status and code saying so, before gqlgen or the fast
// path read it.
func TestGraphQLRequestShapes(t *testing.T) {
	env := apitest.New(t, apitest.Options{Config: withServeDefaults})
	tok := env.Admin.Token
	fast := `query($id: ID!) { organization(id: $id) { id title } }`
	body, _ := json.Marshal(map[string]any{"query": fast, "variables": map[string]any{"id": env.Org}})
	for _, c := range []struct {
		name, method, contentType string
		body                      string
		status                    int
		code                      string
	}{
		{"batched", "POST", "application/json", `[{"query":"{__typename}"},{"query":"{__typename}"}]`, 400, "BAD_REQUEST"},
		{"batched after spaces", "POST", "application/json", " \n[]", 400, "BAD_REQUEST"},
		{"broken JSON", "POST", "application/json", `{"query":`, 400, "BAD_REQUEST"},
		{"not an object", "POST", "application/json", `"{__typename}"`, 400, "BAD_REQUEST"},
		{"query not a string", "POST", "application/json", `{"query":5}`, 400, "BAD_REQUEST"},
		{"text/plain", "POST", "text/plain", `{"query":"{__typename}"}`, 415, "UNSUPPORTED_MEDIA_TYPE"},
		{"no content type", "POST", "", `{"query":"{__typename}"}`, 415, "UNSUPPORTED_MEDIA_TYPE"},
		{"form", "POST", "application/x-www-form-urlencoded", `query={__typename}`, 415, "UNSUPPORTED_MEDIA_TYPE"},
		{"a fast-path query as text/plain", "POST", "text/plain", string(body), 415, "UNSUPPORTED_MEDIA_TYPE"},
		{"PUT", "PUT", "application/json", `{"query":"{__typename}"}`, 405, "METHOD_NOT_ALLOWED"},
		{"over the body limit", "POST", "application/json", `{"query":"{__typename}","variables":{"a":"` + strings.Repeat("a", 11<<20) + `"}}`, 413, ""},
		{"charset", "POST", "application/json; charset=utf-8", `{"query":"{__typename}"}`, 200, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := env.Do(c.method, "/graphql", tok, []byte(c.body), "Content-Type", c.contentType)
			if r.Status != c.status {
				t.Fatalf("status %d, want %d: %.300s", r.Status, c.status, r.Body)
			}
			if c.code != "" && !strings.Contains(string(r.Body), `"code":"`+c.code+`"`) {
				t.Errorf("no code %s: %.300s", c.code, r.Body)
			}
			if c.status != 200 && (strings.Contains(string(r.Body), "internal error") || strings.Contains(string(r.Body), "__typename")) {
				t.Errorf("an internal error, or the body echoed: %.300s", r.Body)
			}
		})
	}
	for range 2 { // learnt by the fast path, which still refuses text/plain
		env.Do("POST", "/graphql", tok, body)
	}
	before := env.Server.GraphQLFastAnswers()
	if r := env.Do("POST", "/graphql", tok, body, "Content-Type", "text/plain"); r.Status != 415 || env.Server.GraphQLFastAnswers() != before {
		t.Errorf("a fast-path query as text/plain: status %d, fast answers %d → %d", r.Status, before, env.Server.GraphQLFastAnswers())
	}

	// GET runs queries only.
	r := env.Do("GET", "/graphql?query="+`mutation{createSpace(organizationId:"x",input:{title:"t"}){id}}`, tok, nil)
	if r.Status < 400 || r.Status > 499 || strings.Contains(string(r.Body), `"data":{`) {
		t.Errorf("a mutation over GET: status %d %.300s", r.Status, r.Body)
	}
	if r := env.Do("GET", "/graphql?query={__typename}", tok, nil); r.Status != 200 {
		t.Errorf("a query over GET: status %d %.300s", r.Status, r.Body)
	}
}

// FuzzGraphQLDocument: any document sent to /graphql is answered (never a
// 5xx) within a time bound and with bounded allocation, with the default
// limits of `docsapi serve`.
func FuzzGraphQLDocument(f *testing.F) {
	for _, seed := range []string{
		`{__typename}`,
		`query($id: ID!) { organization(id: $id) { id title urls { app } } }`,
		`{ viewer { id } }`,
		`{__schema{types{name fields{name type{name ofType{name}}}}}}`,
		`{a: __schema{types{name}}}`,
		`{...F} fragment F on Query {...G ...G} fragment G on Query {__typename}`,
		`{...A} fragment A on Query {...B} fragment B on Query {...A}`,
		`{__typename(a:[[[[[[[[{b:[[[["x"]]]]}]]]]]]]])}`,
		`{__typename __typename __typename a: __typename}`,
		`{a{a{a{a{a{a{a{a{a{a{a{a{a{a{a{a{a}}}}}}}}}}}}}}}}}`,
		`{__type(name: "Space") {name fields {name args {name type {name}}}}}`,
		"{__typename(a: \"\"\"{{{\"\"\") # {{{\n}",
		`mutation { createSpace(organizationId: "x", input: {title: "t"}) { id } }`,
	} {
		f.Add(seed)
	}
	env := apitest.New(f, apitest.Options{Config: withServeDefaults})
	f.Fuzz(func(t *testing.T, doc string) {
		body, _ := json.Marshal(map[string]any{"query": doc, "variables": map[string]any{"id": env.Org}})
		req := httptest.NewRequest("POST", "/graphql", strings.NewReader(string(body)))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Authorization", "Bearer "+env.Admin.Token)
		rec := httptest.NewRecorder()
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		start := time.Now()
		env.Server.ServeHTTP(rec, req)
		took := time.Since(start)
		runtime.ReadMemStats(&after)
		if rec.Code >= 500 {
			t.Fatalf("status %d: %.300s", rec.Code, rec.Body.String())
		}
		if took > slowdown*2*time.Second {
			t.Errorf("answered after %v", took)
		}
		// The answer of the largest allowed introspection is under 1 MB;
		// allocation is a small multiple of it and of the document.
		if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 64<<20+uint64(20*len(body)) {
			t.Errorf("allocated %d MB for a %d-byte document", alloc>>20, len(doc))
		}
	})
}
