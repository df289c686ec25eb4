package server

import (
	"context"
	"encoding/json"

	"github.com/99designs/gqlgen/graphql"
	"github.com/99designs/gqlgen/graphql/errcode"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/gqlerror"
	"github.com/vektah/gqlparser/v2/lexer"
	"github.com/vektah/gqlparser/v2/parser"
)

// Defaults of the GraphQL document bounds, the `docsapi serve` flags'
// defaults. The field bound equals the complexity limit's default: an
// operation selecting more fields would be refused after validation anyway.
const (
	DefaultGraphQLMaxDocumentBytes = 2 << 20 // an inline page literal (1 MiB cap) with its escapes
	DefaultGraphQLMaxTokens        = 15000
	DefaultGraphQLMaxNesting       = 64
	DefaultGraphQLMaxFields        = 1000
	DefaultGraphQLMaxAliases       = 200
	DefaultGraphQLMaxFieldPairs    = 10000 // about 5 ms of validation
	DefaultGraphQLMaxErrors        = 100
)

// Codes of the refusals of the bounds below and of the guardrails of
// graphql.go. They are protocol errors: the client gets a 422 (400 when it
// asks for application/graphql-response+json), as for a parse error.
const (
	codeDocumentTooLarge        = "DOCUMENT_TOO_LARGE"
	codeNestingLimitExceeded    = "NESTING_LIMIT_EXCEEDED"
	codeFieldLimitExceeded      = "FIELD_LIMIT_EXCEEDED"
	codeAliasLimitExceeded      = "ALIAS_LIMIT_EXCEEDED"
	codeFieldPairLimitExceeded  = "FIELD_PAIR_LIMIT_EXCEEDED"
	codeAliasInIntrospection    = "ALIAS_IN_INTROSPECTION"
	codeTooManyErrors           = "TOO_MANY_ERRORS"
	codeComplexityLimitExceeded = "COMPLEXITY_LIMIT_EXCEEDED"
	codeDepthLimitExceeded      = "DEPTH_LIMIT_EXCEEDED"
)

func init() {
	for _, code := range []string{codeDocumentTooLarge, codeNestingLimitExceeded, codeFieldLimitExceeded,
		codeAliasLimitExceeded, codeFieldPairLimitExceeded, codeAliasInIntrospection, codeComplexityLimitExceeded, codeDepthLimitExceeded} {
		errcode.RegisterErrorType(code, errcode.KindProtocol)
	}
}

func limitError(code, format string, args ...any) *gqlerror.Error {
	err := gqlerror.Errorf(format, args...)
	errcode.Set(err, code)
	return err
}

// documentBounds refuses a GraphQL document before gqlgen parses and
// validates it, since both cost more than the document's size suggests:
// the parser recurses once per nesting level (a million levels overflowed
// the stack and killed the process), and validation's overlapping-fields
// rule compares every pair of fields sharing a response name (8,000
// `__typename` took 20 s) and cannot be interrupted. In order, each bound
// costing no more than the document's bytes:
//   - the document's bytes;
//   - how deeply {, [ and ( nest, scanned over the bytes before parsing;
//   - its tokens, counted by the lexer alone before parsing;
//   - its fields and aliases, on the parsed document before validation,
//     each fragment counted at its definition and again at every use;
//   - the pairs of fields sharing a response key and of fragments spread
//     together, which validation compares pairwise: a thousand
//     `__typename` are within the field bound but make half a million
//     pairs (0.2 s);
//   - no alias within introspection (__schema, __type): every alias of
//     __schema answers the whole schema again, for one field of complexity.
//
// It is an operation parameter mutator placed after persisted queries, so
// it sees the query text whichever way it came. Documents already in the
// query cache passed it and are not looked at again.
type documentBounds struct {
	limits GraphQLLimits
	known  graphql.Cache[*ast.QueryDocument] // the executor's cache of valid documents
}

