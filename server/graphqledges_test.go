package server_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"

	"docsapi/apitest"
	"docsapi/graph"
	"docsapi/server"
	"docsapi/storage"
)

// pageView is a front end's docs page view in one request: the space,
// its collection path, the page tree, one page's document and the
// comments with their authors and reactions.
const pageView = `query PageView($space: ID!, $page: ID!, $comments: Int) {
  space(spaceId: $space) {
    id nodeId title
    org { id title }
    collectionPath { id title parentCollection { id } }
    activeRevision {
      id
      pages { id title path pages { id title path } }
      page(pageId: $page, format: DOCUMENT) { id title document }
    }
    commentList(limit: $comments) {
      count
      items { id nodeId postedBy { id displayName } body { markdown } reactions { emoji count users { user { id displayName } } } }
    }
  }
}`

// docsFixture is a space two collections deep with pages groups of pages
// and comments comments, each with a reaction.
type docsFixture struct {
	space, outer, inner, page string
}

func newDocsFixture(t testing.TB, env *apitest.Env, pages, comments int) docsFixture {
	t.Helper()
	var f docsFixture
	f.outer = env.Must(201, "POST", "/v1/orgs/"+env.Org+"/collections", env.Admin.Token, map[string]any{"title": "Guides"}).JSON()["id"].(string)
	f.inner = env.Must(201, "POST", "/v1/orgs/"+env.Org+"/collections", env.Admin.Token, map[string]any{"title": "Product", "parent": f.outer}).JSON()["id"].(string)
	f.space = env.Must(201, "POST", "/v1/orgs/"+env.Org+"/spaces", env.Admin.Token, map[string]any{"title": "Docs", "parent": f.inner}).JSON()["id"].(string)
	an := (&graph.Resolver{}).ContentAnalyzer()
	_, err := env.DB.CreateRevision(context.Background(), storage.RevisionChange{SpaceID: f.space, Type: "edits", Activate: true, Analyzer: an,
		Edit: func(tr *storage.Tree) error {
			var group *storage.TreePage
			for i := range pages {
				if i%100 == 0 {
					group = &storage.TreePage{ContentPage: storage.ContentPage{ID: storage.NewID(), Type: "group",
						Title: fmt.Sprintf("Part %d", i/100), Slug: fmt.Sprintf("part-%d", i/100)}, Dirty: true}
					tr.Pages = append(tr.Pages, group)
				}
				p := &storage.TreePage{ContentPage: storage.ContentPage{ID: storage.NewID(), Type: "document",
					Title: fmt.Sprintf("Page %d", i), Slug: fmt.Sprintf("page-%d", i)}}
				p.SetBody(fmt.Sprintf("# Page %d\n\nIntroduction of page %d, with a [link](https://example.com/%d).\n", i, i, i))
				group.Children = append(group.Children, p)
				if f.page == "" {
					f.page = p.ID
				}
			}
			return nil
		}})
	if err != nil {
		t.Fatal(err)
	}
	users := make([]apitest.User, 5)
	for i := range users {
		users[i] = env.NewUser(fmt.Sprintf("reader%d@acme.test", i), env.Org, "comment")
	}
	for i := range comments {
		u := users[i%len(users)]
		c := env.Must(200, "POST", "/v1/spaces/"+f.space+"/comments", u.Token, map[string]any{"body": map[string]any{"markdown": fmt.Sprintf("Comment %d", i)}, "page": f.page}).JSON()
		r := users[(i+1)%len(users)]
		env.Must(200, "PUT", "/v1/spaces/"+f.space+"/comments/"+c["id"].(string), r.Token, map[string]any{"addedReactions": []string{"1f44d"}})
	}
	return f
}

