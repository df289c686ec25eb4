package graph

import (
	"net/url"
	"regexp"
	"strconv"
	"unicode/utf8"

	"docsapi/apierr"
)

// Input rules shared by every resource family. Each returns a 400 naming the
// field and the rule, or nil.

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
