package rest_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"sort"
	"strings"
	"testing"

	"golang.org/x/net/http/httpguts"

	"docsapi/apitest"
	"docsapi/importer"
	"docsapi/server"
)

// fuzzFixture is one running server (loopback httptest) with one of each
// resource, shared by the inputs of a fuzz target or of the HTTP-level fuzz
// test, and the operations of /v1/openapi.json.
type fuzzFixture struct {
	env *apitest.Env
	ids map[string]string // path parameter name -> a real id
	ops []fuzzOp
	doc map[string]any
}

// fuzzOp is one operation of the served API description.
type fuzzOp struct {
	Method, Path string
	Params       []string // path parameter names
	Query        []string // query parameter names
	Body         map[string]any
	Paged        bool
}

// noNetwork refuses every server-side request: fuzzed bodies name any URL
// (imports, spec URLs, development tunnels), and fuzzing must not reach
// beyond this machine's loopback server.
type noNetwork struct{}

func (noNetwork) Fetch(context.Context, string) (*importer.Resource, error) {
	return nil, &importer.FetchError{Msg: "url: fuzzing reaches no network"}
}

func (noNetwork) Do(*http.Request) (*http.Response, error) {
	return nil, errors.New("fuzzing reaches no network")
}

func newFuzzFixture(tb testing.TB) *fuzzFixture {
	env := apitest.New(tb, apitest.Options{Config: func(c *server.Config) { c.Outbound = noNetwork{} }})
	env.Server.Resolver.Fetcher = noNetwork{}
	fx := &fuzzFixture{env: env, ids: map[string]string{"organizationId": env.Org, "userId": env.Admin.ID}}
	admin := env.Admin.Token
	v1 := "/v1/orgs/" + env.Org
	fx.ids["spaceId"] = env.Must(201, "POST", v1+"/spaces", admin, map[string]any{"title": "Guide"}).JSON()["id"].(string)
	fx.ids["collectionId"] = env.Must(201, "POST", v1+"/collections", admin, map[string]any{"title": "Docs"}).JSON()["id"].(string)
	fx.ids["teamId"] = env.Must(201, "PUT", v1+"/teams", admin, map[string]any{"title": "Eng"}).JSON()["id"].(string)
	site := env.Must(201, "POST", v1+"/sites", admin, map[string]any{"title": "Docs", "visibility": "visitor-auth", "spaces": []string{fx.ids["spaceId"]}}).JSON()
	fx.ids["siteId"] = site["id"].(string)
	ss := env.Must(200, "GET", v1+"/sites/"+fx.ids["siteId"]+"/site-spaces", admin, nil).JSON()["items"].([]any)
	fx.ids["siteSpaceId"] = ss[0].(map[string]any)["id"].(string)
	env.Must(200, "POST", v1+"/sites/"+fx.ids["siteId"]+"/publish", admin, nil)
	env.Must(200, "POST", "/v1/integrations/chat", admin, map[string]any{"title": "Chat", "description": "Chat", "script": "export default {}",
		"scopes": []string{"space:content:read"}, "organization": env.Org})
	fx.ids["integrationName"] = "chat"
	fx.ids["webhookId"] = env.Must(201, "POST", v1+"/webhooks", admin, map[string]any{"url": "https://hooks.example.com/in", "events": []string{"space.created"}}).JSON()["id"].(string)
	fx.ids["installationId"] = env.Must(201, "POST", "/v1/integrations/chat/installations", admin, map[string]any{"organization": env.Org}).JSON()["id"].(string)
	json.Unmarshal(env.Must(200, "GET", "/v1/openapi.json", admin, nil).Body, &fx.doc)
	fx.ops = fx.operations()
	return fx
}

var pathParam = regexp.MustCompile(`\{([^}]+)\}`)

