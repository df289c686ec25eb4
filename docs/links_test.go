// Package docs holds the user documentation (Markdown pages); its test
// checks that every relative link of the README and the pages resolves.
package docs

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// mdLink matches a Markdown link or image target: ](target) or ](target "title").
var mdLink = regexp.MustCompile(`\]\(([^)\s]+)(?:\s+"[^"]*")?\)`)

// codeSpan matches inline code, whose text is no link.
var codeSpan = regexp.MustCompile("`[^`]*`")

// heading matches a Markdown heading line.
var heading = regexp.MustCompile(`(?m)^#{1,6} +(.+?) *$`)

// TestRelativeLinksResolve fails on a link to a file that does not exist
// or to an anchor that no heading of the target page makes. Links inside
// fenced code blocks and to other hosts are not checked.
func TestRelativeLinksResolve(t *testing.T) {
	pages, err := filepath.Glob("*.md")
	if err != nil {
		t.Fatal(err)
	}
	pages = append(pages, "../README.md")
	if len(pages) < 2 {
		t.Fatalf("found %v: no pages", pages)
	}
	for _, page := range pages {
		raw, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		for _, target := range links(string(raw)) {
			if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			file, anchor, _ := strings.Cut(target, "#")
			resolved := page
			if file != "" {
				resolved = filepath.Join(filepath.Dir(page), file)
				if _, err := os.Stat(resolved); err != nil {
					t.Errorf("%s links to %s: no such file", page, target)
					continue
				}
			}
			if anchor != "" && strings.HasSuffix(resolved, ".md") && !hasAnchor(t, resolved, anchor) {
				t.Errorf("%s links to %s: no heading makes the anchor #%s", page, target, anchor)
			}
		}
	}
}

// links are the link targets of a Markdown text outside code.
func links(text string) []string {
	var out []string
	fenced := false
	for _, line := range strings.Split(text, "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			fenced = !fenced
			continue
		}
		if fenced {
			continue
		}
		for _, m := range mdLink.FindAllStringSubmatch(codeSpan.ReplaceAllString(line, ""), -1) {
			out = append(out, m[1])
		}
	}
	return out
}

// hasAnchor tells whether a heading of the page makes anchor, as GitHub
// builds anchors: lower case, spaces to dashes, punctuation dropped.
func hasAnchor(t *testing.T, page, anchor string) bool {
	raw, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range heading.FindAllStringSubmatch(string(raw), -1) {
		if slug(m[1]) == anchor {
			return true
		}
	}
	return false
}

func slug(title string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(title) {
		switch {
		case r == ' ':
			b.WriteByte('-')
		case r == '-' || r == '_' || r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r > 127:
			b.WriteRune(r)
		}
	}
	return b.String()
}
