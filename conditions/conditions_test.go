package conditions

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"
)

func TestEval(t *testing.T) {
	c := NewCache(16)
	visitor := map[string]any{"claims": map[string]any{
		"plans":    []any{"pro", "team"},
		"unsigned": map[string]any{"isBetaUser": true},
		"roles":    []any{map[string]any{"name": "dev"}, map[string]any{"name": "ops"}},
		"age":      float64(42),
	}}
	e := c.NewEvaluator(visitor)
	for src, want := range map[string]bool{
		"": true,
		"visitor.claims.unsigned.isBetaUser === true":          true,
		"visitor.claims.plans.includes('pro')":                 true,
		"visitor.claims.plans.includes('free')":                false,
		"visitor.claims.roles.every(r => r.name.length === 3)": true,
		"visitor.claims.roles.some(r => r.name === 'qa')":      false,
		"visitor.claims.age > 40 && visitor.claims.age < 50":   true,
		"visitor.claims.missing.deep === 1":                    false, // throws: false
		"visitor.claims.plans":                                 true,  // truthy
		"undefinedGlobal":                                      false, // ReferenceError
		"typeof require === 'undefined' && typeof console === 'undefined' && typeof setTimeout === 'undefined'": true,
	} {
		if got := e.Eval(src); got != want {
			t.Errorf("%q: %v, want %v", src, got, want)
		}
	}
}

func TestTimeBudget(t *testing.T) {
	c := NewCache(4)
	c.Budget = 20 * time.Millisecond
	e := c.NewEvaluator(map[string]any{})
	start := time.Now()
	if e.Eval("(() => { while (true) {} })()") {
		t.Error("an endless loop held")
	}
	if d := time.Since(start); d > time.Second {
		t.Errorf("took %v", d)
	}
	// The runtime is usable after an interruption.
	if !e.Eval("1 + 1 === 2") {
		t.Error("runtime unusable after interrupt")
	}
}

func TestCheck(t *testing.T) {
	for _, src := range []string{"visitor.claims.a === true", "a &&\n b", "[1,2].includes(1)"} {
		if err := Check(src); err != nil {
			t.Errorf("%q: %v", src, err)
		}
	}
	for src, where := range map[string][2]int{
		"visitor.claims.a ===":  {1, 21},
		"a &&\n b )":            {2, 5}, // the ")" closes the wrapper: the error is past the end
		"a; b":                  {1, 2},
		"var x = 1":             {1, 1},
		"visitor.claims.a == (": {1, 22},
	} {
		err := Check(src)
		var se *SyntaxError
		if !errors.As(err, &se) {
			t.Errorf("%q: %v, want a syntax error", src, err)
			continue
		}
		if se.Line != where[0] || se.Column != where[1] {
			t.Errorf("%q: at %d:%d (%s), want %d:%d", src, se.Line, se.Column, se.Message, where[0], where[1])
		}
		if !strings.Contains(se.Error(), "line ") {
			t.Errorf("%q: %s", src, se)
		}
	}
}

func TestCompiledOnce(t *testing.T) {
	c := NewCache(4)
	p1, err := c.program("visitor.x === 1")
	if err != nil {
		t.Fatal(err)
	}
	p2, _ := c.program("visitor.x === 1")
	if p1 != p2 {
		t.Error("compiled twice")
	}
}

// hostile are conditions written to stall or exhaust the server: each is
// refused when saved, with its place.
var hostile = []string{
	"new Array(5e7).fill(0).length > 0",
	"'x'.repeat(4e8).length > 0",
	"visitor.claims.name.padStart(1e9).length > 0",
	"[0].fill(0, 0, 1e9).length > 0",
	"Array(5e7).length > 0",
	"Array.from({length: 1e9}).length > 0",
	"[...Array(1e9)].length > 0",
	"visitor.constructor.constructor('return 1')() === 1",
	"visitor['constructor'] === 1",
	"visitor.__proto__ === null",
	"visitor.claims.plans.prototype",
	"Function('while(true){}')()",
	"eval('1') === 1",
	"globalThis.visitor === 1",
	"this.visitor === 1",
	"(() => { while (true) {} })()",
	"visitor.claims.plans.some(p => { for (;;) {} })",
	"visitor.a = 1",
	"visitor.claims.n++ > 0",
	"(visitor.a, visitor.b)",
	"visitor.claims['constr' + 'uctor']",
	"visitor.claims[visitor.claims.key]",
	"/(a+)+$/.test(visitor.claims.name)",
	"`${visitor.claims.name}` === 'x'",
	"({}).toString() === ''",
	"delete visitor.claims",
	"void 0",
	"'a' in visitor",
	"visitor instanceof Object",
	"visitor.claims.plans.map(p => p).length > 0",
	"visitor.claims.plans.join('x'.repeat(1e6))",
	"visitor.claims.plans.some(function (p) { return true })",
	"visitor.claims.plans.some(async p => true)",
	"visitor.claims.plans.some((...p) => true)",
	"visitor.claims.plans.some(({a}) => a)",
	"visitor.claims.plans.some(p => p)(1)",
	"JSON.parse('1') === 1",
	"Math.max(1) === 1",
}