// operations lists the served description's operations, sorted.
func (fx *fuzzFixture) operations() []fuzzOp {
	var ops []fuzzOp
	paths, _ := fx.doc["paths"].(map[string]any)
	for p, item := range paths {
		for method, raw := range item.(map[string]any) {
			op, ok := raw.(map[string]any)
			if !ok {
				continue
			}
			o := fuzzOp{Method: strings.ToUpper(method), Path: "/v1" + p}
			if responses, _ := op["responses"].(map[string]any); responses["501"] != nil {
				// Hosted-only operations (rest/hosted.go) answer 501 by
				// design; their refusals before it are fuzzed through the
				// authorization matrix and TestHostedOnly.
				continue
			}
			for _, m := range pathParam.FindAllStringSubmatch(p, -1) {
				o.Params = append(o.Params, m[1])
			}
			params, _ := op["parameters"].([]any)
			for _, pr := range params {
				pm := fx.resolve(pr)
				if pm["in"] == "query" {
					o.Query = append(o.Query, pm["name"].(string))
					o.Paged = o.Paged || pm["name"] == "page"
				}
			}
			if rb, ok := op["requestBody"].(map[string]any); ok {
				if c, ok := rb["content"].(map[string]any)["application/json"].(map[string]any); ok {
					o.Body = fx.resolve(c["schema"])
				} else {
					o.Body = map[string]any{}
				}
			}
			ops = append(ops, o)
		}
	}
	sort.Slice(ops, func(i, j int) bool { return ops[i].Path+ops[i].Method < ops[j].Path+ops[j].Method })
	return ops
}

// resolve follows a local $ref of the description.
func (fx *fuzzFixture) resolve(v any) map[string]any {
	m, _ := v.(map[string]any)
	for range 8 {
		ref, ok := m["$ref"].(string)
		if !ok {
			return m
		}
		cur := any(fx.doc)
		for _, part := range strings.Split(strings.TrimPrefix(ref, "#/"), "/") {
			next, _ := cur.(map[string]any)
			cur = next[part]
		}
		m, _ = cur.(map[string]any)
	}
	return m
}

// path fills an operation's path parameters with the fixture's ids (or
// "nope" for those it has none of).
func (fx *fuzzFixture) path(o fuzzOp) string {
	return pathParam.ReplaceAllStringFunc(o.Path, func(m string) string {
		if id, ok := fx.ids[m[1:len(m)-1]]; ok {
			return id
		}
		return "nope"
	})
}

// send makes one request; headers that cannot be sent (control
// characters) are left out.
func (fx *fuzzFixture) send(t testing.TB, method, path string, body []byte, headers ...string) (int, []byte) {
	t.Helper()
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequest(method, fx.env.HTTP.URL+path, rd)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	req.Header.Set("Authorization", "Bearer "+fx.env.Admin.Token)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	for i := 0; i+1 < len(headers); i += 2 {
		if httpguts.ValidHeaderFieldName(headers[i]) && httpguts.ValidHeaderFieldValue(headers[i+1]) {
			req.Header.Set(headers[i], headers[i+1])
		}
	}
	res, err := fx.env.HTTP.Client().Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer res.Body.Close()
	raw, _ := io.ReadAll(res.Body)
	return res.StatusCode, raw
}

// checkAnswer: never a 5xx; every error is the API's error body with its
// status and a message.
func checkAnswer(t testing.TB, what string, status int, body []byte) {
	t.Helper()
	if status >= 500 {
		t.Fatalf("%s: %d %s", what, status, body)
	}
	if status < 400 {
		return
	}
	var e struct {
		Error struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	if err := json.Unmarshal(body, &e); err != nil || e.Error.Code != status || e.Error.Message == "" {
		t.Fatalf("%s: %d without the error body: %q", what, status, body)
	}
}

func query(kv ...string) string {
	v := url.Values{}
	for i := 0; i+1 < len(kv); i += 2 {
		v.Set(kv[i], kv[i+1])
	}
	return "?" + v.Encode()
}
