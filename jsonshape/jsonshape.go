// Package jsonshape checks a decoded JSON value (encoding/json's any) against
// the subset of OpenAPI 3.0 schema that @gitbook/api's published shapes use:
// type, nullable, enum, pattern, min/maxLength, minItems, minimum/maximum,
// format uri and date-time, properties, required, additionalProperties,
// items, oneOf, allOf and local $ref. A refusal names the field path
// ("styling.primaryColor.light", "footer.groups[0].title") so the API can
// answer 400 with it.
//
// Strictness: an object schema that lists properties refuses keys it does
// not list unless additionalProperties allows them. That is stricter than
// JSON Schema's default, on purpose: docsapi would otherwise store and echo
// keys no 0.130.0 client reads.
package jsonshape

import (
	"encoding/json"
	"fmt"
	"math"
	"net/url"
	"regexp"
	"sort"
	"strings"
	"time"
	"unicode/utf8"
)

// Bounds on a checked value, applied before descending: a body deeper or
// larger than these is refused, never walked.
const (
	MaxDepth = 32
	MaxNodes = 20000
)

// Schema is one compiled schema node.
type Schema struct {
	Type        string
	Nullable    bool
	Enum        []any
	Pattern     *regexp.Regexp
	MinLength   *int
	MaxLength   *int
	MinItems    *int
	Minimum     *float64
	Maximum     *float64
	Format      string
	Properties  map[string]*Schema
	Required    []string
	Additional  *bool // nil: not stated
	AdditionalS *Schema
	Items       *Schema
	OneOf       []*Schema
	AllOf       []*Schema
	ref         string
	Ref         *Schema
}

// Set is a family of named schemas (components/schemas) resolved together.
type Set map[string]*Schema

// Compile reads a JSON object of named schemas, resolving
// "#/components/schemas/Name" references among them.
func Compile(data []byte) (Set, error) {
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(data, &raw); err != nil {
		return nil, err
	}
	set := Set{}
	for name, r := range raw {
		var node map[string]any
		if err := json.Unmarshal(r, &node); err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		s, err := compileNode(node)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		set[name] = s
	}
	var link func(s *Schema, seen map[*Schema]bool) error
	link = func(s *Schema, seen map[*Schema]bool) error {
		if s == nil || seen[s] {
			return nil
		}
		seen[s] = true
		if s.ref != "" {
			name := strings.TrimPrefix(s.ref, "#/components/schemas/")
			t, ok := set[name]
			if !ok {
				return fmt.Errorf("unresolved $ref %s", s.ref)
			}
			s.Ref = t
		}
		for _, p := range s.Properties {
			if err := link(p, seen); err != nil {
				return err
			}
		}
		for _, l := range [][]*Schema{s.OneOf, s.AllOf, {s.Items, s.AdditionalS}} {
			for _, c := range l {
				if err := link(c, seen); err != nil {
					return err
				}
			}
		}
		return nil
	}
	seen := map[*Schema]bool{}
	for _, s := range set {
		if err := link(s, seen); err != nil {
			return nil, err
		}
	}
	return set, nil
}

func intp(v any) (*int, error) {
	f, ok := v.(float64)
	if !ok || f != math.Trunc(f) || f < 0 {
		return nil, fmt.Errorf("not a count: %v", v)
	}
	i := int(f)
	return &i, nil
}

