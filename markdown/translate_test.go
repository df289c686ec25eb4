package markdown

import (
	"strings"
	"testing"
)

// upper "translates" every run to upper case, so whatever stays lower case
// was not touched.
func upper(src string) string {
	runs := TextRuns(src)
	out := make([]string, len(runs))
	for i, r := range runs {
		out[i] = strings.ToUpper(r.Text)
	}
	return ReplaceRuns(src, runs, out)
}

func TestTextRunsKeepStructure(t *testing.T) {
	src := "# Getting started\n\nInstall the tool with `npm install tool` and read\nthe [guide](https://example.com/guide \"title\").\n\n" +
		"- first *item* here\n- second **bold** item\n  continued\n\n1. step one\n\n> a quote\n> on two lines\n\n" +
		"```go\nfunc main() { println(\"hi\") }\n```\n\n![a diagram](images/diagram.png)\n\n| name | value |\n|---|---|\n| size | large |\n\n" +
		"<div class=\"note\">raw html</div>\n\nVisit https://example.org/x now.\n\n- [ ] a task\n"
	want := "# GETTING STARTED\n\nINSTALL THE TOOL WITH `npm install tool` AND READ THE [GUIDE](https://example.com/guide \"title\").\n\n" +
		"- FIRST *ITEM* HERE\n- SECOND **BOLD** ITEM CONTINUED\n\n1. STEP ONE\n\n> A QUOTE\n> ON TWO LINES\n\n" +
		"```go\nfunc main() { println(\"hi\") }\n```\n\n![A DIAGRAM](images/diagram.png)\n\n| NAME | VALUE |\n|---|---|\n| SIZE | LARGE |\n\n" +
		"<div class=\"note\">raw html</div>\n\nVISIT https://example.org/x NOW.\n\n- [ ] A TASK\n"
	if got := upper(src); got != want {
		t.Fatalf("got:\n%s\nwant:\n%s", got, want)
	}
}

func TestSafeTextEscapesNewMarkup(t *testing.T) {
	if got := SafeText("a *b*\n[c] | d", "a b c d"); got != `a \*b\* \[c\] \| d` {
		t.Fatalf("got %q", got)
	}
	if got := SafeText("x * y", "x * y"); got != "x * y" {
		t.Fatalf("got %q", got)
	}
}

func TestOneLineKeepsPlainText(t *testing.T) {
	if got := OneLine(" [fr]  Home *x*\n| y "); got != "[fr] Home *x* | y" {
		t.Errorf("OneLine %q", got)
	}
}
