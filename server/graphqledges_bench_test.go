package server_test

import (
	"encoding/json"
	"testing"
	"time"

	"docsapi/apitest"
	"docsapi/server"
)

// BenchmarkPageView measures a front end's docs page view (the space,
// its organization, its collection path, the page tree of a 1,000-page
// revision, one page's document and 50 comments with their authors and
// reactions) both ways in one run: one GraphQL request (pageView), and the
// REST calls a client makes for the same data, in the order their answers
// make them possible (space; organization; each collection of the path,
// parent after parent; the revision's tree; the page as a document; the
// comments), the calls and headers of the official client (@gitbook/api's
// getSpaceById, getOrganizationById, getCollectionById,
// getCurrentRevision, getPageById with format document,
// listCommentsInSpace). Each iteration does both against the same server; the
// reported rest/graphql is the ratio of their times (higher: GraphQL
// faster). Over loopback HTTP, with caches warm, as a reader reloading
// the page sees it.
func BenchmarkPageView(b *testing.B) {
	env := apitest.New(b, apitest.Options{Config: func(c *server.Config) { withServeDefaults(c) }})
	f := newDocsFixture(b, env, 1000, 50)
	tok := env.Admin.Token
	vars := map[string]any{"space": f.space, "page": f.page, "comments": 50}
	gql := func() int {
		r := env.Do("POST", "/graphql", tok, map[string]any{"query": pageView, "variables": vars})
		if r.Status != 200 {
			b.Fatalf("graphql: %d %.300s", r.Status, r.Body)
		}
		var v map[string]any // decoded, as the REST answers are
		if err := json.Unmarshal(r.Body, &v); err != nil || v["data"] == nil {
			b.Fatalf("graphql: %v %.300s", err, r.Body)
		}
		return len(r.Body)
	}
	get := func(path string) map[string]any {
		// The official client's headers (@gitbook/api on Node's fetch).
		r := env.Do("GET", path, tok, nil, "User-Agent", "@gitbook/api/0.130.0", "Accept", "*/*", "Accept-Encoding", "gzip, deflate")
		if r.Status != 200 {
			b.Fatalf("GET %s: %d %.300s", path, r.Status, r.Body)
		}
		var v map[string]any
		if err := json.Unmarshal(r.Body, &v); err != nil {
			b.Fatal(err)
		}
		return v
	}
	rest := func() {
		space := get("/v1/spaces/" + f.space)
		get("/v1/orgs/" + space["organization"].(string))
		for parent, _ := space["parent"].(string); parent != ""; {
			c := get("/v1/collections/" + parent)
			parent, _ = c["parent"].(string)
		}
		get("/v1/spaces/" + f.space + "/content")
		get("/v1/spaces/" + f.space + "/content/page/" + f.page + "?format=document")
		if c := get("/v1/spaces/" + f.space + "/comments?limit=50"); len(c["items"].([]any)) != 50 {
			b.Fatalf("%d comments", len(c["items"].([]any)))
		}
	}
	gql()
	rest()
	var tGQL, tREST time.Duration
	b.ResetTimer()
	for b.Loop() {
		start := time.Now()
		gql()
		mid := time.Now()
		rest()
		tGQL += mid.Sub(start)
		tREST += time.Since(mid)
	}
	b.ReportMetric(float64(tGQL.Nanoseconds())/float64(b.N), "graphql-ns/view")
	b.ReportMetric(float64(tREST.Nanoseconds())/float64(b.N), "rest-ns/view")
	b.ReportMetric(float64(tREST)/float64(tGQL), "rest/graphql")
}
