// Package docs holds the user documentation: one Markdown page a topic,
// embedded in the binary so that a running server serves them at /docs/.
package docs

import "embed"

// Pages are the documentation pages (the *.md files of this folder).
//
//go:embed *.md
var Pages embed.FS