func compileNode(n map[string]any) (*Schema, error) {
	s := &Schema{}
	var err error
	for k, v := range n {
		switch k {
		case "type":
			s.Type, _ = v.(string)
		case "nullable":
			s.Nullable, _ = v.(bool)
		case "enum":
			s.Enum, _ = v.([]any)
		case "pattern":
			p, _ := v.(string)
			if s.Pattern, err = regexp.Compile(p); err != nil {
				return nil, err
			}
		case "minLength":
			s.MinLength, err = intp(v)
		case "maxLength":
			s.MaxLength, err = intp(v)
		case "minItems":
			s.MinItems, err = intp(v)
		case "minimum":
			f, _ := v.(float64)
			s.Minimum = &f
		case "maximum":
			f, _ := v.(float64)
			s.Maximum = &f
		case "format":
			s.Format, _ = v.(string)
		case "$ref":
			s.ref, _ = v.(string)
		case "required":
			for _, r := range asList(v) {
				if name, ok := r.(string); ok {
					s.Required = append(s.Required, name)
				}
			}
		case "properties":
			props, _ := v.(map[string]any)
			s.Properties = make(map[string]*Schema, len(props))
			for name, p := range props {
				pm, _ := p.(map[string]any)
				if s.Properties[name], err = compileNode(pm); err != nil {
					return nil, fmt.Errorf("%s: %w", name, err)
				}
			}
		case "additionalProperties":
			switch a := v.(type) {
			case bool:
				s.Additional = &a
			case map[string]any:
				if s.AdditionalS, err = compileNode(a); err != nil {
					return nil, err
				}
				t := true
				s.Additional = &t
			}
		case "items":
			im, _ := v.(map[string]any)
			if s.Items, err = compileNode(im); err != nil {
				return nil, err
			}
		case "oneOf", "anyOf", "allOf":
			for _, c := range asList(v) {
				cm, _ := c.(map[string]any)
				cs, err := compileNode(cm)
				if err != nil {
					return nil, err
				}
				if k == "allOf" {
					s.AllOf = append(s.AllOf, cs)
				} else {
					s.OneOf = append(s.OneOf, cs)
				}
			}
		}
		if err != nil {
			return nil, err
		}
	}
	return s, nil
}

func asList(v any) []any { l, _ := v.([]any); return l }

// Error is a refusal at a field path.
type Error struct {
	Path    string
	Message string
}

func (e *Error) Error() string { return e.Path + ": " + e.Message }

// Check validates v against s; root prefixes every path ("" for none).
func (s *Schema) Check(root string, v any) *Error {
	c := checker{}
	return c.check(s, root, v, 0)
}

type checker struct{ nodes int }

func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

func fail(path, format string, args ...any) *Error {
	if path == "" {
		path = "body"
	}
	return &Error{Path: path, Message: fmt.Sprintf(format, args...)}
}

func (c *checker) check(s *Schema, path string, v any, depth int) *Error {
	if depth > MaxDepth {
		return fail(path, "nested deeper than %d levels", MaxDepth)
	}
	c.nodes++
	if c.nodes > MaxNodes {
		return fail(path, "the value has more than %d parts", MaxNodes)
	}
	for s.Ref != nil {
		s = s.Ref
	}
	if v == nil && (s.Nullable || enumHas(s.Enum, nil)) {
		return nil
	}
	for _, a := range s.AllOf {
		if err := c.check(a, path, v, depth+1); err != nil {
			return err
		}
	}
	if len(s.OneOf) > 0 {
		if err := c.oneOf(s, path, v, depth); err != nil {
			return err
		}
	}
	if err := typeOf(s, path, v); err != nil {
		return err
	}
	if len(s.Enum) > 0 && !enumHas(s.Enum, v) {
		return fail(path, "must be one of %s", enumList(s.Enum))
	}
	switch x := v.(type) {
	case string:
		n := utf8.RuneCountInString(x)
		if s.MinLength != nil && n < *s.MinLength {
			return fail(path, "must be at least %d characters", *s.MinLength)
		}
		if s.MaxLength != nil && n > *s.MaxLength {
			return fail(path, "must be at most %d characters", *s.MaxLength)
		}
		if s.Pattern != nil && !s.Pattern.MatchString(x) {
			return fail(path, "must match %s", s.Pattern)
		}
		switch s.Format {
		case "uri":
			if u, err := url.Parse(x); err != nil || u.Scheme == "" {
				return fail(path, "must be an absolute URL")
			}
		case "date-time":
			if _, err := time.Parse(time.RFC3339, x); err != nil {
				return fail(path, "must be an RFC 3339 date-time")
			}
		}
	case float64:
		if s.Type == "integer" && x != math.Trunc(x) {
			return fail(path, "must be an integer")
		}
		if s.Minimum != nil && x < *s.Minimum {
			return fail(path, "must be at least %v", *s.Minimum)
		}
		if s.Maximum != nil && x > *s.Maximum {
			return fail(path, "must be at most %v", *s.Maximum)
		}
	case []any:
		if s.MinItems != nil && len(x) < *s.MinItems {
			return fail(path, "must have at least %d items", *s.MinItems)
		}
		if s.Items != nil {
			for i, e := range x {
				if err := c.check(s.Items, fmt.Sprintf("%s[%d]", path, i), e, depth+1); err != nil {
					return err
				}
			}
		}
	case map[string]any:
		return c.object(s, path, x, depth)
	}
	return nil
}

