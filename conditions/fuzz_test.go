package conditions

import (
	"errors"
	"testing"
	"time"
)

// FuzzConditions: any text either is refused by Check (a syntax error or a
// form outside the language, with a place inside the text) or evaluates
// within the budget; nothing panics or runs away.
func FuzzConditions(f *testing.F) {
	c := NewCache(256)
	visitor := map[string]any{"claims": map[string]any{"plans": []any{"pro", "team"}, "age": 42.0, "name": "Ada",
		"roles": []any{map[string]any{"name": "dev"}}, "unsigned": map[string]any{"isBetaUser": true}}}
	f.Fuzz(func(t *testing.T, src string) {
		if len(src) > 1024 {
			return // conditions are at most 1024 characters when saved
		}
		err := Check(src)
		var se *SyntaxError
		var na *NotAllowedError
		switch {
		case err == nil:
		case errors.As(err, &se):
			if se.Line < 1 || se.Column < 1 {
				t.Fatalf("syntax error without a place: %+v", se)
			}
		case errors.As(err, &na):
			if na.Line < 1 || na.Column < 1 || na.Line > lines(src) {
				t.Fatalf("refusal outside the text: %+v", na)
			}
		default:
			t.Fatalf("unexpected error type %T: %v", err, err)
		}
		start := time.Now()
		held := c.NewEvaluator(visitor).Eval(src)
		if d := time.Since(start); d > 2*time.Second {
			t.Fatalf("evaluation took %v", d)
		}
		if err != nil && held && src != "" { // "" is "no condition": true
			t.Fatalf("a refused condition held: %v", err)
		}
	})
}
