package rest

import (
	"encoding/json"
	"net/http"
	"reflect"
	"regexp"
	"sort"
	"strings"
	"sync"

	"github.com/go-chi/chi/v5"
)

// The served API description (GET /v1/openapi.json, OpenAPI 3.1) is built
// from declarations: each family declares its operations in
// rest/<family>_apidoc.go with describe(...). Schemas come by reflection
// from the Go types the routes decode and answer (graph/model), following
// their json tags, so the description cannot drift from the JSON written.
// TestOpenAPIDescribesEveryRoute fails for a /v1 route without a
// declaration, and for a declaration without a route.

// Operation is one /v1 route as the description shows it.
type Operation struct {
	Method  string // GET, POST, PUT, PATCH, DELETE
	Pattern string // the chi pattern under /v1: "/orgs/{organizationId}/teams"
	ID      string // operationId: the published interface's name
	Summary string
	Tag     string
	Query   []Param
	// Body is a value of the request body's type (nil: no body);
	// BodyOptional when the body may be omitted.
	Body         any
	BodyOptional bool
	// Status is the success status; Response a value of the answer's type
	// (nil: no body). Deletes answer 205 and 204, declared as 205.
	Status   int
	Response any
	// Conditional marks routes built with a.resource (GET: ETag and
	// If-None-Match) or a.ifMatch (writes: If-Match).
	Conditional bool
	// Public operations answer without a token (see IsPublic); only
	// patterns without path parameters may be public.
	Public bool
}

// Param is a query parameter; Type is a value of its Go type.
type Param struct {
	Name        string
	Type        any
	Description string
	Required    bool
}

// pageParams are the `page` and `limit` every list takes.
var pageParams = []Param{
	{Name: "page", Type: "", Description: "Cursor of the page to return, from `next.page` of the previous one."},
	{Name: "limit", Type: 0, Description: "Items per page, 0..1000 (default 50)."},
}

var operations []Operation

// publicPaths are the /v1 paths of the GET operations declared Public,
// kept beside operations so that IsPublic, asked on every request, is one
// map lookup rather than a walk over every operation.
var publicPaths = map[string]bool{}

// describe declares operations (call it from a family's init).
func describe(ops ...Operation) {
	operations = append(operations, ops...)
	for _, op := range ops {
		if op.Public && op.Method == http.MethodGet {
			publicPaths["/v1"+op.Pattern] = true
		}
	}
}

// schemaOverrides replace the reflected schema of a type whose JSON the
// reflection cannot see (custom UnmarshalJSON); see overrideSchema.
var schemaOverrides = map[reflect.Type]func(reflected map[string]any) map[string]any{}

// overrideSchema registers a schema rewrite for the type of v.
func overrideSchema(v any, fn func(reflected map[string]any) map[string]any) {
	schemaOverrides[reflect.TypeOf(v)] = fn
}

func init() {
	register(func(a *API, r chi.Router) { r.Get("/openapi.json", a.serveOpenAPI) })
	// The description of the API is not a secret: a new user reads it
	// before holding a token.
	describe(Operation{Method: "GET", Pattern: "/openapi.json", ID: "getOpenAPIDescription", Tag: "api", Public: true,
		Summary: "This description of the REST interface (OpenAPI 3.1); needs no token.", Status: 200, Response: map[string]any{}, Conditional: true})
}

// IsPublic tells whether r is a GET (or HEAD) of a /v1 operation declared
// Public: authentication lets it through without a token.
func IsPublic(r *http.Request) bool {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		return false
	}
	return publicPaths[r.URL.Path]
}

// openAPIDoc is the encoded description and its ETag, built on first request.
type openAPIDoc struct {
	once sync.Once
	body []byte
	etag string
}

