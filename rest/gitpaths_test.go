package rest_test

import (
	"sort"
	"strings"
	"testing"

	"docsapi/apitest"
	"docsapi/gitlayout"
	"docsapi/gitsync/gittest"
)

// otherLayoutRepo is a GitBook-layout repository whose files are not
// where docsapi's own export would put them: a README.md in a subfolder
// that is a leaf page, files named differently from their titles' slugs,
// pages in nested folders without a README. Its Markdown is in the
// export's normal form (title heading, front matter as written, SUMMARY
// as written), so that import then export gives it back byte for byte.
var otherLayoutRepo = map[string]string{
	".gitbook.yaml": gitlayout.LayoutFile,
	"SUMMARY.md": "# Table of contents\n\n" +
		"* [Welcome](README.md)\n" +
		"* [Getting started](start/intro.md)\n" +
		"  * [Install on Linux](start/platforms/linux-install.md)\n" +
		"\n## Reference\n\n" +
		"* [API overview](reference/README.md)\n" +
		"* [Endpoints](reference/http/endpoints.md)\n",
	"README.md":      "# Welcome\n\nRead [Getting started](start/intro.md) first.\n",
	"start/intro.md": "# Getting started\n\nThen [install](platforms/linux-install.md) and read the [overview](../reference/README.md).\n",
	"start/platforms/linux-install.md": "# Install on Linux\n\nSee the [endpoints](../../reference/http/endpoints.md#list).\n\n" +
		"![diagram](../../.gitbook/assets/diagram.png)\n",
	"reference/README.md":         "# API overview\n\nBack to [the start](../start/intro.md).\n",
	"reference/http/endpoints.md": "---\ndescription: Every route.\n---\n\n# Endpoints\n\n## List\n\nAll of them.\n",
	".gitbook/assets/diagram.png": "\x89PNG fake diagram",
}

func lsTree(srv *gittest.Server, repo string) []string {
	names := strings.Fields(srv.Run(repo, "ls-tree", "-r", "--name-only", "main"))
	sort.Strings(names)
	return names
}

// TestGitSyncOtherLayoutRoundTripsByteForByte: importing a repository
// not in docsapi's own layout then exporting it writes every file back
// at its path with the same bytes (so the export has nothing to commit);
// a page renamed since the import moves to its derived path, the others
// stay where they were.
func TestGitSyncOtherLayoutRoundTripsByteForByte(t *testing.T) {
	srv := gittest.Start(t, "", "")
	url := srv.Bare("docs")
	oid := srv.Commit("docs", "Docs in their own layout", otherLayoutRepo)
	before := lsTree(srv, "docs")
	env := apitest.New(t)
	space := newSpace(t, env, env.Org)
	env.Must(204, "POST", "/v1/spaces/"+space+"/git/import", env.Admin.Token, gitBody(url))
	runGitSync(t, env)
	if op := gitOperation(t, env, space); op["status"] != "completed" || op["commit"] != oid {
		t.Fatalf("import %v", op)
	}

	// A page edited in docsapi: the export writes it at its source file.
	content := env.Must(200, "GET", "/v1/spaces/"+space+"/content", env.Admin.Token, nil).JSON()
	pages := map[string]string{}
	var walk func([]any)
	walk = func(ps []any) {
		for _, p := range ps {
			m := p.(map[string]any)
			pages[m["title"].(string)] = m["id"].(string)
			if kids, ok := m["pages"].([]any); ok {
				walk(kids)
			}
		}
	}
	walk(content["pages"].([]any))
	// The source file is internal: in no page of the API's answers.
	for _, title := range []string{"Endpoints", "API overview"} {
		body := string(env.Must(200, "GET", "/v1/spaces/"+space+"/content/page/"+pages[title], env.Admin.Token, nil).Body)
		if strings.Contains(body, "treePath") || strings.Contains(body, "reference/http") {
			t.Errorf("page %s shows its source file: %s", title, body)
		}
	}
	if strings.Contains(string(env.Must(200, "GET", "/v1/spaces/"+space+"/content", env.Admin.Token, nil).Body), "treePath") {
		t.Errorf("the revision shows source files")
	}

	env.Must(204, "POST", "/v1/spaces/"+space+"/git/export", env.Admin.Token, gitBody(url, "commitMessage", "round trip"))
	runGitSync(t, env)
	if op := gitOperation(t, env, space); op["status"] != "completed" {
		t.Fatalf("export %v", op)
	}
	// Show trims the last newline; the unchanged tip below is the byte
	// for byte check (the same tree, so nothing to commit).
	for name, want := range otherLayoutRepo {
		if got := srv.Show("docs", "main", name); got != strings.TrimSuffix(want, "\n") {
			t.Errorf("%s after import then export:\n%q\nwant\n%q", name, got, want)
		}
	}
	if after := lsTree(srv, "docs"); strings.Join(after, " ") != strings.Join(before, " ") {
		t.Errorf("files after import then export:\n%v\nwant\n%v", after, before)
	}
	if tip := srv.Run("docs", "rev-parse", "main"); tip != oid {
		t.Errorf("an export of an unchanged import made commit %s on %s:\n%s", tip, oid, srv.Run("docs", "show", "--stat", "main"))
	}

	// Renamed (slug) since the import: the derived path.
	_, errs := env.GraphQL(env.Admin.Token, `mutation($t: ContentTarget!, $p: ID!) { updatePage(target: $t, pageId: $p, input: {slug: "routes"}) { revision } }`,
		map[string]any{"t": map[string]any{"space": space}, "p": pages["Endpoints"]})
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	// Body edited, not moved: stays at its source file.
	_, errs = env.GraphQL(env.Admin.Token, `mutation($t: ContentTarget!, $p: ID!) { updatePage(target: $t, pageId: $p, input: {markdown: "Read the [start](../start/intro.md) again.\n"}) { revision } }`,
		map[string]any{"t": map[string]any{"space": space}, "p": pages["API overview"]})
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	env.Must(204, "POST", "/v1/spaces/"+space+"/git/export", env.Admin.Token, gitBody(url, "commitMessage", "renamed"))
	runGitSync(t, env)
	if op := gitOperation(t, env, space); op["status"] != "completed" {
		t.Fatalf("export after rename %v", op)
	}
	files := strings.Join(lsTree(srv, "docs"), " ")
	if strings.Contains(files, "reference/http/endpoints.md") || !strings.Contains(files, "reference/routes.md") {
		t.Errorf("renamed page: files %s, want reference/routes.md in place of reference/http/endpoints.md", files)
	}
	for _, kept := range []string{"start/intro.md", "start/platforms/linux-install.md", "reference/README.md", "README.md"} {
		if !strings.Contains(" "+files+" ", " "+kept+" ") {
			t.Errorf("%s moved: files %s", kept, files)
		}
	}
	if got := srv.Show("docs", "main", "reference/README.md"); !strings.Contains(got, "(../start/intro.md)") || !strings.Contains(got, "again") {
		t.Errorf("edited page at its source file:\n%s", got)
	}
	if got := srv.Show("docs", "main", "SUMMARY.md"); !strings.Contains(got, "* [Endpoints](reference/routes.md)") || !strings.Contains(got, "* [API overview](reference/README.md)") {
		t.Errorf("SUMMARY.md:\n%s", got)
	}
}

