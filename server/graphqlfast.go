package server

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strconv"
	"sync/atomic"
	"unicode/utf8"

	"github.com/99designs/gqlgen/graphql"
	"github.com/99designs/gqlgen/graphql/handler/lru"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/gqlerror"

	"docsapi/apierr"
	"docsapi/auth"
	"docsapi/graph/generated"
	"docsapi/graph/model"
	"docsapi/rest"
)

// fastGraphQL answers the hottest GraphQL reads, `space(spaceId:)` and
// `organization(id:)` with a selection of the object's plain fields,
// without gqlgen's executor: for a small object the executor costs more
// than the read itself (a field context, a middleware call and a boxed
// value per field, a map of every input unmarshaler per operation), which
// held GraphQL to about half of REST's throughput for the same space.
//
// Every POST passes readPost first (one JSON object sent as JSON, the
// document's bytes and nesting), whichever answers it. Only operations
// gqlgen has already run are answered, so nothing is parsed, validated or
// limited further here: the first request of a query text goes through
// gqlgen (document bounds, validation, complexity and depth limits), and
// learn, an
// AroundOperations hook, records a plan when the operation qualifies. A
// later request with the same query text and operation name is answered
// from the plan through the same resolver as gqlgen and REST, with gqlgen's
// own marshalers and JSON encoding, so the bytes are the same (tested
// against gqlgen field by field). Anything else goes to gqlgen unchanged:
// another Accept type, request extensions (persisted queries), a variable
// that is not a plain string, a resolver error.
type fastGraphQL struct {
	gql       http.Handler
	query     generated.QueryResolver
	present   graphql.ErrorPresenterFunc // presents the refusals of readGraphQLPost
	bounds    *documentBounds            // the document's bytes and nesting are checked before gqlgen reads the body
	plans     *lru.LRU[*rootPlan]
	answers   rest.AnswerCache[fastAnswerKey] // encoded answers between writes
	answered  atomic.Int64                    // requests answered here (tests and benchmarks)
	persisted *PersistedQueries               // the registered documents (graphqlpersisted.go)
}

// fastAnswerKey is what a stored fast answer was computed for: the plan
// (query text and operation name), the object's id and the caller. Like
// REST's stored answers (rest/answers.go) it is served only to a request
// whose counters are the ones it was computed under.
type fastAnswerKey struct {
	plan   *rootPlan
	id     string
	caller auth.Caller
}

func newFastGraphQL(gql http.Handler, query generated.QueryResolver, present graphql.ErrorPresenterFunc, bounds *documentBounds) *fastGraphQL {
	return &fastGraphQL{gql: gql, query: query, present: present, bounds: bounds, plans: lru.New[*rootPlan](1000)}
}

// GraphQLFastAnswers is how many GraphQL requests the fast path answered.
func (s *Server) GraphQLFastAnswers() int64 {
	if s.fastGQL == nil {
		return 0
	}
	return s.fastGQL.answered.Load()
}

// fastRequest is a GraphQL POST body, with the shapes gqlgen's POST
// transport decodes it into (graphql.RawParams), values left encoded.
type fastRequest struct {
	Query         string                     `json:"query"`
	OperationName string                     `json:"operationName"`
	Variables     map[string]json.RawMessage `json:"variables"`
	Extensions    map[string]json.RawMessage `json:"extensions"`
}

// maxPlannedQuery bounds the query texts remembered (hot queries are short).
const maxPlannedQuery = 4096

func planKey(operationName, query string) string { return operationName + "\x00" + query }

func (f *fastGraphQL) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	switch {
	case r.Method == http.MethodGet || r.Method == http.MethodHead || r.Method == http.MethodOptions || r.Header.Get("Upgrade") != "":
		f.gql.ServeHTTP(w, r)
		return
	case r.Method != http.MethodPost:
		w.Header().Set("Allow", "GET, POST, OPTIONS")
		f.refuse(w, r, f.present(r.Context(), apierr.New(http.StatusMethodNotAllowed, "GraphQL takes POST, or GET for a query")), http.StatusMethodNotAllowed)
		return
	}
	body, req, err := f.readPost(r)
	if err != nil {
		status := http.StatusUnprocessableEntity // the document's bounds
		if e, ok := apierr.As(err); ok {
			status = e.Status
		}
		f.refuse(w, r, f.present(r.Context(), err), status)
		return
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	switch r.Header.Get("Accept") { // the ones gqlgen answers with application/json
	case "", "application/json", "*/*":
	default:
		f.gql.ServeHTTP(w, r)
		return
	}
	if out, ok := f.answer(r, req); ok {
		f.answered.Add(1)
		w.Header().Set("Content-Type", "application/json")
		w.Write(out)
		return
	}
	f.gql.ServeHTTP(w, r)
}

