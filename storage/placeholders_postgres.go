package storage

import (
	"strconv"
	"strings"
	"sync"
)

// The storage writes `?` placeholders (SQLite's); PostgreSQL numbers them
// ($1, $2, ...). rewritePlaceholders translates one statement, leaving
// alone what is not a placeholder: string literals ('it''s ?'), quoted
// identifiers ("a?b"), dollar-quoted bodies ($$ ... $$, $fn$ ... $fn$) and
// comments (-- ?, /* ? */). The statements are a bounded set of constants,
// so each translation is kept.

// maxRewrites bounds the kept translations (SQL built with a varying
// number of placeholders is translated again past it).
const maxRewrites = 8192

var rewrites struct {
	sync.RWMutex
	m map[string]string
}

func rewritePlaceholders(q string) string {
	if c := pgCounterStatement(q); c != "" {
		return c
	}
	if !strings.ContainsRune(q, '?') {
		return q
	}
	rewrites.RLock()
	out, ok := rewrites.m[q]
	rewrites.RUnlock()
	if ok {
		return out
	}
	out = numberPlaceholders(q)
	rewrites.Lock()
	if rewrites.m == nil {
		rewrites.m = map[string]string{}
	}
	if len(rewrites.m) < maxRewrites {
		rewrites.m[q] = out
	}
	rewrites.Unlock()
	return out
}

// numberPlaceholders does the translation (uncached).
func numberPlaceholders(q string) string {
	var b strings.Builder
	b.Grow(len(q) + 16)
	n := 0
	for i := 0; i < len(q); {
		c := q[i]
		switch {
		case c == '?':
			n++
			b.WriteByte('$')
			b.WriteString(strconv.Itoa(n))
			i++
			continue
		case c == '\'' || c == '"':
			end := closing(q, i+1, c)
			b.WriteString(q[i:end])
			i = end
			continue
		case c == '-' && i+1 < len(q) && q[i+1] == '-':
			end := strings.IndexByte(q[i:], '\n')
			if end < 0 {
				end = len(q) - i
			}
			b.WriteString(q[i : i+end])
			i += end
			continue
		case c == '/' && i+1 < len(q) && q[i+1] == '*':
			end := blockCommentEnd(q, i)
			b.WriteString(q[i:end])
			i = end
			continue
		case c == '$':
			if tag, ok := dollarTag(q, i); ok {
				end := strings.Index(q[i+len(tag):], tag)
				if end < 0 {
					end = len(q)
				} else {
					end = i + len(tag) + end + len(tag)
				}
				b.WriteString(q[i:end])
				i = end
				continue
			}
		}
		b.WriteByte(c)
		i++
	}
	return b.String()
}

// closing is the index just past the quote that closes a literal or
// identifier opened before start (a doubled quote stays inside); len(q)
// when it is never closed.
func closing(q string, start int, quote byte) int {
	for i := start; i < len(q); i++ {
		if q[i] == quote {
			if i+1 < len(q) && q[i+1] == quote {
				i++
				continue
			}
			return i + 1
		}
	}
	return len(q)
}

// blockCommentEnd is the index just past the comment opened at start
// (PostgreSQL's block comments nest).
func blockCommentEnd(q string, start int) int {
	depth := 0
	for i := start; i+1 < len(q); i++ {
		switch {
		case q[i] == '/' && q[i+1] == '*':
			depth++
			i++
		case q[i] == '*' && q[i+1] == '/':
			depth--
			i++
			if depth == 0 {
				return i + 1
			}
		}
	}
	return len(q)
}

// dollarTag is the $tag$ opening a dollar-quoted string at i, if one does
// ($1 is a parameter, not a tag: a tag does not start with a digit).
func dollarTag(q string, i int) (string, bool) {
	if i > 0 && isIdentChar(q[i-1]) { // a$b$ is an identifier
		return "", false
	}
	for j := i + 1; j < len(q); j++ {
		c := q[j]
		switch {
		case c == '$':
			return q[i : j+1], true
		case c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= 0x80 || (c >= '0' && c <= '9' && j > i+1):
		default:
			return "", false
		}
	}
	return "", false
}

func isIdentChar(c byte) bool {
	return c == '_' || c == '$' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c >= 0x80
}