// GraphQLLimits bound a GraphQL document before it is parsed and validated,
// and the errors of one answer; 0 turns a bound off.
type GraphQLLimits struct {
	DocumentBytes int // bytes of the query text
	Tokens        int // lexical tokens of the query text
	Nesting       int // nesting of {, [ and ( in the query text
	Fields        int // fields of the document, fragments counted at each use
	Aliases       int // aliased fields, counted the same way
	// FieldPairs bounds the pairs of fields sharing a response key (a field
	// repeated, the same field in several fragments) and of fragments spread
	// into one selection, which validation compares one with another.
	// Counted only with a Fields bound.
	FieldPairs int
	Errors     int // errors in one answer (the rest are summed up in one)
}

var _ interface {
	graphql.HandlerExtension
	graphql.OperationParameterMutator
} = &documentBounds{}

func (*documentBounds) ExtensionName() string                          { return "DocumentBounds" }
func (*documentBounds) Validate(schema graphql.ExecutableSchema) error { return nil }

func (b *documentBounds) MutateOperationParameters(ctx context.Context, raw *graphql.RawParams) *gqlerror.Error {
	if _, ok := b.known.Get(ctx, raw.Query); ok {
		return nil
	}
	// gqlgen parses the document again: within these bounds parsing costs
	// little beside validation.
	return b.check(raw.Query)
}

// checkText refuses query when its bytes or its nesting are over the
// bounds: what is checked without parsing.
func (b *documentBounds) checkText(query string) *gqlerror.Error {
	if n := b.limits.DocumentBytes; n > 0 && len(query) > n {
		return b.tooLarge(len(query))
	}
	if n := b.limits.Nesting; n > 0 && nestingDepth(query, n+1) > n {
		return limitError(codeNestingLimitExceeded, "GraphQL document nests {, [ and ( more than %d levels deep, the limit", n)
	}
	return nil
}

func (b *documentBounds) tooLarge(size int) *gqlerror.Error {
	return limitError(codeDocumentTooLarge, "GraphQL document of %d bytes is larger than the limit of %d", size, b.limits.DocumentBytes)
}

// check refuses query when it is outside the bounds.
func (b *documentBounds) check(query string) *gqlerror.Error {
	if err := b.checkText(query); err != nil {
		return err
	}
	if n := b.limits.Tokens; n > 0 && countTokens(query, n+1) > n {
		return limitError(errcode.ParseFailed, "exceeded token limit of %d", n) // the parser's words
	}
	doc, err := parser.ParseQueryWithTokenLimit(&ast.Source{Input: query}, b.limits.Tokens)
	if err != nil {
		gqlErr, ok := err.(*gqlerror.Error)
		if !ok {
			gqlErr = gqlerror.Wrap(err)
		}
		errcode.Set(gqlErr, errcode.ParseFailed) // as gqlgen's executor does
		return gqlErr
	}
	shape := measureDocument(doc, max(b.limits.Fields, b.limits.Aliases))
	if n := b.limits.Fields; n > 0 && shape.fields > n {
		return limitError(codeFieldLimitExceeded, "GraphQL document selects more than %d fields (fragments counted at each use), the limit", n)
	}
	if n := b.limits.Aliases; n > 0 && shape.aliases > n {
		return limitError(codeAliasLimitExceeded, "GraphQL document has more than %d aliases (fragments counted at each use), the limit", n)
	}
	if n := b.limits.FieldPairs; n > 0 && b.limits.Fields > 0 && fieldPairs(doc, b.limits.Fields) > n {
		return limitError(codeFieldPairLimitExceeded, "GraphQL document has more than %d pairs of fields sharing a response key (a repeated field, the same field in several fragments) or of fragments spread together, the limit: validation compares each pair", n)
	}
	if f := shape.aliasedIntrospection; f != nil {
		err := limitError(codeAliasInIntrospection, "introspection fields (%s and the fields below it) take no aliases", f.Name)
		err.Locations = []gqlerror.Location{{Line: f.Position.Line, Column: f.Position.Column}}
		return err
	}
	return nil
}

// countTokens counts the tokens of query (comments not counted, as by the
// parser) up to stop, or up to a lexical error. The parser stops at its
// token limit too, but only after building the syntax tree up to it:
// 15,000 fields, 5 MB.
func countTokens(query string, stop int) int {
	lex := lexer.New(&ast.Source{Input: query})
	n := 0
	for n < stop {
		tok, err := lex.ReadToken()
		if err != nil || tok.Kind == lexer.EOF {
			break
		}
		if tok.Kind != lexer.Comment {
			n++
		}
	}
	return n
}