// TestSpaceGitSyncField: the Space's gitSync (0.130.0 GitSyncState) is
// absent before Git Sync is set up, then the space's state, in REST (the
// space and the organization's list) and GraphQL.
func TestSpaceGitSyncField(t *testing.T) {
	srv := gittest.Start(t, "", "")
	url := srv.Bare("handbook")
	srv.Commit("handbook", "first", otherLayoutRepo)
	env := apitest.New(t)
	space := newSpace(t, env, env.Org)
	other := newSpace(t, env, env.Org)
	if sp := env.Must(200, "GET", "/v1/spaces/"+space, env.Admin.Token, nil).JSON(); sp["gitSync"] != nil {
		t.Fatalf("gitSync before any set-up: %v", sp["gitSync"])
	}
	env.Must(204, "POST", "/v1/spaces/"+space+"/git/import", env.Admin.Token,
		gitBody(url, "repoTreeURL", "https://git.example.com/handbook/tree/main", "gitInfo", map[string]any{"provider": "gitlab", "url": "https://gitlab.example.com/acme/handbook"}))
	runGitSync(t, env)
	info := env.Must(200, "GET", "/v1/spaces/"+space+"/git/info", env.Admin.Token, nil).JSON()
	sp := env.Must(200, "GET", "/v1/spaces/"+space, env.Admin.Token, nil).JSON()
	gs, _ := sp["gitSync"].(map[string]any)
	if gs == nil || gs["repoName"] != "handbook" || gs["integration"] != "docsapi" || gs["installationProvider"] != "gitlab" ||
		gs["url"] != info["url"] || gs["updatedAt"] != info["updatedAt"] || gs["operation"] != nil {
		t.Errorf("space gitSync %v, git/info %v", gs, info)
	}
	list := env.Must(200, "GET", "/v1/orgs/"+env.Org+"/spaces", env.Admin.Token, nil).JSON()
	seen := 0
	for _, it := range list["items"].([]any) {
		m := it.(map[string]any)
		switch m["id"] {
		case space:
			if g, _ := m["gitSync"].(map[string]any); g == nil || g["repoName"] != "handbook" {
				t.Errorf("listed space gitSync %v", m["gitSync"])
			}
			seen++
		case other:
			if m["gitSync"] != nil {
				t.Errorf("space without Git Sync lists gitSync %v", m["gitSync"])
			}
			seen++
		}
	}
	if seen != 2 {
		t.Errorf("list %v", list)
	}
	data := gqlData(t, env, env.Admin.Token, `query($s: ID!, $o: ID!) { a: space(spaceId: $s) { gitSync { repoName integration installationProvider url updatedAt } } b: space(spaceId: $o) { gitSync { repoName } } }`,
		map[string]any{"s": space, "o": other})
	if g, _ := data["a"].(map[string]any)["gitSync"].(map[string]any); g == nil || g["repoName"] != "handbook" || g["url"] != info["url"] || g["installationProvider"] != "gitlab" {
		t.Errorf("GraphQL gitSync %v", data["a"])
	}
	if g := data["b"].(map[string]any)["gitSync"]; g != nil {
		t.Errorf("GraphQL gitSync of a space without Git Sync %v", g)
	}
}
