package storage

import (
	"regexp"
	"strconv"
	"strings"
	"testing"
)

func TestNumberPlaceholders(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{`SELECT 1`, `SELECT 1`},
		{`SELECT a FROM t WHERE x = ? AND y IN (?, ?)`, `SELECT a FROM t WHERE x = $1 AND y IN ($2, $3)`},
		{`SELECT '?', 'it''s ?', ? FROM t`, `SELECT '?', 'it''s ?', $1 FROM t`},
		{`SELECT "odd?name" FROM t WHERE a = ?`, `SELECT "odd?name" FROM t WHERE a = $1`},
		{"SELECT ? -- why?\n, ?", "SELECT $1 -- why?\n, $2"},
		{`SELECT /* a ? /* nested ? */ still ? */ ?`, `SELECT /* a ? /* nested ? */ still ? */ $1`},
		{`CREATE FUNCTION f() RETURNS int AS $$ SELECT '?' $$; SELECT ?`, `CREATE FUNCTION f() RETURNS int AS $$ SELECT '?' $$; SELECT $1`},
		{`DO $body$ ? $body$, ?`, `DO $body$ ? $body$, $1`},
		{`SELECT a$b$ FROM t WHERE c = ?`, `SELECT a$b$ FROM t WHERE c = $1`},
		{`SELECT 'unterminated ?`, `SELECT 'unterminated ?`},
		{`SELECT ?`, `SELECT $1`},
	} {
		if got := numberPlaceholders(c.in); got != c.want {
			t.Errorf("numberPlaceholders(%q) = %q, want %q", c.in, got, c.want)
		}
		if got := rewritePlaceholders(c.in); got != c.want {
			t.Errorf("rewritePlaceholders(%q) = %q, want %q (cached)", c.in, got, c.want)
		}
	}
}

// FuzzNumberPlaceholders: the translation never panics, changes nothing
// but question marks, and numbers the ones it replaces 1, 2, 3... in order.
func FuzzNumberPlaceholders(f *testing.F) {
	for _, s := range []string{`SELECT ?`, `'?' "?" -- ?` + "\n?", `/* ? */ $$?$$ ?`, `$a$ ? $a$ ?`, `'it''s' ?`, `/* /* */ ?`} {
		f.Add(s)
	}
	numbered := regexp.MustCompile(`\$[0-9]+`)
	questionDigit := regexp.MustCompile(`\?[0-9]`)
	f.Fuzz(func(t *testing.T, q string) {
		out := numberPlaceholders(q)
		if numbered.MatchString(q) || questionDigit.MatchString(q) {
			return // $n by hand and SQLite's ?NNN are not used by the storage
		}
		if got, want := numbered.ReplaceAllString(out, ""), strings.ReplaceAll(q, "?", ""); strings.ReplaceAll(got, "?", "") != want {
			t.Fatalf("%q → %q: text other than placeholders changed", q, out)
		}
		tags := numbered.FindAllString(out, -1)
		for i, tag := range tags {
			if tag != "$"+strconv.Itoa(i+1) {
				t.Fatalf("%q → %q: placeholder %d is %s", q, out, i+1, tag)
			}
		}
		if len(tags)+strings.Count(out, "?") != strings.Count(q, "?") {
			t.Fatalf("%q → %q: question marks lost or added", q, out)
		}
	})
}
