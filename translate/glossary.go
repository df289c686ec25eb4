package translate

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"sort"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"docsapi/storage"
)

// A run applies the organization's translations glossary by protecting
// terms: before the texts go to the provider, every whole-word occurrence
// (case-insensitive) of an entry's term in the source language is replaced
// by a placeholder ⟦n⟧, which machine-translation engines pass through as
// they do numbers; in the answer each placeholder becomes the entry's term
// in the target language. Protecting rather than post-processing the
// provider's answer: the provider's own rendering of a term is unknown
// (inflected, reordered, translated differently in each context), so it
// cannot be found reliably afterwards, whereas a placeholder puts the
// glossary's term in exactly, and keeps the provider from mangling it.

const (
	phOpen  = "⟦"
	phClose = "⟧"
)

// glossaryTerm is one source term and its target term.
type glossaryTerm struct {
	source, target string
}

// glossary is an organization's glossary for one language pair.
type glossary struct {
	terms []glossaryTerm // longest source term first
	// byFirst holds the indexes in terms of the terms starting with a
	// letter (folded to lower case), longest first: a word is compared
	// with the terms it could start, not with every term of the glossary.
	byFirst map[rune][]int
}

// newGlossary keeps the entries with a term in both languages.
func newGlossary(entries []storage.GlossaryEntry, source, target string) *glossary {
	g := &glossary{}
	seen := map[string]bool{}
	for _, e := range entries {
		var tr map[string]string
		if json.Unmarshal([]byte(e.Translations), &tr) != nil {
			continue
		}
		s, t := strings.TrimSpace(tr[source]), tr[target]
		if s == "" || t == "" || seen[strings.ToLower(s)] {
			continue
		}
		seen[strings.ToLower(s)] = true
		g.terms = append(g.terms, glossaryTerm{source: s, target: t})
	}
	sort.SliceStable(g.terms, func(i, j int) bool { return len(g.terms[i].source) > len(g.terms[j].source) })
	g.byFirst = map[rune][]int{}
	for i, t := range g.terms {
		r, _ := utf8.DecodeRuneInString(t.source)
		g.byFirst[unicode.ToLower(r)] = append(g.byFirst[unicode.ToLower(r)], i)
	}
	return g
}

// hash fingerprints the terms ("" for none): a run whose glossary differs
// from the previous run's translates every page again.
func (g *glossary) hash() string {
	if g.empty() {
		return ""
	}
	terms := make([]string, len(g.terms))
	for i, t := range g.terms {
		terms[i] = t.source + "\x00" + t.target
	}
	sort.Strings(terms)
	sum := sha256.Sum256([]byte(strings.Join(terms, "\x01")))
	return hex.EncodeToString(sum[:16])
}

func (g *glossary) empty() bool { return g == nil || len(g.terms) == 0 }

// isWord tells whether r belongs to a word (a term matches only whole words).
func isWord(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) || r == '_' }

// protect replaces the glossary's source terms in s by placeholders whose
// number is the term's index; restore is applied to the answer only when
// protect changed the text.
func (g *glossary) protect(s string) string {
	if g.empty() || s == "" || strings.Contains(s, phOpen) {
		// A text that has ⟦ of its own goes as it is (its ⟦n⟧ would be
		// taken for placeholders): its terms are translated by the provider.
		return s
	}
	var b strings.Builder
	prevWord := false
	for i := 0; i < len(s); {
		if !prevWord {
			if n, ti := g.match(s[i:]); n > 0 {
				b.WriteString(phOpen + strconv.Itoa(ti) + phClose)
				i += n
				prevWord = false
				continue
			}
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		b.WriteString(s[i : i+size])
		prevWord = isWord(r)
		i += size
	}
	return b.String()
}

// match finds the longest term s starts with, followed by a word boundary:
// its length in s and index.
func (g *glossary) match(s string) (int, int) {
	first, _ := utf8.DecodeRuneInString(s)
	for _, ti := range g.byFirst[unicode.ToLower(first)] {
		t := g.terms[ti]
		n := len(t.source)
		if n > len(s) || !strings.EqualFold(s[:n], t.source) {
			continue
		}
		if r, _ := utf8.DecodeRuneInString(s[n:]); n < len(s) && isWord(r) {
			continue
		}
		return n, ti
	}
	return 0, 0
}

// restore replaces the placeholders of a translated text by the target
// terms (a placeholder the provider dropped leaves nothing; one it did not
// send is left as is).
func (g *glossary) restore(s string) string {
	if g.empty() || !strings.Contains(s, phOpen) {
		return s
	}
	var b strings.Builder
	for {
		i := strings.Index(s, phOpen)
		if i < 0 {
			b.WriteString(s)
			return b.String()
		}
		b.WriteString(s[:i])
		rest := s[i+len(phOpen):]
		j := strings.Index(rest, phClose)
		n, err := strconv.Atoi(strings.TrimSpace(rest[:max(j, 0)]))
		if j < 0 || err != nil || n < 0 || n >= len(g.terms) {
			b.WriteString(phOpen)
			s = rest
			continue
		}
		b.WriteString(g.terms[n].target)
		s = rest[j+len(phClose):]
	}
}
