package contentkit_test

import (
	"encoding/json"
	"errors"
	"html/template"
	"net/url"
	"strings"
	"testing"

	"docsapi/contentkit"
)

func decode(t testing.TB, s string) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(s), &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// everyElement is a block with each element the package renders, and a
// select it skips.
const everyElement = `{"type":"block","children":[
 {"type":"vstack","align":"center","children":[
  {"type":"text","children":["Plain ",{"type":"text","style":"bold","children":"bold"}," ",{"type":"text","style":"italic","children":"italic"}," ",{"type":"text","style":"code","children":"x := 1"}," ",{"type":"text","style":"strikethrough","children":"gone"}," ",{"type":"link","target":{"url":"https://example.com/a"},"children":["a link"]}]},
  {"type":"markdown","content":"## From markdown\n\nSome *emphasis*."},
  {"type":"codeblock","syntax":"go","content":"func main() {}\n"},
  {"type":"image","source":{"url":"https://example.com/i.png"},"aspectRatio":2},
  {"type":"divider"},
  {"type":"hstack","children":[
   {"type":"box","children":[{"type":"button","label":"Open docs","style":"primary","onPress":{"action":"@ui.url.open","url":"https://example.com/docs"}}]},
   {"type":"button","label":"Re-render","onPress":{"action":"refresh"}}]},
  {"type":"card","title":"A card","hint":"its hint","onPress":{"action":"@ui.url.open","url":"https://example.com/card"},"children":[{"type":"text","children":"card body"}]},
  {"type":"input","label":"Name","element":{"type":"textinput","state":"name","initialValue":"Ada"}},
  {"type":"hint","children":[{"type":"text","children":"a hint"}]},
  {"type":"webframe","source":{"url":"/frames/chart"},"aspectRatio":1.5},
  {"type":"webframe","source":{"url":"https://elsewhere.example/f"}},
  {"type":"select","state":"s","options":[{"id":"1","label":"SKIPPED-SELECT"}]}
 ]}]}`

func TestEveryElement(t *testing.T) {
	o := contentkit.Options{
		Markdown: func(src string) template.HTML {
			return template.HTML("<h2>md:" + template.HTMLEscapeString(src[3:16]) + "</h2>")
		},
		Frame: func(u *url.URL) bool { return u.Host == "" },
	}
	out, err := contentkit.Render(decode(t, everyElement), o)
	if err != nil {
		t.Fatal(err)
	}
	h := string(out.HTML)
	for _, want := range []string{
		`<div class="ck-vstack ck-align-center">`, "<strong>bold</strong>", "<em>italic</em>", "<code>x := 1</code>", "<s>gone</s>",
		`<a href="https://example.com/a" rel="noopener nofollow">a link</a>`, "<h2>md:From markdown</h2>",
		`<pre class="ck-code language-go"><code>func main() {}`, `<img class="ck-image" src="https://example.com/i.png"`, "aspect-ratio:2.0000",
		`<hr class="ck-divider">`, `<div class="ck-hstack">`, `<div class="ck-box">`,
		`<a class="ck-button ck-primary" href="https://example.com/docs"`, `<button class="ck-button" type="button" disabled>Re-render</button>`,
		`<div class="ck-card">`, `href="https://example.com/card"`, "its hint", "card body",
		`<input class="ck-textinput" type="text" disabled value="Ada"`, `<p class="ck-hint">a hint</p>`,
		`<iframe class="ck-webframe" sandbox="allow-scripts allow-popups" src="/frames/chart"`,
		`<p class="ck-webframe-link"><a href="https://elsewhere.example/f"`,
	} {
		if !strings.Contains(h, want) {
			t.Errorf("HTML lacks %q:\n%s", want, h)
		}
	}
	if strings.Contains(h, "SKIPPED") || strings.Contains(out.Markdown, "SKIPPED") {
		t.Errorf("a select was rendered")
	}
	for _, want := range []string{"**bold**", "_italic_", "`x := 1`", "~~gone~~", "[a link](<https://example.com/a>)",
		"## From markdown", "```go\nfunc main() {}\n```", "![](<https://example.com/i.png>)", "---",
		"[Open docs](<https://example.com/docs>)", "Re-render", "**[A card](<https://example.com/card>)**", "Name: Ada", "> a hint",
		"[/frames/chart](</frames/chart>)"} {
		if !strings.Contains(out.Markdown, want) {
			t.Errorf("Markdown lacks %q:\n%s", want, out.Markdown)
		}
	}
}

// Script URLs, markup in text and attribute breaking never come through.
func TestHostileOutput(t *testing.T) {
	out, err := contentkit.Render(decode(t, `{"type":"block","children":[
	 {"type":"text","children":"<script>alert(1)</script>"},
	 {"type":"link","target":{"url":"javascript:alert(1)"},"children":"x"},
	 {"type":"image","source":{"url":"javascript:alert(1)"},"aspectRatio":1},
	 {"type":"image","source":{"url":"https://e.test/\"onerror=\"x"},"aspectRatio":1},
	 {"type":"button","label":"b","onPress":{"action":"@ui.url.open","url":"data:text/html,x"}},
	 {"type":"webframe","source":{"url":"javascript:alert(1)"}},
	 {"type":"webframe","source":{"url":"//evil.test/x"}},
	 {"type":"webframe","source":{"url":"/\\evil.test/x"}},
	 {"type":"codeblock","syntax":"go\" onload=\"x","content":"</code><script>"},
	 {"type":"markdown","content":"<img src=x onerror=alert(1)>"}]}`), contentkit.Options{Frame: func(*url.URL) bool { return true }})
	if err != nil {
		t.Fatal(err)
	}
	h := string(out.HTML)
	for _, bad := range []string{"<script", "javascript:", "data:text", `"onerror`, "onload=", "<img src=x", "evil.test"} {
		if strings.Contains(h, bad) {
			t.Errorf("HTML holds %q:\n%s", bad, h)
		}
	}
}

func TestBounds(t *testing.T) {
	deep := `{"type":"text","children":"x"}`
	for range 40 {
		deep = `{"type":"box","children":[` + deep + `]}`
	}
	if _, err := contentkit.Render(decode(t, `{"type":"block","children":[`+deep+`]}`), contentkit.Options{}); !errors.Is(err, contentkit.ErrTooLarge) {
		t.Errorf("40 levels: %v", err)
	}
	wide := strings.TrimSuffix(strings.Repeat(`{"type":"divider"},`, 50), ",")
	if _, err := contentkit.Render(decode(t, `{"type":"block","children":[`+wide+`]}`), contentkit.Options{MaxNodes: 10}); !errors.Is(err, contentkit.ErrTooLarge) {
		t.Errorf("50 nodes past a bound of 10: %v", err)
	}
	if _, err := contentkit.Render(decode(t, `{"type":"block","children":[`+wide+`]}`), contentkit.Options{}); err != nil {
		t.Errorf("50 nodes: %v", err)
	}
	if _, err := contentkit.Render(decode(t, `{"type":"modal","children":[]}`), contentkit.Options{}); !errors.Is(err, contentkit.ErrNotBlock) {
		t.Errorf("a modal: %v", err)
	}
}
