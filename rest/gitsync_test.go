package rest_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"docsapi/apitest"
	"docsapi/gitsync/gittest"
	"docsapi/server"
)

// runGitSync runs the Git Sync queue until it is empty.
func runGitSync(t *testing.T, env *apitest.Env) {
	t.Helper()
	w := env.Server.GitSyncWorker()
	for range 20 {
		ran, err := w.RunOne(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if !ran {
			return
		}
	}
	t.Fatal("the queue did not empty")
}

// gitOperation is the latest operation in the space's git/info.
func gitOperation(t *testing.T, env *apitest.Env, space string) map[string]any {
	t.Helper()
	info := env.Must(200, "GET", "/v1/spaces/"+space+"/git/info", env.Admin.Token, nil).JSON()
	op, _ := info["operation"].(map[string]any)
	if op == nil {
		t.Fatalf("no operation in %v", info)
	}
	return op
}

func gitBody(url string, more ...any) map[string]any {
	b := map[string]any{"url": url, "ref": "refs/heads/main"}
	for i := 0; i+1 < len(more); i += 2 {
		b[more[i].(string)] = more[i+1]
	}
	return b
}

// gitbookRepo is a small repository in GitBook's layout.
var gitbookRepo = map[string]string{
	"README.md":                "# Welcome\n\nStart with the [guide](guide/setup.md).\n",
	"SUMMARY.md":               "# Table of contents\n\n* [Welcome](README.md)\n\n## Guides\n\n* [Setup](guide/setup.md)\n  * [Advanced](guide/advanced.md)\n",
	"guide/setup.md":           "# Setup\n\nInstall it.\n\n![logo](../.gitbook/assets/logo.png)\n",
	"guide/advanced.md":        "# Advanced\n\nTune it.\n",
	".gitbook/assets/logo.png": "\x89PNG fake",
	".github/workflows/ci.yml": "on: push\n",
}

func pageTitles(pages []any, out []string) []string {
	for _, p := range pages {
		m := p.(map[string]any)
		out = append(out, m["title"].(string))
		if kids, ok := m["pages"].([]any); ok {
			out = pageTitles(kids, out)
		}
	}
	return out
}

func TestGitSyncImportThenExport(t *testing.T) {
	srv := gittest.Start(t, "", "")
	url := srv.Bare("docs")
	oid := srv.Commit("docs", "Docs from Git", gitbookRepo)
	env := apitest.New(t)
	space := newSpace(t, env, env.Org)

	env.Must(404, "GET", "/v1/spaces/"+space+"/git/info", env.Admin.Token, nil)
	env.Must(204, "POST", "/v1/spaces/"+space+"/git/import", env.Admin.Token, gitBody(url, "repoCommitURL", "https://git.example.com/docs/commit"))
	if op := gitOperation(t, env, space); op["status"] != "pending" || op["stage"] != "queued" || op["kind"] != "import" {
		t.Errorf("queued operation %v", op)
	}
	runGitSync(t, env)
	op := gitOperation(t, env, space)
	if op["status"] != "completed" || op["commit"] != oid || op["stage"] != "done" {
		t.Fatalf("import %v", op)
	}
	info := env.Must(200, "GET", "/v1/spaces/"+space+"/git/info", env.Admin.Token, nil).JSON()
	if info["repoName"] != "docs" || info["url"] != url || info["integration"] != "docsapi" {
		t.Errorf("info %v", info)
	}
	content := env.Must(200, "GET", "/v1/spaces/"+space+"/content", env.Admin.Token, nil).JSON()
	git, _ := content["git"].(map[string]any)
	if git == nil || git["oid"] != oid || git["message"] != "Docs from Git" || git["createdByService"] != false || git["createdByGitBook"] != false ||
		git["ref"] != "refs/heads/main" || git["url"] != "https://git.example.com/docs/commit/"+oid {
		t.Errorf("revision git %v", git)
	}
	if bare := env.Must(200, "GET", "/v1/spaces/"+space+"/content?metadata=false", env.Admin.Token, nil).JSON(); bare["git"] != nil {
		t.Errorf("metadata=false still has git %v", bare["git"])
	}
	if content["id"] != op["revision"] {
		t.Errorf("active revision %v, operation's %v", content["id"], op["revision"])
	}
	titles := strings.Join(pageTitles(content["pages"].([]any), nil), ",")
	for _, want := range []string{"Welcome", "Setup", "Advanced"} {
		if !strings.Contains(titles, want) {
			t.Errorf("pages %s lack %s", titles, want)
		}
	}
	if files := content["files"].([]any); len(files) != 1 {
		t.Errorf("files %v", files)
	}

	// The same commit again: nothing to do, unless force.
	env.Must(204, "POST", "/v1/spaces/"+space+"/git/import", env.Admin.Token, gitBody(url))
	runGitSync(t, env)
	if op := gitOperation(t, env, space); op["status"] != "skipped" || !strings.Contains(op["message"].(string), "already synced") {
		t.Errorf("same commit: %v", op)
	}

	// Export: one commit on top, by the user, with the revision's id.
	addPage(t, env, space, map[string]any{"title": "Changelog", "markdown": "# Changelog\n\nNew.\n"})
	head := env.Must(200, "GET", "/v1/spaces/"+space+"/content", env.Admin.Token, nil).JSON()["id"].(string)
	env.Must(204, "POST", "/v1/spaces/"+space+"/git/export", env.Admin.Token, gitBody(url, "commitMessage", "Docs: changelog"))
	runGitSync(t, env)
	op = gitOperation(t, env, space)
	if op["status"] != "completed" || op["kind"] != "export" || op["revision"] != head {
		t.Fatalf("export %v", op)
	}
	tip := srv.Run("docs", "rev-parse", "main")
	if op["commit"] != tip || srv.Run("docs", "rev-parse", "main^") != oid {
		t.Errorf("export commit %v, tip %s, parent %s", op["commit"], tip, srv.Run("docs", "rev-parse", "main^"))
	}
	msg := srv.Run("docs", "log", "-1", "--format=%an <%ae>%n%B", "main")
	if !strings.Contains(msg, "<"+env.Admin.Email+">") || !strings.Contains(msg, "Docs: changelog") || !strings.Contains(msg, head) {
		t.Errorf("commit:\n%s", msg)
	}
	if !strings.Contains(srv.Run("docs", "ls-tree", "-r", "--name-only", "main"), ".github/workflows/ci.yml") {
		t.Errorf("the export removed a file it does not own")
	}
	if !strings.Contains(srv.Run("docs", "grep", "-l", "New.", "main"), ".md") {
		t.Errorf("the new page is not in the commit")
	}
	exported := env.Must(200, "GET", "/v1/spaces/"+space+"/content", env.Admin.Token, nil).JSON()["git"].(map[string]any)
	if exported["oid"] != tip || exported["createdByService"] != true || exported["createdByGitBook"] != true {
		t.Errorf("exported revision's git %v", exported)
	}

	// Nothing changed since: no commit.
	env.Must(204, "POST", "/v1/spaces/"+space+"/git/export", env.Admin.Token, gitBody(url, "commitMessage", "again"))
	runGitSync(t, env)
	if op := gitOperation(t, env, space); op["status"] != "completed" || !strings.Contains(op["message"].(string), "nothing to commit") {
		t.Errorf("unchanged export %v", op)
	}
	if srv.Run("docs", "rev-parse", "main") != tip {
		t.Errorf("an unchanged export made a commit")
	}

	// Audit entries for every outcome.
	audit := env.Must(200, "GET", "/v1/orgs/"+env.Org+"/audit-log", env.Admin.Token, nil).Body
	if n := strings.Count(string(audit), `"space.git_synced"`); n != 4 {
		t.Errorf("%d space.git_synced audit entries, want 4", n)
	}
}

func TestGitSyncExportRefusesAMovedRefUnlessForce(t *testing.T) {
	srv := gittest.Start(t, "", "")
	url := srv.Bare("docs")
	srv.Commit("docs", "first", gitbookRepo)
	env := apitest.New(t)
	space := newSpace(t, env, env.Org)
	env.Must(204, "POST", "/v1/spaces/"+space+"/git/import", env.Admin.Token, gitBody(url))
	runGitSync(t, env)
	moved := srv.Commit("docs", "edited on the Git side", map[string]string{"guide/setup.md": "# Setup\n\nChanged in Git.\n"})
	addPage(t, env, space, map[string]any{"title": "Mine", "markdown": "mine"})

	env.Must(204, "POST", "/v1/spaces/"+space+"/git/export", env.Admin.Token, gitBody(url, "commitMessage", "mine"))
	runGitSync(t, env)
	op := gitOperation(t, env, space)
	if op["status"] != "failed" || !strings.Contains(op["message"].(string), "force") || !strings.Contains(op["message"].(string), moved[:12]) {
		t.Errorf("export over a moved ref: %v", op)
	}
	if srv.Run("docs", "rev-parse", "main") != moved {
		t.Errorf("the ref changed")
	}
	env.Must(204, "POST", "/v1/spaces/"+space+"/git/export", env.Admin.Token, gitBody(url, "commitMessage", "mine", "force", true))
	runGitSync(t, env)
	if op := gitOperation(t, env, space); op["status"] != "completed" || srv.Run("docs", "rev-parse", "main^") != moved {
		t.Errorf("forced export %v", op)
	}
	// Import wins on import: the Git side's change comes back.
	srv.Commit("docs", "again in Git", map[string]string{"guide/advanced.md": "# Advanced\n\nFrom Git.\n"})
	env.Must(204, "POST", "/v1/spaces/"+space+"/git/import", env.Admin.Token, gitBody(url))
	runGitSync(t, env)
	if op := gitOperation(t, env, space); op["status"] != "completed" {
		t.Errorf("import after export %v", op)
	}
}

func TestGitSyncOlderOperationNeverOverwritesNewer(t *testing.T) {
	srv := gittest.Start(t, "", "")
	url := srv.Bare("docs")
	srv.Commit("docs", "first", gitbookRepo)
	env := apitest.New(t)
	space := newSpace(t, env, env.Org)
	now := time.Now().UTC()
	env.Must(204, "POST", "/v1/spaces/"+space+"/git/import", env.Admin.Token, gitBody(url, "timestamp", now.Format(time.RFC3339)))
	runGitSync(t, env)
	applied := env.Must(200, "GET", "/v1/spaces/"+space+"/content", env.Admin.Token, nil).JSON()["id"]
	srv.Commit("docs", "second", map[string]string{"README.md": "# Changed\n"})
	env.Must(204, "POST", "/v1/spaces/"+space+"/git/import", env.Admin.Token, gitBody(url, "timestamp", now.Add(-time.Minute).Format(time.RFC3339)))
	runGitSync(t, env)
	if op := gitOperation(t, env, space); op["status"] != "skipped" || !strings.Contains(op["message"].(string), "newer") {
		t.Errorf("older import %v", op)
	}
	if got := env.Must(200, "GET", "/v1/spaces/"+space+"/content", env.Admin.Token, nil).JSON()["id"]; got != applied {
		t.Errorf("the older import changed the content")
	}
	// Queued out of order, run in timestamp order.
	env.Must(204, "POST", "/v1/spaces/"+space+"/git/import", env.Admin.Token, gitBody(url, "timestamp", now.Add(2*time.Minute).Format(time.RFC3339), "force", true))
	env.Must(204, "POST", "/v1/spaces/"+space+"/git/export", env.Admin.Token, gitBody(url, "commitMessage", "m", "timestamp", now.Add(time.Minute).Format(time.RFC3339)))
	job, err := env.DB.ClaimGitOperation(context.Background())
	if err != nil || job == nil || job.Kind != "export" {
		t.Fatalf("first claimed %+v %v, want the older export", job, err)
	}
	// One operation of a space at a time, across replicas.
	replica := env.Replica()
	if other, err := replica.DB.ClaimGitOperation(context.Background()); err != nil || other != nil {
		t.Errorf("a replica claimed %+v while the space's operation runs", other)
	}
}

func TestGitSyncCredentials(t *testing.T) {
	srv := gittest.Start(t, "bot", "tok-3141")
	url := srv.Bare("docs")
	srv.Commit("docs", "first", gitbookRepo)
	env := apitest.New(t)
	space := newSpace(t, env, env.Org)
	env.Must(204, "POST", "/v1/spaces/"+space+"/git/import", env.Admin.Token, gitBody(url))
	runGitSync(t, env)
	if op := gitOperation(t, env, space); op["status"] != "failed" || !strings.Contains(op["message"].(string), "credentials") {
		t.Errorf("without credentials %v", op)
	}
	withCreds := strings.Replace(url, "http://", "http://bot:tok-3141@", 1)
	env.Must(204, "POST", "/v1/spaces/"+space+"/git/import", env.Admin.Token, gitBody(withCreds))
	runGitSync(t, env)
	op := gitOperation(t, env, space)
	if op["status"] != "completed" {
		t.Fatalf("with credentials %v", op)
	}
	info := env.Must(200, "GET", "/v1/spaces/"+space+"/git/info", env.Admin.Token, nil).Body
	if strings.Contains(string(info), "tok-3141") {
		t.Errorf("the state shows the credentials: %s", info)
	}
	stored, err := env.DB.GitOperation(context.Background(), space, op["id"].(string))
	if err != nil || stored.RemoteURL != "" {
		t.Errorf("credentials kept after the operation: %q %v", stored.RemoteURL, err)
	}
	audit := env.Must(200, "GET", "/v1/orgs/"+env.Org+"/audit-log", env.Admin.Token, nil).Body
	if strings.Contains(string(audit), "tok-3141") {
		t.Errorf("the audit log shows the credentials")
	}
}

func TestGitSyncPrivateAddressRefusedWithoutTheFlag(t *testing.T) {
	srv := gittest.Start(t, "", "")
	url := srv.Bare("docs")
	srv.Commit("docs", "first", gitbookRepo)
	env := apitest.New(t, apitest.Options{Config: func(c *server.Config) { c.AllowPrivateFetch = false }})
	space := newSpace(t, env, env.Org)
	before := srv.Requests.Load()
	env.Must(204, "POST", "/v1/spaces/"+space+"/git/import", env.Admin.Token, gitBody(url))
	runGitSync(t, env)
	if op := gitOperation(t, env, space); op["status"] != "failed" || !strings.Contains(op["message"].(string), "may not be fetched") {
		t.Errorf("loopback without --allow-private-fetch: %v", op)
	}
	if srv.Requests.Load() != before {
		t.Errorf("the Git server was reached")
	}
}

func TestGitSyncLargeRepositoryRefusedClearly(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a 10,000-file repository")
	}
	srv := gittest.Start(t, "", "")
	url := srv.Bare("big")
	files := map[string]string{}
	for i := range 10000 {
		files[fmt.Sprintf("part-%02d/page-%d.md", i%40, i)] = fmt.Sprintf("# Page %d\n", i)
	}
	srv.Commit("big", "big", files)
	env := apitest.New(t)
	space := newSpace(t, env, env.Org)
	before := env.Must(200, "GET", "/v1/spaces/"+space+"/content", env.Admin.Token, nil).JSON()["id"]
	env.Must(204, "POST", "/v1/spaces/"+space+"/git/import", env.Admin.Token, gitBody(url))
	runGitSync(t, env)
	op := gitOperation(t, env, space)
	if op["status"] != "failed" || !strings.Contains(op["message"].(string), "10000 files") {
		t.Errorf("10,000 pages: %v", op)
	}
	if got := env.Must(200, "GET", "/v1/spaces/"+space+"/content", env.Admin.Token, nil).JSON()["id"]; got != before {
		t.Errorf("a refused import changed the content")
	}
}

