package rest_test

import (
	"encoding/json"
	"net/http"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/go-chi/chi/v5"

	"docsapi/apitest"
	"docsapi/rest"
)

// TestOpenAPIDescribesEveryRoute walks the router: every /v1 route must be
// in the served description and every described operation must be a route.
func TestOpenAPIDescribesEveryRoute(t *testing.T) {
	env := apitest.New(t)
	r := env.Must(200, "GET", "/v1/openapi.json", env.Admin.Token, nil)
	var doc struct {
		OpenAPI    string                               `json:"openapi"`
		Paths      map[string]map[string]map[string]any `json:"paths"`
		Components map[string]map[string]any            `json:"components"`
	}
	r.Decode(t, &doc)
	if doc.OpenAPI != "3.1.0" {
		t.Fatalf("openapi %q", doc.OpenAPI)
	}
	described := map[string]bool{}
	ids := map[string]string{}
	for p, item := range doc.Paths {
		for method, op := range item {
			key := strings.ToUpper(method) + " /v1" + p
			described[key] = true
			id, _ := op["operationId"].(string)
			if id == "" {
				t.Errorf("%s has no operationId", key)
			} else if other, dup := ids[id]; dup {
				t.Errorf("operationId %s names both %s and %s", id, other, key)
			}
			ids[id] = key
			checkPathParams(t, key, p, op)
		}
	}
	served := map[string]bool{}
	chi.Walk(env.Server.Router, func(method, route string, _ http.Handler, _ ...func(http.Handler) http.Handler) error {
		if route != "/v1/" {
			route = strings.TrimSuffix(route, "/")
		}
		if strings.HasPrefix(route, "/v1/") && method != "OPTIONS" {
			served[method+" "+route] = true
		}
		return nil
	})
	var missing, stale []string
	for key := range served {
		if !described[key] {
			missing = append(missing, key)
		}
	}
	for key := range described {
		if !served[key] {
			stale = append(stale, key)
		}
	}
	sort.Strings(missing)
	sort.Strings(stale)
	for _, key := range missing {
		t.Errorf("route %s is missing from /v1/openapi.json: declare it in rest/<family>_apidoc.go", key)
	}
	for _, key := range stale {
		t.Errorf("/v1/openapi.json describes %s, which the router does not serve", key)
	}
	if _, undeclared := rest.OpenAPI("test"); len(undeclared) > 0 {
		t.Errorf("enum types without declareEnum (their values are missing from the description): %v", undeclared)
	}
	checkRefs(t, r.Body, doc.Components)
}

var paramRe = regexp.MustCompile(`\{([^}]+)\}`)

func checkPathParams(t *testing.T, key, p string, op map[string]any) {
	t.Helper()
	declared := map[string]bool{}
	params, _ := op["parameters"].([]any)
	for _, raw := range params {
		if m, _ := raw.(map[string]any); m["in"] == "path" {
			declared[m["name"].(string)] = true
		}
	}
	for _, m := range paramRe.FindAllStringSubmatch(p, -1) {
		if !declared[m[1]] {
			t.Errorf("%s: path parameter %s is not declared", key, m[1])
		}
	}
}

// checkRefs fails for a $ref that names no component.
func checkRefs(t *testing.T, raw []byte, components map[string]map[string]any) {
	t.Helper()
	for _, m := range regexp.MustCompile(`"\$ref": "#/components/([^/]+)/([^"]+)"`).FindAllSubmatch(raw, -1) {
		if _, ok := components[string(m[1])][string(m[2])]; !ok {
			t.Errorf("$ref to missing component %s/%s", m[1], m[2])
		}
	}
}

// TestOpenAPISchemasMatchAnswers checks the reflected schemas against real
// answers: every property an answer has is described, and every required
// property is there.
func TestOpenAPISchemasMatchAnswers(t *testing.T) {
	env := apitest.New(t)
	tok := env.Admin.Token
	var doc struct {
		Components struct {
			Schemas map[string]struct {
				Properties map[string]any `json:"properties"`
				Required   []string       `json:"required"`
			} `json:"schemas"`
		} `json:"components"`
	}
	env.Must(200, "GET", "/v1/openapi.json", tok, nil).Decode(t, &doc)
	team := env.Must(201, "PUT", "/v1/orgs/"+env.Org+"/teams", tok, map[string]any{"title": "Writers"}).JSON()["id"].(string)
	for schema, path := range map[string]string{
		"Organization": "/v1/orgs/" + env.Org,
		"Team":         "/v1/orgs/" + env.Org + "/teams/" + team,
		"Member":       "/v1/orgs/" + env.Org + "/members/" + env.Admin.ID,
		"User":         "/v1/user",
		"MemberList":   "/v1/orgs/" + env.Org + "/members",
	} {
		s, ok := doc.Components.Schemas[schema]
		if !ok {
			t.Errorf("no schema %s", schema)
			continue
		}
		var answer map[string]json.RawMessage
		env.Must(200, "GET", path, tok, nil).Decode(t, &answer)
		for k := range answer {
			if _, ok := s.Properties[k]; !ok {
				t.Errorf("%s answers %q, which schema %s lacks", path, k, schema)
			}
		}
		for _, k := range s.Required {
			if _, ok := answer[k]; !ok {
				t.Errorf("schema %s requires %q, which %s lacks", schema, k, path)
			}
		}
	}
}