func TestGraphQLPageViewEdges(t *testing.T) {
	env := apitest.New(t, apitest.Options{Config: withServeDefaults})
	f := newDocsFixture(t, env, 150, 7)
	data, errs := env.GraphQL(env.Admin.Token, pageView, map[string]any{"space": f.space, "page": f.page, "comments": 50})
	if len(errs) > 0 {
		t.Fatalf("errors: %+v", errs)
	}
	space := data["space"].(map[string]any)
	if got := space["org"].(map[string]any)["id"]; got != env.Org {
		t.Errorf("org.id = %v, want %s", got, env.Org)
	}
	if got := space["nodeId"]; got != "Space:"+f.space {
		t.Errorf("nodeId = %v", got)
	}
	path := space["collectionPath"].([]any)
	if len(path) != 2 || path[0].(map[string]any)["id"] != f.outer || path[1].(map[string]any)["id"] != f.inner {
		t.Errorf("collectionPath = %v, want [%s %s]", path, f.outer, f.inner)
	}
	if p := path[1].(map[string]any)["parentCollection"].(map[string]any)["id"]; p != f.outer {
		t.Errorf("inner.parentCollection = %v", p)
	}
	rev := space["activeRevision"].(map[string]any)
	if groups := rev["pages"].([]any); len(groups) != 2 || len(groups[1].(map[string]any)["pages"].([]any)) != 50 {
		t.Errorf("page tree: %d groups", len(groups))
	}
	page := rev["page"].(map[string]any)
	if page["id"] != f.page || page["document"] == nil {
		t.Errorf("page = %v", page)
	}
	comments := space["commentList"].(map[string]any)
	items := comments["items"].([]any)
	if len(items) != 7 {
		t.Fatalf("%d comments, want 7", len(items))
	}
	c0 := items[0].(map[string]any)
	if c0["postedBy"].(map[string]any)["displayName"] == "" || len(c0["reactions"].([]any)) != 1 {
		t.Errorf("comment = %v", c0)
	}
	if !strings.HasPrefix(c0["nodeId"].(string), "Comment:"+f.space+"/") {
		t.Errorf("comment nodeId = %v", c0["nodeId"])
	}
}

// TestGraphQLCostInExtensions: each answer says its cost and the limit;
// list fields count their limit (a variable's value too), nested lists
// multiply, and the limit refuses by the same figure.
func TestGraphQLCostInExtensions(t *testing.T) {
	env := apitest.New(t, apitest.Options{Config: withServeDefaults})
	cost := func(query string, vars map[string]any) (map[string]any, []apitest.GraphQLError) {
		t.Helper()
		r := env.Do("POST", "/graphql", env.Admin.Token, map[string]any{"query": query, "variables": vars})
		var out struct {
			Errors     []apitest.GraphQLError `json:"errors"`
			Extensions struct {
				Cost map[string]any `json:"cost"`
			} `json:"extensions"`
		}
		if err := json.Unmarshal(r.Body, &out); err != nil {
			t.Fatalf("%d %s", r.Status, r.Body)
		}
		return out.Extensions.Cost, out.Errors
	}
	nested := `query($n: Int) { organizations(limit: $n) { items { id spaces(limit: 5) { items { id } } } } }`
	// organizations: 1 + n × (items: 1 + (id 1 + spaces: 1 + 5 × (items 1 + id 1)))
	for _, tc := range []struct {
		vars map[string]any
		want float64
	}{{map[string]any{"n": 10}, 131}, {map[string]any{"n": 2}, 27}, {nil, 1 + 50*13}} {
		c, errs := cost(nested, tc.vars)
		if len(errs) != 0 || c["requested"] != tc.want || c["limit"] != float64(10000) {
			t.Errorf("vars %v: cost %v, want %v of 10000 (%v)", tc.vars, c, tc.want, errs)
		}
	}
	// A refused operation is not answered: its figure is in the error.
	_, errs := cost(`{ organizations(limit: 100) { items { spaces(limit: 100) { items { id } } } } }`, nil)
	if len(errs) != 1 || errs[0].Code() != "COMPLEXITY_LIMIT_EXCEEDED" || errs[0].Message != fmt.Sprintf("operation has complexity %d, which exceeds the limit of 10000", 1+100*(1+1+100*2)) {
		t.Errorf("100 × 100: %v", errs)
	}
	// The fast path's answers carry the same figure as gqlgen's.
	q := `query($id: ID!) { organization(id: $id) { id title } }`
	for range 3 {
		if c, errs := cost(q, map[string]any{"id": env.Org}); len(errs) != 0 || c["requested"] != float64(3) {
			t.Errorf("organization: cost %v (%v)", c, errs)
		}
	}
}

// pageViewWithReplies is pageView with the first replies of every comment
// and every page's links and backlinks.
const pageViewWithReplies = `query PageView($space: ID!, $page: ID!, $comments: Int) {
  space(spaceId: $space) {
    id title
    org { id title }
    parentCollection { id org { id } }
    collectionPath { id title org { id } }
    activeRevision {
      id
      pages { id title links { count } backlinks { count } pages { id title links(limit: 2) { count items { status } } backlinks(limit: 2) { count } } }
      page(pageId: $page, format: DOCUMENT) { id document }
    }
    commentList(limit: $comments) {
      items {
        id postedBy { id displayName } reactions { emoji users { user { id } } }
        replyList(limit: 3) { count next { page } items { id postedBy { id } reactions { emoji } } }
      }
    }
  }
}`

