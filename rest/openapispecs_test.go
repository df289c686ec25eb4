package rest_test

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"docsapi/apitest"
	"docsapi/auth"
	"docsapi/fetch"
	"docsapi/openapi"
	"docsapi/server"
	"docsapi/storage"
	"docsapi/storage/storagetest"
)

var (
	specKeys    = []string{"object", "id", "createdAt", "updatedAt", "slug", "processingState", "visibility", "permissions", "urls"}
	versionKeys = []string{"object", "id", "createdAt", "url", "urls", "info", "openapi", "contentHash"}
)

const petsYAML = `openapi: 3.1.0
info:
  title: Pets
  version: "2.0"
paths:
  /pets/{id}:
    get:
      summary: Get a pet
      parameters:
        - {name: id, in: path, required: true, schema: {type: [string, integer]}}
      responses:
        "200": {description: the pet}
`

// processAll runs the OpenAPI queue of env's server until it is empty.
func processAll(t *testing.T, env *apitest.Env) int {
	t.Helper()
	n, err := env.Server.OpenAPIProcessor().RunPending(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func specPath(env *apitest.Env, slug string) string {
	return "/v1/orgs/" + env.Org + "/openapi/" + slug
}

func createSpec(t *testing.T, env *apitest.Env, slug string, source map[string]any) map[string]any {
	t.Helper()
	return env.Must(201, "POST", "/v1/orgs/"+env.Org+"/openapi", env.Admin.Token, map[string]any{"slug": slug, "source": source}).JSON()
}

func TestOpenAPISpecCRUD(t *testing.T) {
	env := apitest.New(t)
	org := "/v1/orgs/" + env.Org + "/openapi"
	reader := env.NewUser("reader@acme.test", env.Org, "read")
	creator := env.NewUser("creator@acme.test", env.Org, "create")
	reviewer := env.NewUser("reviewer@acme.test", env.Org, "review")
	guest := env.NewUser("guest@acme.test", env.Org, "guest")
	_, foreign := env.NewOrg("Other", "admin@other.test")
	text := map[string]any{"text": miniSpec}

	env.Run(t, []apitest.Scenario{
		{Name: "create from text", Method: "POST", Path: org, Token: creator.Token, Status: 201,
			Body: map[string]any{"slug": "billing-api", "source": text}, Check: func(r apitest.Response) {
				s := r.JSON()
				apitest.Keys(t, s, specKeys...)
				if s["object"] != "openapi-spec" || s["slug"] != "billing-api" || s["processingState"] != "pending" || s["visibility"] != "private" {
					t.Errorf("spec %v", s)
				}
				apitest.Keys(t, s["permissions"].(map[string]any), "view", "edit", "delete")
				apitest.Keys(t, s["urls"].(map[string]any), "location", "app")
				if loc := r.Header.Get("Location"); !strings.HasSuffix(loc, "/v1/orgs/"+env.Org+"/openapi/billing-api") {
					t.Errorf("Location %q", loc)
				}
			}},
		{Name: "create from url", Method: "POST", Path: org, Token: env.Admin.Token, Status: 201,
			Body: map[string]any{"slug": "remote", "source": map[string]any{"url": "https://example.com/openapi.json"}},
			Check: func(r apitest.Response) {
				apitest.Keys(t, r.JSON(), append(specKeys, "sourceURL")...)
			}},
		{Name: "slug taken", Method: "POST", Path: org, Token: env.Admin.Token, Status: 409, Body: map[string]any{"slug": "billing-api", "source": text}, Contains: []string{"slug"}},
		{Name: "slug missing", Method: "POST", Path: org, Token: env.Admin.Token, Status: 400, Body: map[string]any{"source": text}, Contains: []string{"slug: is required"}},
		{Name: "slug pattern", Method: "POST", Path: org, Token: env.Admin.Token, Status: 400, Body: map[string]any{"slug": "Bad_Slug", "source": text}, Contains: []string{"slug: must match"}},
		{Name: "slug double dash", Method: "POST", Path: org, Token: env.Admin.Token, Status: 400, Body: map[string]any{"slug": "a--b", "source": text}, Contains: []string{"slug"}},
		{Name: "slug too long", Method: "POST", Path: org, Token: env.Admin.Token, Status: 400, Body: map[string]any{"slug": strings.Repeat("a", 101), "source": text}, Contains: []string{"slug: must be at most 100"}},
		{Name: "slug 100 chars", Method: "POST", Path: org, Token: env.Admin.Token, Status: 201, Body: map[string]any{"slug": strings.Repeat("a", 100), "source": text}},
		{Name: "slug wrong type", Method: "POST", Path: org, Token: env.Admin.Token, Status: 400, Body: map[string]any{"slug": 5, "source": text}, Contains: []string{"slug"}},
		{Name: "source missing", Method: "POST", Path: org, Token: env.Admin.Token, Status: 400, Body: map[string]any{"slug": "x"}, Contains: []string{"source: is required"}},
		{Name: "source empty", Method: "POST", Path: org, Token: env.Admin.Token, Status: 400, Body: map[string]any{"slug": "x", "source": map[string]any{}}, Contains: []string{"source: must have exactly one"}},
		{Name: "source both", Method: "POST", Path: org, Token: env.Admin.Token, Status: 400,
			Body: map[string]any{"slug": "x", "source": map[string]any{"text": "a", "url": "https://example.com/a"}}, Contains: []string{"source: must have exactly one"}},
		{Name: "source text empty", Method: "POST", Path: org, Token: env.Admin.Token, Status: 400, Body: map[string]any{"slug": "x", "source": map[string]any{"text": ""}}, Contains: []string{"source.text"}},
		{Name: "source url relative", Method: "POST", Path: org, Token: env.Admin.Token, Status: 400, Body: map[string]any{"slug": "x", "source": map[string]any{"url": "/spec.json"}}, Contains: []string{"source.url"}},
		{Name: "source url too long", Method: "POST", Path: org, Token: env.Admin.Token, Status: 400,
			Body: map[string]any{"slug": "x", "source": map[string]any{"url": "https://example.com/" + strings.Repeat("a", 2029)}}, Contains: []string{"source.url: must be at most 2048"}},
		{Name: "create below create role", Method: "POST", Path: org, Token: reviewer.Token, Status: 403, Body: map[string]any{"slug": "x", "source": text}},
		{Name: "create without token", Method: "POST", Path: org, Status: 401, Body: map[string]any{"slug": "x", "source": text}},
		{Name: "create in another org", Method: "POST", Path: org, Token: foreign.Token, Status: 404, Body: map[string]any{"slug": "x", "source": text}},

		{Name: "get as reader", Method: "GET", Path: org + "/billing-api", Token: reader.Token, Status: 200, Check: func(r apitest.Response) {
			s := r.JSON()
			apitest.Keys(t, s, specKeys...)
			if p := s["permissions"].(map[string]any); p["view"] != true || p["edit"] != false {
				t.Errorf("reader permissions %v", p)
			}
		}},
		{Name: "get as creator", Method: "GET", Path: org + "/billing-api", Token: creator.Token, Status: 200, Check: func(r apitest.Response) {
			if p := r.JSON()["permissions"].(map[string]any); p["edit"] != true {
				t.Errorf("creator permissions %v", p)
			}
		}},
		{Name: "get unknown", Method: "GET", Path: org + "/nope", Token: reader.Token, Status: 404},
		{Name: "get as guest", Method: "GET", Path: org + "/billing-api", Token: guest.Token, Status: 403},
		{Name: "get from another org", Method: "GET", Path: org + "/billing-api", Token: foreign.Token, Status: 404},
		{Name: "get without token", Method: "GET", Path: org + "/billing-api", Status: 401},

		{Name: "list", Method: "GET", Path: org + "?limit=2", Token: reader.Token, Status: 200, Check: func(r apitest.Response) {
			l := r.JSON()
			apitest.Keys(t, l, "next", "count", "items")
			if l["count"].(float64) != 3 || len(l["items"].([]any)) != 2 {
				t.Errorf("list %v", l)
			}
		}},
		{Name: "list bad limit", Method: "GET", Path: org + "?limit=1001", Token: reader.Token, Status: 400, Contains: []string{"limit"}},

		{Name: "put creates", Method: "PUT", Path: org + "/new-spec", Token: creator.Token, Body: map[string]any{"source": text}, Status: 201, Check: func(r apitest.Response) {
			apitest.Keys(t, r.JSON(), specKeys...)
		}},
		{Name: "put updates", Method: "PUT", Path: org + "/new-spec", Token: creator.Token, Body: map[string]any{"source": map[string]any{"url": "https://example.com/v2.yaml"}}, Status: 200,
			Check: func(r apitest.Response) {
				s := r.JSON()
				apitest.Keys(t, s, append(specKeys, "sourceURL")...)
				if s["sourceURL"] != "https://example.com/v2.yaml" || s["processingState"] != "pending" {
					t.Errorf("put %v", s)
				}
			}},
		{Name: "put bad slug", Method: "PUT", Path: org + "/Not-OK", Token: creator.Token, Body: map[string]any{"source": text}, Status: 400, Contains: []string{"slug"}},
		{Name: "put without source", Method: "PUT", Path: org + "/new-spec", Token: creator.Token, Body: map[string]any{}, Status: 400, Contains: []string{"source: is required"}},
		{Name: "put without body", Method: "PUT", Path: org + "/new-spec", Token: creator.Token, Status: 400},
		{Name: "put below create role", Method: "PUT", Path: org + "/new-spec", Token: reviewer.Token, Body: map[string]any{"source": text}, Status: 403},

		{Name: "patch visibility", Method: "PATCH", Path: org + "/billing-api", Token: creator.Token, Body: map[string]any{"visibility": "public"}, Status: 200, Check: func(r apitest.Response) {
			if v := r.JSON()["visibility"]; v != "public" {
				t.Errorf("visibility %v", v)
			}
		}},
		{Name: "patch visibility missing", Method: "PATCH", Path: org + "/billing-api", Token: creator.Token, Body: map[string]any{}, Status: 400, Contains: []string{"visibility: is required"}},
		{Name: "patch visibility bad", Method: "PATCH", Path: org + "/billing-api", Token: creator.Token, Body: map[string]any{"visibility": "unlisted"}, Status: 400, Contains: []string{"visibility: must be one of private, public"}},
		{Name: "patch unknown", Method: "PATCH", Path: org + "/nope", Token: creator.Token, Body: map[string]any{"visibility": "public"}, Status: 404},
		{Name: "patch below create role", Method: "PATCH", Path: org + "/billing-api", Token: reader.Token, Body: map[string]any{"visibility": "private"}, Status: 403},

		{Name: "delete below create role", Method: "DELETE", Path: org + "/new-spec", Token: reviewer.Token, Status: 403},
		{Name: "delete from another org", Method: "DELETE", Path: org + "/new-spec", Token: foreign.Token, Status: 404},
		{Name: "delete", Method: "DELETE", Path: org + "/new-spec", Token: creator.Token, Status: 205},
		{Name: "delete again", Method: "DELETE", Path: org + "/new-spec", Token: creator.Token, Status: 204},
		{Name: "get deleted", Method: "GET", Path: org + "/new-spec", Token: creator.Token, Status: 404},
	})
}

func TestOpenAPIGraphQLParity(t *testing.T) {
	env := apitest.New(t)
	createSpec(t, env, "billing", map[string]any{"text": miniSpec})
	data, errs := env.GraphQL(env.Admin.Token, `query($o: ID!) { openAPISpec(organizationId: $o, slug: "billing") { object slug processingState visibility permissions { view edit } urls { location } } }`,
		map[string]any{"o": env.Org})
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	s := data["openAPISpec"].(map[string]any)
	rest := env.Must(200, "GET", specPath(env, "billing"), env.Admin.Token, nil).JSON()
	if s["slug"] != "billing" || s["processingState"] != "PENDING" || s["visibility"] != "PRIVATE" || s["urls"].(map[string]any)["location"] != rest["urls"].(map[string]any)["location"] {
		t.Errorf("graphql %v vs rest %v", s, rest)
	}
	_, errs = env.GraphQL(env.Admin.Token, `mutation($o: ID!) { createOpenAPISpec(organizationId: $o, input: {slug: "billing", source: {text: "x"}}) { id } }`, map[string]any{"o": env.Org})
	if len(errs) != 1 || errs[0].Code() != "CONFLICT" {
		t.Errorf("duplicate slug: %v", errs)
	}
	_, errs = env.GraphQL(env.Admin.Token, `mutation($o: ID!) { createOpenAPISpec(organizationId: $o, input: {slug: "-x", source: {text: "x"}}) { id } }`, map[string]any{"o": env.Org})
	if len(errs) != 1 || errs[0].Code() != "BAD_REQUEST" || errs[0].Extensions["field"] != "slug" {
		t.Errorf("bad slug: %v", errs)
	}
	put := `mutation($o: ID!, $s: String!) { putOpenAPISpec(organizationId: $o, slug: $s, input: {source: {url: "https://example.com/o.json"}}) { created spec { slug sourceURL } } }`
	for _, c := range []struct {
		slug    string
		created bool
	}{{"gql-spec", true}, {"gql-spec", false}} {
		data, errs := env.GraphQL(env.Admin.Token, put, map[string]any{"o": env.Org, "s": c.slug})
		if len(errs) > 0 || data["putOpenAPISpec"].(map[string]any)["created"] != c.created {
			t.Errorf("put %s: %v %v", c.slug, data, errs)
		}
	}
	reader := env.NewUser("reader@acme.test", env.Org, "read")
	_, errs = env.GraphQL(reader.Token, `mutation($o: ID!) { deleteOpenAPISpec(organizationId: $o, slug: "billing") { deleted } }`, map[string]any{"o": env.Org})
	if len(errs) != 1 || errs[0].Code() != "FORBIDDEN" {
		t.Errorf("reader delete: %v", errs)
	}
	_, errs = env.GraphQL(env.Admin.Token, `query($o: ID!) { openAPISpecVersion(organizationId: $o, slug: "billing") { id } }`, map[string]any{"o": env.Org})
	if len(errs) != 1 || errs[0].Code() != "NOT_FOUND" {
		t.Errorf("latest version before processing: %v", errs)
	}
}

func TestOpenAPIProcessingFromText(t *testing.T) {
	env := apitest.New(t)
	p := specPath(env, "pets")
	createSpec(t, env, "pets", map[string]any{"text": petsYAML})
	env.Must(404, "GET", p+"/versions/latest", env.Admin.Token, nil)
	if n := processAll(t, env); n != 1 {
		t.Fatalf("processed %d specs, want 1", n)
	}
	s := env.Must(200, "GET", p, env.Admin.Token, nil).JSON()
	apitest.Keys(t, s, append(specKeys, "lastVersion", "lastProcessedAt")...)
	if s["processingState"] != "complete" {
		t.Fatalf("state %v", s)
	}
	first := s["lastVersion"].(string)

	latest := env.Must(200, "GET", p+"/versions/latest", env.Admin.Token, nil).JSON()
	apitest.Keys(t, latest, versionKeys...)
	info := latest["info"].(map[string]any)
	if latest["id"] != first || latest["object"] != "openapi-spec-version" || info["title"] != "Pets" || info["version"] != "2.0" ||
		latest["openapi"] != "3.1.0" || latest["contentHash"] != openapi.Hash([]byte(petsYAML)) {
		t.Errorf("latest %v", latest)
	}
	apitest.Keys(t, latest["urls"].(map[string]any), "location")
	byID := env.Must(200, "GET", p+"/versions/"+first, env.Admin.Token, nil).JSON()
	if byID["id"] != first || byID["url"] != latest["url"] {
		t.Errorf("by id %v", byID)
	}
	content := env.Must(200, "GET", p+"/versions/latest/content", env.Admin.Token, nil).JSON()
	apitest.Keys(t, content, "filesystem", "url")
	doc := content["filesystem"].(map[string]any)["openapi.yaml"].(map[string]any)
	if doc["info"].(map[string]any)["title"] != "Pets" || doc["paths"].(map[string]any)["/pets/{id}"] == nil {
		t.Errorf("content %v", content)
	}
	env.Must(200, "GET", p+"/versions/"+first+"/content", env.Admin.Token, nil)
	// The version's url serves the document as received.
	raw := env.Must(200, "GET", strings.TrimPrefix(latest["url"].(string), env.HTTP.URL), env.Admin.Token, nil)
	if string(raw.Body) != petsYAML || raw.Header.Get("Content-Type") != "application/yaml" {
		t.Errorf("raw %q %q", raw.Header.Get("Content-Type"), raw.Body)
	}
	env.Must(404, "GET", p+"/versions/nope", env.Admin.Token, nil)
	env.Must(404, "GET", p+"/versions/nope/content", env.Admin.Token, nil)

	// The same document again: processed, but no new version.
	env.Clock.Advance(time.Second)
	env.Must(200, "PUT", p, env.Admin.Token, map[string]any{"source": map[string]any{"text": petsYAML}})
	processAll(t, env)
	s2 := env.Must(200, "GET", p, env.Admin.Token, nil).JSON()
	if s2["lastVersion"] != first || s2["lastProcessedAt"] == s["lastProcessedAt"] {
		t.Errorf("unchanged document: %v", s2)
	}
	// A changed document: a new version, listed first.
	env.Must(200, "PUT", p, env.Admin.Token, map[string]any{"source": map[string]any{"text": strings.Replace(petsYAML, `"2.0"`, `"2.1"`, 1)}})
	processAll(t, env)
	s3 := env.Must(200, "GET", p, env.Admin.Token, nil).JSON()
	if s3["lastVersion"] == first {
		t.Fatalf("changed document made no version: %v", s3)
	}
	list := env.Must(200, "GET", p+"/versions", env.Admin.Token, nil).JSON()
	items := list["items"].([]any)
	if list["count"].(float64) != 2 || items[0].(map[string]any)["id"] != s3["lastVersion"] || items[1].(map[string]any)["id"] != first {
		t.Errorf("versions %v", list)
	}
	apitest.Keys(t, items[0].(map[string]any), versionKeys...)

	// A parse error keeps the last version and says why.
	env.Must(200, "PUT", p, env.Admin.Token, map[string]any{"source": map[string]any{"text": `{"swagger":"2.0","info":{"title":"old","version":"1"},"paths":{}}`}})
	processAll(t, env)
	s4 := env.Must(200, "GET", p, env.Admin.Token, nil).JSON()
	apitest.Keys(t, s4, append(specKeys, "lastVersion", "lastProcessedAt", "lastProcessErrorCode", "lastProcessErrorMessage")...)
	if s4["processingState"] != "complete" || s4["lastProcessErrorCode"] != "PARSE_ERROR" || s4["lastVersion"] != s3["lastVersion"] ||
		!strings.Contains(s4["lastProcessErrorMessage"].(string), "Swagger 2.0") {
		t.Errorf("parse error: %v", s4)
	}
	if l := env.Must(200, "GET", p+"/versions", env.Admin.Token, nil).JSON(); l["count"].(float64) != 2 {
		t.Errorf("a failure made a version: %v", l)
	}
	// The next success clears the error.
	env.Must(200, "PUT", p, env.Admin.Token, map[string]any{"source": map[string]any{"text": petsYAML}})
	processAll(t, env)
	if s5 := env.Must(200, "GET", p, env.Admin.Token, nil).JSON(); s5["lastProcessErrorCode"] != nil || s5["lastProcessErrorMessage"] != nil {
		t.Errorf("error not cleared: %v", s5)
	}
}

// specServer serves body at /openapi.json and counts requests.
func specServer(t *testing.T, status *atomic.Int32, body string) (*httptest.Server, *atomic.Int32) {
	t.Helper()
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		if code := status.Load(); code != 200 {
			w.WriteHeader(int(code))
			return
		}
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, body)
	}))
	t.Cleanup(srv.Close)
	return srv, &hits
}

