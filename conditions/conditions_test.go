package conditions

import (
	"errors"
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