// TestGraphQLStatementsGrowWithDepthNotItems: the page view with 10
// times the pages, comments and replies runs no more SQL statements:
// objects reached several times (the organization, the collections) are
// loaded once, each comment's replies come with all the others', each
// page's links and backlinks with those of its level of the tree.
func TestGraphQLStatementsGrowWithDepthNotItems(t *testing.T) {
	measure := func(pages, comments, replies int) int64 {
		var n atomic.Int64
		env := apitest.New(t, apitest.Options{Statements: &n, Config: func(c *server.Config) {
			withServeDefaults(c)
			c.GraphQLComplexity = 0 // the cost of 1,000 comments is not what is measured
		}})
		f := newDocsFixture(t, env, pages, comments)
		list, errs := env.GraphQL(env.Admin.Token, `query($s: ID!) { space(spaceId: $s) { commentList(limit: 1000) { items { id } } } }`, map[string]any{"s": f.space})
		if len(errs) > 0 {
			t.Fatal(errs)
		}
		for i, c := range list["space"].(map[string]any)["commentList"].(map[string]any)["items"].([]any) {
			for j := range replies + i%2 { // threads of different lengths
				env.Must(200, "POST", "/v1/spaces/"+f.space+"/comments/"+c.(map[string]any)["id"].(string)+"/replies", env.Admin.Token,
					map[string]any{"body": map[string]any{"markdown": fmt.Sprintf("Reply %d", j)}})
			}
		}
		// A write just happened: the caches between writes are cold, as
		// for the first reader after any change. The counter sees every
		// statement of the database, the background workers' too (the audit
		// mover, leases): the fewest of five cold reads is the request's
		// (under load a read can take long enough for the mover to run in
		// three in a row).
		var data map[string]any
		got := int64(-1)
		for try := range 5 {
			if try > 0 { // another write elsewhere in the organization
				env.Must(201, "POST", "/v1/orgs/"+env.Org+"/collections", env.Admin.Token, map[string]any{"title": fmt.Sprintf("Elsewhere %d", try)})
			}
			n.Store(0)
			d, errs := env.GraphQL(env.Admin.Token, pageViewWithReplies, map[string]any{"space": f.space, "page": f.page, "comments": 1000})
			if c := n.Load(); got < 0 || c < got {
				got = c
			}
			if len(errs) > 0 {
				t.Fatalf("errors: %+v", errs)
			}
			data = d
		}
		items := data["space"].(map[string]any)["commentList"].(map[string]any)["items"].([]any)
		if len(items) != comments {
			t.Fatalf("%d comments, want %d", len(items), comments)
		}
		for i, it := range items {
			rl := it.(map[string]any)["replyList"].(map[string]any)
			want := replies + i%2 // the same order as the list the replies were posted from
			if int(rl["count"].(float64)) != want || len(rl["items"].([]any)) != min(3, want) || (want > 3) != (rl["next"] != nil) {
				t.Fatalf("comment %d: replyList %v, want %d replies", i, rl, want)
			}
		}
		t.Logf("%d pages, %d comments, %d+ replies each: %d statements", pages, comments, replies, got)
		return got
	}
	small := measure(100, 5, 2)
	large := measure(1000, 50, 4)
	if large > small {
		t.Errorf("statements grew with items: %d for the small page view, %d for the large one", small, large)
	}
}

