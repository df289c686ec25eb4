// Package apitest runs a real docsapi handler over a temporary database for
// tests: it creates organizations and users with tokens, sends REST and
// GraphQL requests, and checks statuses and JSON shapes.
package apitest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/crypto/bcrypt"

	"docsapi/auth"
	"docsapi/server"
	"docsapi/storage"
	"docsapi/storage/storagetest"
)

// Env is one test server with its database.
type Env struct {
	T      testing.TB
	Server *server.Server
	DB     *storage.DB
	HTTP   *httptest.Server
	Clock  *Clock
	// DBPath is the database (a SQLite file, or a PostgreSQL URL under
	// DOCSAPI_TEST_DB) for tests that open it themselves.
	DBPath string

	// Org is a bootstrapped organization whose admin is Admin.
	Org   string
	Admin User
}

// User is a test user and their token.
type User struct {
	ID, Email, Token string
}

// Clock is a settable clock for retention and expiry tests.
type Clock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// Advance moves the clock forward.
func (c *Clock) Advance(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}

// Options tunes New.
type Options struct {
	Config func(*server.Config) // adjust the server configuration
	// Statements, when set, counts the SQL statements the server's
	// database runs (storage.Options.Statements).
	Statements *atomic.Int64
}

// New starts a server over a fresh database and bootstraps one organization.
func New(t testing.TB, opts ...Options) *Env {
	t.Helper()
	clock := &Clock{now: time.Now().UTC()}
	dbPath := storagetest.Target(t)
	sopt := storage.Options{Clock: clock.Now}
	for _, o := range opts {
		if o.Statements != nil {
			sopt.Statements = o.Statements
		}
	}
	db, err := storage.Open(dbPath, sopt)
	if err != nil {
		t.Fatal(err)
	}
	e := &Env{T: t, DB: db, Clock: clock, DBPath: dbPath}
	cfg := testConfig(clock.Now)
	// The public URL must be known before the server exists: listen first.
	e.HTTP = httptest.NewUnstartedServer(nil)
	cfg.PublicURL = "http://" + e.HTTP.Listener.Addr().String()
	for _, o := range opts {
		if o.Config != nil {
			o.Config(&cfg)
		}
	}
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	e.Server = server.New(cfg, db, log)
	e.HTTP.Config.Handler = e.Server
	e.HTTP.Start()
	t.Cleanup(func() {
		e.HTTP.Close()
		db.Close()
	})
	e.Org, e.Admin = e.NewOrg("Acme", "admin@acme.test")
	return e
}

// testConfig is the servers' configuration before the options: share link
// passwords hashed at bcrypt's lowest cost (the default's 2^10 rounds take
// about half a second under the race detector, and the share link tests
// hash and check hundreds).
func testConfig(now func() time.Time) server.Config {
	return server.Config{Version: "test", Build: "test", Clock: now, AllowPrivateFetch: true, SharePasswordCost: bcrypt.MinCost}
}

// Replica starts a second server over the same database file, as a second
// process (replica) would run: its own storage handle (pools, caches,
// process id in leases), its own server, the same clock and configuration
// options. Org and Admin are shared with e.
func (e *Env) Replica(opts ...Options) *Env {
	e.T.Helper()
	db, err := storage.Open(e.DBPath, storage.Options{Clock: e.Clock.Now})
	if err != nil {
		e.T.Fatal(err)
	}
	r := &Env{T: e.T, DB: db, Clock: e.Clock, DBPath: e.DBPath, Org: e.Org, Admin: e.Admin}
	cfg := testConfig(e.Clock.Now)
	r.HTTP = httptest.NewUnstartedServer(nil)
	// Replicas behind one address share its public URL (it is in every
	// answer's urls, so in ETags).
	cfg.PublicURL = e.Server.Config.PublicURL
	for _, o := range opts {
		if o.Config != nil {
			o.Config(&cfg)
		}
	}
	r.Server = server.New(cfg, db, slog.New(slog.NewTextHandler(io.Discard, nil)))
	r.HTTP.Config.Handler = r.Server
	r.HTTP.Start()
	e.T.Cleanup(func() {
		r.HTTP.Close()
		db.Close()
	})
	return r
}

// NewOrg creates an organization whose admin is a new user with email.
func (e *Env) NewOrg(title, email string) (string, User) {
	e.T.Helper()
	secret, hash := auth.NewToken()
	b, err := e.DB.CreateOrganizationWithAdmin(context.Background(), title, email, strings.Split(email, "@")[0], hash)
	if err != nil {
		e.T.Fatal(err)
	}
	return b.Organization.ID, User{ID: b.User.ID, Email: email, Token: secret}
}

// NewUser creates a user with a token; with orgID it makes them a member with
// role ("guest" for a null role).
func (e *Env) NewUser(email, orgID, role string) User {
	e.T.Helper()
	var r *string
	if role != "" && role != "guest" {
		r = &role
	}
	secret, hash := auth.NewToken()
	u, _, err := e.DB.CreateUserWithToken(context.Background(), email, strings.Split(email, "@")[0], orgID, r, orgID != "", hash)
	if err != nil {
		e.T.Fatal(err)
	}
	return User{ID: u.ID, Email: email, Token: secret}
}

// Response is an answer to a test request.
type Response struct {
	Status int
	Header http.Header
	Body   []byte
}

