package rest_test

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"docsapi/apitest"
	"docsapi/storage"
	"docsapi/storage/storagetest"
)

// BenchmarkCreatePageInChangeRequestBehind is bench/scale-extra.sh's
// createPage rows in process, at 1,000 and 100,000 pages (ten parts, the
// shape of the storage benchmarks' editSpace, written through storage): a
// change request opened, then the main content edited through GraphQL
// (pages created under part-1, a page moved between part-2 and part-3),
// then GraphQL createPage under part-1, appended or at an index, in the
// main content ("main") and in the change request ("cr", its base behind).
// p50-ms is the median request. Goal: "cr" at 100,000 pages within 1.5x of
// itself at 1,000 and of "main".
//
//	go test -run '^$' -bench CreatePageInChangeRequestBehind -benchtime 20x -count 3 ./rest
func BenchmarkCreatePageInChangeRequestBehind(b *testing.B) {
	const create = `mutation($t: ContentTarget!, $p: ID!, $title: String!, $i: Int) {
  createPage(target: $t, input: {title: $title, parent: $p, index: $i, markdown: "new page"}) { revision } }`
	for _, pages := range []int{1_000, 100_000} {
		env := apitest.New(b)
		space := newSpace(b, env, env.Org)
		if _, err := env.DB.CreateRevision(context.Background(), storage.RevisionChange{SpaceID: space, Activate: true, Edit: func(t *storage.Tree) error {
			storagetest.TenParts(t, pages, func(id string, _ int) string { return "body of " + id })
			return nil
		}}); err != nil {
			b.Fatal(err)
		}
		cr := env.Must(201, "POST", "/v1/spaces/"+space+"/change-requests", env.Admin.Token, map[string]any{"subject": "bench"}).JSON()["id"].(string)
		onMain := map[string]any{"space": space}
		inCR := map[string]any{"space": space, "changeRequest": cr}
		gql := func(q string, vars map[string]any) {
			if _, errs := env.GraphQL(env.Admin.Token, q, vars); len(errs) > 0 {
				b.Fatal(errs)
			}
		}
		// Appended, or at index n+3: each insert in a gap of its own. (Some
		// 16 inserts at one index use the gap up and spread a window of
		// siblings again, which the change request's overlay then holds:
		// TestGapUsedUpSpreadsAWindowAsTheWholeTree.)
		at := func(n int) any {
			if n%2 == 0 {
				return n + 3
			}
			return nil
		}
		for i := range 9 {
			gql(create, map[string]any{"t": onMain, "p": "part-1", "title": fmt.Sprint("Main page ", i), "i": at(i)})
			gql(`mutation($t: ContentTarget!, $p: ID!) { movePage(target: $t, pageId: "page-2-1", input: {parent: $p, index: 3}) { revision } }`,
				map[string]any{"t": onMain, "p": []string{"part-3", "part-2"}[i%2]})
		}
		rounds := map[string]int{}
		for _, way := range []string{"main", "cr"} {
			target := map[string]map[string]any{"main": onMain, "cr": inCR}[way]
			b.Run(fmt.Sprint(pages, "/", way), func(b *testing.B) {
				var took []time.Duration
				for b.Loop() {
					rounds[way]++
					n := rounds[way]
					start := time.Now()
					gql(create, map[string]any{"t": target, "p": "part-1", "title": fmt.Sprint(way, " page ", n), "i": at(n)})
					took = append(took, time.Since(start))
				}
				slices.Sort(took)
				b.ReportMetric(float64(took[len(took)/2].Microseconds())/1000, "p50-ms")
			})
		}
	}
}
