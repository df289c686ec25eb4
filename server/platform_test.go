package server_test

import (
	"context"
	"database/sql"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/go-chi/chi/v5"
	_ "github.com/jackc/pgx/v5/stdlib"

	"docsapi/apitest"
	"docsapi/storage/storagetest"
)

// TestHeadOnEveryGetRoute: HEAD is a read; every GET route answers it with
// the GET's status and Content-Type and no body (it was a 405).
func TestHeadOnEveryGetRoute(t *testing.T) {
	env := apitest.New(t)
	space := env.Must(201, "POST", "/v1/orgs/"+env.Org+"/spaces", env.Admin.Token, map[string]any{"title": "Docs"}).JSON()["id"].(string)
	ids := map[string]string{"orgId": env.Org, "organizationId": env.Org, "spaceId": space, "userId": env.Admin.ID}
	param := regexp.MustCompile(`\{([^}:]+)(:[^}]*)?\}`)
	routes := 0
	err := chi.Walk(env.Server.Router, func(method, route string, _ http.Handler, _ ...func(http.Handler) http.Handler) error {
		if method != "GET" || strings.Contains(route, "/debug/") {
			return nil
		}
		path := param.ReplaceAllStringFunc(route, func(p string) string {
			if id, ok := ids[param.FindStringSubmatch(p)[1]]; ok {
				return id
			}
			return "nope"
		})
		path = strings.ReplaceAll(strings.TrimSuffix(path, "/*"), "*", "x")
		routes++
		get := env.Do("GET", path, env.Admin.Token, nil)
		head := env.Do("HEAD", path, env.Admin.Token, nil)
		if head.Status != get.Status || head.Header.Get("Content-Type") != get.Header.Get("Content-Type") || len(head.Body) != 0 {
			t.Errorf("HEAD %s (route %s): %d %q with %d bytes; GET: %d %q", path, route, head.Status, head.Header.Get("Content-Type"), len(head.Body), get.Status, get.Header.Get("Content-Type"))
		}
		return nil
	})
	if err != nil || routes < 50 {
		t.Fatalf("walked %d GET routes: %v", routes, err)
	}
	// A route without GET still refuses HEAD.
	if r := env.Do("HEAD", "/v1/user/tokens/nope/rotate", env.Admin.Token, nil); r.Status != 405 && r.Status != 404 {
		t.Errorf("HEAD on a POST-only route: %d", r.Status)
	}
}

// TestDatabaseUnavailableIs503: a database that cannot be reached (here: a
// closed pool, as in a stopping process; on PostgreSQL also a server that
// refuses connections) answers 503 with Retry-After on both transports,
// never a 500, and /readyz says 503 without the driver's words.
func TestDatabaseUnavailableIs503(t *testing.T) {
	env := apitest.New(t)
	env.DB.Close()
	checkUnavailable(t, env)
}

func checkUnavailable(t *testing.T, env *apitest.Env) {
	t.Helper()
	r := env.Do("POST", "/v1/orgs/"+env.Org+"/spaces", env.Admin.Token, map[string]any{"title": "Docs"})
	if r.Status != 503 || r.Header.Get("Retry-After") == "" || !strings.Contains(string(r.Body), "database is unavailable") {
		t.Errorf("REST write: %d Retry-After %q: %s", r.Status, r.Header.Get("Retry-After"), r.Body)
	}
	_, errs := env.GraphQL(env.Admin.Token, `mutation($o: ID!) { createSpace(organizationId: $o, input: {title: "Docs"}) { id } }`, map[string]any{"o": env.Org})
	if len(errs) == 0 || errs[0].Code() != "UNAVAILABLE" || errs[0].Extensions["retryAfter"] == nil {
		t.Errorf("GraphQL write: %+v", errs)
	}
	ready := env.Do("GET", "/readyz", "", nil)
	if ready.Status != 503 || strings.Contains(string(ready.Body), "127.0.0.1") || strings.Contains(string(ready.Body), "closed") {
		t.Errorf("/readyz: %d %s", ready.Status, ready.Body)
	}
}