// readPost reads and decodes a GraphQL POST, or says why the request is
// refused: gqlgen's POST transport answers a body it cannot decode (a batch
// of operations, broken JSON) with an error without a code, which the
// presenter turned into an "internal error", and echoes the whole body in
// it; other content types got "transport not supported". The document's
// bytes and nesting are checked here, before gqlgen's transport copies and
// decodes the body again (a document of 10 MB cost 100 MB when it did).
func (f *fastGraphQL) readPost(r *http.Request) ([]byte, *fastRequest, error) {
	if mediaType, _, err := mime.ParseMediaType(r.Header.Get("Content-Type")); err != nil || mediaType != "application/json" {
		return nil, nil, apierr.New(http.StatusUnsupportedMediaType, "a GraphQL POST must be sent as application/json (or use GET for a query)")
	}
	var buf bytes.Buffer
	if r.ContentLength > 0 {
		buf.Grow(int(r.ContentLength)) // limitBody has refused more than the body limit
	}
	_, err := buf.ReadFrom(r.Body)
	body := buf.Bytes()
	if err != nil {
		var tooLarge *http.MaxBytesError
		if errors.As(err, &tooLarge) {
			return nil, nil, apierr.New(http.StatusRequestEntityTooLarge, "request body is larger than %d bytes", tooLarge.Limit)
		}
		return nil, nil, apierr.New(http.StatusBadRequest, "could not read the request body")
	}
	if trimmed := bytes.TrimLeft(body, " \t\r\n"); len(trimmed) > 0 && trimmed[0] == '[' {
		return nil, nil, apierr.New(http.StatusBadRequest, "batched GraphQL requests are not supported: send one operation per request")
	}
	if limit := f.bounds.limits.DocumentBytes; limit > 0 && len(body) > limit {
		// Measured without decoding it: a copy of a document too large is
		// as large.
		var q struct {
			Query decodedLength `json:"query"`
		}
		if json.Unmarshal(body, &q) == nil && int(q.Query) > limit {
			return nil, nil, f.bounds.tooLarge(int(q.Query))
		}
	}
	var req fastRequest
	if err := json.Unmarshal(body, &req); err != nil {
		return nil, nil, apierr.New(http.StatusBadRequest, "request body is not a GraphQL request (a JSON object with query, operationName, variables and extensions): %s", jsonProblem(err))
	}
	if err := f.bounds.checkText(req.Query); err != nil {
		return nil, nil, err
	}
	return body, &req, nil
}

// decodedLength is the length of a JSON string once decoded, or a little
// less (a byte of invalid UTF-8 or a surrogate escape counts 1 where the
// decoder makes 3 or 4 bytes), found without decoding it.
type decodedLength int

func (n *decodedLength) UnmarshalJSON(raw []byte) error {
	if len(raw) < 2 || raw[0] != '"' {
		return nil // not a string: the decode proper says so
	}
	length := 0
	for i := 1; i < len(raw)-1; i++ {
		if raw[i] != '\\' {
			length++
			continue
		}
		if raw[i+1] != 'u' {
			length++
			i++
			continue
		}
		r, _ := strconv.ParseUint(string(raw[i+2:i+6]), 16, 32)
		length += max(utf8.RuneLen(rune(r)), 1)
		i += 5
	}
	*n = decodedLength(length)
	return nil
}

// jsonProblem says what is wrong with a JSON body without quoting it.
func jsonProblem(err error) string {
	var syntax *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syntax):
		return fmt.Sprintf("invalid JSON at byte %d", syntax.Offset)
	case errors.As(err, &typ):
		if typ.Field != "" {
			return fmt.Sprintf("%s must not be a JSON %s", typ.Field, typ.Value)
		}
		return fmt.Sprintf("a JSON %s instead of an object", typ.Value)
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return "the JSON ends early"
	default:
		return "invalid JSON"
	}
}

// refuse answers err as gqlgen answers a request it cannot run: a GraphQL
// response with only errors.
func (f *fastGraphQL) refuse(w http.ResponseWriter, r *http.Request, err *gqlerror.Error, status int) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	out, _ := json.Marshal(&graphql.Response{Errors: gqlerror.List{err}})
	w.Write(out)
}

type failingReader struct{ err error }

func (f failingReader) Read([]byte) (int, error) { return 0, f.err }

