package conditions

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"

	"github.com/dop251/goja"
	"github.com/dop251/goja/ast"
	"github.com/dop251/goja/file"
	"github.com/dop251/goja/token"
	"github.com/dop251/goja/unistring"
)

// The condition language is an allow-list of expression forms, checked on
// the parsed expression before it is saved and again before it runs:
//
//   - literals: strings, numbers, booleans, null, arrays of allowed
//     expressions (no spread, no objects, no regular expressions, no
//     templates);
//   - the globals visitor, undefined, NaN and Infinity, and the parameters of
//     the enclosing arrow functions; typeof of any name; names the sandbox
//     does not define (reading one throws, so the condition is false), but
//     never a built-in global (Function, eval, Array, globalThis...);
//   - member access: .name (any name but constructor, __proto__, prototype
//     and the __define/lookup accessors), ?.name, and [literal];
//   - operators: comparisons, logical (&&, ||, ??, !), arithmetic and
//     bitwise ones, the ternary;
//   - calls of Boolean, Number and String, and of the methods in
//     allowedMethods only, whose arguments are
//     allowed expressions or arrow functions (x => ..., (a, b) => ...) with
//     an expression body.
//
// Everything else is refused with its place: new, function literals and
// block bodies (so loops), assignments and updates, sequences, this,
// delete, void, in, instanceof, calls of anything not listed (eval,
// Function, repeat, padStart, fill, constructors...). None of the allowed
// methods allocates more than its receiver, so a condition's memory is
// bounded by the visitor's claims.

// allowedMethods are the methods a condition may call.
var allowedMethods = map[string]bool{
	"includes": true, "some": true, "every": true, "find": true, "findIndex": true, "filter": true,
	"indexOf": true, "lastIndexOf": true, "startsWith": true, "endsWith": true,
	"toLowerCase": true, "toUpperCase": true, "trim": true,
}

// allowedFunctions are the global conversions a condition may call
// (Boolean(visitor.claims.country) is what template conditions suggest).
var allowedFunctions = map[string]bool{"Boolean": true, "Number": true, "String": true}

// forbiddenNames are properties that lead out of plain data.
var forbiddenNames = map[string]bool{
	"constructor": true, "__proto__": true, "prototype": true,
	"__defineGetter__": true, "__defineSetter__": true, "__lookupGetter__": true, "__lookupSetter__": true,
}

var globals = map[string]bool{"visitor": true, "undefined": true, "NaN": true, "Infinity": true}

var allowedBinary = map[token.Token]bool{
	token.EQUAL: true, token.STRICT_EQUAL: true, token.NOT_EQUAL: true, token.STRICT_NOT_EQUAL: true,
	token.LESS: true, token.GREATER: true, token.LESS_OR_EQUAL: true, token.GREATER_OR_EQUAL: true,
	token.LOGICAL_AND: true, token.LOGICAL_OR: true, token.COALESCE: true,
	token.PLUS: true, token.MINUS: true, token.MULTIPLY: true, token.SLASH: true, token.REMAINDER: true, token.EXPONENT: true,
	token.AND: true, token.OR: true, token.EXCLUSIVE_OR: true, token.SHIFT_LEFT: true, token.SHIFT_RIGHT: true, token.UNSIGNED_SHIFT_RIGHT: true,
}

var allowedUnary = map[token.Token]bool{token.NOT: true, token.MINUS: true, token.PLUS: true, token.BITWISE_NOT: true, token.TYPEOF: true}

// NotAllowedError is a condition that parses but uses a form outside the
// condition language, with its place (1-based line and column).
type NotAllowedError struct {
	Line, Column int
	Message      string
}

func (e *NotAllowedError) Error() string {
	return fmt.Sprintf("line %d, column %d: %s", e.Line, e.Column, e.Message)
}

// checker walks one parsed condition.
type checker struct {
	file   *file.File
	params []map[unistring.String]bool // arrow parameters in scope, innermost last
}

func (c *checker) refuse(at file.Idx, format string, args ...any) error {
	p := c.file.Position(int(at) - c.file.Base())
	line := max(p.Line-1, 1) // the wrapper's "(" line
	return &NotAllowedError{Line: line, Column: p.Column, Message: fmt.Sprintf(format, args...)}
}