// nestingDepth is how deeply {, [ and ( nest in a GraphQL document, not
// counting those in strings, block strings and comments, and counting no
// further than stop. It reads each byte once and keeps no stack: the parser
// reports unbalanced brackets, and stops at the first, so a closing bracket
// too many hides nothing from this count.
func nestingDepth(doc string, stop int) int {
	depth, deepest := 0, 0
	for i := 0; i < len(doc); i++ {
		switch doc[i] {
		case '{', '[', '(':
			depth++
			if depth > deepest {
				deepest = depth
				if deepest >= stop {
					return deepest
				}
			}
		case '}', ']', ')':
			depth = max(depth-1, 0)
		case '#': // a comment runs to the end of the line
			for i+1 < len(doc) && doc[i+1] != '\n' && doc[i+1] != '\r' {
				i++
			}
		case '"':
			if i+2 < len(doc) && doc[i+1] == '"' && doc[i+2] == '"' { // block string: only \""" escapes
				i += 3
				for i < len(doc) && !(doc[i] == '"' && i+2 < len(doc) && doc[i+1] == '"' && doc[i+2] == '"') {
					if doc[i] == '\\' && i+3 < len(doc) && doc[i+1] == '"' && doc[i+2] == '"' && doc[i+3] == '"' {
						i += 3
					}
					i++
				}
				i += 2
				continue
			}
			for i++; i < len(doc) && doc[i] != '"' && doc[i] != '\n'; i++ {
				if doc[i] == '\\' {
					i++
				}
			}
		}
	}
	return deepest
}

// documentShape is what measureDocument counts.
type documentShape struct {
	fields, aliases int
	// aliasedIntrospection is an introspection field with an alias on it or
	// below it, if any.
	aliasedIntrospection *ast.Field
}

// measureDocument counts the fields and aliases of doc, each operation and
// each fragment definition, fragments counted again at every spread (so a
// fragment used twice in two fragments used twice counts four times); the
// counts stop a little past stop (0: no stop). Each fragment is walked once
// (its counts are remembered), and a cycle of fragments counts its fragments
// once: validation refuses the cycle afterwards.
func measureDocument(doc *ast.QueryDocument, stop int) documentShape {
	m := shapeMeter{fragments: make(map[string]*ast.FragmentDefinition, len(doc.Fragments)), counted: map[string]selectionCount{}, cap: stop}
	if m.cap <= 0 {
		m.cap = int(^uint(0) >> 2)
	}
	for _, f := range doc.Fragments {
		if _, dup := m.fragments[f.Name]; !dup {
			m.fragments[f.Name] = f
		}
	}
	var total selectionCount
	for _, op := range doc.Operations {
		total = m.add(total, m.selection(op.SelectionSet))
	}
	for _, f := range doc.Fragments {
		total = m.add(total, m.fragment(f.Name))
	}
	return documentShape{fields: total.fields, aliases: total.aliases, aliasedIntrospection: m.aliasedIntrospection}
}

type selectionCount struct{ fields, aliases int }

type shapeMeter struct {
	fragments            map[string]*ast.FragmentDefinition
	counted              map[string]selectionCount // fragments walked (or being walked: a cycle)
	cap                  int
	aliasedIntrospection *ast.Field
}

// add sums counts, saturating at the cap so that no figure overflows.
func (m *shapeMeter) add(a, b selectionCount) selectionCount {
	return selectionCount{fields: min(a.fields+b.fields, m.cap+1), aliases: min(a.aliases+b.aliases, m.cap+1)}
}

func (m *shapeMeter) fragment(name string) selectionCount {
	if c, ok := m.counted[name]; ok {
		return c
	}
	m.counted[name] = selectionCount{} // a cycle back here counts nothing
	var c selectionCount
	if f := m.fragments[name]; f != nil {
		c = m.selection(f.SelectionSet)
	}
	m.counted[name] = c
	return c
}