// answer is the whole response to body, or false when gqlgen must answer.
// The bytes may be shared with other requests: write them, never change them.
func (f *fastGraphQL) answer(r *http.Request, req *fastRequest) ([]byte, bool) {
	ctx := r.Context()
	if len(req.Extensions) > 0 {
		return nil, false
	}
	if f.persisted != nil && !f.persisted.allows(ctx, req.Query) {
		return nil, false // unregistered since learned: gqlgen refuses it
	}
	plan, ok := f.plans.Get(ctx, planKey(req.OperationName, req.Query))
	if !ok || plan == nil {
		return nil, false
	}
	id := plan.id
	if plan.variable != "" {
		raw := req.Variables[plan.variable]
		if len(req.Variables) != 1 || len(raw) == 0 || raw[0] != '"' || json.Unmarshal(raw, &id) != nil {
			return nil, false // not a string: gqlgen says why
		}
	} else if len(req.Variables) != 0 {
		return nil, false
	}
	caller, version, storable := rest.Storable(r)
	key := fastAnswerKey{plan: plan, id: id, caller: caller}
	if storable {
		if s, hit := f.answers.Get(key, version); hit {
			return s.Body, true
		}
	}
	value, ok := plan.answer(ctx, f.query, id)
	if !ok {
		return nil, false // gqlgen presents the error
	}
	var data bytes.Buffer
	data.WriteString(`{`)
	graphql.MarshalString(plan.alias).MarshalGQL(&data)
	data.WriteString(`:`)
	value.MarshalGQL(&data)
	data.WriteString(`}`)
	// gqlgen's transport encodes graphql.Response{Data: data} with
	// encoding/json, which compacts data (already compact here) and escapes
	// <, >, & and U+2028/2029 in its strings: HTMLEscape alone does that.
	var out bytes.Buffer
	out.Grow(data.Len() + 16)
	out.WriteString(`{"data":`)
	json.HTMLEscape(&out, data.Bytes())
	out.WriteString(plan.extensions)
	out.WriteString(`}`)
	if storable && rest.StillAt(r, version) {
		f.answers.Put(key, rest.StoredAnswer{Version: version, Body: out.Bytes()})
	}
	return out.Bytes(), true
}

// learn records the plan of an operation gqlgen is about to run (it has
// passed validation and the guardrails) when the fast path can answer it.
func (f *fastGraphQL) learn(ctx context.Context, next graphql.OperationHandler) graphql.ResponseHandler {
	if oc := graphql.GetOperationContext(ctx); oc != nil && oc.Operation != nil {
		key := planKey(oc.OperationName, oc.RawQuery)
		if _, known := f.plans.Get(ctx, key); !known && len(key) <= maxPlannedQuery {
			plan := planRoot(oc.Operation) // nil: gqlgen answers
			if plan != nil {
				plan.extensions = costJSON(oc)
			}
			f.plans.Add(ctx, key, plan)
		}
	}
	return next(ctx)
}

// rootPlan is an operation the fast path answers: one root field reading
// one object by id. alias is its response key, the id comes from a
// variable or a literal, and answer reads and writes the object.
type rootPlan struct {
	alias    string
	variable string // the id is this variable's value, or
	id       string // this literal
	answer   rootAnswer
	// extensions is what follows data in the answer: the operation's cost
	// as gqlgen's answer has it (graphqlcost.go; a plan's fields take no
	// limit, so its cost is the same whatever its id).
	extensions string
}

// rootAnswer resolves the object with the resolver gqlgen and REST call and
// gives its planned fields; false when gqlgen must answer (an error).
type rootAnswer func(ctx context.Context, q generated.QueryResolver, id string) (graphql.Marshaler, bool)

// fastRoots are the root fields the fast path answers: the argument naming
// the object (the only one accepted) and how to plan its selection.
var fastRoots = map[string]struct {
	arg  string
	plan func(ast.SelectionSet) (rootAnswer, bool)
}{
	"space": {"spaceId", rootOf("Space", spaceFields, func(ctx context.Context, q generated.QueryResolver, id string) (*model.Space, error) {
		return q.Space(ctx, id, nil)
	})},
	"organization": {"id", rootOf("Organization", organizationFields, func(ctx context.Context, q generated.QueryResolver, id string) (*model.Organization, error) {
		return q.Organization(ctx, id)
	})},
}

