package server

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"sync/atomic"

	"github.com/99designs/gqlgen/graphql"
	"github.com/99designs/gqlgen/graphql/handler/lru"
	"github.com/vektah/gqlparser/v2/ast"

	"docsapi/graph/generated"
	"docsapi/graph/model"
)

// fastGraphQL answers the hottest GraphQL read, `space(spaceId:)` with a
// selection of the space's plain fields, without gqlgen's executor: for a
// small object the executor costs more than the read itself (a field
// context, a middleware call and a boxed value per field, a map of every
// input unmarshaler per operation), which held GraphQL to about half of
// REST's throughput for the same space.
//
// Only operations gqlgen has already run are answered, so nothing is
// parsed, validated or limited here: the first request of a query text goes
// through gqlgen (validation, complexity and depth limits), and learn, an
// AroundOperations hook, records a plan when the operation qualifies. A
// later request with the same query text and operation name is answered
// from the plan through the same resolver as gqlgen and REST, with gqlgen's
// own marshalers and JSON encoding, so the bytes are the same (tested
// against gqlgen field by field). Anything else goes to gqlgen unchanged:
// another Accept type, request extensions (persisted queries), a variable
// that is not a plain string, a resolver error.
type fastGraphQL struct {
	gql      http.Handler
	query    generated.QueryResolver
	plans    *lru.LRU[*spacePlan]
	answered atomic.Int64 // requests answered here (tests and benchmarks)
}

func newFastGraphQL(gql http.Handler, query generated.QueryResolver) *fastGraphQL {
	return &fastGraphQL{gql: gql, query: query, plans: lru.New[*spacePlan](1000)}
}

// GraphQLFastAnswers is how many GraphQL requests the fast path answered.
func (s *Server) GraphQLFastAnswers() int64 {
	if s.fastGQL == nil {
		return 0
	}
	return s.fastGQL.answered.Load()
}

// fastRequest is the part of a GraphQL POST body the fast path reads.
type fastRequest struct {
	Query         string          `json:"query"`
	OperationName string          `json:"operationName"`
	Variables     map[string]any  `json:"variables"`
	Extensions    json.RawMessage `json:"extensions"`
}

// maxPlannedQuery bounds the query texts remembered (hot queries are short).
const maxPlannedQuery = 4096

func planKey(operationName, query string) string { return operationName + "\x00" + query }

func (f *fastGraphQL) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || r.Header.Get("Content-Type") != "application/json" || r.Header.Get("Upgrade") != "" {
		f.gql.ServeHTTP(w, r)
		return
	}
	switch r.Header.Get("Accept") { // the ones gqlgen answers with application/json
	case "", "application/json", "*/*":
	default:
		f.gql.ServeHTTP(w, r)
		return
	}
	body, err := io.ReadAll(r.Body)
	if err != nil { // gqlgen reads the same bytes and the same error
		r.Body = io.NopCloser(io.MultiReader(bytes.NewReader(body), failingReader{err}))
		f.gql.ServeHTTP(w, r)
		return
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	if out, ok := f.answer(r.Context(), body); ok {
		f.answered.Add(1)
		w.Header().Set("Content-Type", "application/json")
		w.Write(out)
		return
	}
	f.gql.ServeHTTP(w, r)
}

type failingReader struct{ err error }

func (f failingReader) Read([]byte) (int, error) { return 0, f.err }

// answer is the whole response to body, or false when gqlgen must answer.
func (f *fastGraphQL) answer(ctx context.Context, body []byte) ([]byte, bool) {
	var req fastRequest
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	if dec.Decode(&req) != nil || len(req.Extensions) > 0 || dec.More() {
		return nil, false
	}
	plan, ok := f.plans.Get(ctx, planKey(req.OperationName, req.Query))
	if !ok || plan == nil {
		return nil, false
	}
	id := plan.id
	if plan.variable != "" {
		v, isString := req.Variables[plan.variable].(string)
		if !isString || len(req.Variables) != 1 {
			return nil, false
		}
		id = v
	} else if len(req.Variables) != 0 {
		return nil, false
	}
	sp, err := f.query.Space(ctx, id, nil)
	if err != nil || sp == nil {
		return nil, false // gqlgen presents the error
	}
	var data bytes.Buffer
	data.WriteString(`{`)
	graphql.MarshalString(plan.alias).MarshalGQL(&data)
	data.WriteString(`:`)
	objectOf(plan.fields, sp).MarshalGQL(&data)
	data.WriteString(`}`)
	// gqlgen's transport encodes graphql.Response{Data: data} with
	// encoding/json, which compacts data (already compact here) and escapes
	// <, >, & and U+2028/2029 in its strings: HTMLEscape alone does that.
	var out bytes.Buffer
	out.Grow(data.Len() + 16)
	out.WriteString(`{"data":`)
	json.HTMLEscape(&out, data.Bytes())
	out.WriteString(`}`)
	return out.Bytes(), true
}

