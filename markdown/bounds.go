package markdown

import (
	"fmt"
	"strings"
)

// Bounds of the Markdown this package parses. goldmark's cost grows with
// the square of block nesting (every line walks the open containers) and
// of link openings on one run of text (each `](` scans its destination to
// the next space), so Check measures both in one linear pass before
// anything is parsed: a page over a bound is refused on write, and read
// as plain text (never parsed) if one was stored before the bounds.
const (
	// MaxBody bounds one page body in bytes (API writes and imports).
	MaxBody = 1 << 20
	// MaxNesting bounds block containers (quotes, list items) nested in one
	// another; 4 columns of indentation count as one level.
	MaxNesting = 64
	// MaxLinks bounds the links and images of one body (`](`, `][`).
	MaxLinks = 10_000
	// MaxNodes bounds the nodes one body may make, estimated as its lines
	// plus its inline delimiters ([ ] ! * _ ~ ` < & | \ and ://) outside
	// fenced code: its document (about 400 bytes of memory and 100 of
	// JSON a node) stays under 25 MB and a few hundred milliseconds.
	MaxNodes = 50_000
	// MaxLinkScan bounds the bytes the link parser would scan for
	// destinations: each `](` costs the length of the text after it up to
	// the next space (the next > or line end after `](<`).
	MaxLinkScan = 16 << 20
)

// LimitError is a body over one of the bounds; Limit names it.
type LimitError struct {
	Limit string // "nesting", "links", "nodes", "linkScan"
	Max   int
	Found int
}

func (e *LimitError) Error() string {
	switch e.Limit {
	case "nesting":
		return fmt.Sprintf("nests blocks (quotes, lists) %d levels deep; at most %d are accepted", e.Found, e.Max)
	case "links":
		return fmt.Sprintf("has at least %d links and images; at most %d are accepted", e.Found, e.Max)
	case "linkScan":
		return fmt.Sprintf("has link openings \"](\" whose destinations would take scanning at least %d bytes; at most %d are accepted", e.Found, e.Max)
	}
	return fmt.Sprintf("has at least %d elements (lines and inline marks); at most %d are accepted", e.Found, e.Max)
}

// Check reports the first bound src exceeds (a *LimitError), or nil. It
// reads src once and allocates nothing; it stops at the first excess.
func Check(src string) error {
	var links, nodes, scan int
	var fence codeFence
	for len(src) > 0 {
		line := src
		if i := strings.IndexByte(src, '\n'); i >= 0 {
			line, src = src[:i], src[i+1:]
		} else {
			src = ""
		}
		nodes++
		d, content := lineNesting(line)
		if d > MaxNesting {
			return &LimitError{Limit: "nesting", Max: MaxNesting, Found: d}
		}
		// The lines of a fenced code block are text: their marks make no
		// nodes (code-heavy pages are not refused for their * and _).
		if fence.open(line) {
			if len(line) >= fence.col && fence.closes(line[fence.col:]) {
				fence = codeFence{}
			}
			if nodes > MaxNodes {
				return &LimitError{Limit: "nodes", Max: MaxNodes, Found: nodes}
			}
			continue
		}
		fence = codeFence{}
		if run := fenceRun(line[content:]); run != "" {
			fence = codeFence{prefix: line[:content], col: content, run: run}
			continue
		}
		// pending counts the `](` of the current space-free run and
		// starts sums their offsets: at the run's end each costs the
		// distance to it.
		pending, starts, closer := 0, 0, -1
		for i := 0; i < len(line); i++ {
			c := line[i]
			switch c {
			case ' ', '\t', '\r', '\f', '\v':
				scan += pending*i - starts
				pending, starts = 0, 0
			case '[', ']', '!', '*', '_', '~', '`', '<', '&', '|', '\\':
				nodes++
			case ':':
				if strings.HasPrefix(line[i:], "://") {
					nodes++
				}
			}
			if c == ']' && i+1 < len(line) && (line[i+1] == '(' || line[i+1] == '[') {
				links++
				if line[i+1] == '(' {
					if i+2 < len(line) && line[i+2] == '<' {
						// closer: the next > (or the line's end), found
						// once for all the openings before it
						if closer <= i {
							closer = len(line)
							if j := strings.IndexByte(line[i+3:], '>'); j >= 0 {
								closer = i + 3 + j
							}
						}
						scan += closer - i
					} else {
						pending++
						starts += i
					}
				}
			}
		}
		scan += pending*len(line) - starts
		switch {
		case links > MaxLinks:
			return &LimitError{Limit: "links", Max: MaxLinks, Found: links}
		case nodes > MaxNodes:
			return &LimitError{Limit: "nodes", Max: MaxNodes, Found: nodes}
		case scan > MaxLinkScan:
			return &LimitError{Limit: "linkScan", Max: MaxLinkScan, Found: scan}
		}
	}
	return nil
}

