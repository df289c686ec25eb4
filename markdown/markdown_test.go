package markdown

import (
	"encoding/json"
	"strings"
	"testing"
)

const sample = "# Guide\n\nIntro with [a page](other.md) and <https://example.com>.\n\n## Install\n\nRun `make`.\n\n![logo](logo.png)\n\n- [x] done\n- [ ] todo\n\n> [!WARNING]\n> Careful **now**\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n---\n\n```go\nfmt.Println(1)\n```\n\n### Deep\n\n#### Deeper\n\ntext\n"

func TestLinks(t *testing.T) {
	links := Links(sample)
	var dests []string
	for _, l := range links {
		dests = append(dests, l.Dest)
	}
	if got := strings.Join(dests, " "); got != "other.md https://example.com logo.png" {
		t.Fatalf("links: %q", got)
	}
	if !links[2].Image || links[0].Text != "a page" {
		t.Fatalf("link details: %+v", links)
	}
}

func TestDocument(t *testing.T) {
	doc := ToDocument(sample, nil)
	var types []string
	for _, n := range doc.Nodes {
		types = append(types, n.Type)
	}
	want := "heading-1 paragraph heading-2 paragraph images list-tasks hint table divider code heading-3 heading-3 paragraph"
	if got := strings.Join(types, " "); got != want {
		t.Fatalf("blocks:\n got %s\nwant %s", got, want)
	}
	raw, _ := json.Marshal(doc)
	for _, frag := range []string{`"checked":true`, `"style":"warning"`, `"type":"bold"`, `"syntax":"go"`, `"kind":"url","url":"other.md"`, `"schemaVersion":1`} {
		if !strings.Contains(string(raw), frag) {
			t.Errorf("document lacks %s: %s", frag, raw)
		}
	}
	hint := doc.Nodes[6]
	if txt := hint.Nodes[0].Nodes[0].Leaves[0].Text; txt != "Careful " {
		t.Errorf("hint text %q", txt)
	}
}

func TestSections(t *testing.T) {
	secs := Sections(sample)
	if len(secs) != 4 || secs[1].ID != "install" || !strings.Contains(secs[1].Body, "Run make") {
		t.Fatalf("sections: %+v", secs)
	}
	if Title(sample) != "Guide" || StripTitle(sample, "Guide")[:5] != "Intro" {
		t.Fatal("title")
	}
	if Slugify("Héllo, World!") != "hello-world" {
		t.Fatal(Slugify("Héllo, World!"))
	}
}

// Plain text (section titles, search text, document leaves) is what the
// Markdown shows: escapes and entities resolved, code spans byte for byte.
func TestPlainTextResolvesEscapes(t *testing.T) {
	src := "## \\[fr\\] Home &amp; more\n\nA \\*b\\* and `\\[kept\\]`.\n"
	secs := Sections(src)
	if len(secs) != 1 || secs[0].Title != "[fr] Home & more" || secs[0].ID != "fr-home-more" || secs[0].Body != "A *b* and \\[kept\\]." {
		t.Fatalf("sections %+v", secs)
	}
	var blocks []string
	for _, block := range ToDocument(src, nil).Nodes {
		text := ""
		for _, n := range block.Nodes {
			if n.Object == "text" {
				text += n.Leaves[0].Text
			}
		}
		blocks = append(blocks, text)
	}
	if got := strings.Join(blocks, "|"); got != "[fr] Home & more|A *b* and \\[kept\\]." {
		t.Errorf("document text %q", got)
	}
}

// FuzzPlainText: plain text and documents of any Markdown never panic, and
// plain text carries no backslash escape of Markdown punctuation outside code.
func FuzzPlainText(f *testing.F) {
	f.Add("## \\[fr\\] Home &amp; more\n\nA \\*b\\* and `\\[kept\\]`.\n")
	f.Add("# T\n\n- a\n- [x] b\n\n| a | b |\n|---|---|\n| 1 | 2 |\n")
	f.Add("&#x26; &#38; &copy; \\\\ \\")
	f.Fuzz(func(t *testing.T, src string) {
		for _, s := range Sections(src) {
			if strings.Contains(s.Title, "\\[") && !strings.Contains(src, "\\\\[") && !strings.Contains(src, "`") && !strings.Contains(src, "&") {
				t.Fatalf("section title %q keeps an escape (source %q)", s.Title, src)
			}
		}
		ToDocument(src, nil)
		OneLine(src)
	})
}
