// Package conditions evaluates the visibility conditions of site spaces and
// sections: JavaScript expressions over a `visitor` object, written as the
// published platform writes them (visitor.claims.unsigned.isBetaUser ===
// true, visitor.claims.plans.includes('pro')).
//
// The sandbox is a goja runtime (an ECMAScript interpreter in pure Go) with
// nothing but the language's own built-ins and one global, `visitor`: no
// require, no console, no timers, no I/O of any kind. Conditions keep to
// an allow-list of expression forms (allow.go), checked when saved and
// before running. Each evaluation runs under a time budget and a memory
// guard (the runtime is interrupted when either runs out, and the
// condition counts as false). Programs are compiled once per condition text
// and cached; a compiled program is immutable and shared between runtimes.
package conditions

import (
	"encoding/json"
	"errors"
	"fmt"
	"runtime/metrics"
	"sync"
	"time"

	"github.com/dop251/goja"
	"github.com/dop251/goja/parser"
	lru "github.com/hashicorp/golang-lru/v2"
)

// DefaultBudget is the time one evaluation may take.
const DefaultBudget = 25 * time.Millisecond

// DefaultMemory is how much the process may allocate while one evaluation
// runs before it is stopped (the condition is then false).
const DefaultMemory = 64 << 20

// watchEvery is how often a running evaluation's time and the process's
// allocations are checked; evaluations shorter than that cost one timer.
const watchEvery = time.Millisecond

// SyntaxError is a condition that does not parse as one JavaScript
// expression, with the place (1-based line and column of the condition
// text) where parsing failed.
type SyntaxError struct {
	Line, Column int
	Message      string
}

func (e *SyntaxError) Error() string {
	return fmt.Sprintf("line %d, column %d: %s", e.Line, e.Column, e.Message)
}

// wrap makes the condition an expression statement: "(" on a line of its
// own keeps the condition's own line and column numbers one line down, and
// a statement list (a; b) or a declaration fails to parse, as it should.
func wrap(src string) string { return "(\n" + src + "\n)" }

// Check parses a condition and reports where it fails, without compiling:
// a *SyntaxError where it does not parse, a *NotAllowedError where it uses
// a form outside the condition language (see allow.go).
func Check(src string) error {
	prog, err := parser.ParseFile(nil, "condition", wrap(src), 0)
	if err == nil {
		return allowed(prog)
	}
	var list parser.ErrorList
	if errors.As(err, &list) && len(list) > 0 {
		e := list[0]
		line, col := e.Position.Line-1, e.Position.Column
		if line < 1 { // the opening parenthesis line: the condition's start
			line, col = 1, 1
		}
		if line > lines(src) { // the closing line: the condition ended too soon
			line = lines(src)
			col = lastLineLen(src) + 1
		}
		return &SyntaxError{Line: line, Column: col, Message: e.Message}
	}
	return &SyntaxError{Line: 1, Column: 1, Message: err.Error()}
}

func lines(s string) int {
	n := 1
	for _, c := range s {
		if c == '\n' {
			n++
		}
	}
	return n
}

func lastLineLen(s string) int {
	n := 0
	for _, c := range s {
		n++
		if c == '\n' {
			n = 0
		}
	}
	return n
}

// Cache holds compiled conditions by their text.
type Cache struct {
	programs *lru.Cache[string, *goja.Program]
	Budget   time.Duration // time one evaluation may take
	Memory   uint64        // bytes the process may allocate during one evaluation
}

// NewCache keeps up to size compiled conditions.
func NewCache(size int) *Cache {
	c, _ := lru.New[string, *goja.Program](size)
	return &Cache{programs: c, Budget: DefaultBudget, Memory: DefaultMemory}
}

// program compiles src once.
func (c *Cache) program(src string) (*goja.Program, error) {
	if p, ok := c.programs.Get(src); ok {
		return p, nil
	}
	if err := Check(src); err != nil {
		return nil, err
	}
	p, err := goja.Compile("condition", wrap(src), true)
	if err != nil {
		return nil, err
	}
	c.programs.Add(src, p)
	return p, nil
}

// Evaluator evaluates conditions for one visitor: one runtime, whose only
// global beyond the built-ins is `visitor`. It is not safe for concurrent
// use; make one per request.
type Evaluator struct {
	cache *Cache
	vm    *goja.Runtime
	err   error
}

// NewEvaluator builds the sandbox with visitor (a JSON-like value, usually
// {"claims": {...}}) as the global `visitor`. The value is copied into the
// runtime through JSON, so conditions see plain objects and arrays (with
// .includes, .every, .some) and cannot reach Go values.
func (c *Cache) NewEvaluator(visitor any) *Evaluator {
	e := &Evaluator{cache: c, vm: goja.New()}
	e.vm.SetMaxCallStackSize(256) // arrow functions cannot recurse, but bound it anyway
	raw, err := json.Marshal(visitor)
	if err != nil {
		e.err = err
		return e
	}
	parse, _ := goja.AssertFunction(e.vm.Get("JSON").ToObject(e.vm).Get("parse"))
	v, err := parse(goja.Undefined(), e.vm.ToValue(string(raw)))
	if err != nil {
		e.err = err
		return e
	}
	e.err = e.vm.Set("visitor", v)
	return e
}

// Eval tells whether the condition holds: an empty condition is true; a
// condition that does not compile, throws, or runs out of time is false.
// The result is the expression's truthiness.
func (e *Evaluator) Eval(src string) bool {
	if src == "" {
		return true
	}
	if e.err != nil {
		return false
	}
	p, err := e.cache.program(src)
	if err != nil {
		return false
	}
	stop := e.watch()
	v, err := e.vm.RunProgram(p)
	stop()
	e.vm.ClearInterrupt()
	if err != nil {
		return false
	}
	return v.ToBoolean()
}

// watch interrupts the running evaluation when it outlives the time budget
// or when the process has allocated more than the memory budget since it
// started (goja has no per-runtime allocation limit; the allow-list keeps
// a condition's allocations to the size of the claims, and this is the
// guard behind it). It returns the function that ends the watch.
//
// The allocation baseline is read at the first check, not at the start:
// the thousands of evaluations that end within a millisecond then cost one
// timer each, and what one millisecond of a condition can allocate (the
// allow-list has no call that allocates a large block at once) stays far
// below the budget.
func (e *Evaluator) watch() (stop func()) {
	start := time.Now()
	var allocated uint64
	var mu sync.Mutex
	done := false
	var timer *time.Timer
	check := func() {
		mu.Lock()
		defer mu.Unlock()
		if allocated == 0 {
			allocated = heapAllocated()
		}
		switch {
		case done:
		case time.Since(start) >= e.cache.Budget:
			e.vm.Interrupt("time budget exceeded")
		case heapAllocated()-allocated > e.cache.Memory:
			e.vm.Interrupt("memory budget exceeded")
		default:
			timer.Reset(min(watchEvery, e.cache.Budget))
		}
	}
	mu.Lock()
	timer = time.AfterFunc(min(watchEvery, e.cache.Budget), check)
	mu.Unlock()
	return func() {
		mu.Lock()
		done = true
		timer.Stop()
		mu.Unlock()
	}
}

// heapAllocated is the bytes the process has allocated on the heap so far
// (a cumulative counter that runtime/metrics reads without stopping the
// world).
func heapAllocated() uint64 {
	s := []metrics.Sample{{Name: "/gc/heap/allocs:bytes"}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return s[0].Value.Uint64()
}