func (a *API) serveOpenAPI(w http.ResponseWriter, r *http.Request) {
	a.openAPI.once.Do(func() {
		doc, _ := OpenAPI(a.Resolver.Config.Version)
		a.openAPI.body, _ = json.MarshalIndent(doc, "", "  ")
		a.openAPI.etag = etagOf(a.openAPI.body)
	})
	w.Header().Set("ETag", a.openAPI.etag)
	if inm := r.Header.Get("If-None-Match"); inm != "" && etagMatches(inm, a.openAPI.etag) {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	writeBody(w, http.StatusOK, a.openAPI.body)
}

// OpenAPI builds the description of every declared operation. The server
// URL is relative ("/v1"), so one description serves every deployment.
// undeclared names the enum types met without declareEnum (a test fails on
// them: their values would be missing).
func OpenAPI(version string) (doc map[string]any, undeclared []string) {
	g := &schemas{components: map[string]any{}, names: map[reflect.Type]string{}}
	paths := map[string]map[string]any{}
	for _, op := range operations {
		item := paths[op.Pattern]
		if item == nil {
			item = map[string]any{}
			paths[op.Pattern] = item
		}
		item[strings.ToLower(op.Method)] = g.operation(op)
	}
	g.components["Error"] = map[string]any{
		"type": "object", "required": []string{"error"},
		"properties": map[string]any{"error": map[string]any{
			"type": "object", "required": []string{"code", "message"},
			"properties": map[string]any{
				"code":    map[string]any{"type": "integer", "description": "The HTTP status."},
				"message": map[string]any{"type": "string", "description": "What went wrong; validation messages name the field and the rule."},
			},
		}},
	}
	return map[string]any{
		"openapi": "3.1.0",
		"info": map[string]any{
			"title":   "docsapi",
			"version": version,
			"description": "The Docs Platform Management API as docsapi serves it. Every error is the Error schema. " +
				"Lists are keyset-paginated. Single resources carry weak ETags (If-None-Match → 304; If-Match on writes → 412). " +
				"POST and PUT accept Idempotency-Key. Every answer carries X-RateLimit-Limit, X-RateLimit-Remaining and X-RateLimit-Reset when limits are on.",
		},
		"servers":  []any{map[string]any{"url": "/v1"}},
		"security": []any{map[string]any{"bearer": []string{}}},
		"paths":    paths,
		"components": map[string]any{
			"schemas":         g.components,
			"securitySchemes": map[string]any{"bearer": map[string]any{"type": "http", "scheme": "bearer", "description": "An API token (dapi_...)."}},
			"responses":       errorResponses(),
		},
	}, g.undeclared
}

var errorStatuses = map[string]string{
	"400": "Malformed or invalid input; the message names the field.",
	"401": "Missing, malformed or unknown token.",
	"403": "The caller's role is too low.",
	"404": "Unknown, or belongs to an organization the caller is not in.",
	"409": "The change would break an invariant.",
	"412": "If-Match names an ETag the resource no longer has.",
	"413": "The body is larger than the configured limit.",
	"422": "Idempotency-Key reused with a different request.",
	"429": "Rate limit exceeded; see Retry-After.",
}

func errorResponses() map[string]any {
	out := map[string]any{}
	for code, desc := range errorStatuses {
		out["E"+code] = map[string]any{"description": desc,
			"content": map[string]any{"application/json": map[string]any{"schema": ref("Error")}}}
	}
	return out
}

func ref(name string) map[string]any { return map[string]any{"$ref": "#/components/schemas/" + name} }

var pathParam = regexp.MustCompile(`\{([^}]+)\}`)

func (g *schemas) operation(op Operation) map[string]any {
	out := map[string]any{"operationId": op.ID, "summary": op.Summary}
	if op.Public {
		out["security"] = []any{} // overrides the document's bearer requirement
	}
	if op.Tag != "" {
		out["tags"] = []string{op.Tag}
	}
	var params []any
	for _, m := range pathParam.FindAllStringSubmatch(op.Pattern, -1) {
		params = append(params, map[string]any{"name": m[1], "in": "path", "required": true, "schema": map[string]any{"type": "string"}})
	}
	for _, q := range op.Query {
		p := map[string]any{"name": q.Name, "in": "query", "schema": g.of(reflect.TypeOf(q.Type))}
		if q.Description != "" {
			p["description"] = q.Description
		}
		if q.Required {
			p["required"] = true
		}
		params = append(params, p)
	}
	header := func(name, desc string) {
		params = append(params, map[string]any{"name": name, "in": "header", "description": desc, "schema": map[string]any{"type": "string"}})
	}
	errs := []string{"400", "401", "404", "429"}
	if op.Method != "GET" {
		errs = append(errs, "403", "409")
	}
	switch {
	case op.Conditional && op.Method == "GET":
		header("If-None-Match", "ETags the caller holds; a match answers 304 without a body.")
	case op.Conditional:
		header("If-Match", "Write only if the resource still has one of these ETags (weak comparison), else 412.")
		errs = append(errs, "412")
	}
	if op.Method == "POST" || op.Method == "PUT" {
		header("Idempotency-Key", "Retries with the same key and request within 24 hours get the first answer again without running twice.")
		errs = append(errs, "422")
	}
	if len(params) > 0 {
		out["parameters"] = params
	}
	if op.Body != nil {
		errs = append(errs, "413")
		out["requestBody"] = map[string]any{
			"required": !op.BodyOptional,
			"content":  map[string]any{"application/json": map[string]any{"schema": g.of(reflect.TypeOf(op.Body))}},
		}
	}
	responses := map[string]any{}
	success := map[string]any{"description": http.StatusText(op.Status)}
	if op.Conditional && (op.Method == "GET" || op.Status == 200) {
		success["headers"] = map[string]any{"ETag": map[string]any{"description": "Weak ETag of this representation.", "schema": map[string]any{"type": "string"}}}
	}
	switch {
	case op.Response != nil:
		success["content"] = map[string]any{"application/json": map[string]any{"schema": g.of(reflect.TypeOf(op.Response))}}
	case op.Status >= 400: // an operation that always refuses (hosted-only: 501)
		success["content"] = map[string]any{"application/json": map[string]any{"schema": ref("Error")}}
	}
	responses[itoa(op.Status)] = success
	if op.Method == "DELETE" && op.Status == http.StatusResetContent {
		responses["204"] = map[string]any{"description": "Nothing to delete (or nothing the caller may see)."}
	}
	if op.Conditional && op.Method == "GET" {
		responses["304"] = map[string]any{"description": "Not modified: If-None-Match names the current ETag."}
	}
	sort.Strings(errs)
	for _, code := range errs {
		responses[code] = map[string]any{"$ref": "#/components/responses/E" + code}
	}
	responses["default"] = map[string]any{"description": "Any other error.",
		"content": map[string]any{"application/json": map[string]any{"schema": ref("Error")}}}
	out["responses"] = responses
	return out
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }
