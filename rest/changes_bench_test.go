package rest_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"docsapi/apitest"
)

// BenchmarkMergeCR5k merges a change request that changed 100 pages of a
// 5,000-page space while main changed 20 others and 10 of the same pages
// (other lines): the merge reads three trees, merges 10 bodies line by
// line and writes one revision.
func BenchmarkMergeCR5k(b *testing.B) {
	for range b.N {
		b.StopTimer()
		env := apitest.New(b)
		space := bigSpace(b, env, 5000)
		base := "/v1/spaces/" + space
		cr := env.Must(201, "POST", base+"/change-requests", env.Admin.Token, map[string]any{}).JSON()["id"].(string)
		edit := func(target map[string]any, i int, change func(string) string) {
			p := env.Must(200, "GET", fmt.Sprintf("%s/content/path/part-%d/page-%d", base, i/50, i), env.Admin.Token, nil).JSON()
			md := change(p["markdown"].(string))
			_, errs := env.GraphQL(env.Admin.Token, `mutation($t: ContentTarget!, $p: ID!, $m: String!) { updatePage(target: $t, pageId: $p, input: {markdown: $m}) { revision } }`,
				map[string]any{"t": target, "p": p["id"], "m": md})
			if len(errs) > 0 {
				b.Fatal(errs)
			}
		}
		inCR := map[string]any{"space": space, "changeRequest": cr}
		onMain := map[string]any{"space": space}
		for i := range 100 {
			edit(inCR, i*50, func(s string) string { return strings.Replace(s, "lorem ipsum", "LOREM IPSUM", 1) })
		}
		for i := range 10 { // the same pages, another line
			edit(onMain, i*50, func(s string) string { return strings.Replace(s, "Introduction", "INTRODUCTION", 1) })
		}
		for i := range 20 {
			edit(onMain, i*50+7, func(s string) string { return s + "\nAppended on main.\n" })
		}
		b.StartTimer()
		start := time.Now()
		r := env.Must(200, "POST", base+"/change-requests/"+cr+"/merge", env.Admin.Token, nil).JSON()
		took := time.Since(start)
		b.StopTimer()
		if r["result"] != "merge" {
			b.Fatalf("merge: %v", r)
		}
		b.Logf("merge of a change request touching 100 pages of 5,000 (10 merged line by line): %v", took)
		p := env.Must(200, "GET", base+"/content/path/part-0/page-0", env.Admin.Token, nil).JSON()
		if md := p["markdown"].(string); !strings.Contains(md, "INTRODUCTION") || !strings.Contains(md, "LOREM IPSUM") {
			b.Fatalf("merged body: %q", md)
		}
	}
}

// BenchmarkListComments1000 reads a page of 1,000 comments, each with a
// page target, a reaction and a reply count.
func BenchmarkListComments1000(b *testing.B) {
	env := apitest.New(b)
	f := newCRFixture(b, env)
	for i := range 1000 {
		c := env.Must(200, "POST", f.base()+"/comments", env.Admin.Token, map[string]any{"body": map[string]any{"markdown": fmt.Sprintf("Comment %d", i)}, "page": f.pages["A"]}).JSON()
		if i%10 == 0 {
			env.Must(200, "PUT", f.base()+"/comments/"+c["id"].(string), env.Admin.Token, map[string]any{"addedReactions": []string{"👍"}})
		}
	}
	b.ResetTimer()
	for range b.N {
		r := env.Must(200, "GET", f.base()+"/comments?limit=1000", env.Admin.Token, nil).JSON()
		if len(r["items"].([]any)) != 1000 {
			b.Fatal("short page")
		}
	}
}