func rootOf[T any](typeName string, fields fieldsOf[T], get func(context.Context, generated.QueryResolver, string) (*T, error)) func(ast.SelectionSet) (rootAnswer, bool) {
	return func(set ast.SelectionSet) (rootAnswer, bool) {
		var planned []planField[T]
		if len(set) == 0 || !planFields(set, typeName, fields, map[string]bool{}, &planned) {
			return nil, false
		}
		return func(ctx context.Context, q generated.QueryResolver, id string) (graphql.Marshaler, bool) {
			v, err := get(ctx, q, id)
			if err != nil || v == nil {
				return nil, false
			}
			return objectOf(planned, v), true
		}, true
	}
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

// planRoot is op's plan, or nil unless op is a query whose only root field
// is one of fastRoots with only its id argument, from a literal or from the
// operation's only variable, and only known plain fields below it (any
// directive, other argument, repeated response key or fragment on another
// type leaves the operation to gqlgen).
func planRoot(op *ast.OperationDefinition) *rootPlan {
	if op.Operation != ast.Query || len(op.Directives) > 0 || len(op.SelectionSet) != 1 {
		return nil
	}
	root, ok := op.SelectionSet[0].(*ast.Field)
	if !ok {
		return nil
	}
	r, known := fastRoots[root.Name]
	if !known || len(root.Directives) > 0 || len(root.Arguments) != 1 || root.Arguments[0].Name != r.arg {
		return nil
	}
	p := &rootPlan{alias: root.Alias}
	switch arg := root.Arguments[0].Value; {
	case arg.Kind == ast.Variable && len(op.VariableDefinitions) == 1 && op.VariableDefinitions[0].Variable == arg.Raw &&
		op.VariableDefinitions[0].DefaultValue == nil && len(op.VariableDefinitions[0].Directives) == 0:
		p.variable = arg.Raw
	case arg.Kind == ast.StringValue && len(op.VariableDefinitions) == 0:
		p.id = arg.Raw
	default:
		return nil
	}
	if p.answer, ok = r.plan(root.SelectionSet); !ok {
		return nil
	}
	return p
}

// fieldsOf are the known fields of a type: each plans its value from the
// field's sub-selection (false: the fast path cannot answer it).
type fieldsOf[T any] map[string]func([]ast.Selection) (func(*T) graphql.Marshaler, bool)

// planFields appends the fields of set (on type typeName, whose plain
// fields are known) to out, expanding fragments in place as gqlgen's
// CollectFields does; false when the fast path cannot answer set.
func planFields[T any](set ast.SelectionSet, typeName string, known fieldsOf[T], seen map[string]bool, out *[]planField[T]) bool {
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
// object is a known field holding an object of type typeName (get gives
// nil for null).
func object[T, C any](typeName string, fields fieldsOf[C], get func(*T) *C) func([]ast.Selection) (func(*T) graphql.Marshaler, bool) {
	return func(sub []ast.Selection) (func(*T) graphql.Marshaler, bool) {
		var planned []planField[C]
		if len(sub) == 0 || !planFields(sub, typeName, fields, map[string]bool{}, &planned) {
			return nil, false
		}
		return func(v *T) graphql.Marshaler {
			if c := get(v); c != nil {
				return objectOf(planned, c)
			}
			return graphql.Null
		}, true
	}
}

func str(s string) graphql.Marshaler { return graphql.MarshalString(s) }

func optStr(s *string) graphql.Marshaler {
	if s == nil {
		return graphql.Null
	}
	return graphql.MarshalString(*s)
}

// The plain fields of Space, Organization and their objects, marshalled as
// the generated code does (graph/generated/spaces.generated.go,
// organizations.generated.go).
var (
	spaceURLFields = fieldsOf[model.SpaceURLs]{
		"location":  scalar(func(u *model.SpaceURLs) graphql.Marshaler { return str(u.Location) }),
		"app":       scalar(func(u *model.SpaceURLs) graphql.Marshaler { return str(u.App) }),
		"published": scalar(func(u *model.SpaceURLs) graphql.Marshaler { return optStr(u.Published) }),
		"icon":      scalar(func(u *model.SpaceURLs) graphql.Marshaler { return optStr(u.Icon) }),
	}
	spacePermissionFields = fieldsOf[model.SpacePermissions]{
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
	spaceFields = fieldsOf[model.Space]{
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
	organizationFields = fieldsOf[model.Organization]{
		"object":    scalar(func(o *model.Organization) graphql.Marshaler { return str(o.Object) }),
		"id":        scalar(func(o *model.Organization) graphql.Marshaler { return str(o.ID) }),
		"title":     scalar(func(o *model.Organization) graphql.Marshaler { return str(o.Title) }),
		"createdAt": scalar(func(o *model.Organization) graphql.Marshaler { return str(o.CreatedAt) }),
		"emailDomains": scalar(func(o *model.Organization) graphql.Marshaler {
			a := make(graphql.Array, len(o.EmailDomains))
			for i, d := range o.EmailDomains {
				a[i] = str(d)
			}
			return a
		}),
		"hostname":      scalar(func(o *model.Organization) graphql.Marshaler { return optStr(o.Hostname) }),
		"type":          scalar(func(o *model.Organization) graphql.Marshaler { return str(o.Type) }),
		"useCase":       scalar(func(o *model.Organization) graphql.Marshaler { return optStr(o.UseCase) }),
		"communityType": scalar(func(o *model.Organization) graphql.Marshaler { return optStr(o.CommunityType) }),
		"defaultRole": scalar(func(o *model.Organization) graphql.Marshaler {
			if o.DefaultRole == nil {
				return graphql.Null
			}
			return *o.DefaultRole
		}),
		"defaultContent": object("OrganizationDefaultContent", fieldsOf[model.OrganizationDefaultContent]{
			"type": scalar(func(c *model.OrganizationDefaultContent) graphql.Marshaler { return str(c.Type) }),
			"site": scalar(func(c *model.OrganizationDefaultContent) graphql.Marshaler { return str(c.Site) }),
		}, func(o *model.Organization) *model.OrganizationDefaultContent { return o.DefaultContent }),
		"sso":         scalar(func(o *model.Organization) graphql.Marshaler { return graphql.MarshalBoolean(o.Sso) }),
		"ai":          scalar(func(o *model.Organization) graphql.Marshaler { return graphql.MarshalBoolean(o.Ai) }),
		"inviteLinks": scalar(func(o *model.Organization) graphql.Marshaler { return graphql.MarshalBoolean(o.InviteLinks) }),
		"plan":        scalar(func(o *model.Organization) graphql.Marshaler { return str(o.Plan) }),
		"urls": object("OrganizationURLs", fieldsOf[model.OrganizationURLs]{
			"location": scalar(func(u *model.OrganizationURLs) graphql.Marshaler { return str(u.Location) }),
			"app":      scalar(func(u *model.OrganizationURLs) graphql.Marshaler { return str(u.App) }),
			"logo":     scalar(func(u *model.OrganizationURLs) graphql.Marshaler { return optStr(u.Logo) }),
		}, func(o *model.Organization) *model.OrganizationURLs { return &o.Urls }),
		"trial": object("OrganizationTrial", fieldsOf[model.OrganizationTrial]{
			"status": scalar(func(t *model.OrganizationTrial) graphql.Marshaler { return str(t.Status) }),
		}, func(o *model.Organization) *model.OrganizationTrial { return &o.Trial }),
		"customHostname":        scalar(func(o *model.Organization) graphql.Marshaler { return optStr(o.CustomHostname) }),
		"internal_isOnNewTrial": scalar(func(o *model.Organization) graphql.Marshaler { return graphql.MarshalBoolean(o.InternalIsOnNewTrial) }),
		"permissions": object("OrganizationPermissions", fieldsOf[model.OrganizationPermissions]{
			"view":    scalar(func(p *model.OrganizationPermissions) graphql.Marshaler { return graphql.MarshalBoolean(p.View) }),
			"admin":   scalar(func(p *model.OrganizationPermissions) graphql.Marshaler { return graphql.MarshalBoolean(p.Admin) }),
			"ownTeam": scalar(func(p *model.OrganizationPermissions) graphql.Marshaler { return graphql.MarshalBoolean(p.OwnTeam) }),
			"createContent": scalar(func(p *model.OrganizationPermissions) graphql.Marshaler {
				return graphql.MarshalBoolean(p.CreateContent)
			}),
			"createOpenAPISpec": scalar(func(p *model.OrganizationPermissions) graphql.Marshaler {
				return graphql.MarshalBoolean(p.CreateOpenAPISpec)
			}),
			"ingestConversations": scalar(func(p *model.OrganizationPermissions) graphql.Marshaler {
				return graphql.MarshalBoolean(p.IngestConversations)
			}),
			"viewBilling": scalar(func(p *model.OrganizationPermissions) graphql.Marshaler { return graphql.MarshalBoolean(p.ViewBilling) }),
			"listMembers": scalar(func(p *model.OrganizationPermissions) graphql.Marshaler { return graphql.MarshalBoolean(p.ListMembers) }),
			"listTeams":   scalar(func(p *model.OrganizationPermissions) graphql.Marshaler { return graphql.MarshalBoolean(p.ListTeams) }),
			"listIntegrations": scalar(func(p *model.OrganizationPermissions) graphql.Marshaler {
				return graphql.MarshalBoolean(p.ListIntegrations)
			}),
		}, func(o *model.Organization) *model.OrganizationPermissions { return &o.Permissions }),
	}
)