// inScope allows visitor, undefined, NaN, Infinity, the arrow parameters in
// scope, and names that do not exist in the sandbox at all (reading one
// throws a ReferenceError, so the condition is false); never a built-in
// global such as Function, eval, Array or globalThis.
func (c *checker) inScope(name unistring.String) bool {
	for _, s := range c.params {
		if s[name] {
			return true
		}
	}
	return globals[name.String()] || !builtinGlobals()[name.String()]
}

// builtinGlobals are the names the sandbox's global object holds.
var builtinGlobals = sync.OnceValue(func() map[string]bool {
	vm := goja.New()
	names := map[string]bool{}
	for _, n := range vm.GlobalObject().GetOwnPropertyNames() {
		names[n] = true
	}
	names["globalThis"] = true
	return names
})

func (c *checker) all(list []ast.Expression) error {
	for _, e := range list {
		if err := c.expr(e); err != nil {
			return err
		}
	}
	return nil
}

func (c *checker) expr(e ast.Expression) error {
	switch n := e.(type) {
	case *ast.StringLiteral, *ast.NumberLiteral, *ast.BooleanLiteral, *ast.NullLiteral:
		return nil
	case *ast.Identifier:
		if !c.inScope(n.Name) {
			return c.refuse(n.Idx, "%q is not available in a condition (use visitor, literals and arrow-function parameters)", n.Name)
		}
		return nil
	case *ast.ArrayLiteral:
		for _, v := range n.Value {
			if v == nil {
				continue // a hole: [1, , 2]
			}
			if _, spread := v.(*ast.SpreadElement); spread {
				return c.refuse(v.Idx0(), "spread (...) is not allowed in a condition")
			}
			if err := c.expr(v); err != nil {
				return err
			}
		}
		return nil
	case *ast.DotExpression:
		if forbiddenNames[n.Identifier.Name.String()] {
			return c.refuse(n.Identifier.Idx, "%q is not allowed in a condition", n.Identifier.Name)
		}
		return c.expr(n.Left)
	case *ast.BracketExpression:
		switch m := n.Member.(type) {
		case *ast.NumberLiteral:
		case *ast.StringLiteral:
			if forbiddenNames[m.Value.String()] {
				return c.refuse(m.Idx, "%q is not allowed in a condition", m.Value)
			}
		default:
			return c.refuse(n.LeftBracket, "a computed member ([...]) must be a string or number literal in a condition")
		}
		return c.expr(n.Left)
	case *ast.OptionalChain:
		return c.expr(n.Expression)
	case *ast.Optional:
		return c.expr(n.Expression)
	case *ast.BinaryExpression:
		if !allowedBinary[n.Operator] {
			return c.refuse(n.Left.Idx1(), "the operator %q is not allowed in a condition", n.Operator.String())
		}
		if err := c.expr(n.Left); err != nil {
			return err
		}
		return c.expr(n.Right)
	case *ast.UnaryExpression:
		if !allowedUnary[n.Operator] || n.Postfix {
			return c.refuse(n.Idx0(), "the operator %q is not allowed in a condition", n.Operator.String())
		}
		if _, name := n.Operand.(*ast.Identifier); name && n.Operator == token.TYPEOF {
			return nil // typeof of any name only tells whether it exists
		}
		return c.expr(n.Operand)
	case *ast.ConditionalExpression:
		return c.all([]ast.Expression{n.Test, n.Consequent, n.Alternate})
	case *ast.CallExpression:
		return c.call(n)
	case *ast.ArrowFunctionLiteral:
		return c.refuse(n.Start, "an arrow function is allowed only as the argument of a method call in a condition")
	case *ast.NewExpression:
		return c.refuse(n.New, "new is not allowed in a condition")
	case *ast.FunctionLiteral:
		return c.refuse(n.Function, "function literals are not allowed in a condition (use an arrow function with an expression body)")
	case *ast.AssignExpression:
		return c.refuse(n.Idx0(), "assignments are not allowed in a condition")
	case *ast.SequenceExpression:
		return c.refuse(n.Idx0(), "the comma operator is not allowed in a condition")
	case *ast.ThisExpression:
		return c.refuse(n.Idx, "this is not allowed in a condition")
	case *ast.RegExpLiteral:
		return c.refuse(n.Idx, "regular expressions are not allowed in a condition")
	case *ast.TemplateLiteral:
		return c.refuse(n.OpenQuote, "template literals are not allowed in a condition")
	case *ast.ObjectLiteral:
		return c.refuse(n.LeftBrace, "object literals are not allowed in a condition")
	}
	return c.refuse(e.Idx0(), "this expression form is not allowed in a condition")
}

