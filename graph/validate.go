package graph

import (
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"

	"docsapi/apierr"
)

// Input rules shared by every resource family. Each returns a 400 naming the
// field and the rule, or nil.

// checkLen checks v's length in characters and, for the fields people read
// as text, its characters (see checkChars).
func checkLen(field, v string, min, max int) error {
	n := utf8.RuneCountInString(v)
	switch {
	case n < min && min == 1:
		return apierr.Invalid(field, "must not be empty")
	case n < min:
		return apierr.Invalid(field, "must be at least %d characters", min)
	case max > 0 && n > max:
		return apierr.Invalid(field, "must be at most %d characters", max)
	}
	return checkChars(field, v)
}

// Text fields by the last segment of their name (title, spaces[2].title,
// input.label): one-line fields shown as names, and multi-line free text.
var (
	lineFields = map[string]bool{"title": true, "name": true, "label": true, "subject": true, "emoji": true, "icon": true}
	textFields = map[string]bool{"description": true, "summary": true}
)

// checkChars refuses, in a title, name or label, every control character
// (C0 and C1, newlines and tabs too: they are one line) and the
// bidirectional embedding, override and isolate controls (U+202A–U+202E,
// U+2066–U+2069), which make a name display as another
// ("abc\u202Egnp.exe" shows as "abcexe.png"); in a description, control
// characters other than tab and newline (NUL among them). Other fields
// (identifiers, URLs, certificates) have their own patterns.
func checkChars(field, v string) error {
	name := field
	if i := strings.LastIndexByte(name, '.'); i >= 0 {
		name = name[i+1:]
	}
	if i := strings.IndexByte(name, '['); i >= 0 {
		name = name[:i]
	}
	line := lineFields[name]
	if !line && !textFields[name] {
		return nil
	}
	i := 0
	for i < len(v) && v[i] >= 0x20 && v[i] < 0x7f { // plain ASCII: nothing to refuse
		i++
	}
	if i == len(v) {
		return nil
	}
	for n, r := range []rune(v) {
		switch {
		case r == '\t' || r == '\n' || r == '\r':
			if line {
				return apierr.Invalid(field, "must be one line (no tab or line break, at character %d)", n+1)
			}
		case r < 0x20 || r >= 0x7f && r < 0xa0:
			return apierr.Invalid(field, "must not contain control characters (U+%04X at character %d)", r, n+1)
		case line && (r >= 0x202a && r <= 0x202e || r >= 0x2066 && r <= 0x2069):
			return apierr.Invalid(field, "must not contain bidirectional control characters (U+%04X at character %d)", r, n+1)
		}
	}
	return nil
}

func checkLenPtr(field string, v *string, min, max int) error {
	if v == nil {
		return nil
	}
	return checkLen(field, *v, min, max)
}

func checkPattern(field, v string, re *regexp.Regexp) error {
	if !re.MatchString(v) {
		return apierr.Invalid(field, "must match %s", re.String())
	}
	return nil
}

// checkURL accepts absolute http(s) URLs up to max characters.
func checkURL(field, v string, max int) error {
	if err := checkLen(field, v, 1, max); err != nil {
		return err
	}
	u, err := url.Parse(v)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return apierr.Invalid(field, "must be an absolute http or https URL")
	}
	return nil
}

// enumValue is satisfied by every model enum.
type enumValue interface{ IsValid() bool }

func checkEnum[T interface {
	~string
	IsValid() bool
}](field string, v T, allowed string) error {
	if !v.IsValid() {
		return apierr.Invalid(field, "must be one of %s (got %q)", allowed, string(v))
	}
	return nil
}

// firstErr returns the first non-nil error, so validations read as a list.
func firstErr(errs ...error) error {
	for _, e := range errs {
		if e != nil {
			return e
		}
	}
	return nil
}

// itoa formats an index for field paths such as spaces[3].
func itoa(n int) string { return strconv.Itoa(n) }
