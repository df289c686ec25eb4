package rest_test

import (
	"strings"
	"testing"

	"docsapi/apitest"
)

// topPaths lists the top-level pages of a content tree (GET .../content/pages)
// as "path" in order.
func topPaths(t *testing.T, env *apitest.Env, token, url string) []string {
	t.Helper()
	var out []string
	for _, p := range env.Must(200, "GET", url, token, nil).JSON()["pages"].([]any) {
		out = append(out, p.(map[string]any)["path"].(string))
	}
	return out
}

// Page edits place pages the same on the main content (storage.PageTree
// over the alive rows) and in a change request (over its head's overlay
// and main@base_seq): an arriving page named like a sibling takes the
// suffix and the sibling keeps its path; index places among the siblings;
// the rules refuse the same moves.
func TestPageEditsPlaceAlikeOnMainAndInChangeRequests(t *testing.T) {
	env := apitest.New(t)
	space := newSpace(t, env, env.Org)
	base := "/v1/spaces/" + space
	token := env.Admin.Token
	env.Must(201, "POST", base+"/content/template", token, map[string]any{"id": "getting-started"})
	before := topPaths(t, env, token, base+"/content/pages")
	if len(before) < 2 || before[0] != "introduction" {
		t.Fatalf("template pages: %v", before)
	}
	intro := env.Must(200, "GET", base+"/content/path/introduction", token, nil).JSON()["id"].(string)
	cr := env.Must(201, "POST", base+"/change-requests", token, map[string]any{"subject": "Place"}).JSON()["id"].(string)

	create := `mutation($t: ContentTarget!, $i: Int, $p: ID) { createPage(target: $t, input: {title: "Introduction", parent: $p, index: $i}) { page { id path } } }`
	move := `mutation($t: ContentTarget!, $id: ID!, $i: Int, $p: ID) { movePage(target: $t, pageId: $id, input: {parent: $p, index: $i}) { page { path } } }`
	rename := `mutation($t: ContentTarget!, $id: ID!, $s: String!) { updatePage(target: $t, pageId: $id, input: {slug: $s}) { page { path } } }`
	for _, where := range []struct {
		name    string
		target  map[string]any
		content string
	}{
		{"main content", map[string]any{"space": space}, base + "/content"},
		{"change request", map[string]any{"space": space, "changeRequest": cr}, base + "/change-requests/" + cr + "/content"},
	} {
		pages := where.content + "/pages"
		t.Run(where.name, func(t *testing.T) {
			// At index 0, named like the first page: the new page takes
			// introduction-2, the existing introduction keeps its path.
			page := gqlData(t, env, token, create, map[string]any{"t": where.target, "i": 0})["createPage"].(map[string]any)["page"].(map[string]any)
			if page["path"] != "introduction-2" {
				t.Fatalf("new page: %v", page)
			}
			id := page["id"].(string)
			got := topPaths(t, env, token, pages)
			want := append([]string{"introduction-2"}, before...)
			if strings.Join(got, " ") != strings.Join(want, " ") {
				t.Fatalf("order %v, want %v", got, want)
			}
			// Under introduction (its slug is introduction-2 now), then back
			// to the top at index 1.
			p := gqlData(t, env, token, move, map[string]any{"t": where.target, "id": id, "p": intro})["movePage"].(map[string]any)["page"].(map[string]any)
			if p["path"] != "introduction/introduction-2" {
				t.Fatalf("moved under introduction: %v", p)
			}
			p = gqlData(t, env, token, move, map[string]any{"t": where.target, "id": id, "i": 1})["movePage"].(map[string]any)["page"].(map[string]any)
			if p["path"] != "introduction-2" {
				t.Fatalf("moved back: %v", p)
			}
			got = topPaths(t, env, token, pages)
			want = append([]string{before[0], "introduction-2"}, before[1:]...)
			if strings.Join(got, " ") != strings.Join(want, " ") {
				t.Fatalf("order %v, want %v", got, want)
			}
			// Renamed to a sibling's slug: the renamed page takes the suffix.
			p = gqlData(t, env, token, rename, map[string]any{"t": where.target, "id": id, "s": strings.Split(before[1], "/")[0]})["updatePage"].(map[string]any)["page"].(map[string]any)
			if p["path"] != before[1]+"-2" {
				t.Fatalf("renamed: %v, want %s-2", p, before[1])
			}
			// Refusals: under itself, under its own descendant (a child
			// made first), a parent that does not exist, an unknown page.
			childPage := gqlData(t, env, token, create, map[string]any{"t": where.target, "p": id})["createPage"].(map[string]any)["page"].(map[string]any)
			child, childPath := childPage["id"], childPage["path"].(string)
			if childPath != before[1]+"-2/introduction" {
				t.Fatalf("child: %v", childPage)
			}
			env.Must(200, "GET", where.content+"/path/"+childPath, token, nil)
			for _, c := range []struct {
				vars  map[string]any
				field string
			}{
				{map[string]any{"t": where.target, "id": id, "p": id}, "parent"},
				{map[string]any{"t": where.target, "id": id, "p": child}, "parent"},
				{map[string]any{"t": where.target, "id": id, "p": "nope"}, "parent"},
			} {
				if e := gqlRefusal(t, env, token, move, c.vars, "BAD_REQUEST", 400); e.Extensions["field"] != c.field {
					t.Errorf("move %v: %+v", c.vars, e)
				}
			}
			gqlRefusal(t, env, token, move, map[string]any{"t": where.target, "id": "nope"}, "NOT_FOUND", 404)
			gqlRefusal(t, env, token, create, map[string]any{"t": where.target, "p": "nope"}, "BAD_REQUEST", 400)
			// Deleting the page takes its child with it.
			gqlData(t, env, token, `mutation($t: ContentTarget!, $id: ID!) { deletePage(target: $t, pageId: $id) { revision } }`, map[string]any{"t": where.target, "id": id})
			if got := topPaths(t, env, token, pages); strings.Join(got, " ") != strings.Join(before, " ") {
				t.Fatalf("after delete %v, want %v", got, before)
			}
			env.Must(404, "GET", where.content+"/path/"+childPath, token, nil)
		})
	}
	// A change request whose base is behind the main content: the main
	// content's later pages and moves are not in it, its own edits place
	// against its base, and the main content keeps its own.
	t.Run("change request behind the main content", func(t *testing.T) {
		late := env.Must(201, "POST", base+"/change-requests", token, map[string]any{"subject": "Behind"}).JSON()["id"].(string)
		onMain := map[string]any{"space": space}
		inLate := map[string]any{"space": space, "changeRequest": late}
		lateContent := base + "/change-requests/" + late + "/content"
		mainPage := gqlData(t, env, token, create, map[string]any{"t": onMain, "i": 0})["createPage"].(map[string]any)["page"].(map[string]any)
		if mainPage["path"] != "introduction-2" {
			t.Fatalf("new page on the main content: %v", mainPage)
		}
		gqlData(t, env, token, move, map[string]any{"t": onMain, "id": intro})
		wantMain := append(append([]string{"introduction-2"}, before[1:]...), "introduction")
		if got := topPaths(t, env, token, base+"/content/pages"); strings.Join(got, " ") != strings.Join(wantMain, " ") {
			t.Fatalf("main content %v, want %v", got, wantMain)
		}
		if got := topPaths(t, env, token, lateContent+"/pages"); strings.Join(got, " ") != strings.Join(before, " ") {
			t.Fatalf("change request before its edits %v, want its base %v", got, before)
		}
		page := gqlData(t, env, token, create, map[string]any{"t": inLate, "i": 0})["createPage"].(map[string]any)["page"].(map[string]any)
		if page["path"] != "introduction-2" || page["id"] == mainPage["id"] {
			t.Fatalf("new page in the change request: %v", page)
		}
		p := gqlData(t, env, token, move, map[string]any{"t": inLate, "id": intro, "p": page["id"]})["movePage"].(map[string]any)["page"].(map[string]any)
		if p["path"] != "introduction-2/introduction" {
			t.Fatalf("moved in the change request: %v", p)
		}
		p = gqlData(t, env, token, rename, map[string]any{"t": inLate, "id": page["id"], "s": "welcome"})["updatePage"].(map[string]any)["page"].(map[string]any)
		if p["path"] != "welcome" {
			t.Fatalf("renamed in the change request: %v", p)
		}
		env.Must(200, "GET", lateContent+"/path/welcome/introduction", token, nil)
		env.Must(404, "GET", lateContent+"/path/introduction", token, nil)
		if got, want := topPaths(t, env, token, lateContent+"/pages"), append([]string{"welcome"}, before[1:]...); strings.Join(got, " ") != strings.Join(want, " ") {
			t.Fatalf("change request %v, want %v", got, want)
		}
		if got := topPaths(t, env, token, base+"/content/pages"); strings.Join(got, " ") != strings.Join(wantMain, " ") {
			t.Fatalf("main content after the change request's edits %v, want %v", got, wantMain)
		}
	})
}
