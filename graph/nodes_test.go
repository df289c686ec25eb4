package graph

import (
	"strings"
	"testing"
)

func TestParseNodeID(t *testing.T) {
	for id, want := range map[string]string{
		"Space:abc":                         "Space abc",
		"Comment:s/c":                       "Comment s c",
		"Comment:s/cr/c":                    "Comment s cr c",
		"Comment:s/cr/c/d":                  "",
		"Space:":                            "",
		":abc":                              "",
		"abc":                               "",
		"Team:o/":                           "",
		"Site://x":                          "",
		"Space:" + strings.Repeat("a", 300): "",
	} {
		kind, parts, ok := parseNodeID(id)
		got := ""
		if ok {
			got = strings.Join(append([]string{kind}, parts...), " ")
		}
		if got != want {
			t.Errorf("parseNodeID(%.40q) = %q, want %q", id, got, want)
		}
	}
}

// FuzzParseNodeID: a parsed id has a type and one to three non-empty
// parts that put back together give the id.
func FuzzParseNodeID(f *testing.F) {
	for _, s := range []string{"Space:abc", "Comment:s/cr/c", "Team:o/", "::", "a:b/c/d/e"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, id string) {
		kind, parts, ok := parseNodeID(id)
		if !ok {
			return
		}
		if kind == "" || len(parts) < 1 || len(parts) > 3 || len(id) > maxNodeIDBytes {
			t.Fatalf("%q: %q %q", id, kind, parts)
		}
		for _, p := range parts {
			if p == "" {
				t.Fatalf("%q: empty part", id)
			}
		}
		if kind+":"+strings.Join(parts, "/") != id {
			t.Fatalf("%q does not rebuild from %q %q", id, kind, parts)
		}
	})
}
