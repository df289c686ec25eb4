package docrender

import (
	"strings"

	"github.com/alecthomas/chroma/v2/styles"
)

// CodeCSS is the stylesheet of highlighted code: the light theme, and the
// dark one under [data-theme=dark] and, for readers who chose the system's
// theme (no data-theme), under prefers-color-scheme: dark.
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
			keep = append(keep, line)
		}
		return strings.Join(keep, "\n")
	}
	return css("github", "") + "\n" + css("github-dark", "[data-theme=dark]") +
		"\n@media (prefers-color-scheme: dark) {\n" + css("github-dark", ":root:not([data-theme=light])") + "\n}\n"
}
