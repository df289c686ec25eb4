package rest_test

import (
	"net/http"
	"sort"
	"strings"
	"testing"

	"github.com/go-chi/chi/v5"

	"docsapi/apitest"
)

// authzRule says who may call a /v1 route. Every route the router serves
// must have one: TestAuthorizationMatrix fails on a route without a rule, so
// each new route joins the matrix in its family's test file.
type authzRule struct {
	// Min is the lowest organization role allowed: a role name, "member" for
	// any member (guests included), or "" for routes not scoped to one
	// organization (only the 401 check applies).
	Min string
	// Path builds a concrete path on the fixture organization's resources.
	Path func(f *fixture) string
	// Body is a valid body, so that input validation cannot answer before
	// authorization does.
	Body any
	// BodyFor builds the body from the fixture when it must name fixture
	// resources (the organization an integration is published or
	// installed in); it wins over Body.
	BodyFor func(f *fixture) any
	// NoForeign skips the other-organization check (public reads such as the
	// SSO login list).
	NoForeign bool
	// Public routes answer 200 without a token and with an unknown one
	// (GET /v1/openapi.json); nothing else is checked.
	Public bool
}

// authzRules is keyed "METHOD /v1/pattern" (chi's pattern).
var authzRules = map[string]authzRule{}

// fixture is the organization every rule's path points into.
type fixture struct {
	Env    *apitest.Env
	Org    string
	ByRole map[string]apitest.User // admin, create, review, edit, comment, read, guest
	// Foreign is the admin of another organization.
	Foreign apitest.User
	// IDs holds fixture resources by name ("team", "space", ...).
	IDs map[string]string
}

// fixtureSetups create each family's resources in the fixture organization.
var fixtureSetups []func(f *fixture)

// roleBelow is the role just under min, used for the 403 check.
var roleBelow = map[string]string{
	"admin": "create", "create": "review", "review": "edit", "edit": "comment", "comment": "read", "read": "guest",
}

func newFixture(t *testing.T) *fixture {
	env := apitest.New(t)
	f := &fixture{Env: env, Org: env.Org, ByRole: map[string]apitest.User{"admin": env.Admin}, IDs: map[string]string{}}
	for _, role := range []string{"create", "review", "edit", "comment", "read", "guest"} {
		f.ByRole[role] = env.NewUser(role+"@acme.test", env.Org, role)
	}
	_, f.Foreign = env.NewOrg("Other", "admin@other.test")
	for _, setup := range fixtureSetups {
		setup(f)
	}
	return f
}

func TestAuthorizationMatrix(t *testing.T) {
	f := newFixture(t)
	seen := map[string]bool{}
	var routes []string
	chi.Walk(f.Env.Server.Router, func(method, route string, _ http.Handler, _ ...func(http.Handler) http.Handler) error {
		if route != "/v1/" {
			route = strings.TrimSuffix(route, "/")
		}
		if !strings.HasPrefix(route, "/v1/") || method == "OPTIONS" {
			return nil
		}
		key := method + " " + route
		if !seen[key] {
			seen[key] = true
			routes = append(routes, key)
		}
		return nil
	})
	sort.Strings(routes)
	for _, key := range routes {
		rule, ok := authzRules[key]
		if !ok {
			t.Errorf("route %s has no authorization rule in the matrix", key)
			continue
		}
		method := strings.SplitN(key, " ", 2)[0]
		p := rule.Path(f)
		if rule.BodyFor != nil {
			rule.Body = rule.BodyFor(f)
		}
		t.Run(key, func(t *testing.T) {
			if rule.Public {
				for _, token := range []string{"", "dapi_not-a-token"} {
					if r := f.Env.Do(method, p, token, rule.Body); r.Status != http.StatusOK {
						t.Errorf("public route with token %q: %d, want 200 (%s)", token, r.Status, r.Body)
					}
				}
				return
			}
			if r := f.Env.Do(method, p, "", rule.Body); r.Status != http.StatusUnauthorized {
				t.Errorf("without token: %d, want 401 (%s)", r.Status, r.Body)
			}
			if r := f.Env.Do(method, p, "dapi_not-a-token", rule.Body); r.Status != http.StatusUnauthorized {
				t.Errorf("with an unknown token: %d, want 401 (%s)", r.Status, r.Body)
			}
			if rule.Min == "" {
				return
			}
			if !rule.NoForeign {
				r := f.Env.Do(method, p, f.Foreign.Token, rule.Body)
				if r.Status != http.StatusNotFound && !(method == "DELETE" && r.Status == http.StatusNoContent) {
					t.Errorf("other organization's admin: %d, want 404 (%s)", r.Status, r.Body)
				}
			}
			if below, ok := roleBelow[rule.Min]; ok {
				if r := f.Env.Do(method, p, f.ByRole[below].Token, rule.Body); r.Status != http.StatusForbidden {
					t.Errorf("role %s (below %s): %d, want 403 (%s)", below, rule.Min, r.Status, r.Body)
				}
			}
		})
	}
	for key := range authzRules {
		if !seen[key] {
			t.Errorf("matrix rule %s names no route of the router", key)
		}
	}
}
