package merge

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"docsapi/storage"
)

// page builds a tree page whose version stands for its content.
func page(id, title, body string, children ...*storage.TreePage) *storage.TreePage {
	p := &storage.TreePage{ContentPage: storage.ContentPage{ID: id, Type: "document", Title: title, Slug: id, Version: id + ":" + title + ":" + body}, Children: children}
	p.SetBody(body)
	p.Dirty = false
	return p
}

func tree(pages ...*storage.TreePage) *storage.Tree { return &storage.Tree{Pages: pages} }

// shape writes a tree as "id(title|body)[children]" for comparisons.
func shape(t *storage.Tree) string {
	var b strings.Builder
	var walk func(list []*storage.TreePage)
	walk = func(list []*storage.TreePage) {
		for i, p := range list {
			if i > 0 {
				b.WriteString(" ")
			}
			b.WriteString(p.ID + "(" + p.Title + "|" + strings.ReplaceAll(p.Markdown, "\n", "/") + ")")
			if len(p.Children) > 0 {
				b.WriteString("[")
				walk(p.Children)
				b.WriteString("]")
			}
		}
	}
	walk(t.Pages)
	return strings.TrimSpace(b.String())
}

func TestTrees(t *testing.T) {
	body := "one\ntwo\nthree\nfour\nfive\n"
	base := func() *storage.Tree {
		return tree(page("a", "A", body, page("a1", "A1", body)), page("b", "B", body), page("c", "C", body))
	}
	cases := []struct {
		name         string
		ours, theirs func(t *storage.Tree)
		want         string // "" means a conflict
	}{
		{"one side edits", func(*storage.Tree) {}, func(t *storage.Tree) { t.Pages[1] = page("b", "B2", body) },
			"a(A|one/two/three/four/five/)[a1(A1|one/two/three/four/five/)] b(B2|one/two/three/four/five/) c(C|one/two/three/four/five/)"},
		{"both sides, lines apart", func(t *storage.Tree) { t.Pages[1] = page("b", "B", "ONE\ntwo\nthree\nfour\nfive\n") },
			func(t *storage.Tree) { t.Pages[1] = page("b", "B", "one\ntwo\nthree\nfour\nFIVE\n") },
			"a(A|one/two/three/four/five/)[a1(A1|one/two/three/four/five/)] b(B|ONE/two/three/four/FIVE/) c(C|one/two/three/four/five/)"},
		{"both sides, same line", func(t *storage.Tree) { t.Pages[1] = page("b", "B", "ONE\ntwo\nthree\nfour\nfive\n") },
			func(t *storage.Tree) { t.Pages[1] = page("b", "B", "uno\ntwo\nthree\nfour\nfive\n") }, ""},
		{"title on both sides", func(t *storage.Tree) { t.Pages[1] = page("b", "X", body) },
			func(t *storage.Tree) { t.Pages[1] = page("b", "Y", body) }, ""},
		{"adds on both sides", func(t *storage.Tree) { t.Pages = append(t.Pages, page("m", "M", "")) },
			func(t *storage.Tree) { t.Pages[0].Children = append(t.Pages[0].Children, page("n", "N", "")) },
			"a(A|one/two/three/four/five/)[a1(A1|one/two/three/four/five/) n(N|)] b(B|one/two/three/four/five/) c(C|one/two/three/four/five/) m(M|)"},
		{"delete and untouched", func(t *storage.Tree) { t.Pages = t.Pages[:2] }, func(*storage.Tree) {},
			"a(A|one/two/three/four/five/)[a1(A1|one/two/three/four/five/)] b(B|one/two/three/four/five/)"},
		{"delete and edit", func(t *storage.Tree) { t.Pages = t.Pages[:2] }, func(t *storage.Tree) { t.Pages[2] = page("c", "C2", body) }, ""},
		{"reorder and edit", func(t *storage.Tree) { t.Pages[0], t.Pages[2] = t.Pages[2], t.Pages[0] },
			func(t *storage.Tree) { t.Pages[1] = page("b", "B2", body) },
			"c(C|one/two/three/four/five/) b(B2|one/two/three/four/five/) a(A|one/two/three/four/five/)[a1(A1|one/two/three/four/five/)]"},
		{"move on one side", func(*storage.Tree) {}, func(t *storage.Tree) {
			c := t.Pages[2]
			t.Pages = t.Pages[:2]
			t.Pages[1].Children = []*storage.TreePage{c}
		}, "a(A|one/two/three/four/five/)[a1(A1|one/two/three/four/five/)] b(B|one/two/three/four/five/)[c(C|one/two/three/four/five/)]"},
		{"child added under a deleted parent", func(t *storage.Tree) { t.Pages = t.Pages[1:] },
			func(t *storage.Tree) { t.Pages[0].Children = append(t.Pages[0].Children, page("n", "N", "")) }, ""},
	}
	for _, c := range cases {
		ours, theirs := base(), base()
		c.ours(ours)
		c.theirs(theirs)
		got, err := Trees(base(), ours, theirs)
		var ce *ConflictError
		switch {
		case c.want == "" && !errors.As(err, &ce):
			t.Errorf("%s: want a conflict, got %v %v", c.name, err, got)
		case c.want != "" && err != nil:
			t.Errorf("%s: %v", c.name, err)
		case c.want != "" && shape(got) != c.want:
			t.Errorf("%s:\n got %s\nwant %s", c.name, shape(got), c.want)
		}
	}
}

