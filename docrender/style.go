package docrender

import (
	"strings"

	"github.com/alecthomas/chroma/v2/styles"
)

// CodeCSS is the stylesheet of highlighted code: each theme only where it
// is the page's (chosen with data-theme, else the system's), so that a
// token one theme colours and the other does not never keeps the wrong
// colour.
func CodeCSS() string {
	css := func(style, scope string) string {
		var b strings.Builder
		if err := formatter.WriteCSS(&b, styles.Get(style)); err != nil {
			return ""
		}
		out := b.String()
		if scope != "" {
			out = strings.ReplaceAll(out, ".chroma", scope+" .chroma")
		}
		// The page styles the block (background, padding): only tokens here.
		var keep []string
		for _, line := range strings.Split(out, "\n") {
			if strings.Contains(line, "/* Background */") || strings.Contains(line, "/* PreWrapper */") {
				continue
			}
			if i := strings.Index(line, "*/ "); strings.HasPrefix(line, "/*") && i > 0 {
				line = line[i+3:]
			}
			keep = append(keep, line)
		}
		return strings.Join(keep, "\n")
	}
	return css("github", "[data-theme=light]") + "\n" + css("github-dark", "[data-theme=dark]") +
		"\n@media (prefers-color-scheme: light) {\n" + css("github", ":root:not([data-theme=dark])") + "\n}\n" +
		"\n@media (prefers-color-scheme: dark) {\n" + css("github-dark", ":root:not([data-theme=light])") + "\n}\n"
}