func TestHostileConditionsRefused(t *testing.T) {
	c := NewCache(64)
	e := c.NewEvaluator(map[string]any{"claims": map[string]any{"plans": []any{"pro"}, "name": "x"}})
	for _, src := range hostile {
		err := Check(src)
		var na *NotAllowedError
		var se *SyntaxError
		switch {
		case errors.As(err, &na):
			if na.Line < 1 || na.Column < 1 || na.Message == "" {
				t.Errorf("%q: no place: %+v", src, na)
			}
		case errors.As(err, &se):
		default:
			t.Errorf("%q: accepted (%v)", src, err)
		}
		// A condition stored before the allow-list existed is refused when
		// it runs too: false, at once.
		start := time.Now()
		if e.Eval(src) {
			t.Errorf("%q: held", src)
		}
		if d := time.Since(start); d > 100*time.Millisecond {
			t.Errorf("%q: took %v", src, d)
		}
	}
}

func TestNotAllowedPlace(t *testing.T) {
	for src, want := range map[string][3]any{
		"visitor.a &&\n  new Array(5)":       {2, 3, "new"},
		"visitor.name.repeat(1e9)":           {1, 14, `"repeat"`},
		"visitor.constructor":                {1, 9, `"constructor"`},
		"visitor.list.some(x => eval(x))":    {1, 24, `"eval"`},
		"visitor.list.some(x => { return })": {1, 24, "expression body"},
	} {
		var na *NotAllowedError
		if err := Check(src); !errors.As(err, &na) {
			t.Errorf("%q: %v", src, err)
			continue
		}
		if na.Line != want[0] || na.Column != want[1] || !strings.Contains(na.Message, want[2].(string)) {
			t.Errorf("%q: %d:%d %s, want %v", src, na.Line, na.Column, na.Message, want)
		}
	}
}

// The condition forms sites use stay allowed.
func TestAllowedForms(t *testing.T) {
	for _, src := range []string{
		"visitor.claims.unsigned.isBetaUser === true",
		"visitor.claims.plans.includes('pro') || visitor.claims.plans.includes(\"team\")",
		"visitor.claims.roles.every(r => r.name.length === 3)",
		"visitor.claims.roles.some((r, i) => r.name.toLowerCase().startsWith('d') && i >= 0)",
		"visitor.claims?.email?.endsWith('@example.com') ?? false",
		"visitor.claims['my-claim'] === 1 && visitor.claims.list[0] !== null",
		"visitor.claims.age > 40 ? visitor.claims.age < 50 : !visitor.claims.old",
		"['pro', 'team'].includes(visitor.claims.plan)",
		"(visitor.claims.n * 2 + 1) % 3 === -1 && typeof visitor.claims.x === 'undefined'",
		"visitor.claims.items.filter(i => i.on).length >= 2",
		"visitor.claims.items.find(i => i.id === 'a')?.on === true",
		"Boolean(visitor.claims.country) && Number(visitor.claims.n) > String(1).length",
	} {
		if err := Check(src); err != nil {
			t.Errorf("%q: %v", src, err)
		}
	}
}

// TestEvaluationBudgets runs allowed but expensive conditions over large
// claims: each is stopped (false) within its budget, by time or by
// memory, and the process's memory stays bounded.
func TestEvaluationBudgets(t *testing.T) {
	big := make([]any, 20000)
	for i := range big {
		big[i] = strings.Repeat("v", 64)
	}
	visitor := map[string]any{"claims": map[string]any{"a": big}}
	rssBefore := rss(t)
	for _, tc := range []struct {
		name          string
		budget, limit time.Duration
		memory        uint64
		src           string
	}{
		// Quadratic: 4e8 comparisons; only the time budget stops it.
		{"time", 25 * time.Millisecond, 300 * time.Millisecond, DefaultMemory,
			"visitor.claims.a.some(x => visitor.claims.a.some(y => x + y === 'z'))"},
		// Every outer step allocates a 20,000-element array: the memory
		// guard stops it long before its (generous) time budget.
		{"memory", 10 * time.Second, 2 * time.Second, 8 << 20,
			"visitor.claims.a.some(x => visitor.claims.a.filter(y => y.length > 0).length === 0)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := NewCache(4)
			c.Budget, c.Memory = tc.budget, tc.memory
			e := c.NewEvaluator(visitor)
			start := time.Now()
			if e.Eval(tc.src) {
				t.Fatal("held")
			}
			if d := time.Since(start); d > tc.limit {
				t.Fatalf("took %v", d)
			}
			if !e.Eval("visitor.claims.a.length === 20000") {
				t.Fatal("runtime unusable after the interruption")
			}
		})
	}
	if grown := rss(t) - rssBefore; grown > 256<<20 {
		t.Errorf("resident memory grew by %d MiB", grown>>20)
	}
}

// rss is the process's resident set size (Linux), or 0 elsewhere.
func rss(t *testing.T) int64 {
	t.Helper()
	raw, err := os.ReadFile("/proc/self/statm")
	if err != nil {
		return 0
	}
	var size, resident int64
	fmt.Sscan(string(raw), &size, &resident)
	return resident * int64(os.Getpagesize())
}
