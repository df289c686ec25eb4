package translate

import (
	"testing"

	"docsapi/storage"
)

func TestGlossaryProtectRestore(t *testing.T) {
	g := newGlossary([]storage.GlossaryEntry{
		{Translations: `{"en":"Space","fr":"Espace"}`},
		{Translations: `{"en":"change request","fr":"demande de modification"}`},
		{Translations: `{"en":"Docs","de":"Doku"}`}, // no French: not used
		{Translations: `not json`},
	}, "en", "fr")
	if len(g.terms) != 2 || g.terms[0].source != "change request" {
		t.Fatalf("terms %+v", g.terms)
	}
	for _, c := range []struct{ in, sent string }{
		{"Open a space, then a Change Request.", "Open a ⟦1⟧, then a ⟦0⟧."},
		{"Spaces and myspace stay; Docs too", "Spaces and myspace stay; Docs too"},
		{"space", "⟦1⟧"},
		{"", ""},
		{"éspace space_x (space)", "éspace space_x (⟦1⟧)"},
		{"a space with ⟦0⟧ of its own", "a space with ⟦0⟧ of its own"},
	} {
		if got := g.protect(c.in); got != c.sent {
			t.Errorf("protect(%q) = %q, want %q", c.in, got, c.sent)
		}
	}
	for _, c := range []struct{ in, out string }{
		{"OUVRIR UN ⟦1⟧, PUIS UNE ⟦0⟧.", "OUVRIR UN Espace, PUIS UNE demande de modification."},
		{"⟦ 1 ⟧ ⟦9⟧ ⟦x⟧ ⟦", "Espace ⟦9⟧ ⟦x⟧ ⟦"},
		{"nothing", "nothing"},
	} {
		if got := g.restore(c.in); got != c.out {
			t.Errorf("restore(%q) = %q, want %q", c.in, got, c.out)
		}
	}
	if !newGlossary(nil, "en", "fr").empty() {
		t.Error("empty glossary")
	}
}