func (m *shapeMeter) selection(set ast.SelectionSet) selectionCount {
	var c selectionCount
	for _, sel := range set {
		switch sel := sel.(type) {
		case *ast.Field:
			own := selectionCount{fields: 1}
			if sel.Alias != "" && sel.Alias != sel.Name {
				own.aliases = 1
			}
			below := m.selection(sel.SelectionSet)
			if (sel.Name == "__schema" || sel.Name == "__type") && own.aliases+below.aliases > 0 && m.aliasedIntrospection == nil {
				m.aliasedIntrospection = sel
			}
			c = m.add(c, m.add(own, below))
		case *ast.InlineFragment:
			c = m.add(c, m.selection(sel.SelectionSet))
		case *ast.FragmentSpread:
			c = m.add(c, m.fragment(sel.Name))
		}
	}
	return c
}

// fieldPairs counts the pairs of fields of doc that share a response path
// (a response key below the same response keys), fragments expanded, and
// the pairs of fragments spread into one selection: those the
// overlapping-fields rule of validation compares (500 fragments of one
// field each, spread together, took 1.2 s). Expanding walks every
// field at each use of its fragment, so the walk stops after budget fields
// (measureDocument has counted them: within the field bound, the budget is
// not reached but through a cycle of fragments, which validation refuses).
func fieldPairs(doc *ast.QueryDocument, budget int) int {
	p := pairMeter{fragments: map[string]*ast.FragmentDefinition{}, entered: map[string]bool{}, budget: budget}
	for _, f := range doc.Fragments {
		p.fragments[f.Name] = f
	}
	for _, op := range doc.Operations {
		p.group([]ast.SelectionSet{op.SelectionSet})
	}
	for _, f := range doc.Fragments {
		p.group([]ast.SelectionSet{f.SelectionSet})
	}
	return p.pairs
}

type pairMeter struct {
	fragments map[string]*ast.FragmentDefinition
	entered   map[string]bool // fragments being expanded in this selection
	budget    int
	pairs     int
}

// group counts the pairs among sets, selection sets whose fields merge into
// one response object, then those of each response key's sub-selections.
func (p *pairMeter) group(sets []ast.SelectionSet) {
	if p.budget < 0 {
		return
	}
	var keys []string
	fields := map[string]int{}
	below := map[string][]ast.SelectionSet{}
	spread := map[string]bool{}
	var collect func(ast.SelectionSet)
	collect = func(set ast.SelectionSet) {
		for _, sel := range set {
			if p.budget < 0 { // checked before spreads too: a spread first expands before any field
				return
			}
			switch sel := sel.(type) {
			case *ast.Field:
				p.budget--
				if fields[sel.Alias] == 0 {
					keys = append(keys, sel.Alias)
				}
				fields[sel.Alias]++
				if len(sel.SelectionSet) > 0 {
					below[sel.Alias] = append(below[sel.Alias], sel.SelectionSet)
				}
			case *ast.InlineFragment:
				collect(sel.SelectionSet)
			case *ast.FragmentSpread:
				spread[sel.Name] = true // unknown ones too: 7,000 spreads of unknown fragments took 97 s
				if f := p.fragments[sel.Name]; f != nil && !p.entered[sel.Name] {
					p.entered[sel.Name] = true
					collect(f.SelectionSet)
					delete(p.entered, sel.Name)
				}
			}
		}
	}
	for _, set := range sets {
		collect(set)
	}
	p.pairs += len(spread) * (len(spread) - 1) / 2 // the rule compares fragments spread together too
	for _, key := range keys {
		m := fields[key]
		p.pairs += m * (m - 1) / 2
		if len(below[key]) > 0 {
			p.group(below[key])
		}
	}
}

