package rest_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"docsapi/storage"
)

// benchPage is a page of about 150 words with headings, a list, code and
// links: the prose makes about 15 texts.
var benchPage = strings.Repeat("## Section\n\nThis paragraph explains how the service handles requests, with `inline code` and a [link](https://example.com/docs) to the reference documentation for more details.\n\n"+
	"- the first point to remember when you configure it\n- the second point, about **limits** and retries\n\n```go\nfunc main() {}\n```\n\n", 3)

// BenchmarkTranslationRun measures a whole run (read, batch to the
// provider, write the target revision) of a 200-page space against a local
// LibreTranslate-compatible server: go test ./rest -run X -bench TranslationRun
func BenchmarkTranslationRun(b *testing.B) {
	const pages = 200
	l := newLibre(b, "")
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		env := translationEnv(b, l, "")
		space := newSpace(b, env, env.Org)
		_, err := env.DB.CreateRevision(context.Background(), storage.RevisionChange{SpaceID: space, Activate: true, Analyzer: env.Server.Resolver.ContentAnalyzer(),
			Edit: func(t *storage.Tree) error {
				for p := range pages {
					t.Pages = append(t.Pages, &storage.TreePage{ContentPage: storage.ContentPage{ID: storage.NewID(), Type: "document",
						Title: fmt.Sprintf("Page %d about the service", p), Slug: fmt.Sprintf("page-%d", p), Markdown: benchPage}, Dirty: true})
				}
				return nil
			}})
		if err != nil {
			b.Fatal(err)
		}
		env.Must(201, "POST", "/v1/orgs/"+env.Org+"/translations", env.Admin.Token, translationBody(space))
		requests := l.requests.Load()
		b.StartTimer()
		n, err := env.Server.TranslationRunner().RunPending(context.Background())
		b.StopTimer()
		if err != nil || n != 1 {
			b.Fatal(n, err)
		}
		b.ReportMetric(float64(l.requests.Load()-requests), "requests/run")
	}
	b.ReportMetric(float64(pages*b.N)/b.Elapsed().Seconds(), "pages/s")
}
