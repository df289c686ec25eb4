// Package jsonshape checks a decoded JSON value (encoding/json's any)
// against OpenAPI 3.0 schemas, such as the ones cut from @gitbook/api's
// published document. The checking itself is kin-openapi's
// (openapi3.Schema.VisitJSON); this package loads the schemas, bounds the
// value first, and turns kin-openapi's refusal into one field path
// ("styling.primaryColor.light", "footer.groups[0].title") so the API can
// answer 400 with it.
//
// Strictness: an object schema that lists properties refuses keys it does
// not list unless additionalProperties allows them. That is stricter than
// JSON Schema's default, on purpose: docsapi would otherwise store and echo
// keys no 0.130.0 client reads. Compile states additionalProperties: false
// on those schemas once, and kin-openapi enforces it.
package jsonshape

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/getkin/kin-openapi/openapi3"
)

// Bounds on a checked value, applied before validation: a body deeper or
// larger than these is refused, never walked by the validator.
const (
	MaxDepth = 32
	MaxNodes = 20000
)

// Set is a family of named schemas (components/schemas), their
// "#/components/schemas/Name" references resolved by kin-openapi's loader.
type Set map[string]*openapi3.Schema

// Compile reads a JSON object of named schemas as the components of an
// OpenAPI 3.0 document, resolving references among them.
func Compile(data []byte) (Set, error) {
	var schemas map[string]json.RawMessage
	if err := json.Unmarshal(data, &schemas); err != nil {
		return nil, err
	}
	doc, err := json.Marshal(map[string]any{
		"openapi":    "3.0.3",
		"info":       map[string]string{"title": "jsonshape", "version": "0"},
		"paths":      map[string]any{},
		"components": map[string]any{"schemas": schemas},
	})
	if err != nil {
		return nil, err
	}
	loader := openapi3.NewLoader()
	t, err := loader.LoadFromData(doc)
	if err != nil {
		return nil, err
	}
	if err := t.Validate(loader.Context); err != nil {
		return nil, err
	}
	set := Set{}
	seen := map[*openapi3.Schema]bool{}
	for name, ref := range t.Components.Schemas {
		closeObjects(ref.Value, seen)
		set[name] = ref.Value
	}
	return set, nil
}

// closeObjects states additionalProperties: false on every object schema
// that lists properties and says nothing of other keys.
func closeObjects(s *openapi3.Schema, seen map[*openapi3.Schema]bool) {
	if s == nil || seen[s] {
		return
	}
	seen[s] = true
	if len(s.Properties) > 0 && s.AdditionalProperties.Has == nil && s.AdditionalProperties.Schema == nil {
		s.AdditionalProperties.Has = openapi3.Ptr(false)
	}
	refs := append(append(append(openapi3.SchemaRefs{s.Items, s.AdditionalProperties.Schema, s.Not}, s.OneOf...), s.AnyOf...), s.AllOf...)
	for _, p := range s.Properties {
		refs = append(refs, p)
	}
	for _, r := range refs {
		if r != nil {
			closeObjects(r.Value, seen)
		}
	}
}

// Error is a refusal at a field path.
type Error struct {
	Path    string
	Message string
}

func (e *Error) Error() string { return e.Path + ": " + e.Message }

// The formats the published shapes use. kin-openapi validates no "uri" of
// its own and only a regular expression for "date-time"; these are given
// per call, so other users of openapi3 in the process are not affected.
var options = []openapi3.SchemaValidationOption{
	openapi3.MultiErrors(),
	openapi3.WithStringFormatValidator("uri", openapi3.NewCallbackValidator(func(s string) error {
		if u, err := url.Parse(s); err != nil || u.Scheme == "" {
			return errors.New("must be an absolute URL")
		}
		return nil
	})),
	openapi3.WithStringFormatValidator("date-time", openapi3.NewCallbackValidator(func(s string) error {
		if _, err := time.Parse(time.RFC3339, s); err != nil {
			return errors.New("must be an RFC 3339 date-time")
		}
		return nil
	})),
}

// Check validates v against s; root prefixes every path ("" for none).
func Check(s *openapi3.Schema, root string, v any) *Error {
	if err := bounds(root, v); err != nil {
		return err
	}
	path, msg := first(s, v, nil, v)
	if msg == "" {
		return nil
	}
	return &Error{Path: dotted(root, v, path), Message: msg}
}