// JSON decodes the body into a generic value.
func (r Response) JSON() map[string]any {
	var v map[string]any
	json.Unmarshal(r.Body, &v)
	return v
}

// Decode decodes the body into v.
func (r Response) Decode(t testing.TB, v any) {
	t.Helper()
	if err := json.Unmarshal(r.Body, v); err != nil {
		t.Fatalf("decode %s: %v", r.Body, err)
	}
}

// Do sends a request. body may be nil, a string (sent as is) or a value
// (sent as JSON); JSON bodies carry Content-Type application/json.
func (e *Env) Do(method, path, token string, body any, headers ...string) Response {
	e.T.Helper()
	var rd io.Reader
	switch b := body.(type) {
	case nil:
	case string:
		rd = strings.NewReader(b)
	case []byte:
		rd = bytes.NewReader(b)
	default:
		raw, err := json.Marshal(b)
		if err != nil {
			e.T.Fatal(err)
		}
		rd = bytes.NewReader(raw)
	}
	req, err := http.NewRequest(method, e.HTTP.URL+path, rd)
	if err != nil {
		e.T.Fatal(err)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	res, err := e.HTTP.Client().Do(req)
	if err != nil {
		e.T.Fatal(err)
	}
	defer res.Body.Close()
	raw, _ := io.ReadAll(res.Body)
	return Response{Status: res.StatusCode, Header: res.Header, Body: raw}
}

// Must sends a request and fails the test unless the status is want.
func (e *Env) Must(want int, method, path, token string, body any) Response {
	e.T.Helper()
	r := e.Do(method, path, token, body)
	if r.Status != want {
		e.T.Fatalf("%s %s: status %d, want %d; body %s", method, path, r.Status, want, r.Body)
	}
	return r
}

// GraphQL runs a query with variables and returns data and errors.
func (e *Env) GraphQL(token, query string, vars map[string]any) (data map[string]any, errs []GraphQLError) {
	e.T.Helper()
	return e.GraphQLOp(token, query, "", vars)
}

// GraphQLOp is GraphQL running the operation named op of a document that
// holds several ("" sends no operationName).
func (e *Env) GraphQLOp(token, query, op string, vars map[string]any) (data map[string]any, errs []GraphQLError) {
	e.T.Helper()
	body := map[string]any{"query": query, "variables": vars}
	if op != "" {
		body["operationName"] = op
	}
	r := e.Do("POST", "/graphql", token, body)
	var out struct {
		Data   map[string]any `json:"data"`
		Errors []GraphQLError `json:"errors"`
	}
	if err := json.Unmarshal(r.Body, &out); err != nil {
		e.T.Fatalf("graphql: status %d body %s", r.Status, r.Body)
	}
	return out.Data, out.Errors
}

// GraphQLError is one entry of a GraphQL answer's errors.
type GraphQLError struct {
	Message    string         `json:"message"`
	Extensions map[string]any `json:"extensions"`
}

// Code is the error's extensions.code.
func (g GraphQLError) Code() string { s, _ := g.Extensions["code"].(string); return s }

// Scenario is one request and what its answer must be.
type Scenario struct {
	Name     string
	Method   string
	Path     string
	Token    string
	Body     any
	Status   int
	Contains []string         // substrings the raw body must contain
	Check    func(r Response) // further checks
	Headers  []string         // request headers: name, value, name, value…
}

// Run runs scenarios as subtests.
func (e *Env) Run(t *testing.T, scenarios []Scenario) {
	t.Helper()
	for _, sc := range scenarios {
		t.Run(sc.Name, func(t *testing.T) {
			r := e.Do(sc.Method, sc.Path, sc.Token, sc.Body, sc.Headers...)
			if r.Status != sc.Status {
				t.Fatalf("%s %s: status %d, want %d; body %s", sc.Method, sc.Path, r.Status, sc.Status, r.Body)
			}
			for _, frag := range sc.Contains {
				if !bytes.Contains(r.Body, []byte(frag)) {
					t.Errorf("%s %s: body lacks %q: %s", sc.Method, sc.Path, frag, r.Body)
				}
			}
			if sc.Status >= 400 {
				ErrorShape(t, r)
			}
			if sc.Check != nil {
				sc.Check(r)
			}
		})
	}
}

// ErrorShape checks an error answer is exactly {"error":{"code","message"}}.
func ErrorShape(t testing.TB, r Response) {
	t.Helper()
	var body map[string]map[string]any
	if err := json.Unmarshal(r.Body, &body); err != nil || len(body) != 1 {
		t.Fatalf("error body is not {error:{code,message}}: %s", r.Body)
	}
	e := body["error"]
	if code, _ := e["code"].(float64); int(code) != r.Status || e["message"] == "" || len(e) != 2 {
		t.Fatalf("error body %s does not match status %d", r.Body, r.Status)
	}
}

// Keys checks that obj has exactly the given keys.
func Keys(t testing.TB, obj map[string]any, keys ...string) {
	t.Helper()
	want := map[string]bool{}
	for _, k := range keys {
		want[k] = true
		if _, ok := obj[k]; !ok {
			t.Errorf("missing key %q in %v", k, obj)
		}
	}
	for k := range obj {
		if !want[k] {
			t.Errorf("unexpected key %q in %v", k, obj)
		}
	}
}

// Path formats a path with fmt.Sprintf.
func Path(format string, args ...any) string { return fmt.Sprintf(format, args...) }
