package gitlayout

import (
	"context"
	"path"
	"strings"
	"testing"

	"docsapi/importer"
)

// sourcePages: a readme, a page kept at its source, a page whose source
// is refused, and a page whose derived file the kept one holds.
func sourcePages(source, treePath string) []*Page {
	return []*Page{
		{ID: "r", Kind: "document", Title: "Home", Slug: "home"},
		{ID: "a", Kind: "document", Title: "A", Slug: "a", Source: source, SourceTreePath: treePath,
			Markdown: "To [b](b).\n"},
		{ID: "b", Kind: "document", Title: "B", Slug: "b", Markdown: "To [a](a).\n"},
	}
}

func TestSourcePathKeptWhileTreePathUnchanged(t *testing.T) {
	out, err := WriteRepository(RepositoryInput{Pages: sourcePages("docs/deep/a-file.md", "a")})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := out["docs/deep/a-file.md"]; !ok {
		t.Fatalf("files %v", keys(out))
	}
	if _, ok := out["a.md"]; ok {
		t.Errorf("written twice: %v", keys(out))
	}
	if !strings.Contains(string(out["SUMMARY.md"]), "* [A](docs/deep/a-file.md)") {
		t.Errorf("SUMMARY.md:\n%s", out["SUMMARY.md"])
	}
	if got := string(out["docs/deep/a-file.md"]); !strings.Contains(got, "[b](../../b.md)") {
		t.Errorf("link from the source file:\n%s", got)
	}
	if got := string(out["b.md"]); !strings.Contains(got, "[a](docs/deep/a-file.md)") {
		t.Errorf("link to the source file:\n%s", got)
	}

	// Moved or renamed since: the derived file.
	out, err = WriteRepository(RepositoryInput{Pages: sourcePages("docs/deep/a-file.md", "old-slug")})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := out["a.md"]; !ok {
		t.Errorf("moved page not at its derived file: %v", keys(out))
	}
}

func TestSourcePathRefusedWhenNotAPageFile(t *testing.T) {
	for _, bad := range []string{"SUMMARY.md", "README.md", ".gitbook/includes/x.md", "../up.md", "/abs.md", "docs/./a.md", "docs/a.txt", "a\\b.md", ".gitbook.yaml"} {
		out, err := WriteRepository(RepositoryInput{Pages: sourcePages(bad, "a")})
		if err != nil {
			t.Fatalf("%q: %v", bad, err)
		}
		if _, ok := out["a.md"]; !ok {
			t.Errorf("source %q: page not at its derived file: %v", bad, keys(out))
		}
	}
}

// A kept source file taking another page's derived file: that page gets
// the next free name, not an error.
func TestSourcePathHoldingADerivedFile(t *testing.T) {
	out, err := WriteRepository(RepositoryInput{Pages: sourcePages("b.md", "a")})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := out["b-2.md"]; !ok {
		t.Fatalf("files %v", keys(out))
	}
	if got := string(out["b.md"]); !strings.HasPrefix(got, "# A\n") {
		t.Errorf("b.md holds:\n%s", got)
	}
}

func keys(m map[string][]byte) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

// FuzzSourcePath: whatever source a page says it came from, the export is
// written (never an error), inside the repository, and reads back with
// every page.
func FuzzSourcePath(f *testing.F) {
	for _, s := range []string{"docs/a.md", "b.md", "../x.md", "SUMMARY.md", ".gitbook/assets/a.md", "a/b/README.md", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, source string) {
		out, err := WriteRepository(RepositoryInput{Pages: sourcePages(source, "a")})
		if err != nil {
			t.Fatalf("source %q: %v", source, err)
		}
		for name := range out {
			if c := path.Clean(name); c != name || strings.HasPrefix(name, "/") || strings.HasPrefix(name, "../") {
				t.Fatalf("source %q: file %q outside the repository", source, name)
			}
		}
		res, err := importer.Repository(context.Background(), out, importer.Limits{})
		if err != nil {
			return // names the importer refuses (its own bounds)
		}
		if n := len(res.Pages); n != 3 {
			t.Fatalf("source %q: %d pages read back", source, n)
		}
	})
}