// lineNesting estimates the containers a line opens or continues: its
// quote markers and list markers at the start, and a level per 4 columns
// of indentation before and between them (blank lines nest nothing). It
// also returns where the line's content starts.
func lineNesting(line string) (depth, content int) {
	cols, i := 0, 0
	for i < len(line) {
		switch c := line[i]; {
		case c == ' ':
			cols++
			i++
		case c == '\t':
			cols += 4
			i++
		case c == '>':
			depth++
			i++
			if i < len(line) && line[i] == ' ' {
				i++ // the marker's own space
			}
		case (c == '-' || c == '*' || c == '+') && i+1 < len(line) && (line[i+1] == ' ' || line[i+1] == '\t'):
			depth++
			i += 2
		case c >= '0' && c <= '9':
			j := i
			for j < len(line) && j-i < 9 && line[j] >= '0' && line[j] <= '9' {
				j++
			}
			if j+1 < len(line) && (line[j] == '.' || line[j] == ')') && (line[j+1] == ' ' || line[j+1] == '\t') {
				depth++
				i = j + 2
				continue
			}
			return depth + cols/4, i
		default:
			return depth + cols/4, i
		}
	}
	if depth == 0 {
		return 0, i // blank: indentation alone nests nothing
	}
	return depth + cols/4, i
}

// codeFence is an open fenced code block: the container prefix of its
// opening line (up to col, where its run of ` or ~ starts) and that run.
type codeFence struct {
	prefix string
	col    int
	run    string
}

// open tells whether line continues the fence: blank, or continuing its
// containers (the opening's quote markers in place, spaces under its
// list markers). A line that does not closes the containers, and the
// fence with them: it is read as Markdown again.
func (f codeFence) open(line string) bool {
	if f.run == "" {
		return false
	}
	if strings.TrimSpace(line) == "" {
		return true
	}
	if len(line) < f.col {
		return false
	}
	for i := 0; i < f.col; i++ {
		switch p, c := f.prefix[i], line[i]; {
		case p == '>' && c != '>', p != '>' && c != ' ' && c != '\t':
			return false
		}
	}
	return true
}

// closes tells whether content (after the containers) is the fence's
// closing line: a run of its character at least as long, then spaces.
func (f codeFence) closes(content string) bool {
	content = strings.TrimLeft(content, " ")
	rest := strings.TrimLeft(content, f.run[:1])
	return len(content)-len(rest) >= len(f.run) && strings.TrimSpace(rest) == ""
}

// fenceRun is the run of ` or ~ (3 or more) that opens a fenced code
// block at the start of content, or "".
func fenceRun(content string) string {
	content = strings.TrimLeft(content, " ")
	if len(content) < 3 || content[0] != '`' && content[0] != '~' {
		return ""
	}
	n := len(content) - len(strings.TrimLeft(content, content[:1]))
	if n < 3 || content[0] == '`' && strings.Contains(content[n:], "`") {
		return ""
	}
	return content[:n]
}
