package graph

import (
	"bytes"
	"context"
	"io"
	"reflect"
	"strings"
	"sync"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2/ast"

	"docsapi/graph/generated"
	"docsapi/graph/model"
)

// PlainObjects is a GraphQL field middleware (AroundFields): a list of
// objects whose selection is made only of plain fields (struct fields of
// the models, no resolver, no method) is written straight from the
// models, as PlainPageTrees writes pages, instead of gqlgen resolving each
// field of each element (a field context, a middleware call, a boxed value
// and, for lists, a goroutine each: about a third of the page view's
// GraphQL time went there for 50 comments with their authors and
// reactions). The bytes are gqlgen's own (its String, ID, Int and Boolean
// encoders, the enums' MarshalGQL, the same null and list rules:
// TestPlainObjectsAnswerAsGqlgen). Anything else goes through gqlgen: a
// field with a resolver or a method, another scalar, an interface or
// union, @defer, and a value where the schema forbids null (gqlgen's
// error and null propagation).
func PlainObjects(ctx context.Context, next graphql.Resolver) (any, error) {
	res, err := next(ctx)
	if err != nil || res == nil {
		return res, err
	}
	fc := graphql.GetFieldContext(ctx)
	if fc == nil || fc.Field.Field == nil || fc.Field.Definition == nil || len(fc.Field.Selections) == 0 {
		return res, nil
	}
	if _, pages := res.([]*model.RevisionPage); pages {
		return res, nil // PlainPageTrees writes those, whichever middleware runs first
	}
	v := reflect.ValueOf(res)
	if v.Kind() != reflect.Slice || fc.Field.Definition.Type.Elem == nil {
		return res, nil
	}
	oc := graphql.GetOperationContext(ctx)
	if oc == nil {
		return res, nil
	}
	typ := fc.Field.Definition.Type
	p := plainPlanner{oc: oc}
	plan, ok := p.value(typ, v.Type(), fc.Field.Selections, 0)
	if !ok {
		return res, nil
	}
	var out bytes.Buffer
	if !plan.write(&out, v) {
		return res, nil
	}
	return plainJSON(out.Bytes()), nil
}

// plainJSON is an answer already encoded.
type plainJSON []byte

func (j plainJSON) MarshalGQL(w io.Writer) { w.Write(j) }

// maxPlainDepth is deeper than the depth limit lets an operation go.
const maxPlainDepth = 64

// plainValue writes one value of a plain selection.
type plainValue struct {
	nonNull bool
	ptr     bool // held by pointer: nil is null
	kind    plainKind
	elem    *plainValue  // lists
	fields  []plainField // objects
	typname string       // objects: __typename
	goType  reflect.Type // the Go type written
}

type plainKind uint8

const (
	plainString plainKind = iota
	plainInt
	plainBool
	plainMarshaler // enums: the type's own MarshalGQL
	plainList
	plainObject
)

type plainField struct {
	key      string // the alias as written, with its colon
	index    int    // the struct field; -1 for __typename and computed fields
	value    *plainValue
	computed func(obj reflect.Value) string
}

// plainComputed are the fields whose resolvers are pure functions of the
// model, giving a non-null string (ID) and reading nothing: written by the
// same function.
var plainComputed = map[string]plainComputedField{
	"Comment.nodeId": {reflect.TypeFor[model.Comment](), func(obj reflect.Value) string { return commentNodeID(obj.Addr().Interface().(*model.Comment)) }},
	"User.nodeId":    {reflect.TypeFor[model.User](), func(obj reflect.Value) string { return userNodeID(obj.Addr().Interface().(*model.User)) }},
}

type plainComputedField struct {
	of    reflect.Type
	value func(obj reflect.Value) string
}

type plainPlanner struct{ oc *graphql.OperationContext }

var marshalerType = reflect.TypeFor[graphql.Marshaler]()

// value plans the writing of a value of GraphQL type typ held in Go type
// gt (ok false: gqlgen answers it).
func (p plainPlanner) value(typ *ast.Type, gt reflect.Type, sel ast.SelectionSet, depth int) (*plainValue, bool) {
	if depth > maxPlainDepth {
		return nil, false
	}
	v := &plainValue{nonNull: typ.NonNull, goType: gt}
	if typ.Elem != nil {
		if gt.Kind() != reflect.Slice {
			return nil, false
		}
		elem, ok := p.value(typ.Elem, gt.Elem(), sel, depth+1)
		if !ok {
			return nil, false
		}
		v.kind, v.elem = plainList, elem
		return v, true
	}
	schemaType := executableSchema.Schema().Types[typ.NamedType]
	if schemaType == nil {
		return nil, false
	}
	if gt.Kind() == reflect.Pointer {
		v.ptr, gt = true, gt.Elem()
	} else if !typ.NonNull && schemaType.Kind == ast.Object {
		return nil, false
	}
	switch schemaType.Kind {
	case ast.Scalar:
		if len(sel) > 0 || gt.Implements(marshalerType) {
			return nil, false
		}
		switch {
		case (typ.NamedType == "String" || typ.NamedType == "ID") && gt.Kind() == reflect.String && gt.PkgPath() == "":
			v.kind = plainString
		case typ.NamedType == "Int" && gt.Kind() == reflect.Int && gt.PkgPath() == "":
			v.kind = plainInt
		case typ.NamedType == "Boolean" && gt.Kind() == reflect.Bool && gt.PkgPath() == "":
			v.kind = plainBool
		default:
			return nil, false
		}
		return v, true
	case ast.Enum:
		if len(sel) > 0 || v.ptr || !gt.Implements(marshalerType) || gt.Kind() != reflect.String {
			return nil, false
		}
		v.kind = plainMarshaler
		return v, true
	case ast.Object:
		if gt.Kind() != reflect.Struct {
			return nil, false
		}
		fields, ok := p.object(schemaType.Name, gt, sel, depth)
		if !ok {
			return nil, false
		}
		v.kind, v.fields, v.typname = plainObject, fields, schemaType.Name
		return v, true
	}
	return nil, false
}