func TestOpenAPIProcessingFromURL(t *testing.T) {
	env := apitest.New(t) // apitest allows private fetches: the source is a local server
	var status atomic.Int32
	status.Store(200)
	srv, hits := specServer(t, &status, miniSpec)
	p := specPath(env, "mini")
	createSpec(t, env, "mini", map[string]any{"url": srv.URL + "/openapi.json"})
	processAll(t, env)
	s := env.Must(200, "GET", p, env.Admin.Token, nil).JSON()
	if s["processingState"] != "complete" || s["lastVersion"] == nil || s["lastProcessErrorCode"] != nil || hits.Load() != 1 {
		t.Fatalf("spec %v (hits %d)", s, hits.Load())
	}
	content := env.Must(200, "GET", p+"/versions/latest/content", env.Admin.Token, nil).JSON()
	if content["filesystem"].(map[string]any)["openapi.json"].(map[string]any)["info"].(map[string]any)["title"] != "Mini" {
		t.Errorf("content %v", content)
	}

	// The URL fails: FETCH_ERROR, the version stays.
	status.Store(500)
	env.Must(200, "PUT", p, env.Admin.Token, map[string]any{"source": map[string]any{"url": srv.URL + "/openapi.json"}})
	processAll(t, env)
	s2 := env.Must(200, "GET", p, env.Admin.Token, nil).JSON()
	if s2["lastProcessErrorCode"] != "FETCH_ERROR" || s2["lastVersion"] != s["lastVersion"] || !strings.Contains(s2["lastProcessErrorMessage"].(string), "500") {
		t.Errorf("fetch error: %v", s2)
	}
}