// learn records the plan of an operation gqlgen is about to run (it has
// passed validation and the guardrails) when the fast path can answer it.
func (f *fastGraphQL) learn(ctx context.Context, next graphql.OperationHandler) graphql.ResponseHandler {
	if oc := graphql.GetOperationContext(ctx); oc != nil && oc.Operation != nil {
		key := planKey(oc.OperationName, oc.RawQuery)
		if _, known := f.plans.Get(ctx, key); !known && len(key) <= maxPlannedQuery {
			f.plans.Add(ctx, key, planSpace(oc.Operation)) // nil: gqlgen answers
		}
	}
	return next(ctx)
}

// spacePlan is a `space(spaceId:)` operation the fast path answers: the
// response key, where the id comes from, and the space's fields in answer
// order.
type spacePlan struct {
	alias    string
	variable string // the id is this variable's value, or
	id       string // this literal
	fields   []planField[model.Space]
}

// planField is one selected field: its response key and its value.
type planField[T any] struct {
	alias string
	value func(*T) graphql.Marshaler
}

// objectOf writes fields of v as gqlgen's field sets do.
func objectOf[T any](fields []planField[T], v *T) graphql.Marshaler {
	return graphql.WriterFunc(func(w io.Writer) {
		io.WriteString(w, "{")
		for i, f := range fields {
			if i > 0 {
				io.WriteString(w, ",")
			}
			graphql.MarshalString(f.alias).MarshalGQL(w)
			io.WriteString(w, ":")
			f.value(v).MarshalGQL(w)
		}
		io.WriteString(w, "}")
	})
}

// planSpace is op's plan, or nil unless op is a query whose only root field
// is space(spaceId:) without shareKey, with the id from a literal or from
// the operation's only variable, and only known plain fields below it (any
// directive, argument, repeated response key or fragment on another type
// leaves the operation to gqlgen).
func planSpace(op *ast.OperationDefinition) *spacePlan {
	if op.Operation != ast.Query || len(op.Directives) > 0 || len(op.SelectionSet) != 1 {
		return nil
	}
	root, ok := op.SelectionSet[0].(*ast.Field)
	if !ok || root.Name != "space" || len(root.Directives) > 0 || len(root.Arguments) != 1 || root.Arguments[0].Name != "spaceId" {
		return nil
	}
	p := &spacePlan{alias: root.Alias}
	switch arg := root.Arguments[0].Value; {
	case arg.Kind == ast.Variable && len(op.VariableDefinitions) == 1 && op.VariableDefinitions[0].Variable == arg.Raw &&
		op.VariableDefinitions[0].DefaultValue == nil && len(op.VariableDefinitions[0].Directives) == 0:
		p.variable = arg.Raw
	case arg.Kind == ast.StringValue && len(op.VariableDefinitions) == 0:
		p.id = arg.Raw
	default:
		return nil
	}
	seen := map[string]bool{}
	if !planFields(root.SelectionSet, "Space", spaceFields, seen, &p.fields) {
		return nil
	}
	return p
}

// planFields appends the fields of set (on type typeName, whose plain
// fields are known) to out, expanding fragments in place as gqlgen's
// CollectFields does; false when the fast path cannot answer set.
func planFields[T any](set ast.SelectionSet, typeName string, known map[string]func([]ast.Selection) (func(*T) graphql.Marshaler, bool), seen map[string]bool, out *[]planField[T]) bool {
	for _, sel := range set {
		switch sel := sel.(type) {
		case *ast.Field:
			if len(sel.Directives) > 0 || len(sel.Arguments) > 0 || seen[sel.Alias] {
				return false
			}
			seen[sel.Alias] = true
			var value func(*T) graphql.Marshaler
			if sel.Name == "__typename" {
				m := graphql.MarshalString(typeName)
				value = func(*T) graphql.Marshaler { return m }
			} else {
				build, ok := known[sel.Name]
				if !ok {
					return false
				}
				if value, ok = build(sel.SelectionSet); !ok {
					return false
				}
			}
			*out = append(*out, planField[T]{alias: sel.Alias, value: value})
		case *ast.InlineFragment:
			if len(sel.Directives) > 0 || (sel.TypeCondition != "" && sel.TypeCondition != typeName) ||
				!planFields(sel.SelectionSet, typeName, known, seen, out) {
				return false
			}
		case *ast.FragmentSpread:
			d := sel.Definition
			if len(sel.Directives) > 0 || d == nil || len(d.Directives) > 0 || d.TypeCondition != typeName ||
				!planFields(d.SelectionSet, typeName, known, seen, out) {
				return false
			}
		default:
			return false
		}
	}
	return true
}

// scalar is a known field without sub-selection.
func scalar[T any](value func(*T) graphql.Marshaler) func([]ast.Selection) (func(*T) graphql.Marshaler, bool) {
	return func(sub []ast.Selection) (func(*T) graphql.Marshaler, bool) { return value, len(sub) == 0 }
}

// object is a known field holding an object of type typeName.
func object[T, C any](typeName string, fields map[string]func([]ast.Selection) (func(*C) graphql.Marshaler, bool), get func(*T) *C) func([]ast.Selection) (func(*T) graphql.Marshaler, bool) {
	return func(sub []ast.Selection) (func(*T) graphql.Marshaler, bool) {
		var planned []planField[C]
		if len(sub) == 0 || !planFields(sub, typeName, fields, map[string]bool{}, &planned) {
			return nil, false
		}
		return func(v *T) graphql.Marshaler { return objectOf(planned, get(v)) }, true
	}
}

