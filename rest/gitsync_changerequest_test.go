package rest_test

import (
	"strconv"
	"strings"
	"testing"

	"docsapi/apitest"
	"docsapi/gitsync/gittest"
)

// An import into a change request (docsapi's changeRequest extension):
// the ref's files become the change request's content; the main content
// and the space's synced commit stay, so importing the same commit into
// the main content afterwards is not skipped. Refusals name the field; a
// change request of another space is a 404.
func TestGitSyncImportIntoChangeRequest(t *testing.T) {
	srv := gittest.Start(t, "", "")
	url := srv.Bare("docs")
	oid := srv.Commit("docs", "Docs from Git", gitbookRepo)
	env := apitest.New(t)
	space := newSpace(t, env, env.Org)
	addPage(t, env, space, map[string]any{"title": "Main only", "markdown": "# Main only\n\nKept.\n"})
	mainBefore := env.Must(200, "GET", "/v1/spaces/"+space+"/content", env.Admin.Token, nil).JSON()["id"]
	crs := "/v1/spaces/" + space + "/change-requests"
	cr := env.Must(201, "POST", crs, env.Admin.Token, map[string]any{"subject": "From Git"}).JSON()["id"].(string)
	closed := env.Must(201, "POST", crs, env.Admin.Token, map[string]any{"subject": "Closed"}).JSON()["id"].(string)
	env.Must(200, "PATCH", crs+"/"+closed, env.Admin.Token, map[string]any{"status": "archived"})
	otherSpace := newSpace(t, env, env.Org)
	elsewhere := env.Must(201, "POST", "/v1/spaces/"+otherSpace+"/change-requests", env.Admin.Token, map[string]any{}).JSON()["id"].(string)
	otherOrg, other := env.NewOrg("Other", "admin@other.test")
	foreignSpace := newSpaceAs(t, env, otherOrg, other.Token)
	foreign := env.Must(201, "POST", "/v1/spaces/"+foreignSpace+"/change-requests", other.Token, map[string]any{}).JSON()["id"].(string)

	imp := "/v1/spaces/" + space + "/git/import"
	env.Run(t, []apitest.Scenario{
		{Name: "unknown change request", Method: "POST", Path: imp, Token: env.Admin.Token, Body: gitBody(url, "changeRequest", "nosuchcr"), Status: 400, Contains: names("changeRequest")},
		{Name: "archived change request", Method: "POST", Path: imp, Token: env.Admin.Token, Body: gitBody(url, "changeRequest", closed), Status: 400, Contains: []string{"changeRequest", "archived"}},
		{Name: "empty change request", Method: "POST", Path: imp, Token: env.Admin.Token, Body: gitBody(url, "changeRequest", ""), Status: 400, Contains: names("changeRequest")},
		{Name: "another space's change request", Method: "POST", Path: imp, Token: env.Admin.Token, Body: gitBody(url, "changeRequest", elsewhere), Status: 404},
		{Name: "another organization's change request", Method: "POST", Path: imp, Token: env.Admin.Token, Body: gitBody(url, "changeRequest", foreign), Status: 404},
		{Name: "repoCacheID too long", Method: "POST", Path: imp, Token: env.Admin.Token, Body: gitBody(url, "repoCacheID", strings.Repeat("c", 256)), Status: 400, Contains: names("repoCacheID")},
	})
	if op := env.Do("GET", "/v1/spaces/"+space+"/git/info", env.Admin.Token, nil); op.Status != 404 {
		t.Fatalf("a refused request queued an operation: %d %s", op.Status, op.Body)
	}

	env.Must(204, "POST", imp, env.Admin.Token, gitBody(url, "changeRequest", cr, "repoCacheID", "cache-1"))
	runGitSync(t, env)
	op := gitOperation(t, env, space)
	if op["status"] != "completed" || op["commit"] != oid || !strings.Contains(op["message"].(string), "into change request "+cr) {
		t.Fatalf("import into the change request: %v", op)
	}
	crContent := env.Must(200, "GET", crs+"/"+cr+"/content", env.Admin.Token, nil).JSON()
	if crContent["id"] != op["revision"] {
		t.Errorf("the change request's revision %v, the operation's %v", crContent["id"], op["revision"])
	}
	titles := strings.Join(pageTitles(crContent["pages"].([]any), nil), ",")
	if !strings.Contains(titles, "Setup") || strings.Contains(titles, "Main only") {
		t.Errorf("change request pages %s: want the repository's, import wins", titles)
	}
	main := env.Must(200, "GET", "/v1/spaces/"+space+"/content", env.Admin.Token, nil).JSON()
	if main["id"] != mainBefore || strings.Contains(strings.Join(pageTitles(main["pages"].([]any), nil), ","), "Setup") {
		t.Errorf("the main content changed: %v", main["id"])
	}

	// The main content was never synced with the commit: importing it
	// there is not skipped.
	env.Must(204, "POST", imp, env.Admin.Token, gitBody(url))
	runGitSync(t, env)
	if op := gitOperation(t, env, space); op["status"] != "completed" {
		t.Errorf("import into the main content after one into a change request: %v", op)
	}

	// GraphQL takes the same field, a number too; the same refusals.
	mutation := `mutation($s: ID!, $in: ImportGitRepositoryInput!) { importGitRepository(spaceId: $s, input: $in) { kind status } }`
	num := env.Must(200, "GET", crs+"/"+cr, env.Admin.Token, nil).JSON()["number"]
	data := gqlData(t, env, env.Admin.Token, mutation, map[string]any{"s": space, "in": map[string]any{"url": url, "ref": "main", "changeRequest": jsonNumber(num)}})
	if got := data["importGitRepository"].(map[string]any); got["status"] != "pending" {
		t.Errorf("graphql import into a change request: %v", got)
	}
	e := gqlRefusal(t, env, env.Admin.Token, mutation, map[string]any{"s": space, "in": map[string]any{"url": url, "ref": "main", "changeRequest": closed}}, "BAD_REQUEST", 400)
	if !strings.Contains(e.Message, "changeRequest") {
		t.Errorf("graphql refusal %q does not name the field", e.Message)
	}
	gqlRefusal(t, env, env.Admin.Token, mutation, map[string]any{"s": space, "in": map[string]any{"url": url, "ref": "main", "changeRequest": elsewhere}}, "NOT_FOUND", 404)
	runGitSync(t, env)
	if op := gitOperation(t, env, space); op["status"] != "completed" || !strings.Contains(op["message"].(string), cr) {
		t.Errorf("graphql import by number: %v", op)
	}
}

// jsonNumber is a change request's number as the string GraphQL takes.
func jsonNumber(v any) string {
	f, _ := v.(float64)
	return strconv.Itoa(int(f))
}
