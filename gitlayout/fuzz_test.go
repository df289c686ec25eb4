package gitlayout

import (
	"context"
	"strings"
	"testing"

	"docsapi/importer"
	"docsapi/markdown"
)

// FuzzWriteThenRead: any page body (within the API's bounds) written in
// GitBook's layout and read back is the same body, but for the documented
// normalizations (leading blank lines dropped, a final newline added).
func FuzzWriteThenRead(f *testing.F) {
	for _, seed := range []string{"text", "{% hint %}\nx\n{% endhint %}", "---\nlooks: like front matter\n---\n", "# Page\n\nagain", "[a](other) ![i](pic.png)"} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, body string) {
		if len(body) > markdown.MaxBody || markdown.Check(body) != nil || strings.ContainsRune(body, '\r') {
			return
		}
		in := RepositoryInput{
			Pages: []*Page{{ID: "a", Kind: "document", Title: "Page", Slug: "page", Markdown: body},
				{ID: "b", Kind: "document", Title: "Other", Slug: "other"}},
			Files: []File{{ID: "f", Name: "pic.png", Data: []byte("png")}},
		}
		out, err := WriteRepository(in)
		if err != nil {
			t.Fatal(err)
		}
		res, err := importer.Repository(context.Background(), out, importer.Limits{})
		if err != nil {
			return // a body the importer refuses (its own bounds): nothing lost silently
		}
		got := res.Pages[0].Markdown
		want := strings.TrimLeft(body, "\n")
		if strings.TrimSpace(want) == "" {
			want = ""
		} else if !strings.HasSuffix(want, "\n") {
			want += "\n"
		}
		if got != want {
			t.Fatalf("body %q read back as %q", want, got)
		}
	})
}