// TestPostgresStoppedIs503 makes the test's PostgreSQL database refuse
// every connection (what a stopped server does to the pool: its
// connections end, new ones fail), then lets it back in: writes answer
// 503 with Retry-After meanwhile and succeed again afterwards, by
// themselves.
func TestPostgresStoppedIs503(t *testing.T) {
	if !storagetest.OnPostgres() {
		t.Skip("PostgreSQL only (DOCSAPI_TEST_DB)")
	}
	env := apitest.New(t)
	u, err := url.Parse(env.DBPath)
	if err != nil {
		t.Fatal(err)
	}
	name := strings.TrimPrefix(u.Path, "/")
	u.Path = "/postgres"
	admin, err := sql.Open("pgx", u.String())
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()
	ctx := context.Background()
	ident := `"` + strings.ReplaceAll(name, `"`, `""`) + `"`
	if _, err := admin.ExecContext(ctx, `ALTER DATABASE `+ident+` ALLOW_CONNECTIONS false`); err != nil {
		t.Fatal(err)
	}
	allow := func() { admin.ExecContext(ctx, `ALTER DATABASE `+ident+` ALLOW_CONNECTIONS true`) }
	defer allow()
	if _, err := admin.ExecContext(ctx, `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()`, name); err != nil {
		t.Fatal(err)
	}
	checkUnavailable(t, env)
	allow()
	for i := range 3 { // the pool drops its broken connections as it meets them
		r := env.Do("POST", "/v1/orgs/"+env.Org+"/spaces", env.Admin.Token, map[string]any{"title": "Back " + strconv.Itoa(i)})
		if r.Status == 201 {
			return
		}
	}
	t.Fatal("writes did not resume once the database was back")
}

// TestCursorOfAnotherList: a list's cursor pages that list (REST and
// GraphQL); given to another list (the audit log, the links, search) it
// is a 400 naming `page`, not an empty or shifted page.
func TestCursorOfAnotherList(t *testing.T) {
	env := apitest.New(t)
	for _, title := range []string{"A", "B", "C"} {
		env.Must(201, "POST", "/v1/orgs/"+env.Org+"/spaces", env.Admin.Token, map[string]any{"title": title})
	}
	first := env.Must(200, "GET", "/v1/orgs/"+env.Org+"/spaces?limit=1", env.Admin.Token, nil).JSON()
	cursor := first["next"].(map[string]any)["page"].(string)
	if second := env.Must(200, "GET", "/v1/orgs/"+env.Org+"/spaces?limit=1&page="+cursor, env.Admin.Token, nil).JSON(); len(second["items"].([]any)) != 1 {
		t.Fatalf("second page of spaces: %v", second)
	}
	space := first["items"].([]any)[0].(map[string]any)["id"].(string)
	for _, path := range []string{
		"/v1/orgs/" + env.Org + "/audit-log?page=" + cursor,
		"/v1/spaces/" + space + "/links?page=" + cursor,
		"/v1/orgs/" + env.Org + "/search?query=a&page=" + cursor,
	} {
		r := env.Do("GET", path, env.Admin.Token, nil)
		if r.Status != 400 || !strings.Contains(string(r.Body), "page") {
			t.Errorf("GET %s: %d %s", path, r.Status, r.Body)
		}
	}
	_, errs := env.GraphQL(env.Admin.Token, `query($o: ID!, $p: String) { auditLog(organizationId: $o, page: $p) { count } }`, map[string]any{"o": env.Org, "p": cursor})
	if len(errs) == 0 || errs[0].Extensions["field"] != "page" {
		t.Errorf("GraphQL audit log with a spaces cursor: %+v", errs)
	}
}

// TestDisguisedTitlesRefused: both transports refuse a title with a bidi
// override or a NUL with a 400 naming the field (GraphQL in extensions).
func TestDisguisedTitlesRefused(t *testing.T) {
	env := apitest.New(t)
	for _, title := range []string{"abc\u202Egnp.exe", "abc\x00def"} {
		r := env.Do("POST", "/v1/orgs/"+env.Org+"/spaces", env.Admin.Token, map[string]any{"title": title})
		if r.Status != 400 || !strings.Contains(string(r.Body), "title: ") {
			t.Errorf("REST %q: %d %s", title, r.Status, r.Body)
		}
		_, errs := env.GraphQL(env.Admin.Token, `mutation($o: ID!, $t: String) { createSpace(organizationId: $o, input: {title: $t}) { id } }`, map[string]any{"o": env.Org, "t": title})
		if len(errs) == 0 || errs[0].Extensions["field"] != "title" || errs[0].Extensions["status"] != float64(400) {
			t.Errorf("GraphQL %q: %+v", title, errs)
		}
	}
}