// object checks keys in sorted order so the same body always names the
// same field.
func (c *checker) object(s *Schema, path string, x map[string]any, depth int) *Error {
	for _, r := range s.Required {
		if _, ok := x[r]; !ok {
			return fail(join(path, r), "is required")
		}
	}
	if len(s.Properties) == 0 && s.Additional == nil && s.AdditionalS == nil {
		return nil // a free-form object, or one whose keys allOf/oneOf state
	}
	keys := make([]string, 0, len(x))
	for k := range x {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		p, ok := s.Properties[k]
		switch {
		case ok:
		case s.AdditionalS != nil:
			p = s.AdditionalS
		case s.Additional != nil && *s.Additional:
			continue
		default:
			return fail(join(path, k), "is not a known property")
		}
		if err := c.check(p, join(path, k), x[k], depth+1); err != nil {
			return err
		}
	}
	return nil
}

// oneOf requires exactly one branch to accept v. When none does, the
// refusal is the one of the branch that got deepest into v, which is the
// one the caller most likely meant.
func (c *checker) oneOf(s *Schema, path string, v any, depth int) *Error {
	var best *Error
	matched := 0
	for _, b := range s.OneOf {
		err := c.check(b, path, v, depth+1)
		if err == nil {
			matched++
			continue
		}
		if best == nil || len(err.Path) > len(best.Path) {
			best = err
		}
	}
	switch {
	case matched == 1:
		return nil
	case matched > 1:
		return fail(path, "matches more than one of the allowed shapes")
	}
	return best
}

func typeOf(s *Schema, path string, v any) *Error {
	if v == nil {
		if s.Type == "" && len(s.Enum) == 0 && len(s.OneOf) == 0 && len(s.AllOf) == 0 {
			return nil
		}
		if s.Type == "" && (len(s.OneOf) > 0 || len(s.AllOf) > 0) {
			return nil // the branches have ruled
		}
		return fail(path, "must not be null")
	}
	var ok bool
	switch s.Type {
	case "":
		return nil
	case "string":
		_, ok = v.(string)
	case "number":
		_, ok = v.(float64)
	case "integer":
		_, ok = v.(float64)
	case "boolean":
		_, ok = v.(bool)
	case "array":
		_, ok = v.([]any)
	case "object":
		_, ok = v.(map[string]any)
	default:
		ok = true
	}
	if !ok {
		article := "a"
		if strings.ContainsRune("aeiou", rune(s.Type[0])) {
			article = "an"
		}
		return fail(path, "must be %s %s", article, s.Type)
	}
	return nil
}

func enumHas(enum []any, v any) bool {
	switch v.(type) {
	case map[string]any, []any:
		return false // published enums are scalars; == on these would panic
	}
	for _, e := range enum {
		if e == v {
			return true
		}
	}
	return false
}

func enumList(enum []any) string {
	parts := make([]string, 0, len(enum))
	for _, e := range enum {
		b, _ := json.Marshal(e)
		parts = append(parts, string(b))
	}
	return strings.Join(parts, ", ")
}