// bounds is own code because kin-openapi has no limit on the depth or size
// of a value: it refuses a body nested deeper than MaxDepth or made of more
// than MaxNodes values before kin-openapi walks it.
func bounds(root string, v any) *Error {
	nodes := 0
	var walk func(v any, path []string) *Error
	walk = func(v any, path []string) *Error {
		if nodes++; nodes > MaxNodes {
			return &Error{Path: dotted(root, nil, path), Message: fmt.Sprintf("the value has more than %d parts", MaxNodes)}
		}
		if len(path) > MaxDepth {
			return &Error{Path: dotted(root, nil, path), Message: fmt.Sprintf("nested deeper than %d levels", MaxDepth)}
		}
		switch x := v.(type) {
		case []any:
			for i, e := range x {
				if err := walk(e, append(path, "["+strconv.Itoa(i)+"]")); err != nil {
					return err
				}
			}
		case map[string]any:
			keys := make([]string, 0, len(x))
			for k := range x {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			for _, k := range keys {
				if err := walk(x[k], append(path, k)); err != nil {
					return err
				}
			}
		}
		return nil
	}
	return walk(v, nil)
}

// refusal is one of kin-openapi's errors, its path relative to the value
// checked.
type refusal struct {
	path []string
	err  *openapi3.SchemaError
}

func (r refusal) required(level int) bool {
	return len(r.path) == level+1 && r.err.SchemaField == "required"
}

// first returns the refusal docsapi names for v against s, its path
// relative to v (msg "" when v is accepted). kin-openapi (MultiErrors)
// gives every refusal; choosing one is own code, because docsapi names one
// field and always the same one for the same body:
//   - in kin-openapi's order (object keys sorted, array items in order),
//     except that at each object its missing required keys come first;
//   - an unknown key is named (kin-openapi names the object holding it);
//   - when no branch of a oneOf accepts the value (kin-openapi names the
//     oneOf), the refusal of the branch that got deepest into the value,
//     the first such branch on a tie: the branch the caller most likely
//     meant.
func first(s *openapi3.Schema, v any, base []string, top any) ([]string, string) {
	err := s.VisitJSON(v, options...)
	if err == nil {
		return nil, ""
	}
	var all []refusal
	unknownSeen := map[string]int{}
	var flatten func(err error)
	flatten = func(err error) {
		switch se := err.(type) {
		case openapi3.MultiError:
			for _, e := range se {
				flatten(e)
			}
		case *openapi3.SchemaError:
			p := se.JSONPointer()
			if se.SchemaField == "properties" { // an unknown key: the nth refusal at this object names its nth unknown key
				at := strings.Join(p, "/")
				if k, ok := unknownKey(se.Schema, valueAt(v, p), unknownSeen[at]); ok {
					unknownSeen[at]++
					p = append(p, k)
				}
			}
			all = append(all, refusal{path: p, err: se})
		default:
			all = append(all, refusal{err: &openapi3.SchemaError{Reason: err.Error()}})
		}
	}
	flatten(err)
	if len(all) == 0 {
		return nil, err.Error()
	}
	sort.SliceStable(all, func(i, j int) bool {
		a, b := all[i], all[j]
		c := 0
		for c < len(a.path) && c < len(b.path) && a.path[c] == b.path[c] {
			c++
		}
		return a.required(c) && !b.required(c)
	})
	r := all[0]
	path := append(append([]string{}, base...), r.path...)
	if r.err.SchemaField == "oneOf" && !errors.Is(r.err, openapi3.ErrOneOfConflict) && r.err.Schema != nil {
		var best []string
		msg := ""
		sub := valueAt(v, r.path)
		for _, b := range r.err.Schema.OneOf {
			p, m := first(b.Value, sub, path, top)
			if m != "" && (msg == "" || len(dotted("", top, p)) > len(dotted("", top, best))) {
				best, msg = p, m
			}
		}
		if msg != "" {
			return best, msg
		}
	}
	msg := r.err.Reason
	if msg == "" { // Error() would add the schema and the value
		msg = fmt.Sprintf("does not match the schema's %q", r.err.SchemaField)
	}
	return path, msg
}

// unknownKey is the nth key of the object v, in sorted order, that s does
// not list.
func unknownKey(s *openapi3.Schema, v any, n int) (string, bool) {
	m, _ := v.(map[string]any)
	if s == nil || m == nil {
		return "", false
	}
	var keys []string
	for k := range m {
		if _, ok := s.Properties[k]; !ok {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	if n >= len(keys) {
		return "", false
	}
	return keys[n], true
}

func valueAt(v any, path []string) any {
	for _, k := range path {
		switch x := v.(type) {
		case map[string]any:
			v = x[k]
		case []any:
			i, err := strconv.Atoi(k)
			if err != nil || i < 0 || i >= len(x) {
				return nil
			}
			v = x[i]
		default:
			return nil
		}
	}
	return v
}

// dotted writes a path as "a.b[2].c" (a segment already in brackets is an
// index); v, when given, tells array indices from keys that are numbers.
func dotted(root string, v any, path []string) string {
	out := root
	for _, k := range path {
		if x, ok := v.([]any); ok {
			out += "[" + k + "]"
			if i, err := strconv.Atoi(k); err == nil && i >= 0 && i < len(x) {
				v = x[i]
			}
			continue
		}
		if m, ok := v.(map[string]any); ok {
			v = m[k]
		} else {
			v = nil
		}
		if strings.HasPrefix(k, "[") {
			out += k
			continue
		}
		if out != "" {
			out += "."
		}
		out += k
	}
	if out == "" {
		return "body"
	}
	return out
}