// TestTreesSharesUnchangedPages: pages taken from one side keep their
// version (no rewrite); a page merged from both sides is marked dirty.
func TestTreesSharesUnchangedPages(t *testing.T) {
	base := tree(page("a", "A", "x\ny\nz\nw\n"), page("b", "B", ""))
	ours := tree(page("a", "A", "X\ny\nz\nw\n"), page("b", "B", ""))
	theirs := tree(page("a", "A", "x\ny\nz\nW\n"), page("b", "B2", ""))
	got, err := Trees(base, ours, theirs)
	if err != nil {
		t.Fatal(err)
	}
	if !got.Pages[0].Dirty || got.Pages[0].Markdown != "X\ny\nz\nW\n" {
		t.Errorf("merged page: dirty=%v %q", got.Pages[0].Dirty, got.Pages[0].Markdown)
	}
	if got.Pages[1].Dirty || got.Pages[1].Version != theirs.Pages[1].Version {
		t.Errorf("one-side page should keep the branch's version: %+v", got.Pages[1])
	}
}

// A merge carries the revision's variables and reusable contents: a change
// on one side is kept, the same change on both is one, different changes
// to one name conflict, and a deletion goes through unless the other side
// changed the item.
func TestTreesMergesVariablesAndReusableContents(t *testing.T) {
	withData := func(vars map[string]any, reusable ...map[string]any) *storage.Tree {
		tr := tree(page("a", "A", "x\n"))
		tr.Variables, tr.ReusableContents = vars, reusable
		return tr
	}
	rc := func(id, title string) map[string]any { return map[string]any{"id": id, "title": title} }
	base := withData(map[string]any{"version": "1", "os": "linux"}, rc("r1", "Intro"), rc("r2", "Outro"))
	ours := withData(map[string]any{"version": "1", "os": "linux", "arch": "amd64"}, rc("r1", "Intro"), rc("r2", "Outro"), rc("r3", "Added"))
	theirs := withData(map[string]any{"version": "2", "os": "linux"}, rc("r1", "Intro, edited"))
	got, err := Trees(base, ours, theirs)
	if err != nil {
		t.Fatal(err)
	}
	if want := map[string]any{"version": "2", "os": "linux", "arch": "amd64"}; !reflect.DeepEqual(got.Variables, want) {
		t.Errorf("variables %v, want %v", got.Variables, want)
	}
	if want := []map[string]any{rc("r1", "Intro, edited"), rc("r3", "Added")}; !reflect.DeepEqual(got.ReusableContents, want) {
		t.Errorf("reusable contents %v, want %v", got.ReusableContents, want)
	}

	clash := withData(map[string]any{"version": "3", "os": "linux"}, rc("r1", "Intro"), rc("r2", "Outro"))
	if _, err := Trees(base, clash, theirs); err == nil || !strings.Contains(err.Error(), "variable version: changed on both sides") {
		t.Errorf("both sides changed one variable: %v", err)
	}
	edited := withData(map[string]any{"version": "1", "os": "linux"}, rc("r1", "Intro"), rc("r2", "Outro, edited"))
	if _, err := Trees(base, edited, theirs); err == nil || !strings.Contains(err.Error(), "reusable content r2: changed on one side and deleted on the other") {
		t.Errorf("changed on one side, deleted on the other: %v", err)
	}
}
