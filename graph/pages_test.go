package graph

import (
	"context"
	"strings"
	"testing"

	"docsapi/storage"
)

func TestLinkClassification(t *testing.T) {
	an := &analyzer{publicURL: "https://docs.example.com"}
	page := func(id, path string, children ...*storage.TreePage) *storage.TreePage {
		return &storage.TreePage{ContentPage: storage.ContentPage{ID: id, Type: "document", Path: path}, Children: children}
	}
	guide := page("g", "guides/install")
	tree := &storage.Tree{
		Pages: []*storage.TreePage{page("h", "home"), page("gs", "guides", guide, page("a", "guides/advanced"))},
		Files: []*storage.File{{ID: "f1", Name: "shot.png"}},
	}
	guide.Markdown = "[adv](advanced.md) [home](/home) [home2](../home.md#top) [self](#anchor) [readme](../guides/README.md) " +
		"![img](images/shot.png) [gone](nope.md) ![lost](lost.png) [ext](https://example.org/x) [app](https://docs.example.com/app/x) " +
		"[space](https://docs.example.com/spaces/s1) [col](https://docs.example.com/collections/c1) <https://example.org/auto>"
	got := an.Links(guide, tree)
	want := []storage.PageLink{
		{Kind: "page", Target: "a"}, {Kind: "page", Target: "h"}, {Kind: "page", Target: "h"}, {Kind: "page", Target: "gs"},
		{Kind: "file", Target: "f1"}, {Kind: "page"}, {Kind: "file"}, {Kind: "url", Target: "https://example.org/x"},
		{Kind: "url", Target: "https://docs.example.com/app/x", InApp: true}, {Kind: "space", Target: "s1"}, {Kind: "collection", Target: "c1"},
		{Kind: "url", Target: "https://example.org/auto"},
	}
	if len(got) != len(want) {
		t.Fatalf("links: %+v", got)
	}
	for i := range want {
		if got[i].Kind != want[i].Kind || got[i].Target != want[i].Target || got[i].InApp != want[i].InApp {
			t.Errorf("link %d (%s): got %+v, want %+v", i, got[i].Dest, got[i], want[i])
		}
	}
}

// A page edit asks for the revision's file list only to check a cover: a
// page created or updated without one does not read it (PageTree.Files
// reads the whole list on a partial edit).
func TestPageSettingsReadFilesOnlyForACover(t *testing.T) {
	asked := 0
	files := func() []*storage.File {
		asked++
		return []*storage.File{{ID: "f1", Name: "cover.png"}}
	}
	p := &storage.TreePage{ContentPage: storage.ContentPage{ID: "p", Type: "document"}}
	if err := applyPageSettings(files, p, map[string]any{"width": "wide"}, nil, map[string]any{"v": "1"}); err != nil || asked != 0 {
		t.Fatalf("without a cover: %v, file list asked for %d times", err, asked)
	}
	cover := map[string]any{"ref": map[string]any{"kind": "file", "file": "f1"}}
	if err := applyPageSettings(files, p, nil, cover, nil); err != nil || asked != 1 || p.Meta.Cover == nil {
		t.Fatalf("with a cover: %v, file list asked for %d times, cover %v", err, asked, p.Meta.Cover)
	}
	cover = map[string]any{"ref": map[string]any{"kind": "file", "file": "missing"}}
	if err := applyPageSettings(files, p, nil, cover, nil); err == nil {
		t.Fatal("a cover naming no file of the revision was accepted")
	}
}

// TestBodiesPreparedBeforeTheWrite: the analyses prepareBodies makes
// (before the write transaction) are the ones the write's analyzer uses,
// so nothing is parsed under the writer; a body over the bounds is
// analyzed without parsing (no links).
func TestBodiesPreparedBeforeTheWrite(t *testing.T) {
	body, hostile := "# T\n\n[a](b.md)\n", strings.Repeat(">", 1000)+" x"
	ctx, err := prepareBodies(context.Background(), body)
	if err != nil {
		t.Fatal(err)
	}
	ctx, _ = prepareBodies(ctx, hostile) // a second preparation keeps the first
	r := &Resolver{}
	an := r.analyzerFor(ctx)
	if len(an.prepared) != 2 || an.analysis(body) != an.prepared[body] || an.analysis(hostile) != an.prepared[hostile] {
		t.Fatalf("prepared: %v", an.prepared)
	}
	if links := an.Links(&storage.TreePage{ContentPage: storage.ContentPage{Markdown: hostile}}, &storage.Tree{}); links != nil {
		t.Fatalf("links of a body over the bounds: %v", links)
	}
	canceled, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := prepareBodies(canceled, body); err == nil {
		t.Fatal("prepared for a client that left")
	}
}