func TestOpenAPIFetchTimeout(t *testing.T) {
	env := apitest.New(t)
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select { // never answers before the fetch gives up
		case <-r.Context().Done():
		case <-release:
		}
	}))
	defer srv.Close()
	defer close(release)
	createSpec(t, env, "slow", map[string]any{"url": srv.URL})
	proc := env.Server.OpenAPIProcessor()
	proc.Fetch = fetch.New(fetch.Options{AllowPrivate: true, Timeout: 100 * time.Millisecond})
	var res openapi.Result
	proc.After = func(r openapi.Result) { res = r }
	if _, err := proc.RunPending(context.Background()); err != nil {
		t.Fatal(err)
	}
	if res.ErrorCode != "FETCH_TIMEOUT" || !fetch.IsTimeout(res.Err) {
		t.Errorf("result %+v", res)
	}
	s := env.Must(200, "GET", specPath(env, "slow"), env.Admin.Token, nil).JSON()
	if s["processingState"] != "complete" || s["lastProcessErrorCode"] != "FETCH_TIMEOUT" || s["lastVersion"] != nil {
		t.Errorf("spec %v", s)
	}
}

func TestOpenAPIPrivateAddressRefused(t *testing.T) {
	env := apitest.New(t, apitest.Options{Config: func(c *server.Config) { c.AllowPrivateFetch = false }})
	var status atomic.Int32
	status.Store(200)
	srv, hits := specServer(t, &status, miniSpec)
	createSpec(t, env, "internal", map[string]any{"url": srv.URL + "/openapi.json"})
	processAll(t, env)
	s := env.Must(200, "GET", specPath(env, "internal"), env.Admin.Token, nil).JSON()
	if s["lastProcessErrorCode"] != "FETCH_ERROR" || !strings.Contains(s["lastProcessErrorMessage"].(string), "loopback") || hits.Load() != 0 {
		t.Errorf("spec %v, hits %d", s, hits.Load())
	}
}