// schemaFields is how many fields the __schema fields of op select,
// themselves included, fragments counted at each use: gqlgen's complexity
// leaves out every field of type __Schema and all below it.
func schemaFields(doc *ast.QueryDocument, op *ast.OperationDefinition) int {
	m := shapeMeter{fragments: map[string]*ast.FragmentDefinition{}, counted: map[string]selectionCount{}, cap: int(^uint(0) >> 2)}
	for _, f := range doc.Fragments {
		m.fragments[f.Name] = f
	}
	n := 0
	var walk func(ast.SelectionSet) // __schema is a field of the root only
	walk = func(set ast.SelectionSet) {
		for _, sel := range set {
			switch sel := sel.(type) {
			case *ast.Field:
				if sel.Name == "__schema" {
					n += 1 + m.selection(sel.SelectionSet).fields
				}
			case *ast.InlineFragment:
				walk(sel.SelectionSet)
			case *ast.FragmentSpread:
				if f := m.fragments[sel.Name]; f != nil {
					walk(f.SelectionSet)
				}
			}
		}
	}
	walk(op.SelectionSet)
	return n
}

// capErrors keeps the first limit errors of an answer and sums up the rest
// in one more: an unknown field is an error each, and a list of hundreds of
// thousands made a 124 MB answer.
func capErrors(limit int) graphql.ResponseMiddleware {
	return func(ctx context.Context, next graphql.ResponseHandler) *graphql.Response {
		resp := next(ctx)
		if resp != nil && len(resp.Errors) > limit {
			more := len(resp.Errors) - limit
			resp.Errors = append(resp.Errors[:limit:limit],
				limitError(codeTooManyErrors, "%d more errors left out (at most %d are listed)", more, limit))
		}
		return resp
	}
}

// introspectionAnswers remembers the answers of introspection-only queries
// by query text and operation name: the schema is fixed for the life of the
// process, and every GraphQL tool sends the same introspection document
// when it starts (the playground on each load). Answering it anew built
// the schema's type objects for every field of the answer (about 30 ms and
// 480 KB for the standard query); remembered, it costs a copy of the bytes.
// Only operations without variables whose root fields are all meta fields
// (__schema, __type, __typename) are remembered, only answers without
// errors.
type introspectionAnswers struct {
	known *weightedLRU[json.RawMessage]
}

// newIntrospectionAnswers keeps at most 8 MiB of answers: the standard one
// is 480 KB, and any client may send introspection documents of its own.
func newIntrospectionAnswers() *introspectionAnswers {
	return &introspectionAnswers{known: newWeightedLRU(introspectionCacheBytes, largestIntrospection, func(key string, data json.RawMessage) int {
		return len(key) + len(data)
	})}
}

func (a *introspectionAnswers) around(ctx context.Context, next graphql.OperationHandler) graphql.ResponseHandler {
	oc := graphql.GetOperationContext(ctx)
	if oc == nil || oc.Operation == nil || oc.Operation.Operation != ast.Query || len(oc.Operation.VariableDefinitions) > 0 ||
		!onlyMetaFields(oc.Doc, oc.Operation.SelectionSet, 0) {
		return next(ctx)
	}
	key := planKey(oc.OperationName, oc.RawQuery)
	if data, ok := a.known.Get(ctx, key); ok {
		return graphql.OneShot(&graphql.Response{Data: data})
	}
	answer := next(ctx)
	return func(ctx context.Context) *graphql.Response {
		resp := answer(ctx)
		if resp != nil && len(resp.Errors) == 0 && resp.Data != nil {
			a.known.Add(ctx, key, resp.Data)
		}
		return resp
	}
}

// onlyMetaFields tells whether every field of the root selection set is
// __schema, __type or __typename (fragments of the root included).
func onlyMetaFields(doc *ast.QueryDocument, set ast.SelectionSet, depth int) bool {
	if depth > 8 { // fragments within fragments: not worth remembering
		return false
	}
	for _, sel := range set {
		switch sel := sel.(type) {
		case *ast.Field:
			if sel.Name != "__schema" && sel.Name != "__type" && sel.Name != "__typename" {
				return false
			}
		case *ast.InlineFragment:
			if !onlyMetaFields(doc, sel.SelectionSet, depth+1) {
				return false
			}
		case *ast.FragmentSpread:
			f := doc.Fragments.ForName(sel.Name)
			if f == nil || !onlyMetaFields(doc, f.SelectionSet, depth+1) {
				return false
			}
		}
	}
	return len(set) > 0
}
