package rest

import (
	"reflect"
	"regexp"
	"strings"
)

// schemas turns Go types into JSON Schema (OpenAPI 3.1 dialect) the way
// encoding/json writes and reads them. Named structs become components.
type schemas struct {
	components map[string]any
	names      map[reflect.Type]string
	undeclared []string // named string types without declareEnum
}

// enumTypes are the values of API enum types (see declareEnum).
var enumTypes = map[reflect.Type][]string{}

// declareEnum lists an enum type's values for the description; families
// call it in their _apidoc.go with the enum's List():
//
//	declareEnum[model.Role](model.Roles.List())
func declareEnum[T ~string](list string) {
	enumTypes[reflect.TypeFor[T]()] = strings.Split(list, ", ")
}

var omittablePkg = "github.com/99designs/gqlgen/graphql"

var nonWord = regexp.MustCompile(`[^A-Za-z0-9_]+`)

func (g *schemas) of(t reflect.Type) map[string]any {
	if t == nil {
		return map[string]any{}
	}
	if t.Kind() == reflect.Pointer {
		return g.of(t.Elem())
	}
	if inner, ok := omittableOf(t); ok {
		return g.of(inner)
	}
	if values, ok := enumTypes[t]; ok {
		return map[string]any{"type": "string", "enum": values}
	}
	if t.Kind() == reflect.String && t.Name() != "" && t.PkgPath() != "" {
		g.undeclared = append(g.undeclared, t.String()) // the description test reports these
	}
	switch t.Kind() {
	case reflect.String:
		return map[string]any{"type": "string"}
	case reflect.Bool:
		return map[string]any{"type": "boolean"}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return map[string]any{"type": "integer"}
	case reflect.Float32, reflect.Float64:
		return map[string]any{"type": "number"}
	case reflect.Slice, reflect.Array:
		return map[string]any{"type": "array", "items": g.of(t.Elem())}
	case reflect.Map:
		return map[string]any{"type": "object", "additionalProperties": g.of(t.Elem())}
	case reflect.Interface:
		return map[string]any{}
	case reflect.Struct:
		if t.Name() == "" {
			return g.object(t)
		}
		name, seen := g.names[t]
		if !seen {
			name = componentName(t)
			g.names[t] = name
			g.components[name] = map[string]any{} // placeholder: recursive types end here
			g.components[name] = g.object(t)
		}
		return ref(name)
	}
	return map[string]any{}
}

// componentName is the type's name; generic instances read List_Member.
func componentName(t reflect.Type) string {
	name := t.Name()
	if i := strings.IndexByte(name, '['); i >= 0 {
		args := name[i+1 : len(name)-1]
		if j := strings.LastIndexByte(args, '.'); j >= 0 {
			args = args[j+1:]
		}
		name = name[:i] + "_" + nonWord.ReplaceAllString(args, "")
	}
	return name
}

// object is the schema of a struct's JSON: exported fields by json tag,
// embedded structs flattened, omitempty/omitzero fields optional, pointers
// without them nullable.
func (g *schemas) object(t reflect.Type) map[string]any {
	props := map[string]any{}
	var required []string
	var walk func(t reflect.Type)
	walk = func(t reflect.Type) {
		for i := range t.NumField() {
			f := t.Field(i)
			tag := f.Tag.Get("json")
			if tag == "-" || (!f.IsExported() && !f.Anonymous) {
				continue
			}
			name, opts, _ := strings.Cut(tag, ",")
			if f.Anonymous && name == "" {
				ft := f.Type
				if ft.Kind() == reflect.Pointer {
					ft = ft.Elem()
				}
				if ft.Kind() == reflect.Struct {
					walk(ft)
					continue
				}
			}
			if name == "" {
				name = f.Name
			}
			s := g.of(f.Type)
			optional := strings.Contains(opts, "omitempty") || strings.Contains(opts, "omitzero")
			if _, omittable := omittableOf(f.Type); omittable {
				optional = true
				s = nullable(s) // Omittable tells "absent" from null: null is a value
			} else if f.Type.Kind() == reflect.Pointer && !optional {
				s = nullable(s)
			}
			props[name] = s
			if !optional {
				required = append(required, name)
			}
		}
	}
	walk(t)
	out := map[string]any{"type": "object", "properties": props}
	if len(required) > 0 {
		out["required"] = required
	}
	if fn, ok := schemaOverrides[t]; ok {
		return fn(out)
	}
	return out
}

func nullable(s map[string]any) map[string]any {
	if typ, ok := s["type"].(string); ok && len(s) <= 2 {
		c := map[string]any{}
		for k, v := range s {
			c[k] = v
		}
		c["type"] = []string{typ, "null"}
		if enum, ok := c["enum"].([]string); ok {
			c["enum"] = append(append([]any{}, toAny(enum)...), nil)
		}
		return c
	}
	return map[string]any{"oneOf": []any{s, map[string]any{"type": "null"}}}
}

func toAny(s []string) []any {
	out := make([]any, len(s))
	for i, v := range s {
		out[i] = v
	}
	return out
}

// omittableOf unwraps graphql.Omittable[T].
func omittableOf(t reflect.Type) (reflect.Type, bool) {
	if t.Kind() != reflect.Struct || t.PkgPath() != omittablePkg || !strings.HasPrefix(t.Name(), "Omittable[") {
		return nil, false
	}
	m, ok := t.MethodByName("Value")
	if !ok || m.Type.NumOut() != 1 {
		return nil, false
	}
	return m.Type.Out(0), true
}