func str(s string) graphql.Marshaler { return graphql.MarshalString(s) }

func optStr(s *string) graphql.Marshaler {
	if s == nil {
		return graphql.Null
	}
	return graphql.MarshalString(*s)
}

// The plain fields of Space and of its two objects, marshalled as the
// generated code does (graph/generated/spaces.generated.go).
var (
	spaceURLFields = map[string]func([]ast.Selection) (func(*model.SpaceURLs) graphql.Marshaler, bool){
		"location":  scalar(func(u *model.SpaceURLs) graphql.Marshaler { return str(u.Location) }),
		"app":       scalar(func(u *model.SpaceURLs) graphql.Marshaler { return str(u.App) }),
		"published": scalar(func(u *model.SpaceURLs) graphql.Marshaler { return optStr(u.Published) }),
		"icon":      scalar(func(u *model.SpaceURLs) graphql.Marshaler { return optStr(u.Icon) }),
	}
	spacePermissionFields = map[string]func([]ast.Selection) (func(*model.SpacePermissions) graphql.Marshaler, bool){
		"view":            scalar(func(p *model.SpacePermissions) graphql.Marshaler { return graphql.MarshalBoolean(p.View) }),
		"access":          scalar(func(p *model.SpacePermissions) graphql.Marshaler { return graphql.MarshalBoolean(p.Access) }),
		"admin":           scalar(func(p *model.SpacePermissions) graphql.Marshaler { return graphql.MarshalBoolean(p.Admin) }),
		"viewInviteLinks": scalar(func(p *model.SpacePermissions) graphql.Marshaler { return graphql.MarshalBoolean(p.ViewInviteLinks) }),
		"edit":            scalar(func(p *model.SpacePermissions) graphql.Marshaler { return graphql.MarshalBoolean(p.Edit) }),
		"triggerGitSync":  scalar(func(p *model.SpacePermissions) graphql.Marshaler { return graphql.MarshalBoolean(p.TriggerGitSync) }),
		"comment":         scalar(func(p *model.SpacePermissions) graphql.Marshaler { return graphql.MarshalBoolean(p.Comment) }),
		"merge":           scalar(func(p *model.SpacePermissions) graphql.Marshaler { return graphql.MarshalBoolean(p.Merge) }),
		"review":          scalar(func(p *model.SpacePermissions) graphql.Marshaler { return graphql.MarshalBoolean(p.Review) }),
	}
	spaceFields = map[string]func([]ast.Selection) (func(*model.Space) graphql.Marshaler, bool){
		"object":       scalar(func(s *model.Space) graphql.Marshaler { return str(s.Object) }),
		"id":           scalar(func(s *model.Space) graphql.Marshaler { return str(s.ID) }),
		"title":        scalar(func(s *model.Space) graphql.Marshaler { return str(s.Title) }),
		"emoji":        scalar(func(s *model.Space) graphql.Marshaler { return str(s.Emoji) }),
		"visibility":   scalar(func(s *model.Space) graphql.Marshaler { return s.Visibility }),
		"createdAt":    scalar(func(s *model.Space) graphql.Marshaler { return str(s.CreatedAt) }),
		"updatedAt":    scalar(func(s *model.Space) graphql.Marshaler { return str(s.UpdatedAt) }),
		"deletedAt":    scalar(func(s *model.Space) graphql.Marshaler { return optStr(s.DeletedAt) }),
		"editMode":     scalar(func(s *model.Space) graphql.Marshaler { return s.EditMode }),
		"organization": scalar(func(s *model.Space) graphql.Marshaler { return str(s.Organization) }),
		"parent":       scalar(func(s *model.Space) graphql.Marshaler { return optStr(s.Parent) }),
		"revision":     scalar(func(s *model.Space) graphql.Marshaler { return str(s.Revision) }),
		"defaultLevel": scalar(func(s *model.Space) graphql.Marshaler {
			if s.DefaultLevel == nil {
				return graphql.Null
			}
			return *s.DefaultLevel
		}),
		"comments":            scalar(func(s *model.Space) graphql.Marshaler { return graphql.MarshalInt(s.Comments) }),
		"changeRequests":      scalar(func(s *model.Space) graphql.Marshaler { return graphql.MarshalInt(s.ChangeRequests) }),
		"changeRequestsOpen":  scalar(func(s *model.Space) graphql.Marshaler { return graphql.MarshalInt(s.ChangeRequestsOpen) }),
		"changeRequestsDraft": scalar(func(s *model.Space) graphql.Marshaler { return graphql.MarshalInt(s.ChangeRequestsDraft) }),
		"urls":                object("SpaceURLs", spaceURLFields, func(s *model.Space) *model.SpaceURLs { return &s.Urls }),
		"permissions":         object("SpacePermissions", spacePermissionFields, func(s *model.Space) *model.SpacePermissions { return &s.Permissions }),
	}
)
