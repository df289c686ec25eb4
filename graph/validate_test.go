package graph

import (
	"strings"
	"testing"

	"docsapi/apierr"
)

func TestCheckCharsRefusesControlsAndBidi(t *testing.T) {
	for _, c := range []struct {
		field, v string
		refused  bool
	}{
		{"title", "Getting started", false},
		{"title", "Café – 日本語 😀 שלום", false}, // right-to-left text itself is fine
		{"title", "abc\u202Egnp.exe", true},
		{"spaces[2].title", "a\u2066b", true},
		{"input.label", "a\x00b", true},
		{"name", "a\nb", true},
		{"title", "a\tb", true},
		{"title", "a\u0085b", true}, // C1
		{"title", "a\x7fb", true},
		{"description", "line one\nline two\twith a tab", false},
		{"description", "a\x00b", true},
		{"description", "right\u202Eto left", false}, // free text: only controls refused
		{"slug", "a\x00b", false},                    // identifiers have their own patterns
	} {
		err := checkLen(c.field, c.v, 0, 0)
		if (err != nil) != c.refused {
			t.Errorf("%s %q: %v, want refused %t", c.field, c.v, err, c.refused)
			continue
		}
		if err != nil {
			if e, ok := apierr.As(err); !ok || e.Status != 400 || e.Field != c.field || !strings.HasPrefix(e.Message, c.field+": ") {
				t.Errorf("%s %q: %v does not name the field as a 400", c.field, c.v, err)
			}
		}
	}
}