// A new source recorded while a run is in progress wins: the run's result
// is dropped and the spec waits for the next run.
func TestOpenAPIRunDiscardedWhenSourceChanges(t *testing.T) {
	env := apitest.New(t)
	ctx := context.Background()
	createSpec(t, env, "racy", map[string]any{"text": miniSpec})
	job, err := env.DB.ClaimOpenAPIJob(ctx)
	if err != nil || job == nil {
		t.Fatal(job, err)
	}
	// The run is visible meanwhile.
	if s := env.Must(200, "GET", specPath(env, "racy"), env.Admin.Token, nil).JSON(); s["processingState"] != "progress" {
		t.Errorf("state %v", s["processingState"])
	}
	env.Must(200, "PUT", specPath(env, "racy"), env.Admin.Token, map[string]any{"source": map[string]any{"text": petsYAML}})
	fin, err := env.DB.FinishOpenAPIJob(ctx, job, storage.OpenAPIOutcome{ErrorCode: "PARSE_ERROR", ErrorMessage: "stale"})
	if err != nil || fin.Applied {
		t.Fatalf("finish %+v %v", fin, err)
	}
	if s := env.Must(200, "GET", specPath(env, "racy"), env.Admin.Token, nil).JSON(); s["processingState"] != "pending" || s["lastProcessErrorCode"] != nil {
		t.Errorf("spec %v", s)
	}
	processAll(t, env)
	v := env.Must(200, "GET", specPath(env, "racy")+"/versions/latest", env.Admin.Token, nil).JSON()
	if v["info"].(map[string]any)["title"] != "Pets" {
		t.Errorf("version %v", v)
	}
}