// TestGraphQLNode: every global id resolves to its object with the access
// checks of its own query; another organization's object, an unknown id
// and a malformed one are NOT_FOUND alike; nodes answers each id at its
// place.
func TestGraphQLNode(t *testing.T) {
	env := apitest.New(t, apitest.Options{Config: withServeDefaults})
	f := newDocsFixture(t, env, 3, 1)
	data, errs := env.GraphQL(env.Admin.Token, `query($s: ID!) { space(spaceId: $s) { nodeId org { nodeId } parentCollection { nodeId }
		commentList { items { nodeId postedBy { nodeId } } } changeRequestList { items { nodeId } } } viewer { nodeId } }`, map[string]any{"s": f.space})
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	env.Must(201, "POST", "/v1/spaces/"+f.space+"/change-requests", env.Admin.Token, map[string]any{"subject": "Edit"})
	cr, errs := env.GraphQL(env.Admin.Token, `query($s: ID!) { space(spaceId: $s) { changeRequestList(status: DRAFT) { items { id nodeId } } } }`, map[string]any{"s": f.space})
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	space := data["space"].(map[string]any)
	crItem := cr["space"].(map[string]any)["changeRequestList"].(map[string]any)["items"].([]any)[0].(map[string]any)
	comment := space["commentList"].(map[string]any)["items"].([]any)[0].(map[string]any)
	ids := map[string]string{
		"Space":         space["nodeId"].(string),
		"Organization":  space["org"].(map[string]any)["nodeId"].(string),
		"Collection":    space["parentCollection"].(map[string]any)["nodeId"].(string),
		"Comment":       comment["nodeId"].(string),
		"ChangeRequest": crItem["nodeId"].(string),
		"User":          data["viewer"].(map[string]any)["nodeId"].(string),
	}
	if ids["ChangeRequest"] != "ChangeRequest:"+f.space+"/"+crItem["id"].(string) {
		t.Errorf("change request nodeId %s", ids["ChangeRequest"])
	}
	team := env.Must(201, "PUT", "/v1/orgs/"+env.Org+"/teams", env.Admin.Token, map[string]any{"title": "Writers"}).JSON()["id"].(string)
	ids["Team"] = "Team:" + env.Org + "/" + team
	site := env.Must(201, "POST", "/v1/orgs/"+env.Org+"/sites", env.Admin.Token, map[string]any{"title": "Docs site"}).JSON()["id"].(string)
	ids["Site"] = "Site:" + env.Org + "/" + site
	q := `query($id: ID!) { node(id: $id) { __typename id nodeId } }`
	for kind, id := range ids {
		data, errs := env.GraphQL(env.Admin.Token, q, map[string]any{"id": id})
		if len(errs) > 0 {
			t.Errorf("%s %s: %v", kind, id, errs)
			continue
		}
		n := data["node"].(map[string]any)
		if n["__typename"] != kind || n["nodeId"] != id {
			t.Errorf("node(%s) = %v", id, n)
		}
	}
	// Another organization's admin sees none of them; a stranger neither.
	_, other := env.NewOrg("Other", "admin@other.test")
	for kind, id := range ids {
		if kind == "User" {
			continue // users are readable by any signed-in user (GET /v1/users/{id})
		}
		_, errs := env.GraphQL(other.Token, q, map[string]any{"id": id})
		if len(errs) != 1 || errs[0].Code() != "NOT_FOUND" {
			t.Errorf("%s of another organization: %v", kind, errs)
		}
	}
	for _, id := range []string{"Space:nope", "Space:" + f.space + "/x", "Spaces:" + f.space, f.space, "Comment:" + f.space, ":", "Team:a/", strings.Repeat("x", 300)} {
		_, errs := env.GraphQL(env.Admin.Token, q, map[string]any{"id": id})
		if len(errs) != 1 || (errs[0].Code() != "NOT_FOUND" && errs[0].Code() != "BAD_REQUEST") {
			t.Errorf("node(%.40q): %v", id, errs)
		}
	}
	if r := env.Do("POST", "/graphql", "", map[string]any{"query": q, "variables": map[string]any{"id": ids["Space"]}}); r.Status != 401 {
		t.Errorf("without a token: %d", r.Status)
	}
	data, errs = env.GraphQL(env.Admin.Token, `query($ids: [ID!]!) { nodes(ids: $ids) { nodeId } }`, map[string]any{"ids": []string{ids["Space"], "Space:nope", ids["Collection"]}})
	nodes := data["nodes"].([]any)
	if len(nodes) != 3 || nodes[0] == nil || nodes[1] != nil || nodes[2] == nil || len(errs) != 1 || errs[0].Code() != "NOT_FOUND" {
		t.Errorf("nodes: %v %v", nodes, errs)
	}
	ids101 := make([]string, 101)
	for i := range ids101 {
		ids101[i] = ids["Space"]
	}
	if _, errs := env.GraphQL(env.Admin.Token, `query($ids: [ID!]!) { nodes(ids: $ids) { nodeId } }`, map[string]any{"ids": ids101}); len(errs) != 1 || errs[0].Code() != "BAD_REQUEST" {
		t.Errorf("101 ids: %v", errs)
	}
}