func (p plainPlanner) object(typeName string, gt reflect.Type, sel ast.SelectionSet, depth int) ([]plainField, bool) {
	collected := graphql.CollectFields(p.oc, sel, []string{typeName})
	if len(collected) == 0 {
		return nil, false
	}
	resolved := resolvedFields(typeName)
	out := make([]plainField, 0, len(collected))
	for _, f := range collected {
		if f.IsDeferred() || f.Definition == nil && f.Name != "__typename" {
			return nil, false
		}
		if f.Name == "__typename" {
			out = append(out, plainField{key: quotedGQLString(f.Alias) + ":", index: -1})
			continue
		}
		if c, ok := plainComputed[typeName+"."+f.Name]; ok && c.of == gt && len(f.Selections) == 0 {
			out = append(out, plainField{key: quotedGQLString(f.Alias) + ":", index: -1, computed: c.value})
			continue
		}
		if resolved[strings.ToLower(f.Name)] {
			return nil, false
		}
		index, ok := structField(gt, f.Name)
		if !ok {
			return nil, false
		}
		value, ok := p.value(f.Definition.Type, gt.Field(index).Type, f.Selections, depth+1)
		if !ok {
			return nil, false
		}
		out = append(out, plainField{key: quotedGQLString(f.Alias) + ":", index: index, value: value})
	}
	return out, true
}

// structField is the field gqlgen binds name to (struct_tag: json), if
// the type has no method of that name (gqlgen would call it).
func structField(gt reflect.Type, name string) (int, bool) {
	lower := strings.ToLower(name)
	for _, t := range []reflect.Type{gt, reflect.PointerTo(gt)} {
		for i := range t.NumMethod() {
			if strings.ToLower(t.Method(i).Name) == lower {
				return 0, false
			}
		}
	}
	found := -1
	for i := range gt.NumField() {
		sf := gt.Field(i)
		if sf.Anonymous || !sf.IsExported() {
			if sf.Anonymous {
				return 0, false // promoted fields: gqlgen's binding rules, not these
			}
			continue
		}
		tag, _, _ := strings.Cut(sf.Tag.Get("json"), ",")
		if tag == name || tag == "" && strings.EqualFold(sf.Name, name) {
			if found >= 0 {
				return 0, false
			}
			found = i
		}
	}
	return found, found >= 0
}

// resolvedFields are the fields of typeName that gqlgen answers through
// a resolver (the methods of its resolver interface, in lower case).
func resolvedFields(typeName string) map[string]bool {
	if m, ok := resolverMethods.Load(typeName); ok {
		return m.(map[string]bool)
	}
	m := map[string]bool{}
	if get, ok := reflect.TypeFor[generated.ResolverRoot]().MethodByName(typeName); ok && get.Type.NumOut() == 1 {
		iface := get.Type.Out(0)
		for i := range iface.NumMethod() {
			m[strings.ToLower(iface.Method(i).Name)] = true
		}
	}
	resolverMethods.Store(typeName, m)
	return m
}

var resolverMethods sync.Map // type name → resolved fields (the schema's types: bounded)

var executableSchema = generated.NewExecutableSchema(generated.Config{})

// write writes v, false when it holds a null the schema forbids.
func (pv *plainValue) write(w *bytes.Buffer, v reflect.Value) bool {
	if pv.ptr {
		if v.IsNil() {
			if pv.nonNull {
				return false
			}
			w.WriteString("null")
			return true
		}
		v = v.Elem()
	}
	switch pv.kind {
	case plainList:
		if v.IsNil() && !pv.nonNull {
			w.WriteString("null")
			return true
		}
		w.WriteByte('[')
		for i := range v.Len() {
			if i > 0 {
				w.WriteByte(',')
			}
			if !pv.elem.write(w, v.Index(i)) {
				return false
			}
		}
		w.WriteByte(']')
	case plainObject:
		w.WriteByte('{')
		for i, f := range pv.fields {
			if i > 0 {
				w.WriteByte(',')
			}
			w.WriteString(f.key)
			switch {
			case f.computed != nil:
				writeGQLString(w, f.computed(v)) // an ID
				continue
			case f.index < 0:
				writeGQLString(w, pv.typname)
				continue
			}
			if !f.value.write(w, v.Field(f.index)) {
				return false
			}
		}
		w.WriteByte('}')
	case plainString:
		writeGQLString(w, v.String())
	case plainInt:
		graphql.MarshalInt(int(v.Int())).MarshalGQL(w)
	case plainBool:
		graphql.MarshalBoolean(v.Bool()).MarshalGQL(w)
	case plainMarshaler:
		v.Interface().(graphql.Marshaler).MarshalGQL(w)
	}
	return true
}
