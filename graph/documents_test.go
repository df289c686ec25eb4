package graph

import (
	"fmt"
	"strings"
	"testing"

	"docsapi/storage"
)

var lookupFiles = []storage.File{{ID: "f2", Name: "logo.png"}, {ID: "f1", Name: "logo.png"}, {ID: "f3", Name: "spec.pdf"}}

// A body's links are read as the links analysis reads a page's from the
// path from: file names resolved at once (the first file of a name), page
// paths left to look up (relative to from's folder, then to from itself;
// .md, README and anchors understood), each destination once; outside
// URLs, anchors and includes are not looked up.
func TestBodyLinkLookups(t *testing.T) {
	body := "[a](guide/setup.md#install) [a again](guide/setup.md#install) [b](../other/README.md) [c](/top) ![d](img/logo.png) " +
		"[e](spec.pdf) [f](https://example.com/x.md) [g](#here) [h](mailto:a@b.c) [i](missing.png)\n"
	for _, c := range []struct{ from, resolved, pending, paths string }{
		{"", "map[img/logo.png:{file f1} spec.pdf:{file f3}]",
			"guide/setup.md#install>guide/setup; ../other/README.md>other; /top>top",
			"[guide/setup other top]"},
		{"part/page", "map[img/logo.png:{file f1} spec.pdf:{file f3}]",
			"guide/setup.md#install>part/guide/setup|part/page/guide/setup; ../other/README.md>other|part/other; /top>top",
			"[part/guide/setup part/page/guide/setup other part/other top]"},
	} {
		resolved, pending, paths := bodyLinkLookups(c.from, body, lookupFiles)
		var ps []string
		for _, p := range pending {
			s := p.Dest + ">" + p.Lookup
			if p.LookupAlt != "" {
				s += "|" + p.LookupAlt
			}
			ps = append(ps, s)
		}
		if got := fmt.Sprint(resolved); got != c.resolved {
			t.Errorf("from %q: resolved %s, want %s", c.from, got, c.resolved)
		}
		if got := strings.Join(ps, "; "); got != c.pending {
			t.Errorf("from %q: pending %s, want %s", c.from, got, c.pending)
		}
		if got := fmt.Sprint(paths); got != c.paths {
			t.Errorf("from %q: paths %s, want %s", c.from, got, c.paths)
		}
	}
}

// A body naming more pages than maxBodyLinkPaths looks up that many paths
// at most.
func TestBodyLinkLookupsBounded(t *testing.T) {
	var b strings.Builder
	for i := range maxBodyLinkPaths + 50 {
		fmt.Fprintf(&b, "[p](page-%d.md) ", i)
	}
	_, pending, paths := bodyLinkLookups("", b.String(), nil)
	if len(paths) != maxBodyLinkPaths || len(pending) != maxBodyLinkPaths {
		t.Errorf("%d paths, %d pending; want %d", len(paths), len(pending), maxBodyLinkPaths)
	}
}

// FuzzBodyLinkLookups: any body and page path gives at most
// maxBodyLinkPaths distinct paths, every pending link naming one of them,
// and only destinations the body holds, without panicking.
func FuzzBodyLinkLookups(f *testing.F) {
	f.Add("", "[a](guide/setup.md#x) ![b](logo.png) [c](https://e.x/) [d](/top)")
	f.Add("part/page", "[a](../README.md) <img src=\"logo.png\"> {% content-ref url=\"x.md\" %}[x](x.md){% endcontent-ref %}")
	f.Add("a/b/c", "[a](<my page.md>) [b](%2e%2e/x) [c](./)")
	f.Fuzz(func(t *testing.T, from, body string) {
		if len(body) > 1<<16 || len(from) > 1<<10 {
			return
		}
		resolved, pending, paths := bodyLinkLookups(from, body, lookupFiles)
		if len(paths) > maxBodyLinkPaths {
			t.Fatalf("%d paths", len(paths))
		}
		named := map[string]bool{}
		for _, p := range paths {
			if named[p] {
				t.Fatalf("path %q twice", p)
			}
			named[p] = true
		}
		for _, p := range pending {
			if !named[p.Lookup] || !strings.Contains(body, p.Dest) {
				t.Fatalf("pending %+v outside %v", p, paths)
			}
		}
		for d, tg := range resolved {
			if tg.Kind != "file" || !strings.Contains(body, d) {
				t.Fatalf("resolved %q %+v", d, tg)
			}
		}
	})
}

// BenchmarkBodyDocumentRead: what a reusable content's document read
// costs besides the store, for a body of 200 paragraphs each with a page
// link, a file link and a URL: the link lookups (run on every read) and
// the document (cached after the first read).
func BenchmarkBodyDocumentRead(b *testing.B) {
	var sb strings.Builder
	for i := range 200 {
		fmt.Fprintf(&sb, "Paragraph %d: [page](guide/page-%d.md#s) ![logo](logo.png) [out](https://example.com/%d).\n\n", i, i, i)
	}
	body := sb.String()
	links := map[string]storage.LinkTarget{}
	for i := range 200 {
		links[fmt.Sprintf("guide/page-%d.md#s", i)] = storage.LinkTarget{Kind: "page", Target: fmt.Sprintf("p%d", i)}
	}
	b.Run("lookups", func(b *testing.B) {
		for b.Loop() {
			bodyLinkLookups("", body, lookupFiles)
		}
	})
	b.Run("document", func(b *testing.B) {
		for b.Loop() {
			readerDocument(body, lookupFiles, links)
		}
	})
}