// TestGraphQLEveryEdge reads every edge once and checks each answers what
// its root query answers; another user's organizations are refused.
func TestGraphQLEveryEdge(t *testing.T) {
	env := apitest.New(t, apitest.Options{Config: withServeDefaults})
	f := newDocsFixture(t, env, 3, 2)
	env.Must(201, "PUT", "/v1/orgs/"+env.Org+"/teams", env.Admin.Token, map[string]any{"title": "Writers"})
	site := env.Must(201, "POST", "/v1/orgs/"+env.Org+"/sites", env.Admin.Token, map[string]any{"title": "Docs site"}).JSON()["id"].(string)
	env.Must(201, "POST", "/v1/spaces/"+f.space+"/change-requests", env.Admin.Token, map[string]any{"subject": "Edit"})
	q := `query($org: ID!, $site: ID!, $space: ID!, $page: ID!, $outer: ID!) {
  organization(id: $org) {
    members { count } teams { count } collections { count items { id } } sites { count } installations { count }
  }
  collection(collectionId: $outer) { org { id } parentCollection { id } children { count items { id parentCollection { id } } } spaces { count } }
  space(spaceId: $space) {
    changeRequestList(status: DRAFT, limit: 5) { count items { id createdBy { id } reviewers { count } reviews { count } commentList { count } changes { changes } } }
    userPermissions { count } teamPermissions { count }
    activeRevision { page(pageId: $page) { id markdown links { count } backlinks { count } } }
  }
  site(organizationId: $org, siteId: $site) { org { id } siteSpaceList { count } sections { count } shareLinks { count } customization }
  viewer { organizations { count items { id } } }
}`
	vars := map[string]any{"org": env.Org, "site": site, "space": f.space, "page": f.page, "outer": f.outer}
	data, errs := env.GraphQL(env.Admin.Token, q, vars)
	if len(errs) > 0 {
		t.Fatalf("errors: %+v", errs)
	}
	org := data["organization"].(map[string]any)
	count := func(v any) float64 { return v.(map[string]any)["count"].(float64) }
	if count(org["members"]) != 6 || count(org["teams"]) != 1 || count(org["collections"]) != 2 || count(org["sites"]) != 1 {
		t.Errorf("organization lists: %v", org)
	}
	col := data["collection"].(map[string]any)
	children := col["children"].(map[string]any)["items"].([]any)
	if col["org"].(map[string]any)["id"] != env.Org || col["parentCollection"] != nil || len(children) != 1 ||
		children[0].(map[string]any)["id"] != f.inner || children[0].(map[string]any)["parentCollection"].(map[string]any)["id"] != f.outer || count(col["spaces"]) != 0 {
		t.Errorf("collection edges: %v", col)
	}
	space := data["space"].(map[string]any)
	crs := space["changeRequestList"].(map[string]any)
	if count(crs) != 1 || crs["items"].([]any)[0].(map[string]any)["createdBy"].(map[string]any)["id"] != env.Admin.ID {
		t.Errorf("change requests: %v", crs)
	}
	page := space["activeRevision"].(map[string]any)["page"].(map[string]any)
	if page["id"] != f.page || count(page["links"]) != 1 || !strings.Contains(page["markdown"].(string), "Introduction of page 0") {
		t.Errorf("page: %v", page)
	}
	s := data["site"].(map[string]any)
	if s["org"].(map[string]any)["id"] != env.Org || s["customization"] == nil {
		t.Errorf("site edges: %v", s)
	}
	if orgs := data["viewer"].(map[string]any)["organizations"].(map[string]any); count(orgs) != 1 {
		t.Errorf("viewer.organizations: %v", orgs)
	}
	// Another user's organizations are not the caller's to list.
	reader := env.NewUser("someone@acme.test", env.Org, "read")
	_, errs = env.GraphQL(reader.Token, `query($u: ID!) { user(id: $u) { organizations { count } } }`, map[string]any{"u": env.Admin.ID})
	if len(errs) != 1 || errs[0].Code() != "FORBIDDEN" {
		t.Errorf("another user's organizations: %v", errs)
	}
	// A member of another organization reaches none of it through edges.
	_, other := env.NewOrg("Other", "admin@other.test")
	_, errs = env.GraphQL(other.Token, `query($c: ID!) { collection(collectionId: $c) { children { count } } }`, map[string]any{"c": f.outer})
	if len(errs) != 1 || errs[0].Code() != "NOT_FOUND" {
		t.Errorf("another organization's collection: %v", errs)
	}
}