func TestGitSyncRequests(t *testing.T) {
	env := apitest.New(t)
	space := newSpace(t, env, env.Org)
	otherOrg, other := env.NewOrg("Other", "admin@other.test")
	foreign := newSpaceAs(t, env, otherOrg, other.Token)
	reader := env.NewUser("reader@acme.test", env.Org, "read")
	imp := "/v1/spaces/" + space + "/git/import"
	exp := "/v1/spaces/" + space + "/git/export"
	ok := gitBody("https://git.example.com/docs.git", "commitMessage", "m")
	env.Run(t, []apitest.Scenario{
		{Name: "import without url", Method: "POST", Path: imp, Token: env.Admin.Token, Body: map[string]any{"ref": "refs/heads/main"}, Status: 400, Contains: []string{"url"}},
		{Name: "import without ref", Method: "POST", Path: imp, Token: env.Admin.Token, Body: map[string]any{"url": "https://git.example.com/d.git"}, Status: 400, Contains: []string{"ref"}},
		{Name: "import of a file URL", Method: "POST", Path: imp, Token: env.Admin.Token, Body: gitBody("file:///etc"), Status: 400, Contains: []string{"url"}},
		{Name: "import of a bad ref", Method: "POST", Path: imp, Token: env.Admin.Token, Body: map[string]any{"url": "https://git.example.com/d.git", "ref": "refs/heads/../x"}, Status: 400, Contains: []string{"ref"}},
		{Name: "import with a bad timestamp", Method: "POST", Path: imp, Token: env.Admin.Token, Body: gitBody("https://git.example.com/d.git", "timestamp", "yesterday"), Status: 400, Contains: []string{"timestamp"}},
		{Name: "import outside the repository", Method: "POST", Path: imp, Token: env.Admin.Token, Body: gitBody("https://git.example.com/d.git", "repoProjectDirectory", "../up"), Status: 400, Contains: []string{"repoProjectDirectory"}},
		{Name: "import with a bad provider", Method: "POST", Path: imp, Token: env.Admin.Token, Body: gitBody("https://git.example.com/d.git", "gitInfo", map[string]any{"provider": "svn"}), Status: 400, Contains: []string{"gitInfo.provider"}},
		{Name: "export without commitMessage", Method: "POST", Path: exp, Token: env.Admin.Token, Body: gitBody("https://git.example.com/d.git"), Status: 400, Contains: []string{"commitMessage"}},
		{Name: "export without a token", Method: "POST", Path: exp, Body: ok, Status: 401},
		{Name: "export by a reader", Method: "POST", Path: exp, Token: reader.Token, Body: ok, Status: 403},
		{Name: "export of another organization's space", Method: "POST", Path: "/v1/spaces/" + foreign + "/git/export", Token: env.Admin.Token, Body: ok, Status: 404},
		{Name: "export of an unknown space", Method: "POST", Path: "/v1/spaces/nope/git/export", Token: env.Admin.Token, Body: ok, Status: 404},
		{Name: "info before any set-up", Method: "GET", Path: "/v1/spaces/" + space + "/git/info", Token: env.Admin.Token, Status: 404},
		{Name: "info of another organization's space", Method: "GET", Path: "/v1/spaces/" + foreign + "/git/info", Token: env.Admin.Token, Status: 404},
		{Name: "no legacy installation", Method: "DELETE", Path: "/v1/spaces/" + space + "/git/legacy-installation", Token: env.Admin.Token, Status: 204},
		{Name: "legacy removal by a reader", Method: "DELETE", Path: "/v1/spaces/" + space + "/git/legacy-installation", Token: reader.Token, Status: 403},
		{Name: "export queued", Method: "POST", Path: exp, Token: env.Admin.Token, Body: gitBody("https://u:p@git.example.com/d.git", "commitMessage", "m", "gitInfo", map[string]any{"provider": "github", "url": "https://github.com/acme/d"}), Status: 204},
		{Name: "info once set up", Method: "GET", Path: "/v1/spaces/" + space + "/git/info", Token: reader.Token, Status: 200, Contains: []string{`"installationProvider":"github"`, `"url":"https://github.com/acme/d"`, `"status":"pending"`}},
	})
	// GraphQL answers the same, with the operation.
	data := gqlData(t, env, env.Admin.Token, `mutation($s: ID!, $in: ImportGitRepositoryInput!) { importGitRepository(spaceId: $s, input: $in) { kind status stage url ref } }`,
		map[string]any{"s": space, "in": map[string]any{"url": "https://u:secret@git.example.com/d.git", "ref": "main"}})
	op := data["importGitRepository"].(map[string]any)
	if op["kind"] != "import" || op["status"] != "pending" || op["url"] != "https://git.example.com/d.git" || op["ref"] != "refs/heads/main" {
		t.Errorf("graphql import %v", op)
	}
	info := gqlData(t, env, reader.Token, `query($s: ID!) { spaceGitInfo(spaceId: $s) { repoName operation { kind } } }`, map[string]any{"s": space})
	if got := info["spaceGitInfo"].(map[string]any); got["repoName"] != "d" {
		t.Errorf("graphql info %v", got)
	}
}