// Specs left pending (and one left in progress by a crash) by a previous
// process over the same database are processed when a new one starts.
func TestOpenAPIRestartResumesPendingWork(t *testing.T) {
	ctx := context.Background()
	path := storagetest.Target(t)
	db, err := storage.Open(path, storage.Options{})
	if err != nil {
		t.Fatal(err)
	}
	_, hash := auth.NewToken()
	b, err := db.CreateOrganizationWithAdmin(ctx, "Acme", "admin@acme.test", "admin", hash)
	if err != nil {
		t.Fatal(err)
	}
	for _, slug := range []string{"left-pending", "left-in-progress"} {
		if _, err := db.CreateOpenAPISpec(ctx, b.Organization.ID, slug, storage.OpenAPISource{Text: miniSpec}); err != nil {
			t.Fatal(err)
		}
	}
	if job, err := db.ClaimOpenAPIJob(ctx); err != nil || job == nil { // the "crash" happens mid-run
		t.Fatal(job, err)
	}
	db.Close()

	// The next process starts once the crashed one's lease has run out (a
	// live replica's run is not taken from it; see storage.JobLease).
	db, err = storage.Open(path, storage.Options{Clock: func() time.Time { return time.Now().Add(storage.JobLease + time.Second) }})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	srv := server.New(server.Config{PublicURL: "http://docsapi.test"}, db, slog.New(slog.NewTextHandler(io.Discard, nil)))
	proc := srv.OpenAPIProcessor()
	done := make(chan openapi.Result, 2)
	proc.After = func(r openapi.Result) { done <- r }
	runCtx, stop := context.WithCancel(ctx)
	finished := make(chan struct{})
	go func() { proc.Run(runCtx, nil); close(finished) }()
	for range 2 {
		select {
		case r := <-done:
			if !r.Applied || r.NewVersion == "" || r.Err != nil {
				t.Errorf("run %+v", r)
			}
		case <-time.After(20 * time.Second): // a failure bound, not a wait for success
			t.Fatal("pending specs were not processed after the restart")
		}
	}
	stop()
	<-finished
	for _, slug := range []string{"left-pending", "left-in-progress"} {
		s, err := db.OpenAPISpec(ctx, b.Organization.ID, slug)
		if err != nil || s.State != "complete" || s.LastVersion == nil {
			t.Errorf("%s: %+v %v", slug, s, err)
		}
	}
}
