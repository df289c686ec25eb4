package rest_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"docsapi/apitest"
)

// generatedZip is a zip of n Markdown pages in folders of 50, each with
// two sections, words to search and links to its neighbours.
func generatedZip(b testing.TB, n int) []byte {
	files := map[string][]byte{}
	for i := range n {
		body := fmt.Sprintf("# Page %d\n\nIntroduction of page %d about topic%d and the common subject.\n\n## Details\n\nDetails of item%d with [the next page](page-%d.md) and [the previous one](page-%d.md).\n\n## More\n\nlorem ipsum dolor sit amet consectetur adipiscing elit sed do eiusmod tempor incididunt ut labore et dolore magna aliqua\n",
			i, i, i%100, i, i+1, i-1)
		files[fmt.Sprintf("part-%d/page-%d.md", i/50, i)] = []byte(body)
	}
	return zipOf(b, files)
}

func serveBytes(b testing.TB, data []byte) string {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write(data) }))
	b.Cleanup(srv.Close)
	return srv.URL + "/docs.zip"
}

// BenchmarkImportZip500 imports a 500-page zip through POST .../content/import.
func BenchmarkImportZip500(b *testing.B) {
	env := apitest.New(b)
	url := serveBytes(b, generatedZip(b, 500))
	b.ResetTimer()
	for range b.N {
		space := newSpace(b, env, env.Org)
		env.Must(201, "POST", "/v1/spaces/"+space+"/content/import", env.Admin.Token, map[string]any{"url": url, "source": "zip"})
	}
}

// bigSpace imports n pages into a new space and returns it.
func bigSpace(b *testing.B, env *apitest.Env, n int) string {
	space := newSpace(b, env, env.Org)
	start := time.Now()
	env.Must(201, "POST", "/v1/spaces/"+space+"/content/import", env.Admin.Token, map[string]any{"url": serveBytes(b, generatedZip(b, n)), "source": "zip"})
	b.Logf("import of %d pages: %v", n, time.Since(start))
	return space
}

// BenchmarkSearch10k searches a space of 10,000 pages: a word on one
// page, a word on 100 pages, and words on every page.
func BenchmarkSearch10k(b *testing.B) {
	env := apitest.New(b)
	space := bigSpace(b, env, 10000)
	for _, q := range []string{"item9876", "topic42", "common subject", "magna"} {
		b.Run(q, func(b *testing.B) {
			for range b.N {
				env.Must(200, "GET", "/v1/spaces/"+space+"/search?query="+urlQuery(q), env.Admin.Token, nil)
			}
		})
	}
}

func urlQuery(s string) string {
	out := []byte{}
	for _, c := range []byte(s) {
		if c == ' ' {
			out = append(out, '+')
		} else {
			out = append(out, c)
		}
	}
	return string(out)
}

// BenchmarkGetPage5k reads one page of a revision with 5,000 pages, and
// measures a one-page edit of that space (a new revision).
func BenchmarkGetPage5k(b *testing.B) {
	env := apitest.New(b)
	space := bigSpace(b, env, 5000)
	page := env.Must(200, "GET", "/v1/spaces/"+space+"/content/path/part-42/page-2100", env.Admin.Token, nil).JSON()
	id := page["id"].(string)
	start := time.Now()
	_, errs := env.GraphQL(env.Admin.Token, `mutation($t: ContentTarget!, $p: ID!) { updatePage(target: $t, pageId: $p, input: {markdown: "edited"}) { revision } }`,
		map[string]any{"t": map[string]any{"space": space}, "p": id})
	if len(errs) > 0 {
		b.Fatal(errs)
	}
	b.Logf("one-page edit of a 5,000-page space: %v", time.Since(start))
	b.ResetTimer()
	for range b.N {
		env.Must(200, "GET", "/v1/spaces/"+space+"/content/page/"+id, env.Admin.Token, nil)
	}
}