// Import, export, import again: the same pages; a second export with
// nothing changed commits nothing; files the layout does not own stay.
// (Paths follow the layout's own normalizations: docs/content.md.)
func TestGitSyncRoundTrip(t *testing.T) {
	srv := gittest.Start(t, "", "")
	url := srv.Bare("docs")
	srv.Commit("docs", "first", gitbookRepo)
	env := apitest.New(t)
	space := newSpace(t, env, env.Org)
	titles := func() string {
		c := env.Must(200, "GET", "/v1/spaces/"+space+"/content", env.Admin.Token, nil).JSON()
		return strings.Join(pageTitles(c["pages"].([]any), nil), ",") + fmt.Sprintf(" files=%d", len(c["files"].([]any)))
	}
	env.Must(204, "POST", "/v1/spaces/"+space+"/git/import", env.Admin.Token, gitBody(url))
	runGitSync(t, env)
	imported := titles()
	env.Must(204, "POST", "/v1/spaces/"+space+"/git/export", env.Admin.Token, gitBody(url, "commitMessage", "round trip"))
	runGitSync(t, env)
	if op := gitOperation(t, env, space); op["status"] != "completed" {
		t.Fatalf("export %v", op)
	}
	tip := srv.Run("docs", "rev-parse", "main")
	env.Must(204, "POST", "/v1/spaces/"+space+"/git/export", env.Admin.Token, gitBody(url, "commitMessage", "again"))
	runGitSync(t, env)
	if op := gitOperation(t, env, space); op["status"] != "completed" || srv.Run("docs", "rev-parse", "main") != tip {
		t.Errorf("second export of the same revision %v", op)
	}
	if !strings.Contains(srv.Run("docs", "ls-tree", "-r", "--name-only", "main"), ".github/workflows/ci.yml") {
		t.Errorf("the export removed a file it does not own")
	}
	env.Must(204, "POST", "/v1/spaces/"+space+"/git/import", env.Admin.Token, gitBody(url, "force", true))
	runGitSync(t, env)
	if op := gitOperation(t, env, space); op["status"] != "completed" {
		t.Fatalf("re-import %v", op)
	}
	if again := titles(); again != imported {
		t.Errorf("pages after export and re-import:\n%s\nwant\n%s", again, imported)
	}
}

// A finished operation is a space.git-synced webhook event.
func TestGitSyncWebhookEvent(t *testing.T) {
	srv := gittest.Start(t, "", "")
	url := srv.Bare("docs")
	srv.Commit("docs", "first", gitbookRepo)
	env := apitest.New(t)
	space := newSpace(t, env, env.Org)
	hook := env.Must(201, "POST", "/v1/orgs/"+env.Org+"/webhooks", env.Admin.Token,
		map[string]any{"url": "https://hooks.example.com/docs", "events": []any{"space.git-synced"}}).JSON()["id"].(string)
	env.Must(204, "POST", "/v1/spaces/"+space+"/git/import", env.Admin.Token, gitBody(url))
	runGitSync(t, env)
	body := string(env.Must(200, "GET", "/v1/orgs/"+env.Org+"/webhooks/"+hook+"/deliveries", env.Admin.Token, nil).Body)
	if strings.Count(body, `"type":"space.git-synced"`) != 1 {
		t.Errorf("deliveries: %s", body)
	}
}