// call allows receiver.method(args) for the allowed methods only.
func (c *checker) call(n *ast.CallExpression) error {
	callee := n.Callee
	if o, ok := callee.(*ast.Optional); ok { // receiver.method?.(...)
		callee = o.Expression
	}
	var name *ast.Identifier
	var receiver ast.Expression
	switch d := callee.(type) {
	case *ast.DotExpression:
		name, receiver = &d.Identifier, d.Left
	case *ast.OptionalChain: // receiver?.method(...) parses as a chain around the dot
		if dd, ok := d.Expression.(*ast.DotExpression); ok {
			name, receiver = &dd.Identifier, dd.Left
		}
	}
	if id, ok := callee.(*ast.Identifier); ok {
		if !allowedFunctions[id.Name.String()] {
			return c.refuse(id.Idx, "calling %q is not allowed in a condition (only Boolean, Number, String and the methods %s)", id.Name, methodList())
		}
		return c.all(n.ArgumentList)
	}
	if name == nil {
		if err := c.expr(callee); err != nil {
			return err // the more precise refusal inside the callee
		}
		return c.refuse(n.Callee.Idx0(), "only method calls (%s) are allowed in a condition", methodList())
	}
	if err := c.expr(receiver); err != nil {
		return err // refusals are reported left to right
	}
	if !allowedMethods[name.Name.String()] {
		return c.refuse(name.Idx, "calling %q is not allowed in a condition (allowed: %s)", name.Name, methodList())
	}
	for _, a := range n.ArgumentList {
		if f, ok := a.(*ast.ArrowFunctionLiteral); ok {
			if err := c.arrow(f); err != nil {
				return err
			}
			continue
		}
		if err := c.expr(a); err != nil {
			return err
		}
	}
	return nil
}

// arrow allows (a, b) => expression: plain parameters, an expression body.
func (c *checker) arrow(f *ast.ArrowFunctionLiteral) error {
	if f.Async {
		return c.refuse(f.Start, "async functions are not allowed in a condition")
	}
	body, ok := f.Body.(*ast.ExpressionBody)
	if !ok {
		return c.refuse(f.Body.Idx0(), "an arrow function in a condition must have an expression body, not a block")
	}
	scope := map[unistring.String]bool{}
	if f.ParameterList.Rest != nil {
		return c.refuse(f.ParameterList.Rest.Idx0(), "rest parameters are not allowed in a condition")
	}
	for _, b := range f.ParameterList.List {
		id, ok := b.Target.(*ast.Identifier)
		if !ok || b.Initializer != nil {
			return c.refuse(b.Target.Idx0(), "arrow-function parameters must be plain names in a condition")
		}
		scope[id.Name] = true
	}
	c.params = append(c.params, scope)
	defer func() { c.params = c.params[:len(c.params)-1] }()
	return c.expr(body.Expression)
}

func methodList() string {
	return strings.Join(slices.Sorted(maps.Keys(allowedMethods)), ", ")
}

// allowed checks a parsed condition (the wrapped expression statement).
func allowed(prog *ast.Program) error {
	c := &checker{file: prog.File}
	if len(prog.Body) != 1 {
		return c.refuse(prog.Idx0(), "a condition is one expression")
	}
	st, ok := prog.Body[0].(*ast.ExpressionStatement)
	if !ok {
		return c.refuse(prog.Idx0(), "a condition is one expression")
	}
	return c.expr(st.Expression)
}
